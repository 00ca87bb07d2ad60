//! The fixtures of the suite's `tasks-*` scenarios (the 2026-07-28
//! extension `io.modelcontextprotocol/tasks`): tools that run as tasks.

use std::time::Duration;

use mcp_runtime::{Context, Elicit, Elicited, tool};

/// Says hello (a plain tool: never a task).
#[tool(read_only)]
async fn greet(
    /// Who to greet.
    name: Option<String>,
) -> String {
    format!("Hello, {}!", name.as_deref().unwrap_or("world"))
}

/// Computes for `seconds` seconds, as a task if the client takes tasks.
#[tool(task = "optional")]
async fn slow_compute(
    /// How long to work.
    seconds: Option<f64>,
    /// A label to echo.
    label: Option<String>,
) -> String {
    let seconds = seconds.unwrap_or(1.0).clamp(0.0, 3_600.0);
    if seconds > 0.0 {
        tokio::time::sleep(Duration::from_secs_f64(seconds)).await;
    }
    format!(
        "computed {} after {seconds}s",
        label.as_deref().unwrap_or("result")
    )
}

/// A job that runs only as a task and fails after about a second (a tool
/// error: the task completes with `isError`).
#[tool(task = "required")]
async fn failing_job() -> Result<String, String> {
    tokio::time::sleep(Duration::from_secs(1)).await;
    Err("the job failed: its input was missing".into())
}

/// A job that ends in a JSON-RPC error (the task fails with it).
#[tool(task = "optional")]
async fn protocol_error_job(ctx: Context) -> Result<String, String> {
    tokio::time::sleep(Duration::from_millis(300)).await;
    Err(ctx.protocol_error(-32603, "the job's queue is gone"))
}

/// A yes or no.
#[derive(Debug, Elicit)]
struct Confirm {
    /// Whether to go on.
    confirm: bool,
}

/// Deletes a file once the user confirms: the question comes after the
/// tool started, so it is a question of the task.
#[tool(task = "optional")]
async fn confirm_delete(
    ctx: Context,
    /// The file to delete.
    filename: String,
) -> Result<String, String> {
    tokio::task::yield_now().await;
    let answer = ctx
        .elicit::<Confirm>(format!("Delete {filename}?"))
        .await
        .map_err(|e| format!("elicitation failed: {e}"))?;
    Ok(match answer {
        Elicited::Accepted(Confirm { confirm: true }) => format!("deleted {filename}"),
        _ => format!("kept {filename}"),
    })
}

/// A name and a yes or no.
#[derive(Debug, Elicit)]
struct NameAndConfirm {
    /// A name.
    name: String,
    /// Whether to go on.
    confirm: bool,
}

/// Asks two questions at once.
#[tool(task = "optional")]
async fn multi_input(ctx: Context) -> Result<String, String> {
    tokio::task::yield_now().await;
    let (asks_first, asks_second) = (ctx.input_key("first"), ctx.input_key("second"));
    let (first, second) = tokio::join!(
        asks_first.elicit::<NameAndConfirm>("First input?"),
        asks_second.elicit::<NameAndConfirm>("Second input?"),
    );
    let name = |answer: Result<Elicited<NameAndConfirm>, _>| match answer {
        Ok(Elicited::Accepted(NameAndConfirm { name, confirm })) => format!("{name} ({confirm})"),
        Ok(_) => "(none)".to_owned(),
        Err(error) => format!("(failed: {error})"),
    };
    Ok(format!("got {} and {}", name(first), name(second)))
}

/// A user's name.
#[derive(Debug, Elicit)]
struct UserName {
    /// Your name.
    name: String,
}

/// Asks the user's name first (a round of questions, before any task),
/// then works as a task and greets them.
#[tool(task = "required")]
async fn test_tool_with_task(ctx: Context) -> Result<String, String> {
    let name = match ctx
        .input_key("user_name")
        .elicit::<UserName>("What is your name?")
        .await
        .map_err(|e| format!("elicitation failed: {e}"))?
    {
        Elicited::Accepted(UserName { name }) => name,
        _ => "stranger".to_owned(),
    };
    tokio::time::sleep(Duration::from_millis(500)).await;
    Ok(format!("Hello, {name}! The task is done."))
}
