//! The get shims `#[prompt]` generates, called directly through
//! `inventory`, with a detached `Context`: every return form, arguments
//! (required, optional, parsed, enums), injection and the errors. The
//! prompts here are named `test_*`, so a registry built in this crate's
//! tests tells them apart from others.

use std::sync::Arc;

use serde::Deserialize;

use super::{GetPromptResult, PromptDef, PromptError, PromptMessage};
use crate::content::{Content, Role};
use crate::context::{Context, StateMap};
use crate::{Arguments, prompt};

fn find(name: &str) -> &'static PromptDef {
    inventory::iter::<PromptDef>
        .into_iter()
        .find(|def| def.name == name)
        .unwrap_or_else(|| panic!("no prompt {name}"))
}

async fn get(name: &str, arguments: &[(&str, &str)]) -> Result<GetPromptResult, PromptError> {
    let def = find(name);
    let ctx = Context::new(def.name.into(), Arc::new(StateMap::default()));
    let arguments = arguments
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    (def.get)(arguments, ctx).await
}

fn user(text: &str) -> GetPromptResult {
    GetPromptResult::new(vec![PromptMessage::user(text)])
}

/// Says hello.
#[prompt]
fn test_string() -> String {
    "hello".into()
}

#[prompt]
async fn test_str() -> &'static str {
    "static"
}

#[prompt]
async fn test_message() -> PromptMessage {
    PromptMessage::assistant(Content::image([1u8], "image/png"))
}

#[prompt]
async fn test_messages() -> Vec<PromptMessage> {
    vec![PromptMessage::user("Q"), PromptMessage::assistant("A")]
}

#[prompt]
fn test_result() -> GetPromptResult {
    GetPromptResult::new(vec![PromptMessage::user("x")]).description("described")
}

#[prompt(name = "test_fallible")]
async fn fallible(fail: bool) -> Result<String, String> {
    if fail {
        Err("the index is rebuilding".into())
    } else {
        Ok("fine".into())
    }
}

#[prompt]
async fn test_fallible_messages() -> Result<Vec<PromptMessage>, std::fmt::Error> {
    Err(std::fmt::Error)
}

#[tokio::test]
async fn every_return_form_becomes_messages() {
    assert_eq!(get("test_string", &[]).await, Ok(user("hello")));
    assert_eq!(get("test_str", &[]).await, Ok(user("static")));
    let result = get("test_message", &[]).await.unwrap();
    assert_eq!(result.messages.len(), 1);
    assert_eq!(result.messages[0].role, Role::Assistant);
    assert_eq!(
        result.messages[0].content,
        Content::image([1u8], "image/png")
    );
    assert_eq!(
        get("test_messages", &[]).await,
        Ok(GetPromptResult::new(vec![
            PromptMessage::user("Q"),
            PromptMessage::assistant("A")
        ]))
    );
    assert_eq!(
        get("test_result", &[])
            .await
            .unwrap()
            .description
            .as_deref(),
        Some("described")
    );
    assert_eq!(
        get("test_fallible", &[("fail", "false")]).await,
        Ok(user("fine"))
    );
    assert_eq!(
        get("test_fallible", &[("fail", "true")]).await,
        Err(PromptError("the index is rebuilding".into()))
    );
    assert_eq!(
        get("test_fallible_messages", &[]).await,
        Err(PromptError(
            "an error occurred when formatting an argument".into()
        ))
    );
}

/// How fast to travel.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Pace {
    Slow,
    Fast,
}

/// Plan a trip.
#[prompt(title = "Trip planner", icons = ["https://example.com/trip.png"], meta = r#"{"k": 1}"#)]
async fn test_plan_trip(
    ctx: Context,
    /// Where to.
    city: String,
    /// How many days.
    days: Option<u8>,
    pace: Option<Pace>,
    r#type: Pace,
) -> String {
    format!(
        "{}: {city} for {days:?} days, {pace:?}, {type:?}",
        ctx.tool_name(),
        type = r#type
    )
}

#[tokio::test]
async fn arguments_are_parsed_optional_ones_may_be_absent() {
    assert_eq!(
        get("test_plan_trip", &[("city", "Paris"), ("type", "slow")]).await,
        Ok(user("test_plan_trip: Paris for None days, None, Slow"))
    );
    assert_eq!(
        get(
            "test_plan_trip",
            &[
                ("type", "fast"),
                ("pace", "slow"),
                ("days", "3"),
                ("city", "Oslo")
            ]
        )
        .await,
        Ok(user(
            "test_plan_trip: Oslo for Some(3) days, Some(Slow), Fast"
        ))
    );
}

#[tokio::test]
async fn missing_and_invalid_arguments_are_named() {
    assert_eq!(
        get("test_plan_trip", &[("type", "slow")]).await,
        Err(PromptError(
            "missing required argument `city` of prompt `test_plan_trip`".into()
        ))
    );
    assert_eq!(
        get("test_plan_trip", &[("city", "Rome")]).await,
        Err(PromptError(
            "missing required argument `type` of prompt `test_plan_trip`".into()
        ))
    );
    assert_eq!(
        get(
            "test_plan_trip",
            &[("city", "Rome"), ("days", "many"), ("type", "slow")]
        )
        .await,
        Err(PromptError(
            "invalid value \"many\" for argument `days` of prompt `test_plan_trip`: invalid digit found in string".into()
        ))
    );
    assert_eq!(
        get(
            "test_plan_trip",
            &[("city", "Rome"), ("type", "slow"), ("pace", "brisk")]
        )
        .await,
        Err(PromptError(
            "invalid value \"brisk\" for argument `pace` of prompt `test_plan_trip`: unknown variant `brisk`, expected `slow` or `fast`".into()
        ))
    );
}

#[test]
fn definitions_carry_the_metadata() {
    let def = find("test_plan_trip");
    assert_eq!(def.title, Some("Trip planner"));
    assert_eq!(def.description, Some("Plan a trip."));
    assert_eq!(def.icons, ["https://example.com/trip.png"]);
    assert_eq!(def.meta, Some(r#"{"k": 1}"#));
    assert_eq!(def.requirements.len(), 1);
    let arguments: Vec<_> = def
        .arguments
        .iter()
        .map(|a| (a.name, a.description, a.required))
        .collect();
    assert_eq!(
        arguments,
        [
            ("city", Some("Where to."), true),
            ("days", Some("How many days."), false),
            ("pace", None, false),
            ("type", None, true),
        ]
    );
    let values: Vec<_> = def.arguments.iter().map(|a| (a.enum_values)()).collect();
    let pace = Some(vec!["slow".to_owned(), "fast".to_owned()]);
    assert_eq!(values, [None, None, pace.clone(), pace]);
    assert!(def.arguments.iter().all(|a| a.complete.is_none()));

    assert_eq!(find("test_string").description, Some("Says hello."));
    assert_eq!(find("test_str").description, None);
    assert!(find("test_fallible").location.file.ends_with("tests.rs"));
}

#[tokio::test]
async fn extra_arguments_are_ignored() {
    let arguments = Arguments::from(vec![("unknown".to_owned(), "x".to_owned())]);
    let def = find("test_string");
    let ctx = Context::new(def.name.into(), Arc::new(StateMap::default()));
    assert_eq!((def.get)(arguments, ctx).await, Ok(user("hello")));
}
