//! What `#[prompt]` and `#[resource]` submit about each argument or
//! template variable ([`ParamDef`]), the [`Arguments`] a client gives, and
//! the [`Completer`] shapes a `#[complete(path)]` function may have.

use std::future::Future;

use crate::tools::def::BoxFuture;

/// A prompt argument or a template variable, as `#[prompt]` and
/// `#[resource]` submit it. Not public API: its fields may change in any
/// release.
#[doc(hidden)]
#[derive(Debug)]
pub struct ParamDef {
    /// The parameter's name (without `r#`).
    pub name: &'static str,
    /// Its `///` docs, flattened to one line.
    pub description: Option<&'static str>,
    /// Prompts: whether it is not an `Option<..>`; template variables: always.
    pub required: bool,
    /// The shim of its `#[complete(path)]`.
    pub complete: Option<CompleteFn>,
    /// A unit-only enum's serde names (from its JSON Schema), else `None`.
    pub enum_values: fn() -> Option<Vec<String>>,
}

/// The shim `#[complete(path)]` generates: the completion function's
/// values, all of them, in its order. The runtime cuts the list to what a
/// response carries and computes `total` and `hasMore`.
#[doc(hidden)]
pub type CompleteFn = fn(CompleteRequest) -> BoxFuture<Vec<String>>;

/// One `completion/complete` request for one argument.
#[doc(hidden)]
#[derive(Clone, Debug, Default)]
pub struct CompleteRequest {
    /// What the user typed so far.
    pub prefix: String,
    /// The other arguments already given.
    pub arguments: Arguments,
}

/// Arguments given as text, by name: what a prompt is called with, and the
/// other arguments already given when one is completed (so that a
/// completion can depend on them).
///
/// ```
/// use mcp_runtime::Arguments;
///
/// let arguments = Arguments::from(vec![("language".to_owned(), "rust".to_owned())]);
/// assert_eq!(arguments.get("language"), Some("rust"));
/// assert_eq!(arguments.get("framework"), None);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Arguments(Vec<(String, String)>);

impl Arguments {
    /// The value of the argument `name`, if given.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }

    /// The arguments, as `(name, value)`, in the order given.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// How many arguments were given.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether none was given.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl From<Vec<(String, String)>> for Arguments {
    fn from(arguments: Vec<(String, String)>) -> Self {
        Arguments(arguments)
    }
}

impl FromIterator<(String, String)> for Arguments {
    fn from_iter<I: IntoIterator<Item = (String, String)>>(iter: I) -> Self {
        Arguments(iter.into_iter().collect())
    }
}

/// A function `#[complete(path)]` can name: an async or plain fn taking
/// the prefix (and, optionally, the other [`Arguments`]) and returning the
/// values, as any `IntoIterator` of `Into<String>`. `Marker` tells the four
/// shapes apart; the compiler infers it.
///
/// A plain fn is called on the async runtime's thread, not on the blocking
/// pool: keep it quick (a lookup in memory), and make it async if it does
/// I/O.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot complete a #[prompt] argument or a #[resource] template variable",
    label = "#[complete(...)] names an async or plain fn that takes `prefix: String` (and optionally `arguments: Arguments`) and returns the values",
    note = "for example `async fn languages(prefix: String) -> Vec<String>` or `fn frameworks(prefix: String, arguments: Arguments) -> Vec<&'static str>`",
    note = "the values may be any `IntoIterator` whose items are `Into<String>`"
)]
pub trait Completer<Marker> {
    /// The values for one request.
    fn complete(&self, request: CompleteRequest) -> BoxFuture<Vec<String>>;
}

/// The [`Completer`] markers of the four shapes.
#[doc(hidden)]
pub mod shapes {
    pub struct Prefix;
    pub struct PrefixAsync;
    pub struct PrefixArguments;
    pub struct PrefixArgumentsAsync;
}

fn collect<I>(values: I) -> Vec<String>
where
    I: IntoIterator,
    I::Item: Into<String>,
{
    values.into_iter().map(Into::into).collect()
}

#[diagnostic::do_not_recommend]
impl<F, I> Completer<shapes::Prefix> for F
where
    F: Fn(String) -> I,
    I: IntoIterator,
    I::Item: Into<String>,
{
    fn complete(&self, request: CompleteRequest) -> BoxFuture<Vec<String>> {
        Box::pin(std::future::ready(collect(self(request.prefix))))
    }
}

#[diagnostic::do_not_recommend]
impl<F, Fut, I> Completer<shapes::PrefixAsync> for F
where
    F: Fn(String) -> Fut,
    Fut: Future<Output = I> + Send + 'static,
    I: IntoIterator,
    I::Item: Into<String>,
{
    fn complete(&self, request: CompleteRequest) -> BoxFuture<Vec<String>> {
        let values = self(request.prefix);
        Box::pin(async move { collect(values.await) })
    }
}

#[diagnostic::do_not_recommend]
impl<F, I> Completer<shapes::PrefixArguments> for F
where
    F: Fn(String, Arguments) -> I,
    I: IntoIterator,
    I::Item: Into<String>,
{
    fn complete(&self, request: CompleteRequest) -> BoxFuture<Vec<String>> {
        Box::pin(std::future::ready(collect(self(
            request.prefix,
            request.arguments,
        ))))
    }
}

#[diagnostic::do_not_recommend]
impl<F, Fut, I> Completer<shapes::PrefixArgumentsAsync> for F
where
    F: Fn(String, Arguments) -> Fut,
    Fut: Future<Output = I> + Send + 'static,
    I: IntoIterator,
    I::Item: Into<String>,
{
    fn complete(&self, request: CompleteRequest) -> BoxFuture<Vec<String>> {
        let values = self(request.prefix, request.arguments);
        Box::pin(async move { collect(values.await) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prompt;

    #[test]
    fn arguments_by_name() {
        let arguments: Arguments = [("a", "1"), ("b", "2")]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect();
        assert_eq!(arguments.get("b"), Some("2"));
        assert_eq!(arguments.get("c"), None);
        assert_eq!(arguments.len(), 2);
        assert!(!arguments.is_empty());
        assert!(Arguments::default().is_empty());
        assert_eq!(
            arguments.iter().collect::<Vec<_>>(),
            [("a", "1"), ("b", "2")]
        );
    }

    const LANGUAGES: [&str; 4] = ["go", "python", "ruby", "rust"];

    fn starting(prefix: &str) -> impl Iterator<Item = &'static str> {
        LANGUAGES.into_iter().filter(move |l| l.starts_with(prefix))
    }

    fn plain(prefix: String) -> Vec<&'static str> {
        starting(&prefix).collect()
    }

    async fn asynchronous(prefix: String) -> Vec<String> {
        tokio::task::yield_now().await;
        starting(&prefix).map(str::to_uppercase).collect()
    }

    fn with_arguments(prefix: String, arguments: Arguments) -> std::vec::IntoIter<String> {
        let framework = arguments.get("framework").unwrap_or("none");
        starting(&prefix)
            .map(|l| format!("{l}/{framework}"))
            .collect::<Vec<_>>()
            .into_iter()
    }

    async fn asynchronous_with_arguments(prefix: String, arguments: Arguments) -> [String; 2] {
        [prefix, arguments.len().to_string()]
    }

    /// Completes each argument in another shape.
    #[prompt]
    async fn test_completed(
        #[complete(plain)] a: String,
        #[complete(asynchronous)] b: String,
        #[complete(with_arguments)] c: String,
        #[complete(self::asynchronous_with_arguments)] d: Option<String>,
    ) -> String {
        format!("{a}{b}{c}{d:?}")
    }

    #[tokio::test]
    async fn completers_of_all_four_shapes() {
        let def = inventory::iter::<crate::prompts::PromptDef>
            .into_iter()
            .find(|def| def.name == "test_completed")
            .unwrap();
        let complete = |i: usize, prefix: &str, arguments: &[(&str, &str)]| {
            let request = CompleteRequest {
                prefix: prefix.into(),
                arguments: arguments
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
            };
            (def.arguments[i].complete.unwrap())(request)
        };
        assert_eq!(complete(0, "r", &[]).await, ["ruby", "rust"]);
        assert_eq!(complete(0, "x", &[]).await, Vec::<String>::new());
        assert_eq!(complete(1, "ru", &[]).await, ["RUBY", "RUST"]);
        assert_eq!(complete(2, "g", &[("framework", "gin")]).await, ["go/gin"]);
        assert_eq!(complete(2, "g", &[]).await, ["go/none"]);
        assert_eq!(
            complete(3, "p", &[("a", "1"), ("b", "2")]).await,
            ["p", "2"]
        );
        assert!(!def.arguments[3].required);
    }
}
