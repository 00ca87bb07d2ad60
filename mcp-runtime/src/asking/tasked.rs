//! The way a call that became a task reaches its client: its questions
//! and progress go through the task (kept in the task store, read by the
//! client with `tasks/get` and answered with `tasks/update`), not to a
//! connection that may be gone. The request's scope holds one once the call
//! became a task; `tasks::asking` implements it.

use std::future::Future;
use std::pin::Pin;

use serde_json::Value;

use crate::asking::ask::ClientRequestError;

/// What a question through a task resolves to.
pub(crate) type Asking<'a> =
    Pin<Box<dyn Future<Output = Result<Value, ClientRequestError>> + Send + 'a>>;

/// A running task, as the call it runs sees it.
///
/// A 2026-07-28 task ([`related_task`](TaskChannel::related_task) `None`)
/// asks through [`ask`](TaskChannel::ask) and reports through
/// [`progress`](TaskChannel::progress). A 2025-11-25 task asks and reports
/// as a plain call does, on its session, with its id in every message's
/// `_meta` (`io.modelcontextprotocol/related-task`), and is
/// `input_required` while it waits ([`waiting`](TaskChannel::waiting)).
pub(crate) trait TaskChannel: Send + Sync {
    /// Asks the client `method` with `params` and waits for the answer;
    /// `key` is the question's name ([`Context::input_key`](crate::Context::input_key)).
    fn ask<'a>(&'a self, method: &'a str, params: Value, key: Option<&'a str>) -> Asking<'a>;

    /// Reports where the task stands (its status message).
    fn progress(&self, message: String);

    /// The id a 2025-11-25 task's messages carry; `None` in 2026-07-28.
    fn related_task(&self) -> Option<&str> {
        None
    }

    /// A 2025-11-25 task starts (`true`) or stops (`false`) waiting on an
    /// answer from its client.
    fn waiting(&self, _waiting: bool) {}
}
