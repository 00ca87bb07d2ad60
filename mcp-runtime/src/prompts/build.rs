//! A served prompt, built from what `#[prompt]` submitted or from a
//! [`DynamicPrompt`](crate::DynamicPrompt), and how one is got.

use std::fmt;
use std::sync::Arc;

use crate::completion::complete::Param;
use crate::completion::def::Arguments;
use crate::context::{Context, StateMap};
use crate::location::Location;
use crate::meta::Metadata;
use crate::prompts::def::{PromptDef, PromptError};
use crate::prompts::message::GetPromptResult;
use crate::registry::catalog::Keyed;
use crate::registry::error::{Primitive, RegistryError, check_state};
use crate::tools::def::BoxFuture;

/// What getting a prompt gives: its messages, or why not (-32602).
pub(crate) type GetResult = Result<GetPromptResult, PromptError>;

/// Gets a prompt defined at run time.
pub(crate) type DynGetter = Arc<dyn Fn(Arguments, Context) -> BoxFuture<GetResult> + Send + Sync>;

#[derive(Clone)]
pub(crate) enum Getter {
    Static(fn(Arguments, Context) -> BoxFuture<GetResult>),
    Dynamic(DynGetter),
}

/// A prompt, as served.
#[derive(Clone)]
pub struct Prompt {
    pub(crate) name: Arc<str>,
    pub(crate) title: Option<String>,
    pub(crate) description: Option<String>,
    pub(crate) metadata: Metadata,
    pub(crate) arguments: Vec<Param>,
    pub(crate) getter: Getter,
    pub(crate) location: Location,
}

impl Prompt {
    /// The name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The human-readable title, if any.
    pub fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }

    /// The description, if any.
    pub fn description(&self) -> Option<&str> {
        self.description.as_deref()
    }

    /// The OAuth scopes a caller's token must carry to get it (`scopes =
    /// [..]` on the attribute, or `.scopes(..)`); empty if none. Not shown to
    /// clients in `prompts/list`; HTTP authorization refuses a `prompts/get` whose token
    /// lacks one of them.
    pub fn scopes(&self) -> &[String] {
        &self.metadata.scopes
    }

    /// Where it was defined.
    pub fn location(&self) -> Location {
        self.location
    }

    /// The argument with this name.
    pub(crate) fn argument(&self, name: &str) -> Option<&Param> {
        self.arguments.iter().find(|p| p.name == name)
    }

    /// Gets the prompt's messages for these arguments. A required argument
    /// that is missing is refused here, before the handler runs.
    pub(crate) fn get(&self, arguments: Arguments, ctx: Context) -> BoxFuture<GetResult> {
        if let Some(missing) = self
            .arguments
            .iter()
            .find(|p| p.required && arguments.get(&p.name).is_none())
        {
            let error = PromptError(format!(
                "missing required argument `{}` of prompt `{}`",
                missing.name, self.name
            ));
            return Box::pin(async move { Err(error) });
        }
        match &self.getter {
            Getter::Static(get) => get(arguments, ctx),
            Getter::Dynamic(get) => get(arguments, ctx),
        }
    }
}

impl Keyed for Prompt {
    fn key(&self) -> &str {
        &self.name
    }

    fn location(&self) -> Location {
        self.location
    }
}

impl fmt::Debug for Prompt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Prompt")
            .field("name", &self.name)
            .field("location", &self.location)
            .finish_non_exhaustive()
    }
}

/// Builds the served prompt of a `#[prompt]` function.
pub(crate) fn build_static(
    def: &'static PromptDef,
    state: &StateMap,
) -> Result<Prompt, RegistryError> {
    check_state(
        def.requirements,
        state,
        Primitive::Prompt,
        def.name,
        def.location,
    )?;
    let metadata = Metadata::from_attribute(def.icons, def.meta, def.scopes).map_err(|reason| {
        RegistryError::InvalidPrompt {
            name: def.name.to_owned(),
            location: def.location,
            reason,
        }
    })?;
    Ok(Prompt {
        name: Arc::from(def.name),
        title: def.title.map(str::to_owned),
        description: def.description.map(str::to_owned),
        metadata,
        arguments: def.arguments.iter().map(Param::from_def).collect(),
        getter: Getter::Static(def.get),
        location: def.location,
    })
}
