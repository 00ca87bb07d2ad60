//! Prompts: what `#[prompt]` submits ([`PromptDef`]), the messages a prompt
//! returns, and how a prompt function's return value becomes the result of
//! `prompts/get`.

mod def;
mod message;
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
