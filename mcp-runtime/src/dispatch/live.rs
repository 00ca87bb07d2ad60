//! What a server serves right now: the registry and its list pages, as one
//! snapshot that requests read without locking and that a
//! [`ServerHandle`](crate::ServerHandle) replaces whole when it adds or
//! removes something. A request keeps the snapshot (or the entry) it
//! started with, so a call in progress finishes even if its tool is
//! removed meanwhile.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use arc_swap::ArcSwap;
use serde_json::Value;
use serde_json::value::RawValue;

use super::pages::Pages;
use crate::jsonrpc::ErrorObject;
use crate::protocol::listing::{PromptEntry, ResourceEntry};
use crate::protocol::shape::ToolEntry;
use crate::protocol::version::ProtocolVersion;
use crate::registry::Registry;
use crate::registry::change::Change;
use crate::registry::error::RegistryError;

/// The registry and the pages of its four lists.
pub(crate) struct Snapshot {
    pub(crate) registry: Registry,
    tools: Pages,
    resources: Pages,
    templates: Pages,
    prompts: Pages,
}

impl Snapshot {
    fn new(registry: Registry, page_size: Option<usize>) -> Snapshot {
        Snapshot {
            registry,
            tools: Pages::new("tools", page_size),
            resources: Pages::new("resources", page_size),
            templates: Pages::new("resourceTemplates", page_size),
            prompts: Pages::new("prompts", page_size),
        }
    }

    /// The answer to a list method (`tools/list`, `resources/list`,
    /// `resources/templates/list` or `prompts/list`) at `cursor`.
    pub(crate) fn page(
        &self,
        method: &str,
        cursor: Option<&Value>,
        version: ProtocolVersion,
    ) -> Result<&RawValue, ErrorObject> {
        let registry = &self.registry;
        match method {
            "tools/list" => self.tools.page(
                registry.tools(),
                |tool, version| ToolEntry { tool, version },
                cursor,
                version,
            ),
            "resources/list" => self.resources.page(
                registry.resources(),
                |resource, version| ResourceEntry { resource, version },
                cursor,
                version,
            ),
            "resources/templates/list" => self.templates.page(
                registry.resource_templates(),
                |resource, version| ResourceEntry { resource, version },
                cursor,
                version,
            ),
            _ => self.prompts.page(
                registry.prompts(),
                |prompt, version| PromptEntry { prompt, version },
                cursor,
                version,
            ),
        }
    }
}

/// The snapshot a connection serves from, and the generation it was
/// loaded at.
pub(crate) struct Held {
    snapshot: Arc<Snapshot>,
    generation: u64,
}

/// The current snapshot, and the lock that keeps two changes from being
/// made from the same original (one would be lost).
pub(crate) struct Live {
    current: ArcSwap<Snapshot>,
    /// Bumped after each change: a connection keeps the snapshot it last
    /// loaded and loads again only when this moved, which costs a request
    /// one atomic read instead of an `ArcSwap` load.
    generation: AtomicU64,
    changing: Mutex<()>,
    page_size: Option<usize>,
}

impl Live {
    pub(crate) fn new(registry: Registry, page_size: Option<usize>) -> Live {
        Live {
            current: ArcSwap::from_pointee(Snapshot::new(registry, page_size)),
            generation: AtomicU64::new(0),
            changing: Mutex::new(()),
            page_size,
        }
    }

    /// The snapshot to serve a request from.
    pub(crate) fn load(&self) -> Arc<Snapshot> {
        self.current.load_full()
    }

    /// A connection's snapshot, loaded again if a change was made since.
    pub(crate) fn refresh<'a>(&self, held: &'a mut Held) -> &'a Arc<Snapshot> {
        let generation = self.generation.load(Ordering::Acquire);
        if held.generation != generation {
            held.snapshot = self.load();
            held.generation = generation;
        }
        &held.snapshot
    }

    /// What a new connection starts with.
    pub(crate) fn hold(&self) -> Held {
        let generation = self.generation.load(Ordering::Acquire);
        Held {
            snapshot: self.load(),
            generation,
        }
    }

    /// Makes `change`; whether it changed anything.
    pub(crate) fn change(&self, change: &Change) -> Result<bool, RegistryError> {
        let _one_at_a_time = self.changing.lock().unwrap_or_else(|e| e.into_inner());
        let current = self.current.load();
        match current.registry.changed(change)? {
            Some(registry) => {
                self.current
                    .store(Arc::new(Snapshot::new(registry, self.page_size)));
                self.generation.fetch_add(1, Ordering::Release);
                Ok(true)
            }
            None => Ok(false),
        }
    }
}
