//! Waiting for a client to hear of a change to a server's tool list.

use std::time::{Duration, Instant};

use mcp_runtime::client::{Notification, Notifications};
use mcp_runtime::serde_json::json;
use mcp_runtime::{DynamicTool, ServerHandle};

use super::step::STEP;

/// Adds tools named `{prefix}_1`, `{prefix}_2`, … to the server of
/// `handle`, one each half second, until `notifications` bring a
/// `tools/list_changed`. The stream the client hears it on (a GET stream,
/// or a `subscriptions/listen` request) opens in the background, so the
/// first additions may go unheard. Panics after [`STEP`], or when the
/// notifications end.
pub async fn add_tools_until_announced(
    handle: &ServerHandle,
    notifications: &mut Notifications,
    prefix: &str,
) {
    let deadline = Instant::now() + STEP;
    for added in 1.. {
        assert!(
            Instant::now() < deadline,
            "no tools/list_changed arrived ({prefix}_1 to {prefix}_{} added)",
            added - 1
        );
        let tool = DynamicTool::new(
            format!("{prefix}_{added}"),
            "Added while the client listens.",
            json!({ "type": "object" }),
            |_arguments, _ctx| async move { "added" },
        );
        handle.add_tool(tool).unwrap();
        let wait = tokio::time::timeout(Duration::from_millis(500), notifications.recv());
        match wait.await {
            Ok(Some(Notification::ToolListChanged)) => return,
            Ok(Some(_)) | Err(_) => continue,
            Ok(None) => panic!("the notifications ended"),
        }
    }
}
