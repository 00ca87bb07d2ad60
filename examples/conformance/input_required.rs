//! The fixtures of the conformance suite's `input-required-result-*`
//! scenarios (2026-07-28, SEP-2322). Each asks the client with a named key
//! (`Context::input_key`), which the scenarios look for; in the legacy era
//! the same tools ask during the call.

use mcp_runtime::{Context, Elicit, Elicited, SamplingRequest, prompt, tool};

use super::answered;

#[derive(Debug, Elicit)]
struct UserName {
    name: String,
}

/// The form the input-required fixtures ask for a confirmation with.
#[derive(Debug, Elicit)]
struct Ok_ {
    #[elicit(rename = "ok")]
    ok: bool,
}

/// Says hello to the user, asking for their name first (key `user_name`).
#[tool]
async fn test_input_required_result_elicitation(ctx: Context) -> Result<String, String> {
    match ctx
        .input_key("user_name")
        .elicit::<UserName>("What is your name?")
        .await
        .map_err(|e| e.to_string())?
    {
        Elicited::Accepted(UserName { name }) => Ok(format!("Hello, {name}!")),
        other => Ok(format!("No name given ({other:?})")),
    }
}

/// Asks the client's model a question (key `capital_question`).
#[tool]
async fn test_input_required_result_sampling(ctx: Context) -> Result<String, String> {
    let question = SamplingRequest::new(100).user("What is the capital of France?");
    let answer = ctx.input_key("capital_question").sample(question).await;
    let answer = answer.map_err(|e| e.to_string())?;
    Ok(format!(
        "The model answered: {}",
        answer.text().unwrap_or_default()
    ))
}

/// Lists the client's roots (key `client_roots`).
#[tool]
async fn test_input_required_result_list_roots(ctx: Context) -> Result<String, String> {
    let roots = ctx
        .input_key("client_roots")
        .roots()
        .await
        .map_err(|e| e.to_string())?;
    let uris: Vec<String> = roots.into_iter().map(|root| root.uri).collect();
    Ok(format!("Client roots: {}", uris.join(", ")))
}

/// Asks for a confirmation (key `confirm`); the state it was sent with
/// carried the round (the retry answers "state-ok").
#[tool]
async fn test_input_required_result_request_state(ctx: Context) -> Result<String, String> {
    match ctx
        .input_key("confirm")
        .elicit::<Ok_>("Please confirm")
        .await
        .map_err(|e| e.to_string())?
    {
        Elicited::Accepted(Ok_ { ok: true }) => Ok("state-ok: confirmed".into()),
        other => Ok(format!("state-ok: not confirmed ({other:?})")),
    }
}

/// Asks three questions at once: a name, a greeting from the model, and
/// the client's roots (keys `user_name`, `greeting`, `client_roots`).
#[tool]
async fn test_input_required_result_multiple_inputs(ctx: Context) -> Result<String, String> {
    let (name, greeting) = (ctx.input_key("user_name"), ctx.input_key("greeting"));
    let roots = ctx.input_key("client_roots");
    let (name, greeting, roots) = tokio::join!(
        name.elicit::<UserName>("What is your name?"),
        greeting.sample(SamplingRequest::new(50).user("Generate a greeting")),
        roots.roots(),
    );
    let name = match name.map_err(|e| e.to_string())? {
        Elicited::Accepted(UserName { name }) => name,
        _ => "nobody".into(),
    };
    let greeting = greeting.map_err(|e| e.to_string())?;
    let roots = roots.map_err(|e| e.to_string())?;
    Ok(format!(
        "{} {name} ({} roots)",
        greeting.text().unwrap_or_default(),
        roots.len()
    ))
}

/// The color asked for in the second round of the multi-round fixture.
#[derive(Debug, Elicit)]
struct Color {
    color: String,
}

/// Asks for a name, then for a favourite color: two rounds (keys `step1`,
/// `step2`).
#[tool]
async fn test_input_required_result_multi_round(ctx: Context) -> Result<String, String> {
    let Elicited::Accepted(UserName { name }) = ctx
        .input_key("step1")
        .elicit::<UserName>("Step 1: What is your name?")
        .await
        .map_err(|e| e.to_string())?
    else {
        return Ok("No name given".into());
    };
    match ctx
        .input_key("step2")
        .elicit::<Color>("Step 2: What is your favorite color?")
        .await
        .map_err(|e| e.to_string())?
    {
        Elicited::Accepted(Color { color }) => Ok(format!("{name} likes {color}")),
        _ => Ok(format!("{name} keeps their color secret")),
    }
}

/// Asks for a confirmation; its retry with a changed state is refused.
#[tool]
async fn test_input_required_result_tampered_state(ctx: Context) -> Result<String, String> {
    match ctx
        .input_key("confirm")
        .elicit::<Ok_>("Please confirm")
        .await
        .map_err(|e| e.to_string())?
    {
        Elicited::Accepted(Ok_ { ok: true }) => Ok("confirmed".into()),
        _ => Ok("not confirmed".into()),
    }
}

/// Asks in whatever way the client can answer: the user when it declared
/// elicitation, else its model (key `question`).
#[tool]
async fn test_input_required_result_capabilities(ctx: Context) -> Result<String, String> {
    let elicits = ctx
        .client_info()
        .is_some_and(|client| client.capabilities.get("elicitation").is_some());
    let ctx = ctx.input_key("question");
    if elicits {
        return answered(ctx.elicit::<UserName>("What is your name?").await);
    }
    let answer = ctx
        .sample(SamplingRequest::new(50).user("Suggest a name"))
        .await;
    Ok(answer
        .map_err(|e| e.to_string())?
        .text()
        .unwrap_or_default()
        .to_owned())
}

/// The context the prompt asks for.
#[derive(Debug, Elicit)]
struct PromptContext {
    context: String,
}

/// A prompt that asks the user for the context to use first.
// Its question's key is `user_context`.
#[prompt]
async fn test_input_required_result_prompt(ctx: Context) -> Result<String, String> {
    match ctx
        .input_key("user_context")
        .elicit::<PromptContext>("What context should the prompt use?")
        .await
        .map_err(|e| e.to_string())?
    {
        Elicited::Accepted(PromptContext { context }) => Ok(format!("Use this context: {context}")),
        _ => Ok("Use no particular context.".into()),
    }
}
