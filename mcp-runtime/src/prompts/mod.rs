//! Prompts: what `#[prompt]` submits ([`PromptDef`]), the messages a prompt
//! returns, how a prompt function's return value becomes the result of
//! `prompts/get` (`output`), prompts defined at run time (`dynamic`), and
//! the served prompt built from either (`build`).

pub(crate) mod build;
pub(crate) mod def;
pub(crate) mod dynamic;
pub(crate) mod message;
mod output;

pub use def::{PromptDef, PromptError};
pub use message::{GetPromptResult, PromptMessage};
pub use output::{
    PromptErrorWithoutDisplay, PromptFnError, PromptFnReturn, PromptKindBadError,
    PromptKindMessages, PromptKindResultUnsupported, PromptKindUnsupported, PromptProbe,
    UnsupportedPromptReturn,
};

#[cfg(test)]
mod tests;
