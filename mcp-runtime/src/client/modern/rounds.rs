//! Multi round-trip requests (SEP-2322): a `tools/call`, `prompts/get` or
//! `resources/read` the server answers `input_required` is sent again,
//! as a new request (a new JSON-RPC id), with the answers to its
//! `inputRequests` in `inputResponses` and its `requestState` exactly as
//! it came (none when it sent none). Each input request is answered by
//! the handler that answers the same request of the legacy era
//! (elicitation, sampling, roots), within the request timeout; a handler's
//! refusal fails the call (the era has no error answer to an input
//! request). A result without `resultType` is complete.

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::client::error::ClientError;
use crate::client::session::{ProgressFn, Session};

/// How many times a request is sent again before the client gives up on
/// a server that keeps asking.
const MAX_ROUNDS: usize = 16;

/// Whether requests of `method` may be answered `input_required`.
pub(crate) fn may_ask(method: &str) -> bool {
    matches!(method, "tools/call" | "prompts/get" | "resources/read")
}

/// Sends `method` with `params`, round after round, until the server
/// answers with something other than `input_required`.
pub(crate) async fn request(
    session: &Arc<Session>,
    method: &str,
    params: &Value,
    progress: Option<ProgressFn>,
) -> Result<Value, ClientError> {
    let mut round = params.clone();
    for _ in 0..MAX_ROUNDS {
        let result = session
            .request(method, round, progress.clone(), true)
            .await?;
        if result.get("resultType").and_then(Value::as_str) != Some("input_required") {
            return Ok(result);
        }
        let mut responses = Map::new();
        let asked = result.get("inputRequests").and_then(Value::as_object);
        for (key, request) in asked.into_iter().flatten() {
            let asked = request
                .get("method")
                .and_then(Value::as_str)
                .unwrap_or_default();
            // A handler gets the request's timeout to answer.
            let answer = session.answer_for(asked, request.get("params").cloned());
            let answer = tokio::time::timeout(session.timeout(), answer)
                .await
                .map_err(|_| ClientError::Timeout)?
                .map_err(|error| ClientError::Rpc {
                    code: error.code,
                    message: format!(
                        "the client could not answer the server's {asked} (input request {key:?}): {}",
                        error.message
                    ),
                    data: error.data,
                })?;
            responses.insert(key.clone(), answer);
        }
        round = params.clone();
        let Some(fields) = round.as_object_mut() else {
            return Err(ClientError::InvalidResponse {
                method: method.to_owned(),
                reason: "input_required for a request whose params are not an object".into(),
            });
        };
        if !responses.is_empty() {
            fields.insert("inputResponses".into(), Value::Object(responses));
        }
        if let Some(state) = result.get("requestState") {
            fields.insert("requestState".into(), state.clone());
        }
    }
    Err(ClientError::InvalidResponse {
        method: method.to_owned(),
        reason: format!("the server still asked for input after {MAX_ROUNDS} rounds"),
    })
}
