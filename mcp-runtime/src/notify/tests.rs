//! The hub as its users see it: what each registered output receives,
//! with no fleet, and in a fleet of two instances on a fake bus.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, Weak};

use serde_json::value::RawValue;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::Subscription;
use super::{DeliverTo, Delivered, Filter, FleetBus, FleetEvent, Hub, ListKind, Notifier};
use crate::context::{ClientInfo, LogLevel, SessionShared};
use crate::jsonrpc::RequestId;
use crate::outbox::Outbox;
use crate::protocol::version::ProtocolVersion;
use crate::testing::client::ChannelSink;
use crate::{DynamicTool, Server};

/// An output and what was written to it, one message a line.
pub(super) struct Seen {
    pub(super) out: Outbox,
    written: mpsc::UnboundedReceiver<Vec<u8>>,
}

impl Seen {
    pub(super) fn new() -> Seen {
        let (sender, written) = mpsc::unbounded_channel();
        Seen {
            out: Outbox::new(Box::new(ChannelSink(sender))),
            written,
        }
    }

    /// Every message written so far, taken.
    pub(super) fn take(&mut self) -> Vec<Value> {
        let mut bytes = Vec::new();
        while let Ok(chunk) = self.written.try_recv() {
            bytes.extend(chunk);
        }
        bytes
            .split(|b| *b == b'\n')
            .filter(|line| !line.is_empty())
            .map(|line| serde_json::from_slice(line).expect("a JSON line"))
            .collect()
    }

    /// The methods of every message written so far, taken.
    pub(super) fn methods(&mut self) -> Vec<String> {
        self.take()
            .iter()
            .map(|m| m["method"].as_str().unwrap_or_default().to_owned())
            .collect()
    }
}

/// A legacy session as `initialize` would start it.
pub(super) fn session() -> Arc<SessionShared> {
    let client = ClientInfo {
        name: "test".into(),
        version: "1".into(),
        capabilities: json!({}),
    };
    Arc::new(SessionShared::new(
        Arc::default(),
        ProtocolVersion::V2025_06_18,
        client,
    ))
}

#[test]
fn a_session_registered_again_is_told_once_on_its_new_output() {
    let notifier = Notifier::default();
    let session = session();
    let (mut first, mut second) = (Seen::new(), Seen::new());
    notifier.hub.register(&session, first.out.downgrade());
    notifier.hub.register(&session, second.out.downgrade());
    assert_eq!(notifier.tools_changed(), 1);
    assert!(first.take().is_empty(), "the old output was told");
    assert_eq!(second.methods(), ["notifications/tools/list_changed"]);
}

#[test]
fn an_unregistered_session_is_not_told_and_others_still_are() {
    let notifier = Notifier::default();
    let (gone, kept) = (session(), session());
    let (mut gone_out, mut kept_out) = (Seen::new(), Seen::new());
    notifier.hub.register(&gone, gone_out.out.downgrade());
    notifier.hub.register(&kept, kept_out.out.downgrade());
    assert!(notifier.hub.unregister(&gone));
    assert!(!notifier.hub.unregister(&gone), "unregistered twice");
    assert_eq!(notifier.log(LogLevel::Error, None, json!("hello")), 1);
    assert!(gone_out.take().is_empty());
    assert_eq!(kept_out.methods(), ["notifications/message"]);
}

/// One instance: its notifier, a legacy session registered on its hub
/// (subscribed to `test://a`) and a listen subscription that asked for
/// every list and for `test://a`.
struct Instance {
    notifier: Notifier,
    session: Arc<SessionShared>,
    legacy: Seen,
    listen: Seen,
    _subscription: Arc<Subscription>,
}

impl Instance {
    fn new() -> Instance {
        Instance::on(Notifier::default())
    }

    fn on(notifier: Notifier) -> Instance {
        let session = session();
        session
            .subscriptions
            .lock()
            .unwrap()
            .insert("test://a".to_owned());
        let (legacy, mut listen) = (Seen::new(), Seen::new());
        notifier.hub.register(&session, legacy.out.downgrade());
        let filter = Filter {
            tools: true,
            prompts: true,
            resources: true,
            uris: HashSet::from(["test://a".to_owned()]),
        };
        let id = RequestId::parse(&RawValue::from_string("7".into()).unwrap()).unwrap();
        let subscription = notifier.hub.subscribe(id, filter, listen.out.clone());
        assert_eq!(
            listen.methods(),
            ["notifications/subscriptions/acknowledged"]
        );
        Instance {
            notifier,
            session,
            legacy,
            listen,
            _subscription: subscription,
        }
    }

    fn hub(&self) -> &Arc<Hub> {
        &self.notifier.hub
    }
}

/// A bus that keeps what it is handed.
#[derive(Default)]
struct Recording(Mutex<Vec<FleetEvent>>);

impl FleetBus for Recording {
    fn publish(&self, event: FleetEvent) {
        self.0.lock().unwrap().push(event);
    }
}

impl Recording {
    fn taken(&self) -> Vec<FleetEvent> {
        std::mem::take(&mut *self.0.lock().unwrap())
    }
}

/// A fleet's bus in one process: each event, through its wire form, is
/// delivered on every hub as a fleet's transport does, to its audience
/// (resource updates to listen subscriptions only: the session store
/// tells the legacy sessions).
#[derive(Default)]
struct Loopback {
    hubs: Mutex<Vec<Weak<Hub>>>,
    told: Mutex<Vec<Delivered>>,
}

impl FleetBus for Loopback {
    fn publish(&self, event: FleetEvent) {
        let event = FleetEvent::decode(&event.encode()).expect("its own wire form");
        let to = event.audience();
        for hub in self.hubs.lock().unwrap().iter() {
            let told = hub.upgrade().expect("a live hub").deliver(&event, to);
            self.told.lock().unwrap().push(told);
        }
    }
}

impl Loopback {
    /// Two instances on one bus.
    fn fleet() -> (Arc<Loopback>, Instance, Instance) {
        let bus = Arc::new(Loopback::default());
        let (a, b) = (Instance::new(), Instance::new());
        for instance in [&a, &b] {
            assert!(instance.hub().set_bus(bus.clone()));
            bus.hubs
                .lock()
                .unwrap()
                .push(Arc::downgrade(instance.hub()));
        }
        (bus, a, b)
    }

    fn told(&self) -> Vec<Delivered> {
        std::mem::take(&mut *self.told.lock().unwrap())
    }
}

fn delivered(sessions: usize, listens: usize) -> Delivered {
    Delivered { sessions, listens }
}

#[test]
fn without_a_bus_the_notifier_tells_sessions_and_listens_itself() {
    let mut here = Instance::new();
    assert_eq!(here.notifier.tools_changed(), 2);
    assert_eq!(here.legacy.methods(), ["notifications/tools/list_changed"]);
    let heard = here.listen.take();
    assert_eq!(heard.len(), 1);
    assert_eq!(heard[0]["method"], "notifications/tools/list_changed");
    assert_eq!(
        heard[0]["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        7
    );
    assert_eq!(here.notifier.resource_updated("test://a"), 2);
    assert_eq!(here.notifier.resource_updated("test://b"), 0);
    assert_eq!(here.legacy.take()[0]["params"]["uri"], "test://a");
    assert_eq!(here.listen.take()[0]["params"]["uri"], "test://a");
    // Log messages: legacy sessions only (a listen asks for no logs).
    assert_eq!(here.notifier.log(LogLevel::Info, Some("db"), json!(1)), 1);
    let logged = here.legacy.take();
    assert_eq!(
        logged[0]["params"],
        json!({"level": "info", "logger": "db", "data": 1})
    );
    assert!(here.listen.take().is_empty());
}

#[test]
fn with_a_bus_the_notifier_hands_every_event_to_it_and_tells_nobody() {
    let mut here = Instance::new();
    let bus = Arc::new(Recording::default());
    assert!(here.hub().set_bus(bus.clone()));
    assert!(
        !here.hub().set_bus(Arc::new(Recording::default())),
        "a second bus was set"
    );
    assert_eq!(here.notifier.tools_changed(), 0);
    assert_eq!(here.notifier.resources_changed(), 0);
    assert_eq!(here.notifier.prompts_changed(), 0);
    assert_eq!(here.notifier.log(LogLevel::Error, None, json!("x")), 0);
    assert_eq!(here.notifier.resource_updated("test://a"), 0);
    assert_eq!(
        bus.taken(),
        [
            FleetEvent::ListChanged {
                list: ListKind::Tools
            },
            FleetEvent::ListChanged {
                list: ListKind::Resources
            },
            FleetEvent::ListChanged {
                list: ListKind::Prompts
            },
            FleetEvent::Log {
                level: LogLevel::Error,
                logger: None,
                data: json!("x")
            },
            FleetEvent::ResourceUpdated {
                uri: "test://a".into()
            },
        ]
    );
    assert!(here.legacy.take().is_empty());
    assert!(here.listen.take().is_empty());
}

#[test]
fn what_each_instance_hears_for_itself_stays_local_with_a_bus() {
    let mut here = Instance::new();
    let bus = Arc::new(Recording::default());
    assert!(here.hub().set_bus(bus.clone()));
    assert_eq!(here.notifier.list_changed_here(ListKind::Tools), 2);
    assert_eq!(
        here.notifier
            .log_here(LogLevel::Warning, Some("mount"), json!("lost")),
        1
    );
    let session = Arc::clone(&here.session);
    let only = |s: &SessionShared| std::ptr::eq(s, Arc::as_ptr(&session));
    assert_eq!(
        here.notifier
            .log_where(LogLevel::Info, None, json!("own"), only),
        1
    );
    assert!(bus.taken().is_empty(), "handed to the fleet");
    assert_eq!(
        here.legacy.methods(),
        [
            "notifications/tools/list_changed",
            "notifications/message",
            "notifications/message"
        ]
    );
    assert_eq!(here.listen.methods(), ["notifications/tools/list_changed"]);
}

#[test]
fn in_a_fleet_list_changes_and_logs_reach_both_instances_once() {
    let (bus, mut a, mut b) = Loopback::fleet();
    assert_eq!(b.notifier.prompts_changed(), 0);
    assert_eq!(bus.told(), [delivered(1, 1), delivered(1, 1)]);
    for instance in [&mut a, &mut b] {
        assert_eq!(
            instance.legacy.methods(),
            ["notifications/prompts/list_changed"]
        );
        assert_eq!(
            instance.listen.methods(),
            ["notifications/prompts/list_changed"]
        );
    }
    assert_eq!(
        a.notifier
            .log(LogLevel::Notice, Some("jobs"), json!({"n": 2})),
        0
    );
    assert_eq!(bus.told(), [delivered(1, 0), delivered(1, 0)]);
    for instance in [&mut a, &mut b] {
        let logged = instance.legacy.take();
        assert_eq!(logged.len(), 1);
        assert_eq!(
            logged[0]["params"],
            json!({"level": "notice", "logger": "jobs", "data": {"n": 2}})
        );
        assert!(instance.listen.take().is_empty());
    }
}

#[test]
fn in_a_fleet_resource_updates_reach_listens_and_no_legacy_session_here() {
    let (bus, mut a, mut b) = Loopback::fleet();
    assert_eq!(a.notifier.resource_updated("test://a"), 0);
    assert_eq!(bus.told(), [delivered(0, 1), delivered(0, 1)]);
    for instance in [&mut a, &mut b] {
        assert!(instance.legacy.take().is_empty(), "told outside the store");
        let heard = instance.listen.take();
        assert_eq!(heard.len(), 1);
        assert_eq!(heard[0]["method"], "notifications/resources/updated");
        assert_eq!(heard[0]["params"]["uri"], "test://a");
    }
    // A URI nobody listens for reaches nobody.
    assert_eq!(b.notifier.resource_updated("test://b"), 0);
    assert_eq!(bus.told(), [delivered(0, 0), delivered(0, 0)]);
}

#[test]
fn in_a_fleet_the_receiving_instance_applies_its_sessions_log_levels() {
    let (bus, mut a, mut b) = Loopback::fleet();
    b.session
        .log_level
        .store(LogLevel::Error as u8, std::sync::atomic::Ordering::Relaxed);
    assert_eq!(a.notifier.log(LogLevel::Warning, None, json!("w")), 0);
    assert_eq!(bus.told(), [delivered(1, 0), delivered(0, 0)]);
    assert_eq!(a.legacy.methods(), ["notifications/message"]);
    assert!(b.legacy.take().is_empty(), "a level below the session's");
    assert_eq!(a.notifier.log(LogLevel::Critical, None, json!("c")), 0);
    assert_eq!(bus.told(), [delivered(1, 0), delivered(1, 0)]);
    assert_eq!(b.legacy.methods(), ["notifications/message"]);
}

#[test]
fn in_a_fleet_an_unregistered_session_hears_nothing_but_listens_do() {
    let (bus, a, mut b) = Loopback::fleet();
    assert!(b.hub().unregister(&b.session));
    assert_eq!(a.notifier.tools_changed(), 0);
    assert_eq!(bus.told(), [delivered(1, 1), delivered(0, 1)]);
    assert!(b.legacy.take().is_empty());
    assert_eq!(b.listen.methods(), ["notifications/tools/list_changed"]);
}

#[test]
fn deliver_to_all_tells_the_subscribers_of_an_updated_resource() {
    // What a single instance's notifier does, through the same door.
    let mut here = Instance::new();
    let event = FleetEvent::ResourceUpdated {
        uri: "test://a".into(),
    };
    assert_eq!(here.hub().deliver(&event, DeliverTo::All), delivered(1, 1));
    assert_eq!(here.legacy.methods(), ["notifications/resources/updated"]);
    assert_eq!(here.listen.methods(), ["notifications/resources/updated"]);
}

#[test]
fn registry_changes_through_a_handle_stay_on_their_instance() {
    let mut server = Server::new("fleet-notify", "1.0.0").tool(DynamicTool::new(
        "first",
        "One.",
        json!({"type": "object"}),
        |_, _| async { "one" },
    ));
    let handle = server.handle();
    let core = server.into_core().unwrap();
    let bus = Arc::new(Recording::default());
    assert!(core.hub.set_bus(bus.clone()));
    let mut here = Instance::on(Notifier {
        hub: Arc::clone(&core.hub),
    });
    let second = DynamicTool::new("second", "Two.", json!({"type": "object"}), |_, _| async {
        "two"
    });
    handle.add_tool(second).unwrap();
    assert!(handle.remove_tool("first"));
    assert!(
        bus.taken().is_empty(),
        "a registry change went to the fleet"
    );
    assert_eq!(
        here.legacy.methods(),
        [
            "notifications/tools/list_changed",
            "notifications/tools/list_changed"
        ]
    );
    assert_eq!(here.listen.methods().len(), 2);
    // The handle's notifier is the server's: its own calls do go.
    assert_eq!(handle.notifier().tools_changed(), 0);
    assert_eq!(bus.taken().len(), 1);
}

#[test]
fn events_have_a_compact_wire_form_named_by_kind() {
    let cases = [
        (
            FleetEvent::ListChanged {
                list: ListKind::Resources,
            },
            r#"{"kind":"list_changed","list":"resources"}"#,
        ),
        (
            FleetEvent::Log {
                level: LogLevel::Emergency,
                logger: Some("db".into()),
                data: json!({"a": [1]}),
            },
            r#"{"kind":"log","level":"emergency","logger":"db","data":{"a":[1]}}"#,
        ),
        (
            FleetEvent::Log {
                level: LogLevel::Debug,
                logger: None,
                data: json!(null),
            },
            r#"{"kind":"log","level":"debug","data":null}"#,
        ),
        (
            FleetEvent::ResourceUpdated {
                uri: "file:///a b".into(),
            },
            r#"{"kind":"resource_updated","uri":"file:///a b"}"#,
        ),
    ];
    for (event, wire) in cases {
        let audience = match event {
            FleetEvent::ResourceUpdated { .. } => DeliverTo::Listens,
            _ => DeliverTo::All,
        };
        assert_eq!(event.audience(), audience);
        assert_eq!(event.encode(), wire);
        assert_eq!(FleetEvent::decode(wire), Some(event));
    }
    for unknown in [
        r#"{"kind":"tasks_changed"}"#,
        r#"{"kind":"log","level":"loud","data":1}"#,
        r#"{"kind":"list_changed","list":"roots"}"#,
        "not json",
    ] {
        assert_eq!(FleetEvent::decode(unknown), None, "{unknown}");
    }
}
