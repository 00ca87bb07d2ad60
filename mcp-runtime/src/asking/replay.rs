//! Serving a call's questions without asking during the call: the way of
//! the 2026-07-28 protocol, where a server may not send its client
//! requests. The call runs with the answers it was given in advance; at
//! the first question with no answer it stops, and the server answers
//! `input_required` with the questions raised. The client asks its user or
//! model, and sends the whole call again with the answers; the call runs
//! again from the start, gets each earlier question's answer at once, and
//! goes further.
//!
//! The rule this puts on tools: **what a tool does before its last
//! question may run again**, once per round. Ask first, act after: put
//! side effects (writes, payments, messages sent) after the questions, or
//! make them idempotent. And ask in an order that does not depend on
//! timing, so that each run asks the same questions in the same order.
//!
//! A question is known by its position and a fingerprint of what it asks
//! (`q{n}-{hash}`): if a run asks something else at that position (the
//! data it shows changed between rounds), the old answer is not used and
//! the question is raised again.
//!
//! Served over the wire by the 2026-07-28 era (issue 16); the legacy era
//! asks during the call instead ([`Context::send_request`](crate::Context::send_request)).

use std::collections::HashMap;
use std::future::Future;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;
use tokio::sync::Notify;

/// A question a run raised and found no answer for.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Question {
    /// Its key in `inputRequests`, and of its answer in `inputResponses`.
    pub(crate) key: String,
    pub(crate) method: String,
    pub(crate) params: Value,
}

/// The answers one run of a call was given, and the questions it raised.
#[derive(Default)]
pub(crate) struct Replay {
    given: HashMap<String, Value>,
    next: AtomicUsize,
    raised: Mutex<Vec<Question>>,
    wake: Notify,
}

/// How a run ended.
#[derive(Debug)]
pub(crate) enum Run<T> {
    /// The call finished: every question it asked had an answer.
    Done(T),
    /// The call stopped at questions without answers; the run is dropped.
    NeedsInput(Vec<Question>),
}

/// FNV-1a, 64 bits: the same on every instance of a fleet and in every
/// release, unlike the standard library's hasher.
fn fingerprint(method: &str, params: &Value) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let text = params.to_string();
    for byte in method.bytes().chain([0]).chain(text.bytes()) {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

impl Replay {
    /// A run given `answers`, by question key.
    pub(crate) fn new(answers: HashMap<String, Value>) -> Replay {
        Replay {
            given: answers,
            ..Replay::default()
        }
    }

    /// The answers the run was given, by key (for the state that carries
    /// them to the next round).
    pub(crate) fn given(&self) -> serde_json::Map<String, Value> {
        self.given
            .iter()
            .map(|(key, answer)| (key.clone(), answer.clone()))
            .collect()
    }

    /// The answer to the run's next question, under `key` or one made
    /// from its position and content, or `None` (and the question
    /// recorded) when it has none.
    pub(crate) fn answer(&self, method: &str, params: &Value, key: Option<&str>) -> Option<Value> {
        let n = self.next.fetch_add(1, Ordering::SeqCst) + 1;
        let key = match key {
            Some(key) => key.to_owned(),
            None => format!("q{n}-{:016x}", fingerprint(method, params)),
        };
        if let Some(answer) = self.given.get(&key) {
            return Some(answer.clone());
        }
        if let Ok(mut raised) = self.raised.lock() {
            raised.push(Question {
                key,
                method: method.to_owned(),
                params: params.clone(),
            });
        }
        self.wake.notify_one();
        None
    }

    /// The questions raised so far without answers, taken.
    pub(crate) fn take_raised(&self) -> Vec<Question> {
        self.raised
            .lock()
            .map(|mut raised| std::mem::take(&mut *raised))
            .unwrap_or_default()
    }

    /// Waits until the run raised a question without an answer.
    async fn first_raised(&self) -> Vec<Question> {
        loop {
            let notified = self.wake.notified();
            if let Ok(mut raised) = self.raised.lock()
                && !raised.is_empty()
            {
                return std::mem::take(&mut *raised);
            }
            notified.await;
        }
    }

    /// Runs `call` until it finishes or stops at questions without
    /// answers. Questions raised in the same step (several asked at once,
    /// with `join!`) come back together.
    pub(crate) async fn run<T>(&self, call: impl Future<Output = T>) -> Run<T> {
        tokio::select! {
            biased;
            done = call => Run::Done(done),
            questions = self.first_raised() => Run::NeedsInput(questions),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::AtomicUsize;

    use serde_json::json;

    use super::*;
    use crate::context::{Context, RequestScope, SessionShared};
    use crate::{Elicit, Elicited, ProtocolVersion, SamplingRequest};

    #[derive(Debug, PartialEq, Elicit)]
    struct Confirm {
        confirm: bool,
    }

    fn context(replay: &Arc<Replay>) -> Context {
        let client = crate::context::ClientInfo {
            name: "replay".into(),
            version: "0".into(),
            capabilities: json!({"elicitation": {}, "sampling": {}}),
        };
        let session = SessionShared::new(Arc::default(), ProtocolVersion::LATEST, client);
        Context::for_request(RequestScope {
            session: Arc::new(session),
            name: "order".into(),
            id: crate::RequestId::server(1),
            progress_token: None,
            cancellation: Default::default(),
            progress: Default::default(),
            out: crate::outbox::Outbox::discard(),
            identity: None,
            replay: Some(Arc::clone(replay)),
            required: Default::default(),
            task: Default::default(),
        })
    }

    /// A tool that does something, asks twice (once for a summary, once
    /// for a confirmation), and orders.
    async fn order(ctx: Context, prepared: Arc<AtomicUsize>, ordered: Arc<AtomicUsize>) -> String {
        prepared.fetch_add(1, Ordering::SeqCst);
        let summary = ctx
            .sample(SamplingRequest::new(50).user("Summarize the order"))
            .await
            .map(|s| s.text().unwrap_or_default().to_owned())
            .unwrap_or_else(|e| e.to_string());
        match ctx.elicit::<Confirm>(format!("Order? {summary}")).await {
            Ok(Elicited::Accepted(Confirm { confirm: true })) => {
                ordered.fetch_add(1, Ordering::SeqCst);
                "ordered".into()
            }
            other => format!("not ordered: {other:?}"),
        }
    }

    #[tokio::test]
    async fn a_call_runs_again_with_its_answers_in_order_until_it_finishes() {
        let prepared = Arc::new(AtomicUsize::new(0));
        let ordered = Arc::new(AtomicUsize::new(0));
        let mut answers = HashMap::new();
        let mut rounds = 0;
        let result = loop {
            rounds += 1;
            let replay = Arc::new(Replay::new(answers.clone()));
            let call = order(context(&replay), prepared.clone(), ordered.clone());
            match replay.run(call).await {
                Run::Done(result) => break result,
                Run::NeedsInput(questions) => {
                    assert_eq!(questions.len(), 1, "{questions:?}");
                    let question = &questions[0];
                    let answer = match question.method.as_str() {
                        "sampling/createMessage" => json!({
                            "role": "assistant", "model": "m",
                            "content": {"type": "text", "text": "two pizzas"}
                        }),
                        "elicitation/create" => {
                            assert_eq!(question.params["message"], "Order? two pizzas");
                            json!({"action": "accept", "content": {"confirm": true}})
                        }
                        other => panic!("unexpected {other}"),
                    };
                    answers.insert(question.key.clone(), answer);
                }
            }
        };
        assert_eq!(result, "ordered");
        assert_eq!(rounds, 3);
        // The work before the questions ran once per round; the order once.
        assert_eq!(prepared.load(Ordering::SeqCst), 3);
        assert_eq!(ordered.load(Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn an_answer_to_another_question_is_not_used() {
        let replay = Arc::new(Replay::new(HashMap::new()));
        let ctx = context(&replay);
        let Run::NeedsInput(first) = replay.run(ctx.elicit::<Confirm>("Order 2 pizzas?")).await
        else {
            panic!("asked")
        };
        // The next round's question at that position asks something else.
        let answers = HashMap::from([(
            first[0].key.clone(),
            json!({"action": "accept", "content": {"confirm": true}}),
        )]);
        let replay = Arc::new(Replay::new(answers));
        let ctx = context(&replay);
        let run = replay.run(ctx.elicit::<Confirm>("Order 3 pizzas?")).await;
        let Run::NeedsInput(second) = run else {
            panic!("the old answer was used: {run:?}")
        };
        assert_ne!(first[0].key, second[0].key);
        assert!(first[0].key.starts_with("q1-") && second[0].key.starts_with("q1-"));
    }

    #[tokio::test]
    async fn questions_asked_at_once_are_raised_together() {
        let replay = Arc::new(Replay::new(HashMap::new()));
        let ctx = context(&replay);
        let both = async {
            tokio::join!(
                ctx.elicit::<Confirm>("First?"),
                ctx.sample(SamplingRequest::new(10).user("Second?"))
            )
        };
        let Run::NeedsInput(questions) = replay.run(both).await else {
            panic!("asked")
        };
        let methods: Vec<&str> = questions.iter().map(|q| q.method.as_str()).collect();
        assert_eq!(methods, ["elicitation/create", "sampling/createMessage"]);
    }
}
