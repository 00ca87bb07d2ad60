//! Requests the server sends its client while a call runs (elicitation,
//! sampling, roots), and the client's answers routed back to the call
//! that asked, by id.
//!
//! Our ids are strings (`"mcp-rs-1"`, `"mcp-rs-2"`…), counted per
//! session: they never look like the integers most clients number their
//! own requests with, and each direction has its own ids anyway. In a
//! fleet they name the instance that asks (`"mcp-rs-ab12cd34-1"`),
//! counted per process: the client may POST the answer to any instance,
//! which routes it by the tag. An answer that matches no question waiting
//! (answered already, given up, or never asked) is ignored and logged.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;
use tokio::sync::oneshot;

use crate::jsonrpc::{Failed, InstanceTag, RequestId};

/// How long a question waits for the client's answer unless
/// [`Server::client_request_timeout`](crate::Server::client_request_timeout)
/// says otherwise.
pub(crate) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(300);

/// Why a request to the client gave no result.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ClientRequestError {
    /// The client did not declare the capability the request needs (in
    /// `initialize`): it would not know what to do with it.
    #[error("the client did not declare the `{0}` capability, so it cannot be asked for it")]
    NotSupported(String),
    /// The server runs stateless HTTP (`Server::stateless`), where each
    /// request stands alone: a client's answer would arrive in a request
    /// of its own, with nothing to route it back to the call that asked.
    /// So no client can be asked for anything (`elicitation`, `sampling`,
    /// `roots`, or the method named), whatever it declared.
    #[error(
        "this server runs stateless HTTP, which has no channel back to the client, so it cannot \
         ask the client for `{0}`; serve HTTP with sessions (without `--stateless` or \
         `Server::stateless`) to ask clients of protocol 2025-11-25 and earlier"
    )]
    Stateless(String),
    /// The client answered with a JSON-RPC error.
    #[error("the client answered error {code}: {message}")]
    Rejected {
        /// The error code.
        code: i32,
        /// The message.
        message: String,
        /// Its data, if any.
        data: Option<Value>,
    },
    /// The client did not answer in time.
    #[error("the client did not answer within {0:?}")]
    Timeout(Duration),
    /// The call that asked was cancelled while it waited.
    #[error("the call was cancelled while it waited for the client")]
    Cancelled,
    /// The client went away, or its output is closed.
    #[error("the client went away before answering")]
    Disconnected,
    /// The client's answer does not fit what was asked (an elicitation
    /// answer that breaks the form's schema, a sampling result without a
    /// model): each problem, named.
    #[error("the client's answer does not fit what was asked: {0}")]
    InvalidAnswer(String),
    /// The request breaks a rule of the protocol, so it was not sent (a
    /// sampling conversation whose tool uses have no results, a URL-mode
    /// elicitation without an absolute URL, a form whose `pattern` is not a
    /// regular expression): fix the tool.
    #[error("the request was not sent: {0}")]
    InvalidRequest(String),
    /// The tool was called in process (`Registry::call`): there is no
    /// client to ask.
    #[error("there is no client to ask: the tool was called in process")]
    NoClient,
}

type Answer = Result<Value, ClientRequestError>;

/// The questions of one session that wait for their answers.
#[derive(Default)]
pub(crate) struct Asks {
    next: AtomicU64,
    /// The instance of the fleet this process is, which the ids name.
    instance: Option<InstanceTag>,
    waiting: Mutex<HashMap<String, oneshot::Sender<Answer>>>,
}

/// The number of the last question asked with a tagged id, by any session
/// of the process: one session's questions are asked by several instances
/// of a fleet, so their ids are unique only with the instance's tag and a
/// count that is not the session's.
static ASKED_IN_FLEET: AtomicU64 = AtomicU64::new(0);

impl Asks {
    /// The questions of a session of the fleet's instance `instance`
    /// (`None`: no fleet, ids as the default gives them).
    pub(crate) fn tagged(instance: Option<InstanceTag>) -> Asks {
        Asks {
            instance,
            ..Asks::default()
        }
    }

    /// A new id, and where its answer will arrive.
    pub(crate) fn open(&self) -> (RequestId, oneshot::Receiver<Answer>) {
        let id = match self.instance {
            Some(instance) => {
                let n = ASKED_IN_FLEET.fetch_add(1, Ordering::Relaxed) + 1;
                RequestId::server_of(instance, n)
            }
            None => RequestId::server(self.next.fetch_add(1, Ordering::Relaxed) + 1),
        };
        let (sender, receiver) = oneshot::channel();
        self.lock().insert(id.key(), sender);
        (id, receiver)
    }

    /// Whether a question with `id` waits for its answer.
    // For the transport of a fleet (issue 29), not built yet.
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) fn is_waiting(&self, id: &RequestId) -> bool {
        self.lock().contains_key(&id.key())
    }

    /// Forgets `id`: its answer, if it comes, is ignored.
    pub(crate) fn forget(&self, id: &RequestId) {
        self.lock().remove(&id.key());
    }

    /// Routes the client's answer to the question with `id`; `false`
    /// when no question waits for it.
    pub(crate) fn answer(
        &self,
        id: Option<&RequestId>,
        result: Option<&RawValue>,
        error: Option<&RawValue>,
    ) -> bool {
        let Some(sender) = id.and_then(|id| self.lock().remove(&id.key())) else {
            return false;
        };
        let answer = crate::jsonrpc::outcome(result, error).map_err(|failed| match failed {
            Failed::Error(error) => ClientRequestError::Rejected {
                code: error.code,
                message: error.message,
                data: error.data,
            },
            Failed::Malformed(reason) => {
                ClientRequestError::InvalidAnswer(format!("the response is malformed: {reason}"))
            }
        });
        let _ = sender.send(answer);
        true
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, oneshot::Sender<Answer>>> {
        self.waiting.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// One of the client's roots.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Root {
    /// Its URI (`file://` in 2025-11-25).
    pub uri: String,
    /// A name to show for it, if the client gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

impl Root {
    /// A root at `uri`, without a name.
    pub fn new(uri: impl Into<String>) -> Root {
        Root {
            uri: uri.into(),
            name: None,
        }
    }

    /// The same root, named `name`.
    pub fn named(mut self, name: impl Into<String>) -> Root {
        self.name = Some(name.into());
        self
    }
}

/// Whether `capabilities` (what the client sent in `initialize`) declare
/// `path`, a capability or one of its parts named with dots
/// (`sampling.tools`).
pub(crate) fn declares(capabilities: &Value, path: &str) -> bool {
    path.split('.')
        .try_fold(capabilities, |value, key| value.get(key))
        .is_some_and(|value| !value.is_null())
}

/// The capability a client must have declared to be sent `method`.
pub(crate) fn capability(method: &str) -> Option<&'static str> {
    match method {
        "elicitation/create" => Some("elicitation"),
        "sampling/createMessage" => Some("sampling"),
        "roots/list" => Some("roots"),
        _ => None,
    }
}
