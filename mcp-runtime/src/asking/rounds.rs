//! Multi round-trip requests, the 2026-07-28 way of asking the client: a
//! `tools/call`, `prompts/get` or `resources/read` whose handler asks (its
//! `ctx.elicit`, `ctx.sample`, `ctx.roots`) is run with the answers it was
//! sent (see [`crate::asking::replay`]); at the first question without one it
//! stops, and the request is answered `input_required` with every question
//! raised (`inputRequests`) and a signed `requestState` carrying the
//! answers so far. The client asks its user or model and sends the request
//! again with `inputResponses` and the state; the handler runs again with
//! all the answers, and goes further.

use std::future::Future;
use std::sync::{Arc, Mutex};

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::asking::replay::{Question, Replay, Run};
use crate::asking::request_state::{StateKeys, binding};
use crate::jsonrpc::{self, ErrorObject, INVALID_PARAMS, RequestId};

/// One round of a request that may ask: the answers it runs with, and the
/// questions it raised.
pub(crate) struct Round {
    /// Runs the call with every answer so far (those of the state and
    /// those just sent).
    pub(crate) replay: Arc<Replay>,
    /// What the state is bound to (see [`binding`]).
    binding: Binding,
    keys: Arc<StateKeys>,
    raised: Mutex<Option<Vec<Question>>>,
}

/// What a round's state is bound to: known when a state came with the
/// request (it was checked against it), else worked out only if the call
/// asks (most calls never do, and the digest of their arguments is not
/// free).
enum Binding {
    Known(String),
    Later {
        method: String,
        name: String,
        arguments: Value,
        caller: Option<String>,
    },
}

impl Binding {
    fn digest(&self) -> String {
        match self {
            Binding::Known(digest) => digest.clone(),
            Binding::Later {
                method,
                name,
                arguments,
                caller,
            } => binding(method, name, arguments, caller.as_deref()),
        }
    }
}

/// What a request that may ask says about its round.
pub(crate) struct Asked<'a> {
    pub(crate) method: &'a str,
    /// The tool or prompt name, or the resource URI.
    pub(crate) name: &'a str,
    pub(crate) arguments: &'a Value,
    pub(crate) input_responses: Option<&'a RawValue>,
    pub(crate) request_state: Option<&'a RawValue>,
    /// The authenticated caller, if any.
    pub(crate) caller: Option<&'a str>,
}

fn invalid(message: String) -> ErrorObject {
    ErrorObject::new(INVALID_PARAMS, format!("Invalid params: {message}"))
}

impl Round {
    /// The round `asked` is at: its `requestState` checked (a forged,
    /// expired or misplaced one is -32602) and its `inputResponses` read
    /// (each must be an object; keys that answer nothing are ignored).
    pub(crate) fn of(asked: &Asked<'_>, keys: &Arc<StateKeys>) -> Result<Round, ErrorObject> {
        let later = || Binding::Later {
            method: asked.method.to_owned(),
            name: asked.name.to_owned(),
            arguments: asked.arguments.clone(),
            caller: asked.caller.map(str::to_owned),
        };
        let (mut answers, binding) = match asked
            .request_state
            .map(|raw| serde_json::from_str(raw.get()))
        {
            None | Some(Ok(Value::Null)) => (Map::new(), later()),
            Some(Ok(Value::String(state))) => {
                let bound = binding(asked.method, asked.name, asked.arguments, asked.caller);
                let answers = keys
                    .open(&state, &bound)
                    .map_err(|why| invalid(format!("`requestState` was refused: {why}")))?;
                (answers, Binding::Known(bound))
            }
            Some(_) => return Err(invalid("`requestState` must be a string".into())),
        };
        match asked
            .input_responses
            .map(|raw| serde_json::from_str(raw.get()))
        {
            None | Some(Ok(Value::Null)) => {}
            Some(Ok(Value::Object(responses))) => {
                for (key, response) in responses {
                    if !response.is_object() {
                        return Err(invalid(format!(
                            "`inputResponses` entry {key:?} must be an object: the client's \
                             result for the input request of that key"
                        )));
                    }
                    answers.insert(key, response);
                }
            }
            Some(_) => {
                return Err(invalid(
                    "`inputResponses` must be an object of results by input request key".into(),
                ));
            }
        }
        Ok(Round {
            replay: Arc::new(Replay::new(answers.into_iter().collect())),
            binding,
            keys: Arc::clone(keys),
            raised: Mutex::new(None),
        })
    }

    /// Runs `call` with this round's answers: its result, or, when it
    /// stopped at questions, an interim value (the answer is then written
    /// by [`Round::write_input_required`]).
    pub(crate) async fn drive<R: Interim>(self: Arc<Self>, call: impl Future<Output = R>) -> R {
        let questions = match self.replay.run(call).await {
            // A call may raise questions and end without waiting for their
            // answers (`Context::url_elicitation_required`).
            Run::Done(result) => {
                let raised = self.replay.take_raised();
                if raised.is_empty() {
                    return result;
                }
                raised
            }
            Run::NeedsInput(questions) => questions,
        };
        if let Ok(mut raised) = self.raised.lock() {
            *raised = Some(questions);
        }
        R::interim()
    }

    /// The questions the run stopped at, once.
    pub(crate) fn take_raised(&self) -> Option<Vec<Question>> {
        self.raised.lock().ok().and_then(|mut raised| raised.take())
    }

    /// Writes the `input_required` answer to `id`: the questions, and the
    /// state that carries the answers so far.
    pub(crate) fn write_input_required(
        &self,
        out: &mut Vec<u8>,
        id: &RequestId,
        questions: &[Question],
    ) {
        let mut requests = Map::new();
        for question in questions {
            requests.insert(
                question.key.clone(),
                serde_json::json!({ "method": question.method, "params": question.params }),
            );
        }
        let result = serde_json::json!({
            "resultType": "input_required",
            "inputRequests": requests,
            "requestState": self.keys.seal(&self.binding.digest(), &self.replay.given()),
        });
        jsonrpc::write_result(out, id, &result);
    }
}

/// A placeholder answer of a run that stopped at questions: never
/// written (the `input_required` answer is), only logged.
pub(crate) trait Interim {
    fn interim() -> Self;
}

impl<T> Interim for Result<T, ErrorObject> {
    fn interim() -> Self {
        Err(ErrorObject::new(jsonrpc::INTERNAL_ERROR, "input required"))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn raw(value: &Value) -> Box<RawValue> {
        RawValue::from_string(value.to_string()).unwrap()
    }

    #[test]
    fn bad_responses_and_states_are_invalid_params() {
        let keys = Arc::new(StateKeys::new("k"));
        let args = json!({});
        let with = |responses: Option<Value>, state: Option<Value>| {
            let responses = responses.as_ref().map(raw);
            let state = state.as_ref().map(raw);
            Round::of(
                &Asked {
                    method: "tools/call",
                    name: "t",
                    arguments: &args,
                    input_responses: responses.as_deref(),
                    request_state: state.as_deref(),
                    caller: None,
                },
                &keys,
            )
            .err()
            .map(|e| (e.code, e.message))
        };
        assert_eq!(with(None, None), None);
        assert_eq!(
            with(Some(json!({"a": {"action": "decline"}, "extra": {}})), None),
            None
        );
        let (code, message) = with(Some(json!([1])), None).unwrap();
        assert_eq!(code, -32602);
        assert!(message.contains("inputResponses"), "{message}");
        let (_, message) = with(Some(json!({"a": "yes"})), None).unwrap();
        assert!(message.contains("\"a\""), "{message}");
        let (code, message) = with(None, Some(json!("abc.def"))).unwrap();
        assert_eq!(code, -32602);
        assert!(message.contains("requestState"), "{message}");
        assert!(with(None, Some(json!(5))).is_some());
    }
}
