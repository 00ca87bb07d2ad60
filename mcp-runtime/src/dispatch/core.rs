//! What every connection of one server shares, built once at start-up: the
//! registry, the limits, and the list pages serialized per version.

use std::sync::Arc;
use std::time::Duration;

use super::pages::Pages;
use crate::notify::{Hub, Notifier};
use crate::protocol::capabilities::Served;
use crate::protocol::info::ServerInfo;
use crate::protocol::listing::{PromptEntry, ResourceEntry};
use crate::protocol::shape::ToolEntry;
use crate::registry::Registry;

/// Tunables of a server, set on the builder.
#[derive(Clone, Debug)]
pub(crate) struct Limits {
    pub(crate) max_in_flight: usize,
    /// Bytes of calls waiting for a slot (see `dispatch::calls`) beyond
    /// which reading stops.
    pub(crate) max_backlog_bytes: usize,
    pub(crate) max_message_bytes: usize,
    pub(crate) shutdown_grace: Duration,
    pub(crate) page_size: Option<usize>,
    pub(crate) default_timeout: Option<Duration>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_in_flight: 1024,
            max_backlog_bytes: 8 * 1024 * 1024,
            max_message_bytes: 16 * 1024 * 1024,
            shutdown_grace: Duration::from_secs(5),
            page_size: None,
            default_timeout: None,
        }
    }
}

/// Everything shared by the connections of one server, built once.
pub(crate) struct ServerCore {
    /// `serverInfo`.
    pub(crate) info: ServerInfo,
    pub(crate) instructions: Option<String>,
    pub(crate) registry: Registry,
    pub(crate) tools: Pages,
    pub(crate) resources: Pages,
    pub(crate) templates: Pages,
    pub(crate) prompts: Pages,
    /// What the capabilities declare.
    pub(crate) served: Served,
    /// The sessions a [`Notifier`](crate::Notifier) tells about changes.
    pub(crate) hub: Arc<Hub>,
    pub(crate) limits: Limits,
}

impl ServerCore {
    pub(crate) fn new(
        info: ServerInfo,
        instructions: Option<String>,
        registry: Registry,
        limits: Limits,
        notifier: Option<Notifier>,
    ) -> ServerCore {
        let mut served = Served::of(&registry);
        served.list_changes = notifier.is_some();
        let hub = notifier.map(|n| n.hub).unwrap_or_default();
        let size = limits.page_size;
        ServerCore {
            info,
            instructions,
            tools: Pages::build(registry.tools(), size, "tools", |tool, version| ToolEntry {
                tool,
                version,
            }),
            resources: Pages::build(
                registry.resources(),
                size,
                "resources",
                |resource, version| ResourceEntry { resource, version },
            ),
            templates: Pages::build(
                registry.resource_templates(),
                size,
                "resourceTemplates",
                |resource, version| ResourceEntry { resource, version },
            ),
            prompts: Pages::build(registry.prompts(), size, "prompts", |prompt, version| {
                PromptEntry { prompt, version }
            }),
            served,
            hub,
            registry,
            limits,
        }
    }
}
