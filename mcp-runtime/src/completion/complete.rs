//! A served parameter of a prompt or resource template, and how its values
//! are completed: with the `#[complete]` fn, from a unit-only enum's
//! values, or not at all.

use std::sync::Arc;

use serde::Serialize;

use crate::completion::def::{Arguments, CompleteFn, CompleteRequest, ParamDef};
use crate::tools::def::BoxFuture;

/// At most this many values go in one `completion/complete` answer.
pub(crate) const MAX_VALUES: usize = 100;

/// Completes a value from what was typed so far and the other arguments.
pub(crate) type DynCompleter =
    Arc<dyn Fn(String, Arguments) -> BoxFuture<Vec<String>> + Send + Sync>;

/// Completions given at run time for parameters, by name, as
/// `DynamicResource::complete` and `DynamicPrompt::complete` collect them.
#[derive(Clone, Default)]
pub(crate) struct DynCompleters(Vec<(String, DynCompleter)>);

impl DynCompleters {
    /// Completes the parameter `name` with `complete`.
    pub(crate) fn add<F, Fut>(&mut self, name: String, complete: F)
    where
        F: Fn(String, Arguments) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Vec<String>> + Send + 'static,
    {
        let completer: DynCompleter =
            Arc::new(move |prefix, given| Box::pin(complete(prefix, given)));
        self.0.push((name, completer));
    }

    /// Gives each named parameter of `params` its completer; a name that
    /// is no parameter is returned as the error.
    pub(crate) fn attach<'a>(&'a self, params: &mut [Param]) -> Result<(), &'a str> {
        for (name, completer) in &self.0 {
            let param = params
                .iter_mut()
                .find(|p| &p.name == name)
                .ok_or(name.as_str())?;
            param.completer = Completer::Dynamic(Arc::clone(completer));
        }
        Ok(())
    }
}

/// Where a parameter's completions come from.
#[derive(Clone)]
pub(crate) enum Completer {
    /// Nothing completes it: the answer is no values.
    None,
    /// A `#[complete(path)]` fn.
    Static(CompleteFn),
    /// A closure given at run time.
    Dynamic(DynCompleter),
    /// A unit-only enum's values, filtered by prefix.
    Values(Arc<[String]>),
}

/// A prompt argument or a template variable, as served.
#[derive(Clone)]
pub(crate) struct Param {
    pub(crate) name: String,
    pub(crate) description: Option<String>,
    pub(crate) required: bool,
    pub(crate) completer: Completer,
}

impl Param {
    pub(crate) fn from_def(def: &ParamDef) -> Param {
        let completer = match (def.complete, (def.enum_values)()) {
            (Some(complete), _) => Completer::Static(complete),
            (None, Some(values)) => Completer::Values(values.into()),
            (None, None) => Completer::None,
        };
        Param {
            name: def.name.to_owned(),
            description: def.description.map(str::to_owned),
            required: def.required,
            completer,
        }
    }

    /// Whether asking for this parameter's completions can give values.
    pub(crate) fn completes(&self) -> bool {
        !matches!(self.completer, Completer::None)
    }

    /// The candidate values for `prefix`, the other arguments being
    /// `arguments`, cut to [`MAX_VALUES`].
    pub(crate) async fn complete(&self, prefix: String, arguments: Arguments) -> Completion {
        let values = match &self.completer {
            Completer::None => Vec::new(),
            Completer::Static(complete) => complete(CompleteRequest { prefix, arguments }).await,
            Completer::Dynamic(complete) => complete(prefix, arguments).await,
            Completer::Values(values) => {
                let prefix = prefix.to_lowercase();
                values
                    .iter()
                    .filter(|value| value.to_lowercase().starts_with(&prefix))
                    .cloned()
                    .collect()
            }
        };
        Completion::of(values)
    }
}

/// The `completion` object of a `completion/complete` result.
#[derive(Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Completion {
    pub(crate) values: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) total: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) has_more: Option<bool>,
}

impl Completion {
    /// The first [`MAX_VALUES`] of `values`, saying how many there were
    /// when some are left out.
    pub(crate) fn of(mut values: Vec<String>) -> Completion {
        if values.len() <= MAX_VALUES {
            return Completion {
                values,
                total: None,
                has_more: None,
            };
        }
        let total = values.len();
        values.truncate(MAX_VALUES);
        Completion {
            values,
            total: Some(total),
            has_more: Some(true),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn param(completer: Completer) -> Param {
        Param {
            name: "city".into(),
            description: None,
            required: true,
            completer,
        }
    }

    #[tokio::test]
    async fn enum_values_are_filtered_by_prefix_whatever_the_case() {
        let values: Arc<[String]> = ["Paris", "Porto", "Oslo"].map(String::from).into();
        let completion = param(Completer::Values(values))
            .complete("p".into(), Arguments::default())
            .await;
        assert_eq!(completion.values, ["Paris", "Porto"]);
        assert_eq!(completion.total, None);
    }

    #[tokio::test]
    async fn no_completer_completes_nothing() {
        let completion = param(Completer::None)
            .complete("p".into(), Arguments::default())
            .await;
        assert!(completion.values.is_empty());
        assert_eq!(
            serde_json::to_value(&completion).unwrap(),
            serde_json::json!({"values": []})
        );
    }

    #[test]
    fn more_than_a_hundred_values_are_cut_and_counted() {
        let values: Vec<String> = (0..250).map(|i| i.to_string()).collect();
        let completion = Completion::of(values);
        assert_eq!(completion.values.len(), MAX_VALUES);
        assert_eq!(completion.values[99], "99");
        assert_eq!(
            serde_json::to_value(&completion).unwrap()["total"],
            serde_json::json!(250)
        );
        assert_eq!(completion.has_more, Some(true));
    }
}
