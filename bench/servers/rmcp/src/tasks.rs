//! The tasks suite's server written with rmcp 3.11: one tool, `work`, that
//! runs as a task (the SEP-2663 tasks extension, protocol 2026-07-28) for a
//! client that declares the extension, the way rmcp's task docs and tests
//! write it: a `TaskManager` kept in the server, `call_tool` spawning the
//! call on it, and `tasks/get`, `tasks/update`, `tasks/cancel` answered
//! from it. rmcp 3.11 has no tasks of the 2025-11-25 era (SEP-1686's
//! `params.task` and `tasks/result`): it replaced them with SEP-2663.

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, CreateTaskResult, GetTaskParams,
    GetTaskResult, Implementation, ServerCapabilities, ServerConfig, UpdateTaskParams,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::task_manager::{TaskExit, TaskManager, TaskOptions};
use rmcp::transport::stdio;
use rmcp::{ErrorData, ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Debug, Deserialize, JsonSchema)]
struct WorkArgs {
    /// The text to return.
    text: String,
}

/// The router and the task manager are built once and kept.
#[derive(Clone)]
struct Tasks {
    tool_router: ToolRouter<Self>,
    tasks: TaskManager,
}

#[tool_router]
impl Tasks {
    fn new() -> Self {
        Self {
            tool_router: Self::tool_router(),
            tasks: TaskManager::new(),
        }
    }

    /// Returns the text it is given, after yielding once to the runtime.
    #[tool]
    async fn work(&self, Parameters(WorkArgs { text }): Parameters<WorkArgs>) -> String {
        tokio::task::yield_now().await;
        text
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Tasks {
    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let takes_tasks = context
            .client_capabilities()
            .is_some_and(|capabilities| capabilities.supports_tasks());
        if request.name == "work" && takes_tasks {
            let server = self.clone();
            let task = self.tasks.spawn(TaskOptions::new(), move |_task| {
                Box::pin(async move {
                    let call = ToolCallContext::new(&server, request, context);
                    match server.tool_router.call(call).await? {
                        CallToolResponse::Complete(result) => Ok(result),
                        _ => Err(TaskExit::Error(ErrorData::internal_error(
                            "the tool did not complete",
                            None,
                        ))),
                    }
                })
            });
            return Ok(CallToolResponse::Task(CreateTaskResult::new(task)));
        }
        let call = ToolCallContext::new(self, request, context);
        self.tool_router.call(call).await
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        Ok(GetTaskResult::new(self.tasks.get_task(&request.task_id)?))
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.tasks
            .update_task(&request.task_id, request.input_responses)
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.tasks.cancel_task(&request.task_id)
    }

    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tasks()
                .build(),
        )
        .with_server_info(Implementation::new(
            "bench-tasks",
            env!("CARGO_PKG_VERSION"),
        ))
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let service = Tasks::new().serve(stdio()).await?;
    service.waiting().await?;
    Ok(())
}
