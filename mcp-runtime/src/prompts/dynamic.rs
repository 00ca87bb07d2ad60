//! Prompts defined at run time, for proxies and plugin hosts.

use std::future::Future;
use std::sync::Arc;

use crate::completion::complete::{Completer, DynCompleters, Param};
use crate::completion::def::Arguments;
use crate::context::Context;
use crate::location::Location;
use crate::meta::{Icon, Metadata};
use crate::prompts::build::{DynGetter, Getter, Prompt};
use crate::prompts::def::PromptError;
use crate::prompts::message::GetPromptResult;
use crate::registry::error::RegistryError;

/// A prompt defined at run time: a name, its arguments and an async closure
/// that gives its messages. Add it with [`Server::prompt`](crate::Server::prompt).
///
/// Required arguments are checked before the closure runs.
///
/// ```
/// use mcp_runtime::{DynamicPrompt, GetPromptResult, PromptMessage, Server};
///
/// let greet = DynamicPrompt::new("greet", |args, _ctx| async move {
///     let name = args.get("name").unwrap_or("you").to_owned();
///     Ok(GetPromptResult::new(vec![PromptMessage::user(format!("Say hello to {name}."))]))
/// })
/// .description("Greets someone.")
/// .argument("name", "Who to greet.", true);
/// let server = Server::new("host", "1.0.0").prompt(greet);
/// # let _ = server;
/// ```
pub struct DynamicPrompt {
    pub(crate) name: String,
    pub(crate) title: Option<String>,
    pub(crate) description: Option<String>,
    pub(crate) icons: Vec<Icon>,
    pub(crate) meta: Option<serde_json::Value>,
    pub(crate) scopes: Vec<String>,
    pub(crate) arguments: Vec<Param>,
    pub(crate) completers: DynCompleters,
    pub(crate) getter: DynGetter,
    pub(crate) location: Location,
}

impl DynamicPrompt {
    /// A prompt named `name`, whose messages `get` gives.
    #[track_caller]
    pub fn new<F, Fut>(name: impl Into<String>, get: F) -> Self
    where
        F: Fn(Arguments, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<GetPromptResult, PromptError>> + Send + 'static,
    {
        let getter: DynGetter = Arc::new(move |arguments, ctx| Box::pin(get(arguments, ctx)));
        DynamicPrompt {
            name: name.into(),
            title: None,
            description: None,
            icons: Vec::new(),
            meta: None,
            scopes: Vec::new(),
            arguments: Vec::new(),
            completers: DynCompleters::default(),
            getter,
            location: Location::caller(),
        }
    }

    /// Sets the human-readable title.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets the description.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Adds an icon (shown to 2025-11-25 clients).
    pub fn icon(mut self, icon: Icon) -> Self {
        self.icons.push(icon);
        self
    }

    /// Sets its `_meta` (shown to 2025-06-18 clients and later): a JSON
    /// object, or the server refuses to start.
    pub fn meta(mut self, meta: serde_json::Value) -> Self {
        self.meta = Some(meta);
        self
    }

    /// Sets the OAuth scopes a caller's token must carry to get it (each
    /// an RFC 6749 scope token: printable ASCII without spaces, `"` or `\`;
    /// none twice, or the server refuses to start). Not shown to clients;
    /// HTTP authorization refuses a get whose token lacks one of them.
    pub fn scopes<I, S>(mut self, scopes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Adds an argument.
    pub fn argument(
        mut self,
        name: impl Into<String>,
        description: impl Into<String>,
        required: bool,
    ) -> Self {
        self.arguments.push(Param {
            name: name.into(),
            description: Some(description.into()),
            required,
            completer: Completer::None,
        });
        self
    }

    /// Completes the argument `argument` with `complete`, called with what
    /// was typed and the other arguments already given.
    pub fn complete<F, Fut>(mut self, argument: impl Into<String>, complete: F) -> Self
    where
        F: Fn(String, Arguments) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Vec<String>> + Send + 'static,
    {
        self.completers.add(argument.into(), complete);
        self
    }

    pub(crate) fn build(&self) -> Result<Prompt, RegistryError> {
        let invalid = |reason: String| RegistryError::InvalidPrompt {
            name: self.name.clone(),
            location: self.location,
            reason,
        };
        let mut names: Vec<&str> = self.arguments.iter().map(|p| p.name.as_str()).collect();
        names.sort_unstable();
        if let Some(pair) = names.windows(2).find(|pair| pair[0] == pair[1]) {
            return Err(invalid(format!("it has two arguments named `{}`", pair[0])));
        }
        let mut arguments = self.arguments.clone();
        self.completers.attach(&mut arguments).map_err(|name| {
            invalid(format!(
                "`complete` names the argument `{name}`, which was not added with `argument`"
            ))
        })?;
        Ok(Prompt {
            name: Arc::from(self.name.as_str()),
            title: self.title.clone(),
            description: self.description.clone(),
            metadata: Metadata::from_dynamic(&self.icons, self.meta.as_ref(), &self.scopes)
                .map_err(invalid)?,
            arguments,
            getter: Getter::Dynamic(Arc::clone(&self.getter)),
            location: self.location,
        })
    }
}
