//! The two clients behind one type: mcp-runtime's `Client` and rmcp's
//! client service, each connected the way its documentation shows (a
//! command spawned as a stdio server) and calling tools the way its API
//! asks (ours: a name and any `Serialize` arguments; rmcp:
//! `CallToolRequestParams` with a JSON object).

use std::path::Path;
use std::sync::Arc;

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::TokioChildProcess;
use serde_json::{Map, Value};
use tokio::process::Command;

/// The clients compared.
pub const CLIENTS: [&str; 2] = ["ours", "rmcp"];

/// A connected client, cheap to clone into the tasks of a pipelined phase.
#[derive(Clone)]
pub enum Caller {
    Ours(Arc<mcp_runtime::client::Client>),
    Rmcp(Arc<RunningService<RoleClient, ()>>),
}

impl Caller {
    /// Spawns `server` and performs the handshake.
    pub async fn connect(client: &str, server: &Path) -> Result<Caller, String> {
        match client {
            "ours" => mcp_runtime::client::Client::spawn(Command::new(server))
                .await
                .map(|c| Caller::Ours(Arc::new(c)))
                .map_err(|e| format!("ours: connect: {e}")),
            "rmcp" => {
                let transport = TokioChildProcess::new(Command::new(server))
                    .map_err(|e| format!("rmcp: spawn: {e}"))?;
                ().serve(transport)
                    .await
                    .map(|s| Caller::Rmcp(Arc::new(s)))
                    .map_err(|e| format!("rmcp: connect: {e}"))
            }
            other => Err(format!("unknown client {other}; known: ours, rmcp")),
        }
    }

    /// Calls `tool`; an error, or a result with `isError`, is an error.
    /// Returns the result as JSON when `keep` (to check it), else `Null`.
    pub async fn call(
        &self,
        tool: &str,
        arguments: &Map<String, Value>,
        keep: bool,
    ) -> Result<Value, String> {
        let (is_error, value) = match self {
            Caller::Ours(client) => {
                let result = client
                    .call_tool(tool, arguments)
                    .await
                    .map_err(|e| format!("ours: {e}"))?;
                let value = if keep {
                    serde_json::to_value(&result).map_err(|e| e.to_string())?
                } else {
                    Value::Null
                };
                (result.is_error, value)
            }
            Caller::Rmcp(service) => {
                let params =
                    CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments.clone());
                let result = service
                    .call_tool(params)
                    .await
                    .map_err(|e| format!("rmcp: {e}"))?;
                let value = if keep {
                    serde_json::to_value(&result).map_err(|e| e.to_string())?
                } else {
                    Value::Null
                };
                (result.is_error == Some(true), value)
            }
        };
        if is_error {
            return Err(format!("{tool} answered isError: {value}"));
        }
        Ok(value)
    }

    /// Closes the connection and lets the server exit.
    pub async fn close(self) {
        match self {
            Caller::Ours(client) => client.close().await,
            Caller::Rmcp(service) => {
                if let Ok(service) = Arc::try_unwrap(service) {
                    let _ = service.cancel().await;
                }
            }
        }
    }
}
