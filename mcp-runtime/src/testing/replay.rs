//! Checking a tool against the rule of the 2026-07-28 protocol: a call
//! whose questions are served by running it again with the answers.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use crate::asking::replay::{Replay, Run};
use crate::context::{ClientInfo, Context, RequestScope, SessionShared};
use crate::protocol::version::ProtocolVersion;
use crate::registry::{CallError, Registry};
use crate::tools::output::CallToolResult;

/// The most rounds [`call_replaying`] allows before it gives up on a tool
/// that asks forever.
pub const MAX_ROUNDS: usize = 32;

/// What [`call_replaying`] saw.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Replayed {
    /// The call's result, from its last run.
    pub result: CallToolResult,
    /// How many times the tool ran: one more than the rounds of questions.
    pub runs: usize,
    /// Each question answered, in order: its method and params.
    pub questions: Vec<(String, Value)>,
}

/// Calls the tool `name` of `registry` as the 2026-07-28 protocol serves
/// its questions: without asking during the call. Each run stops at the
/// first question with no answer; `answer` gives the answer (the result a
/// client would send for that `method` and `params`); the tool then runs
/// again from the start with every answer so far, until it finishes.
///
/// Use it to check that a tool follows the rule: whatever it does before a
/// question runs once per round, so side effects belong after the
/// questions.
///
/// ```standalone_crate
/// use mcp_runtime::{Context, Elicit, Elicited, Server, tool, serde_json::json};
/// use mcp_runtime::testing::call_replaying;
///
/// #[derive(Elicit)]
/// struct Confirm { confirm: bool }
///
/// /// Deletes the drafts once the user confirms.
/// #[tool(destructive)]
/// async fn delete_drafts(ctx: Context) -> String {
///     match ctx.elicit::<Confirm>("Delete all drafts?").await {
///         Ok(Elicited::Accepted(Confirm { confirm: true })) => "deleted".into(),
///         _ => "kept".into(),
///     }
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let registry = Server::new("drafts", "1.0.0").registry().unwrap();
/// let replayed = call_replaying(&registry, "delete_drafts", json!({}), |_, _| {
///     json!({"action": "accept", "content": {"confirm": true}})
/// })
/// .await
/// .unwrap();
/// assert_eq!(replayed.result.text(), "deleted");
/// assert_eq!(replayed.runs, 2);
/// # }
/// ```
///
/// The client is taken to declare elicitation (both modes), sampling and
/// roots. Panics if the tool still asks after [`MAX_ROUNDS`] rounds.
pub async fn call_replaying(
    registry: &Registry,
    name: &str,
    arguments: Value,
    mut answer: impl FnMut(&str, &Value) -> Value,
) -> Result<Replayed, CallError> {
    let (tool, arguments) = registry.callable(name, arguments)?;
    let client = ClientInfo {
        name: "call_replaying".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        capabilities: json!({"elicitation": {"form": {}, "url": {}}, "sampling": {}, "roots": {}}),
    };
    let mut answers = HashMap::new();
    let mut questions = Vec::new();
    for runs in 1..=MAX_ROUNDS {
        let session = SessionShared::new(
            Arc::clone(&registry.state),
            ProtocolVersion::LATEST,
            client.clone(),
        );
        let replay = Arc::new(Replay::new(answers.clone()));
        let ctx = Context::for_request(RequestScope {
            session: Arc::new(session),
            name: Arc::clone(&tool.name),
            id: crate::RequestId::server(runs as u64),
            progress_token: None,
            cancellation: Default::default(),
            progress: Mutex::default(),
            out: crate::outbox::Outbox::discard(),
            identity: None,
            replay: Some(Arc::clone(&replay)),
            required: Default::default(),
            task: Default::default(),
        });
        match replay.run(tool.call(arguments.clone(), ctx, None)).await {
            Run::Done(outcome) => {
                return Ok(Replayed {
                    result: outcome.into_result(),
                    runs,
                    questions,
                });
            }
            Run::NeedsInput(raised) => {
                for question in raised {
                    let given = answer(&question.method, &question.params);
                    questions.push((question.method, question.params));
                    answers.insert(question.key, given);
                }
            }
        }
    }
    panic!("`{name}` still asks after {MAX_ROUNDS} rounds: does each run ask the same questions?")
}
