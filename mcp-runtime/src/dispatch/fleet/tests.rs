//! A session resumed from its stored parts, served as a client sees it:
//! lines in, messages out, through a connection nobody initialized.

use std::borrow::Cow;
use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::SessionParts;
use crate::context::{ClientInfo, SessionChange};
use crate::dispatch::{Connection, Incoming, ServerCore};
use crate::jsonrpc::{InstanceTag, RequestId};
use crate::outbox::Outbox;
use crate::protocol::version::ProtocolVersion;
use crate::testing::client::ChannelSink;
use crate::{DynamicResource, DynamicTool, LogLevel, ResourceContents, Server};

/// How long a test waits for a message it expects.
const PATIENCE: Duration = Duration::from_secs(5);

/// A client's end of one connection: what it sends, what it reads.
pub(super) struct Peer {
    pub(super) connection: Connection,
    output: mpsc::UnboundedReceiver<Vec<u8>>,
    /// Bytes read and not yet split into messages.
    partial: Vec<u8>,
    /// Messages read and not yet taken.
    messages: std::collections::VecDeque<Value>,
}

impl Peer {
    /// A connection of `core` made by `make` from its output.
    pub(super) fn new(make: impl FnOnce(Outbox) -> Connection) -> Peer {
        let (sender, output) = mpsc::unbounded_channel();
        Peer {
            connection: make(Outbox::new(Box::new(ChannelSink(sender)))),
            output,
            partial: Vec::new(),
            messages: Default::default(),
        }
    }

    /// A session of `core` resumed from `parts`.
    pub(super) fn resumed(core: &Arc<ServerCore>, parts: SessionParts) -> Peer {
        Peer::new(|out| Connection::resume(Arc::clone(core), out, parts))
    }

    pub(super) async fn send(&mut self, message: Value) {
        let line = serde_json::to_vec(&message).unwrap();
        assert!(
            self.connection
                .handle(Incoming::Line(Cow::Owned(line)))
                .await
        );
    }

    /// The next message the server sends.
    pub(super) async fn next(&mut self) -> Value {
        loop {
            if let Some(message) = self.messages.pop_front() {
                return message;
            }
            let bytes = tokio::time::timeout(PATIENCE, self.output.recv())
                .await
                .expect("the server sent nothing in time")
                .expect("the output closed");
            self.split(&bytes);
        }
    }

    /// Whether nothing was sent that was not taken yet.
    pub(super) fn is_quiet(&mut self) -> bool {
        while let Ok(bytes) = self.output.try_recv() {
            self.split(&bytes);
        }
        self.messages.is_empty()
    }

    fn split(&mut self, bytes: &[u8]) {
        self.partial.extend_from_slice(bytes);
        while let Some(end) = self.partial.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = self.partial.drain(..=end).collect();
            self.messages
                .push_back(serde_json::from_slice(&line).expect("a JSON line"));
        }
    }

    /// Sends request `id` and returns its response (anything the server
    /// sends before it is dropped).
    pub(super) async fn request(&mut self, id: i64, method: &str, params: Value) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        loop {
            let message = self.next().await;
            if message.get("id") == Some(&json!(id)) && message.get("method").is_none() {
                return message;
            }
        }
    }
}

/// A server with a tool that echoes, one that asks for the client's
/// roots, one that waits until dropped (telling `dropped`), and a
/// resource.
pub(super) fn core(dropped: mpsc::UnboundedSender<()>) -> Arc<ServerCore> {
    Arc::new(server(dropped).into_core().unwrap())
}

pub(super) fn server(dropped: mpsc::UnboundedSender<()>) -> Server {
    struct Dropped(mpsc::UnboundedSender<()>);
    impl Drop for Dropped {
        fn drop(&mut self) {
            let _ = self.0.send(());
        }
    }
    let object = json!({"type": "object"});
    let echo = DynamicTool::new(
        "echo",
        "Echoes.",
        object.clone(),
        |arguments, _| async move { arguments["text"].as_str().unwrap_or_default().to_owned() },
    );
    let roots = DynamicTool::new("roots", "Asks.", object.clone(), |_, ctx| async move {
        match ctx.roots().await {
            Ok(roots) => roots
                .into_iter()
                .map(|r| r.uri)
                .collect::<Vec<_>>()
                .join(","),
            Err(error) => format!("failed: {error}"),
        }
    });
    let wait = DynamicTool::new("wait", "Waits.", object, move |_, _| {
        let dropped = Dropped(dropped.clone());
        async move {
            let _dropped = dropped;
            std::future::pending::<String>().await
        }
    });
    let resource = DynamicResource::new("test://r", "r", |uri, _, _| async move {
        let text = "hello".to_owned();
        Ok(vec![ResourceContents::Text {
            uri,
            mime_type: None,
            text,
            meta: None,
        }])
    });
    Server::new("fleet-test", "1.0.0")
        .tool(echo)
        .tool(roots)
        .tool(wait)
        .resource(resource)
}

/// The parts of a session of a client that declared `roots`.
pub(super) fn parts() -> SessionParts {
    SessionParts {
        version: ProtocolVersion::V2025_06_18,
        client: ClientInfo {
            name: "elsewhere".into(),
            version: "1".into(),
            capabilities: json!({"roots": {}}),
        },
        log_level: LogLevel::Info as u8,
        subscriptions: HashSet::new(),
        roots_epoch: 0,
    }
}

fn text_of(response: &Value) -> &str {
    response["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {response}"))
}

#[tokio::test]
async fn a_resumed_session_serves_without_initialize() {
    let (dropped, _) = mpsc::unbounded_channel();
    let core = core(dropped);
    let mut peer = Peer::resumed(&core, parts());
    // `notifications/initialized` first is accepted, and answered by nothing.
    peer.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    assert!(peer.is_quiet());
    let listed = peer.request(1, "tools/list", json!({})).await;
    let names: Vec<&str> = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    // (Tools of the crate's other tests are linked in too.)
    for name in ["echo", "roots", "wait"] {
        assert!(names.contains(&name), "{listed}");
    }
    let called = peer
        .request(
            2,
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "hi"}}),
        )
        .await;
    assert_eq!(text_of(&called), "hi");
    let read = peer
        .request(3, "resources/read", json!({"uri": "test://r"}))
        .await;
    assert_eq!(read["result"]["contents"][0]["text"], "hello");
    assert_eq!(
        peer.connection.parts().map(|parts| parts.version),
        Some(ProtocolVersion::V2025_06_18)
    );
}

#[tokio::test]
async fn a_resumed_session_refuses_initialize() {
    let (dropped, _) = mpsc::unbounded_channel();
    let mut peer = Peer::resumed(&core(dropped), parts());
    let params = json!({
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "again", "version": "2"}
    });
    let refused = peer.request(1, "initialize", params).await;
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    // The session is still the one resumed.
    let parts = peer.connection.parts().unwrap();
    assert_eq!(parts.version, ProtocolVersion::V2025_06_18);
    assert_eq!(parts.client.name, "elsewhere");
}

#[tokio::test]
async fn a_resumed_session_keeps_its_stored_parts() {
    let (dropped, _) = mpsc::unbounded_channel();
    let stored = SessionParts {
        log_level: LogLevel::Error as u8,
        subscriptions: HashSet::from(["test://r".to_owned()]),
        roots_epoch: 4,
        ..parts()
    };
    let peer = Peer::resumed(&core(dropped), stored);
    let parts = peer.connection.parts().unwrap();
    assert_eq!(parts.log_level, LogLevel::Error as u8);
    assert_eq!(parts.subscriptions, HashSet::from(["test://r".to_owned()]));
    assert_eq!(parts.roots_epoch, 4);
    assert_eq!(parts.client.capabilities, json!({"roots": {}}));
}

#[tokio::test]
async fn a_resumed_session_hears_the_hub_only_once_registered() {
    let (dropped, _) = mpsc::unbounded_channel();
    let mut server = server(dropped);
    let notifier = server.notifier();
    let core = Arc::new(server.into_core().unwrap());
    let mut peer = Peer::resumed(&core, parts());
    assert_eq!(notifier.tools_changed(), 0);
    assert!(peer.connection.register_notices());
    assert!(!peer.connection.register_notices(), "registered twice");
    assert_eq!(notifier.tools_changed(), 1);
    let told = peer.next().await;
    assert_eq!(told["method"], "notifications/tools/list_changed");
    assert!(peer.is_quiet(), "told twice");
}

#[tokio::test]
async fn an_unregistered_session_no_longer_hears_the_hub() {
    let (dropped, _) = mpsc::unbounded_channel();
    let mut server = server(dropped);
    let notifier = server.notifier();
    let core = Arc::new(server.into_core().unwrap());
    let mut peer = Peer::resumed(&core, parts());
    assert!(!peer.connection.unregister_notices(), "never registered");
    assert!(peer.connection.register_notices());
    assert!(peer.connection.unregister_notices());
    assert!(!peer.connection.unregister_notices(), "unregistered twice");
    assert_eq!(notifier.tools_changed(), 0);
    assert_eq!(notifier.log(LogLevel::Error, None, json!("gone")), 0);
    assert!(peer.is_quiet(), "told after it was unregistered");
    // The session still answers its own requests.
    let listed = peer.request(2, "tools/list", json!({})).await;
    assert!(listed["result"]["tools"].is_array(), "{listed}");
    // Taken back (the GET stream came back to this instance).
    assert!(peer.connection.register_notices());
    assert_eq!(notifier.prompts_changed(), 1);
    let told = peer.next().await;
    assert_eq!(told["method"], "notifications/prompts/list_changed");
    assert!(peer.is_quiet(), "told twice");
}

#[tokio::test]
async fn initialize_still_registers_with_the_hub() {
    let (dropped, _) = mpsc::unbounded_channel();
    let mut server = server(dropped);
    let notifier = server.notifier();
    let core = Arc::new(server.into_core().unwrap());
    let mut peer = Peer::new(|out| Connection::new(Arc::clone(&core), out));
    assert!(peer.connection.parts().is_none());
    let params = json!({
        "protocolVersion": "2025-06-18",
        "capabilities": {"roots": {}},
        "clientInfo": {"name": "here", "version": "3"}
    });
    peer.request(1, "initialize", params).await;
    assert!(
        !peer.connection.register_notices(),
        "initialize registered it"
    );
    assert_eq!(notifier.tools_changed(), 1);
    // What a store would keep of it.
    let parts = peer.connection.parts().unwrap();
    assert_eq!(parts.client.name, "here");
    assert_eq!(parts.log_level, LogLevel::Info as u8);
    assert_eq!(parts.client.capabilities, json!({"roots": {}}));
}

#[tokio::test]
async fn a_resumed_session_sees_the_registry_as_it_is() {
    let (dropped, _) = mpsc::unbounded_channel();
    let mut server = server(dropped);
    let handle = server.handle();
    let core = Arc::new(server.into_core().unwrap());
    let added = |name: &'static str| {
        DynamicTool::new(name, "Added.", json!({"type": "object"}), |_, _| async {
            "added".to_owned()
        })
    };
    handle.add_tool(added("before")).unwrap();
    let mut peer = Peer::resumed(&core, parts());
    let names = |listed: &Value| -> Vec<String> {
        let tools = listed["result"]["tools"].as_array().unwrap();
        tools
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect()
    };
    let listed = peer.request(1, "tools/list", json!({})).await;
    assert!(names(&listed).contains(&"before".to_owned()), "{listed}");
    handle.add_tool(added("after")).unwrap();
    let listed = peer.request(2, "tools/list", json!({})).await;
    assert!(names(&listed).contains(&"after".to_owned()), "{listed}");
    let called = peer
        .request(3, "tools/call", json!({"name": "after", "arguments": {}}))
        .await;
    assert_eq!(text_of(&called), "added");
}

/// Records the changes a session's hook is told of.
fn recorder() -> (
    crate::context::ChangeHook,
    Arc<std::sync::Mutex<Vec<SessionChange>>>,
) {
    let told = Arc::new(std::sync::Mutex::new(Vec::new()));
    let record = Arc::clone(&told);
    let hook: crate::context::ChangeHook =
        Arc::new(move |change| record.lock().unwrap().push(change));
    (hook, told)
}

#[tokio::test]
async fn the_hook_is_told_of_each_change_once_made() {
    let (dropped, _) = mpsc::unbounded_channel();
    let mut peer = Peer::resumed(&core(dropped), parts());
    let (hook, told) = recorder();
    assert!(peer.connection.watch_changes(hook));
    let (other, _) = recorder();
    assert!(!peer.connection.watch_changes(other), "a second hook");
    let take = || std::mem::take(&mut *told.lock().unwrap());

    let set = peer
        .request(1, "logging/setLevel", json!({"level": "debug"}))
        .await;
    assert!(set.get("result").is_some(), "{set}");
    assert_eq!(take(), [SessionChange::LogLevel(LogLevel::Debug as u8)]);
    let subscribed = peer
        .request(2, "resources/subscribe", json!({"uri": "test://r"}))
        .await;
    assert!(subscribed.get("result").is_some(), "{subscribed}");
    assert_eq!(take(), [SessionChange::Subscribe("test://r".into())]);
    peer.request(3, "resources/unsubscribe", json!({"uri": "test://r"}))
        .await;
    assert_eq!(take(), [SessionChange::Unsubscribe("test://r".into())]);
    let changed = json!({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"});
    peer.send(changed).await;
    assert_eq!(take(), [SessionChange::RootsChanged]);

    // Refused changes are not told.
    let refused = peer
        .request(4, "logging/setLevel", json!({"level": "loud"}))
        .await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    let refused = peer
        .request(5, "resources/subscribe", json!({"uri": "test://nowhere"}))
        .await;
    assert!(refused.get("error").is_some(), "{refused}");
    assert_eq!(take(), []);
    // Nor what changes nothing in the session.
    peer.request(6, "tools/list", json!({})).await;
    assert_eq!(take(), []);
}

#[tokio::test]
async fn a_session_without_a_hook_changes_as_before() {
    let (dropped, _) = mpsc::unbounded_channel();
    let mut peer = Peer::resumed(&core(dropped), parts());
    peer.request(1, "logging/setLevel", json!({"level": "error"}))
        .await;
    peer.request(2, "resources/subscribe", json!({"uri": "test://r"}))
        .await;
    let parts = peer.connection.parts().unwrap();
    assert_eq!(parts.log_level, LogLevel::Error as u8);
    assert!(parts.subscriptions.contains("test://r"));
}

#[tokio::test]
async fn a_refresh_changes_what_the_notifier_delivers() {
    let (dropped, _) = mpsc::unbounded_channel();
    let mut server = server(dropped);
    let notifier = server.notifier();
    let core = Arc::new(server.into_core().unwrap());
    let mut peer = Peer::resumed(&core, parts());
    peer.connection.register_notices();
    let (hook, told) = recorder();
    peer.connection.watch_changes(hook);

    // Info until another instance sets debug.
    assert_eq!(notifier.log(LogLevel::Debug, None, json!("quiet")), 0);
    let debug = SessionParts {
        log_level: LogLevel::Debug as u8,
        ..parts()
    };
    assert!(peer.connection.refresh(debug.clone()));
    assert_eq!(notifier.log(LogLevel::Debug, None, json!("heard")), 1);
    assert_eq!(peer.next().await["params"]["data"], "heard");

    // Subscribed through another instance, then unsubscribed.
    assert_eq!(notifier.resource_updated("test://r"), 0);
    let subscribed = SessionParts {
        subscriptions: HashSet::from(["test://r".to_owned()]),
        ..debug.clone()
    };
    peer.connection.refresh(subscribed);
    assert_eq!(notifier.resource_updated("test://r"), 1);
    let updated = peer.next().await;
    assert_eq!(updated["method"], "notifications/resources/updated");
    assert_eq!(updated["params"]["uri"], "test://r");
    peer.connection.refresh(debug);
    assert_eq!(notifier.resource_updated("test://r"), 0);
    assert!(peer.is_quiet());
    // What came from the store is not told back to it.
    assert!(told.lock().unwrap().is_empty());
}

/// Calls the tool that asks for the roots: answers its question with
/// `root` if it asks one (`None`: it must not ask), and returns its text.
async fn call_roots(peer: &mut Peer, id: i64, root: Option<&str>) -> String {
    let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "roots", "arguments": {}}});
    peer.send(call).await;
    let first = peer.next().await;
    let answered = match (first.get("method"), root) {
        (Some(method), Some(root)) => {
            assert_eq!(method, "roots/list");
            let answer = json!({"jsonrpc": "2.0", "id": first["id"],
                "result": {"roots": [{"uri": root}]}});
            peer.send(answer).await;
            peer.next().await
        }
        (None, None) => first,
        _ => panic!("asked or not, unexpectedly: {first}"),
    };
    assert_eq!(answered["id"], id, "{answered}");
    text_of(&answered).to_owned()
}

#[tokio::test]
async fn a_refresh_forgets_the_roots_when_their_epoch_moved() {
    let (dropped, _) = mpsc::unbounded_channel();
    let mut peer = Peer::resumed(&core(dropped), parts());
    assert_eq!(
        call_roots(&mut peer, 1, Some("file:///a")).await,
        "file:///a"
    );
    // Kept while the epoch stays.
    assert_eq!(call_roots(&mut peer, 2, None).await, "file:///a");
    peer.connection.refresh(parts());
    assert_eq!(call_roots(&mut peer, 3, None).await, "file:///a");
    // The client said they changed, through another instance.
    let moved = SessionParts {
        roots_epoch: 1,
        ..parts()
    };
    peer.connection.refresh(moved.clone());
    assert_eq!(
        call_roots(&mut peer, 4, Some("file:///b")).await,
        "file:///b"
    );
    peer.connection.refresh(moved);
    assert_eq!(call_roots(&mut peer, 5, None).await, "file:///b");
}

/// The id of the question the tool that asks for the roots asks first,
/// called as `id` (the question is left unanswered).
async fn first_question(peer: &mut Peer, id: i64) -> Value {
    let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "roots", "arguments": {}}});
    peer.send(call).await;
    let question = peer.next().await;
    assert_eq!(question["method"], "roots/list", "{question}");
    question["id"].clone()
}

#[tokio::test]
async fn a_fleet_instance_asks_with_ids_that_name_it() {
    let (dropped, _) = mpsc::unbounded_channel();
    let core = core(dropped);
    let tag = InstanceTag::parse("ab12cd34").unwrap();
    assert!(core.set_instance(tag));
    assert!(!core.set_instance(InstanceTag::parse("00000000").unwrap()));
    assert_eq!(core.instance(), Some(tag));

    let mut resumed = Peer::resumed(&core, parts());
    let mut initialized = Peer::new(|out| Connection::new(Arc::clone(&core), out));
    let params = json!({
        "protocolVersion": "2025-06-18",
        "capabilities": {"roots": {}},
        "clientInfo": {"name": "here", "version": "3"}
    });
    initialized.request(1, "initialize", params).await;
    let mut numbers = Vec::new();
    for which in [0, 1, 0] {
        let peer = if which == 0 {
            &mut resumed
        } else {
            &mut initialized
        };
        let id = first_question(peer, numbers.len() as i64 + 10).await;
        let id = id.as_str().unwrap().to_owned();
        let n = id
            .strip_prefix("mcp-rs-ab12cd34-")
            .unwrap_or_else(|| panic!("{id}"));
        numbers.push(n.parse::<u64>().unwrap());
        let parsed = RequestId::parse(&serde_json::value::to_raw_value(&id).unwrap()).unwrap();
        assert_eq!(parsed.instance(), Some(tag));
    }
    // Counted by the process, not by the session: never the same twice.
    assert!(
        numbers[0] < numbers[1] && numbers[1] < numbers[2],
        "{numbers:?}"
    );
    // The client's answer still reaches the question, on this instance.
    let question = json!(format!("mcp-rs-ab12cd34-{}", numbers[1]));
    let answer = json!({"jsonrpc": "2.0", "id": question,
        "result": {"roots": [{"uri": "file:///c"}]}});
    initialized.send(answer).await;
    assert_eq!(text_of(&initialized.next().await), "file:///c");
}

#[tokio::test]
async fn without_a_fleet_ids_are_counted_per_session() {
    let (dropped, _) = mpsc::unbounded_channel();
    let core = core(dropped);
    assert_eq!(core.instance(), None);
    let mut one = Peer::resumed(&core, parts());
    let mut other = Peer::resumed(&core, parts());
    assert_eq!(first_question(&mut one, 1).await, "mcp-rs-1");
    assert_eq!(first_question(&mut other, 1).await, "mcp-rs-1");
    assert_eq!(first_question(&mut one, 2).await, "mcp-rs-2");
}

/// The request id `value` (a JSON string or integer) spells.
fn id_of(value: &Value) -> RequestId {
    RequestId::parse(&serde_json::value::to_raw_value(value).unwrap()).unwrap()
}

fn raw(value: Value) -> Box<serde_json::value::RawValue> {
    serde_json::value::to_raw_value(&value).unwrap()
}

#[tokio::test]
async fn an_answer_routed_from_another_instance_completes_the_call() {
    let (dropped, _) = mpsc::unbounded_channel();
    let core = core(dropped);
    core.set_instance(InstanceTag::parse("0badcafe").unwrap());
    let mut peer = Peer::resumed(&core, parts());
    let question = id_of(&first_question(&mut peer, 1).await);
    assert!(peer.connection.routed().is_waiting_for(&question));
    assert!(
        !peer
            .connection
            .routed()
            .is_waiting_for(&id_of(&json!("mcp-rs-0badcafe-0")))
    );
    // Routed without the connection, from another task.
    let routed = peer.connection.routed();
    let asked = question.clone();
    let answered = tokio::spawn(async move {
        let result = raw(json!({"roots": [{"uri": "file:///routed"}]}));
        routed.answer(&asked, Some(&result), None)
    });
    assert!(answered.await.unwrap());
    let response = peer.next().await;
    assert_eq!(response["id"], 1);
    assert_eq!(text_of(&response), "file:///routed");
    assert!(!peer.connection.routed().is_waiting_for(&question));

    // An error answer fails the question; a second answer finds nothing.
    let changed = json!({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"});
    peer.send(changed).await;
    let question = id_of(&first_question(&mut peer, 2).await);
    let error = raw(json!({"code": -32001, "message": "no roots today"}));
    assert!(
        peer.connection
            .routed()
            .answer(&question, None, Some(&error))
    );
    let response = peer.next().await;
    assert_eq!(
        text_of(&response),
        "failed: the client answered error -32001: no roots today"
    );
    assert!(
        !peer
            .connection
            .routed()
            .answer(&question, None, Some(&error))
    );
    assert!(peer.is_quiet());
}

#[tokio::test]
async fn a_cancellation_routed_from_another_instance_stops_the_call() {
    let (dropped, mut drops) = mpsc::unbounded_channel();
    let mut peer = Peer::resumed(&core(dropped), parts());
    let call = json!({"jsonrpc": "2.0", "id": "w-1", "method": "tools/call",
        "params": {"name": "wait", "arguments": {}}});
    peer.send(call).await;
    let id = id_of(&json!("w-1"));
    assert!(peer.connection.routed().is_running(&id));
    assert!(!peer.connection.routed().is_running(&id_of(&json!("w-2"))));
    assert!(!peer.connection.routed().cancel(&id_of(&json!("w-2")), None));
    let routed = peer.connection.routed();
    assert!(routed.is_running(&id));
    assert!(routed.cancel(&id, Some("the user gave up")));
    tokio::time::timeout(PATIENCE, drops.recv())
        .await
        .expect("the call was not dropped")
        .unwrap();
    assert!(!peer.connection.routed().is_running(&id));
    assert!(!peer.connection.routed().cancel(&id, None));
    // Never answered; the connection serves on.
    assert!(peer.is_quiet());
    let called = peer
        .request(
            3,
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "on"}}),
        )
        .await;
    assert_eq!(text_of(&called), "on");
    assert!(peer.is_quiet());
}

#[tokio::test]
async fn a_resumed_session_serves_through_the_layers_too() {
    let (dropped, _) = mpsc::unbounded_channel();
    let layered = server(dropped).layer(tower::layer::util::Identity::new());
    let core = Arc::new(layered.into_core().unwrap());
    assert!(core.service.is_some());
    let mut peer = Peer::resumed(&core, parts());
    let (hook, told) = recorder();
    peer.connection.watch_changes(hook);
    let called = peer
        .request(
            1,
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "layered"}}),
        )
        .await;
    assert_eq!(text_of(&called), "layered");
    peer.request(2, "logging/setLevel", json!({"level": "warning"}))
        .await;
    peer.request(3, "resources/subscribe", json!({"uri": "test://r"}))
        .await;
    assert_eq!(
        *told.lock().unwrap(),
        [
            SessionChange::LogLevel(LogLevel::Warning as u8),
            SessionChange::Subscribe("test://r".into())
        ]
    );
    let params = json!({
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "again", "version": "2"}
    });
    let refused = peer.request(4, "initialize", params).await;
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
}
