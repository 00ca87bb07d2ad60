//! The protocol's rules for sampling with tools, checked by the server
//! before it sends a request and on the answer it gets, and by our client
//! on the requests it is sent.

use std::collections::HashSet;

use serde_json::Value;

use crate::asking::ask::ClientRequestError;
use crate::asking::sampling::blocks::{SamplingContent, SamplingMessage};
use crate::asking::sampling::{Sampled, SamplingRequest};
use crate::content::Role;
use crate::protocol::version::ProtocolVersion;

/// The capability a client declares to be sent tools in sampling.
pub(crate) const TOOLS_CAPABILITY: &str = "sampling.tools";

/// Whether `request` uses tools: offers some, says how to use them, or
/// carries tool uses or results.
fn uses_tools(request: &SamplingRequest) -> bool {
    !request.tools.is_empty()
        || request.tool_choice.is_some()
        || request.messages.iter().any(|message| {
            message.content.iter().any(|block| {
                matches!(
                    block,
                    SamplingContent::ToolUse(_) | SamplingContent::ToolResult(_)
                )
            })
        })
}

/// Whether `request` may go to a client that negotiated `version` and
/// declared `capabilities`.
pub(crate) fn check_request(
    request: &SamplingRequest,
    version: ProtocolVersion,
    capabilities: &Value,
) -> Result<(), ClientRequestError> {
    if !crate::asking::ask::declares(capabilities, "sampling") {
        return Err(ClientRequestError::NotSupported("sampling".into()));
    }
    if uses_tools(request)
        && (version < ProtocolVersion::V2025_11_25
            || !crate::asking::ask::declares(capabilities, TOOLS_CAPABILITY))
    {
        return Err(ClientRequestError::NotSupported(TOOLS_CAPABILITY.into()));
    }
    if version < ProtocolVersion::V2025_11_25
        && let Some(at) = request.messages.iter().position(|m| m.content.len() != 1)
    {
        return Err(ClientRequestError::InvalidRequest(format!(
            "message {at} has {} content blocks, but before protocol 2025-11-25 a sampling \
             message has exactly one",
            request.messages[at].content.len()
        )));
    }
    check_tools(request).map_err(ClientRequestError::InvalidRequest)?;
    check_messages(&request.messages).map_err(ClientRequestError::InvalidRequest)
}

/// The tools offered have distinct names.
fn check_tools(request: &SamplingRequest) -> Result<(), String> {
    let mut names = HashSet::new();
    for tool in &request.tools {
        if !names.insert(tool.name.as_str()) {
            return Err(format!("the tool `{}` is offered twice", tool.name));
        }
    }
    Ok(())
}

/// The conversation follows the rules of tool use: tool uses come from
/// the assistant; each assistant message with tool uses is followed by a
/// user message of tool results only, one for each of its uses and none
/// for anything else; tool results appear nowhere else.
pub(crate) fn check_messages(messages: &[SamplingMessage]) -> Result<(), String> {
    let mut unanswered: Option<(usize, HashSet<&str>)> = None;
    for (at, message) in messages.iter().enumerate() {
        if let Some(block) = message
            .content
            .iter()
            .find(|block| matches!(block.kind(), "resource_link" | "resource"))
        {
            return Err(format!(
                "message {at} has a {} block; sampling messages hold text, images, audio, \
                 tool uses and tool results",
                block.kind()
            ));
        }
        let results = message
            .content
            .iter()
            .filter_map(SamplingContent::as_tool_result)
            .collect::<Vec<_>>();
        if let Some((asked_at, mut ids)) = unanswered.take() {
            if message.role != Role::User || results.is_empty() {
                return Err(format!(
                    "the tool uses of message {asked_at} must be answered by the next message, \
                     a user message of tool results"
                ));
            }
            for result in &results {
                if !ids.remove(result.tool_use_id.as_str()) {
                    return Err(format!(
                        "message {at} has a result for `{}`, which is not a tool use of \
                         message {asked_at}, or is answered twice",
                        result.tool_use_id
                    ));
                }
            }
            if let Some(id) = ids.iter().min() {
                return Err(format!(
                    "the tool use `{id}` of message {asked_at} has no result in message {at}"
                ));
            }
        } else if !results.is_empty() {
            return Err(format!(
                "message {at} has tool results but does not follow an assistant message \
                 with tool uses"
            ));
        }
        if !results.is_empty() && results.len() != message.content.len() {
            return Err(format!(
                "message {at} mixes tool results with other content; a message with tool \
                 results holds nothing else"
            ));
        }
        let uses = message.tool_uses().collect::<Vec<_>>();
        if uses.is_empty() {
            continue;
        }
        if message.role != Role::Assistant {
            return Err(format!(
                "message {at} has tool uses but is not from the assistant"
            ));
        }
        let mut ids = HashSet::new();
        for tool_use in uses {
            if !ids.insert(tool_use.id.as_str()) {
                return Err(format!(
                    "message {at} has two tool uses with the id `{}`",
                    tool_use.id
                ));
            }
        }
        unanswered = Some((at, ids));
    }
    match unanswered {
        Some((at, _)) => Err(format!(
            "the tool uses of message {at} have no results: add a user message of tool results"
        )),
        None => Ok(()),
    }
}

/// Whether `answer` is one the model could give to `request`: from the
/// assistant, without tool results, and using only tools offered (none
/// when told not to), each with an object as input and an id of its own.
pub(crate) fn check_answer(request: &SamplingRequest, answer: &Sampled) -> Result<(), String> {
    if answer.role != Role::Assistant {
        return Err("the answer is not from the assistant".into());
    }
    if answer
        .content
        .iter()
        .any(|block| matches!(block, SamplingContent::ToolResult(_)))
    {
        return Err("the answer holds a tool_result, which only the server sends".into());
    }
    let mut ids = HashSet::new();
    for tool_use in answer.tool_uses() {
        if !request.tools.iter().any(|tool| tool.name == tool_use.name) {
            return Err(format!(
                "the answer uses the tool `{}`, which the request did not offer",
                tool_use.name
            ));
        }
        if request.tool_choice == Some(crate::asking::sampling::ToolChoice::None) {
            return Err(format!(
                "the answer uses the tool `{}`, but the request said to use none",
                tool_use.name
            ));
        }
        if !tool_use.input.is_object() {
            return Err(format!(
                "the input of the tool use `{}` is not an object",
                tool_use.id
            ));
        }
        if !ids.insert(tool_use.id.as_str()) {
            return Err(format!("two tool uses have the id `{}`", tool_use.id));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::asking::sampling::{SamplingTool, ToolResult, ToolUse};
    use serde_json::json;

    fn uses(ids: &[&str]) -> SamplingMessage {
        SamplingMessage::new(
            Role::Assistant,
            ids.iter()
                .map(|id| ToolUse::new(*id, "get_weather", json!({"city": id}))),
        )
    }

    fn results(ids: &[&str]) -> SamplingMessage {
        SamplingMessage::tool_results(ids.iter().map(|id| ToolResult::text(*id, "21°C")))
    }

    #[test]
    fn each_tool_use_is_answered_by_the_next_message_and_only_there() {
        let question = SamplingMessage::user("Weather in Paris and Oslo?");
        let good = [
            question.clone(),
            uses(&["p", "o"]),
            results(&["o", "p"]),
            SamplingMessage::assistant("Paris is warmer."),
        ];
        assert_eq!(check_messages(&good), Ok(()));

        let cases: [(&[SamplingMessage], &str); 7] = [
            (
                &[question.clone(), uses(&["p", "o"]), results(&["p"])],
                "`o` of message 1 has no result",
            ),
            (
                &[question.clone(), uses(&["p"])],
                "message 1 have no results",
            ),
            (
                &[question.clone(), uses(&["p"]), question.clone()],
                "answered by the next message",
            ),
            (&[question.clone(), results(&["p"])], "does not follow"),
            (
                &[question.clone(), uses(&["p"]), results(&["p", "x"])],
                "result for `x`",
            ),
            (
                &[question.clone(), uses(&["p", "p"])],
                "two tool uses with the id `p`",
            ),
            (
                &[
                    question.clone(),
                    uses(&["p"]),
                    results(&["p"]).with("and some text"),
                ],
                "mixes tool results",
            ),
        ];
        for (messages, expected) in cases {
            let error = check_messages(messages).unwrap_err();
            assert!(error.contains(expected), "{error} (expected {expected})");
        }
        let link = SamplingMessage::user(crate::Content::resource_link("file:///a", "a"));
        let error = check_messages(&[link]).unwrap_err();
        assert!(error.contains("resource_link"), "{error}");
        let from_user = SamplingMessage::user(ToolUse::new("u", "get_weather", json!({})));
        let error = check_messages(&[from_user, results(&["u"])]).unwrap_err();
        assert!(error.contains("not from the assistant"), "{error}");
    }

    #[test]
    fn tools_need_the_capability_and_protocol_2025_11_25() {
        let tool = SamplingTool::new("get_weather", "Weather.", json!({"type": "object"}));
        let request = SamplingRequest::new(100).user("hi").tool(tool);
        let with_tools = json!({"sampling": {"tools": {}}});
        let v = ProtocolVersion::V2025_11_25;
        assert_eq!(check_request(&request, v, &with_tools), Ok(()));
        let not = Err(ClientRequestError::NotSupported("sampling.tools".into()));
        assert_eq!(check_request(&request, v, &json!({"sampling": {}})), not);
        let older = ProtocolVersion::V2025_06_18;
        assert_eq!(check_request(&request, older, &with_tools), not);
        assert_eq!(
            check_request(&request, v, &json!({})),
            Err(ClientRequestError::NotSupported("sampling".into()))
        );
        // Without tools, several blocks in a message need 2025-11-25 too.
        let two = SamplingRequest::new(100).message(SamplingMessage::user("a").with("b"));
        assert_eq!(check_request(&two, v, &json!({"sampling": {}})), Ok(()));
        assert!(matches!(
            check_request(&two, older, &json!({"sampling": {}})),
            Err(ClientRequestError::InvalidRequest(_))
        ));
    }
}
