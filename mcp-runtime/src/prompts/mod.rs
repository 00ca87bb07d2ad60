//! Prompts: reusable message templates a client fills in. What `#[prompt]`
//! submits (`def`), the messages (`message`), and the served prompt
//! (`build`).

pub(crate) mod build;
pub(crate) mod def;
pub(crate) mod dynamic;
pub(crate) mod message;
