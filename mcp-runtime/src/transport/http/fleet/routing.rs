//! Messages of a session meant for another instance of the fleet: the
//! client's answer to a question that instance asked (its id names the
//! instance), routed to it alone, and `notifications/cancelled` for a call
//! that does not run here, told to every instance. On the wire between
//! instances each is one JSON object (`k`: `answer` or `cancel`; `s`: the
//! session; `id`: the request's id as JSON).

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::jsonrpc::{InstanceTag, Line, Message, RequestId, parse_line};

/// What one instance tells another about a session.
#[derive(Serialize, Deserialize)]
pub(super) struct Routed {
    /// `answer` or `cancel`.
    pub(super) k: String,
    /// The session's id.
    pub(super) s: String,
    /// The id of the question answered, or of the request cancelled.
    pub(super) id: Box<RawValue>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) result: Option<Box<RawValue>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) error: Option<Box<RawValue>>,
    /// Why a request was cancelled, when the client said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) reason: Option<String>,
}

pub(super) const ANSWER: &str = "answer";
pub(super) const CANCEL: &str = "cancel";

impl Routed {
    /// The payload to send.
    pub(super) fn to_text(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// A payload heard, if it is one of these (the fleet's channel carries
    /// other messages too).
    pub(super) fn from_text(text: &str) -> Option<Routed> {
        serde_json::from_str(text).ok()
    }

    /// The request's id.
    pub(super) fn request(&self) -> Option<RequestId> {
        RequestId::parse(&self.id)
    }
}

/// When `line` is the client's answer to a question of another instance
/// than `own`: that instance, and what to send it.
pub(super) fn answer_for_another(
    line: &Line<'_>,
    own: InstanceTag,
    session: &str,
) -> Option<(InstanceTag, Routed)> {
    let Line::Single(Message::Response {
        id: Some(id),
        result,
        error,
    }) = line
    else {
        return None;
    };
    let asker = id.instance().filter(|asker| *asker != own)?;
    Some((
        asker,
        Routed {
            k: ANSWER.into(),
            s: session.to_owned(),
            id: RawValue::from_string(id.as_json().to_owned()).ok()?,
            result: result.map(|raw| raw.to_owned()),
            error: error.map(|raw| raw.to_owned()),
            reason: None,
        },
    ))
}

/// What a batch that answers another instance's question carries: each
/// answer, with the instance that asked it (`None`: this one).
pub(super) type BatchAnswers = Vec<(Option<InstanceTag>, Routed)>;

/// A batch that answers a question another instance than `own` asked.
pub(super) enum Batch {
    /// Only answers: each goes to the instance that asked (this one's to
    /// the session here).
    Answers(BatchAnswers),
    /// Answers mixed with requests or notifications, which cannot be
    /// served in one place: refused.
    Mixed,
}

/// When `line` is a batch holding an answer to a question of another
/// instance than `own`: what to do with it. `None` for any other line.
pub(super) fn batch_for_another(line: &Line<'_>, own: InstanceTag, session: &str) -> Option<Batch> {
    let Line::Batch(items) = line else {
        return None;
    };
    let mut answers = Vec::with_capacity(items.len());
    let mut others = false;
    let mut foreign = false;
    for item in items {
        let line = parse_line(item.get().as_bytes());
        let Line::Single(Message::Response {
            id: Some(id),
            result,
            error,
        }) = &line
        else {
            others = true;
            continue;
        };
        let asker = id.instance().filter(|asker| *asker != own);
        foreign |= asker.is_some();
        let Ok(raw) = RawValue::from_string(id.as_json().to_owned()) else {
            others = true;
            continue;
        };
        answers.push((
            asker,
            Routed {
                k: ANSWER.into(),
                s: session.to_owned(),
                id: raw,
                result: result.map(|raw| raw.to_owned()),
                error: error.map(|raw| raw.to_owned()),
                reason: None,
            },
        ));
    }
    match (foreign, others) {
        (false, _) => None,
        (true, true) => Some(Batch::Mixed),
        (true, false) => Some(Batch::Answers(answers)),
    }
}

/// When `line` is `notifications/cancelled`: the request it cancels, and
/// the message that tells other instances.
pub(super) fn cancellation(line: &Line<'_>, session: &str) -> Option<(RequestId, Routed)> {
    let Line::Single(Message::Notification { method, params }) = line else {
        return None;
    };
    if method != "notifications/cancelled" {
        return None;
    }
    #[derive(Deserialize)]
    struct Params<'a> {
        #[serde(rename = "requestId", borrow)]
        request_id: &'a RawValue,
        #[serde(default)]
        reason: Option<String>,
    }
    let params: Params<'_> = serde_json::from_str((*params)?.get()).ok()?;
    let id = RequestId::parse(params.request_id)?;
    let routed = Routed {
        k: CANCEL.into(),
        s: session.to_owned(),
        id: params.request_id.to_owned(),
        result: None,
        error: None,
        reason: params.reason,
    };
    Some((id, routed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_to_another_instance_is_routed_there_and_ours_is_not() {
        let own = InstanceTag::parse("0000000a").unwrap();
        let body = br#"{"jsonrpc":"2.0","id":"mcp-rs-0000000b-3","result":{"action":"accept"}}"#;
        let line = parse_line(body);
        let (asker, routed) = answer_for_another(&line, own, "S").unwrap();
        assert_eq!(asker.as_str(), "0000000b");
        let heard = Routed::from_text(&routed.to_text()).unwrap();
        assert_eq!(heard.k, ANSWER);
        assert_eq!(heard.s, "S");
        assert_eq!(heard.request().unwrap().as_json(), "\"mcp-rs-0000000b-3\"");
        assert_eq!(heard.result.unwrap().get(), r#"{"action":"accept"}"#);
        for ours in [
            &br#"{"jsonrpc":"2.0","id":"mcp-rs-0000000a-3","result":{}}"#[..],
            br#"{"jsonrpc":"2.0","id":"mcp-rs-3","result":{}}"#,
            br#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#,
        ] {
            assert!(answer_for_another(&parse_line(ours), own, "S").is_none());
        }
    }

    #[test]
    fn a_batch_of_answers_goes_to_each_asker_and_a_mixed_one_is_refused() {
        let own = InstanceTag::parse("0000000a").unwrap();
        let body = br#"[{"jsonrpc":"2.0","id":"mcp-rs-0000000b-3","result":{"roots":[]}},
                        {"jsonrpc":"2.0","id":"mcp-rs-0000000a-4","error":{"code":1,"message":"no"}}]"#;
        let Some(Batch::Answers(answers)) = batch_for_another(&parse_line(body), own, "S") else {
            panic!("answers");
        };
        let askers: Vec<_> = answers
            .iter()
            .map(|(asker, routed)| (asker.map(|a| a.to_string()), routed.id.get().to_owned()))
            .collect();
        assert_eq!(
            askers,
            [
                (Some("0000000b".into()), "\"mcp-rs-0000000b-3\"".into()),
                (None, "\"mcp-rs-0000000a-4\"".into())
            ]
        );
        assert!(answers[1].1.error.is_some());
        let mixed = br#"[{"jsonrpc":"2.0","id":"mcp-rs-0000000b-3","result":{}},
                         {"jsonrpc":"2.0","id":1,"method":"ping"}]"#;
        assert!(matches!(
            batch_for_another(&parse_line(mixed), own, "S"),
            Some(Batch::Mixed)
        ));
        // Nothing for another instance: served as any batch.
        let ours = br#"[{"jsonrpc":"2.0","id":"mcp-rs-0000000a-3","result":{}},
                        {"jsonrpc":"2.0","id":1,"method":"ping"}]"#;
        assert!(batch_for_another(&parse_line(ours), own, "S").is_none());
    }

    #[test]
    fn a_cancellation_names_its_request() {
        let line = parse_line(
            br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"no"}}"#,
        );
        let (id, routed) = cancellation(&line, "S").unwrap();
        assert_eq!(id.as_json(), "7");
        let heard = Routed::from_text(&routed.to_text()).unwrap();
        assert_eq!(
            (heard.k.as_str(), heard.reason.as_deref()),
            (CANCEL, Some("no"))
        );
        assert!(Routed::from_text("T something else").is_none());
    }
}
