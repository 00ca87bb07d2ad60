//! What a server serves right now: the registry and its list pages, as one
//! snapshot that connections keep until it changes and that a
//! [`ServerHandle`](crate::ServerHandle) replaces whole when it adds or
//! removes something. A request keeps the snapshot (or the entry) it
//! started with, so a call in progress finishes even if its tool is
//! removed meanwhile.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, PoisonError, RwLock};

use serde_json::Value;
use serde_json::value::RawValue;

use super::pages::Pages;
use crate::auth::Identity;
use crate::jsonrpc::ErrorObject;
use crate::prompts::build::Prompt;
use crate::protocol::listing::{PromptEntry, ResourceEntry};
use crate::protocol::shape::ToolEntry;
use crate::protocol::version::ProtocolVersion;
use crate::registry::Registry;
use crate::registry::change::{Change, List};
use crate::registry::error::RegistryError;
use crate::resources::build::Resource;
use crate::tools::def::Tool;
use crate::tools::search::Index;

/// The registry and the pages of its four lists.
pub(crate) struct Snapshot {
    pub(crate) registry: Registry,
    /// With progressive discovery, the tools `tools/list` shows (see
    /// [`Registry::listed`]); `None` lists every tool.
    listed: Option<Vec<Arc<Tool>>>,
    /// The search index of progressive discovery, built when first
    /// searched.
    index: OnceLock<Index>,
    page_size: Option<usize>,
    tools: Pages,
    resources: Pages,
    templates: Pages,
    prompts: Pages,
    #[cfg(feature = "skills")]
    skills: Pages,
}

impl Snapshot {
    fn new(registry: Registry, page_size: Option<usize>) -> Snapshot {
        let listed = registry
            .discovery
            .as_ref()
            .map(|discovery| discovery.listed(registry.tools()));
        Snapshot {
            registry,
            listed,
            index: OnceLock::new(),
            page_size,
            tools: Pages::new("tools", page_size),
            resources: Pages::new("resources", page_size),
            templates: Pages::new("resourceTemplates", page_size),
            prompts: Pages::new("prompts", page_size),
            #[cfg(feature = "skills")]
            skills: Pages::new("skills", page_size),
        }
    }

    /// The tools `tools/list` shows, sorted by name.
    pub(crate) fn listed_tools(&self) -> &[Arc<Tool>] {
        self.listed.as_deref().unwrap_or(self.registry.tools())
    }

    /// The search index of the catalog (progressive discovery), built the
    /// first time it is asked for.
    pub(crate) fn search_index(&self) -> &Index {
        self.index.get_or_init(|| match &self.registry.discovery {
            Some(discovery) => discovery.index(self.registry.tools()),
            None => Index::new(self.registry.tools().to_vec()),
        })
    }

    /// The page of `skills/list` at `cursor`.
    #[cfg(feature = "skills")]
    pub(crate) fn skills_page(
        &self,
        cursor: Option<&Value>,
        version: ProtocolVersion,
    ) -> Result<&RawValue, ErrorObject> {
        let entries = self.registry.skills.entries();
        self.skills.page(entries, |entry, _| entry, cursor, version)
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
                self.listed_tools(),
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

impl Snapshot {
    /// The answer to a list method with only the entries `caller` has
    /// every scope of ([`Server::list_only_permitted`](crate::Server::list_only_permitted)):
    /// built for this request, not kept.
    pub(crate) fn permitted_page(
        &self,
        method: &str,
        cursor: Option<&Value>,
        version: ProtocolVersion,
        caller: &Identity,
    ) -> Result<Box<RawValue>, ErrorObject> {
        let registry = &self.registry;
        let at = (caller, self.page_size, cursor, version);
        match method {
            "tools/list" => permitted(
                at,
                "tools",
                self.listed_tools(),
                Tool::scopes,
                |tool, version| ToolEntry { tool, version },
            ),
            "resources/list" => permitted(
                at,
                "resources",
                registry.resources(),
                Resource::scopes,
                |resource, version| ResourceEntry { resource, version },
            ),
            "resources/templates/list" => permitted(
                at,
                "resourceTemplates",
                registry.resource_templates(),
                Resource::scopes,
                |resource, version| ResourceEntry { resource, version },
            ),
            _ => permitted(
                at,
                "prompts",
                registry.prompts(),
                Prompt::scopes,
                |prompt, version| PromptEntry { prompt, version },
            ),
        }
    }
}

/// The page at `cursor` of those of `all` whose `scopes` the caller has
/// every one of, under `key`, each entry serialized by `entry`.
fn permitted<'a, T, E: serde::Serialize>(
    (caller, page_size, cursor, version): (
        &Identity,
        Option<usize>,
        Option<&Value>,
        ProtocolVersion,
    ),
    key: &'static str,
    all: &'a [Arc<T>],
    scopes: fn(&T) -> &[String],
    entry: impl Fn(&'a T, ProtocolVersion) -> E,
) -> Result<Box<RawValue>, ErrorObject> {
    let items: Vec<&'a T> = all
        .iter()
        .map(|item| &**item)
        .filter(|item| caller.missing(scopes(item)).is_empty())
        .collect();
    let pages = Pages::new(key, page_size);
    let page = pages.page(
        &items,
        |item, version| entry(item, version),
        cursor,
        version,
    )?;
    Ok(page.to_owned())
}

/// The snapshot a connection serves from, and the generation it was
/// loaded at.
pub(crate) struct Held {
    snapshot: Arc<Snapshot>,
    generation: u64,
}

/// The current snapshot. Connections read it again only when the
/// generation moved, so the lock is taken on a change, by a new connection,
/// and by the few readers outside a connection; a change holds it while it
/// builds the next registry, so that two changes cannot both start from
/// the same original (one would be lost).
pub(crate) struct Live {
    current: RwLock<Arc<Snapshot>>,
    /// Bumped after each change: a connection keeps the snapshot it last
    /// loaded and loads again only when this moved, which costs a request
    /// one atomic read.
    generation: AtomicU64,
    page_size: Option<usize>,
}

impl Live {
    pub(crate) fn new(registry: Registry, page_size: Option<usize>) -> Live {
        Live {
            current: RwLock::new(Arc::new(Snapshot::new(registry, page_size))),
            generation: AtomicU64::new(0),
            page_size,
        }
    }

    /// The snapshot to serve a request from.
    pub(crate) fn load(&self) -> Arc<Snapshot> {
        let current = self.current.read().unwrap_or_else(PoisonError::into_inner);
        Arc::clone(&current)
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

    /// Makes `change`; whether it changed anything, and whether clients
    /// should list again.
    pub(crate) fn change(&self, change: &Change) -> Result<Changed, RegistryError> {
        let mut current = self.current.write().unwrap_or_else(PoisonError::into_inner);
        match current.registry.changed(change)? {
            Some(registry) => {
                let next = Snapshot::new(registry, self.page_size);
                let listed = !matches!(change.list(), List::Tools)
                    || !same_tools(current.listed_tools(), next.listed_tools());
                *current = Arc::new(next);
                self.generation.fetch_add(1, Ordering::Release);
                Ok(Changed { any: true, listed })
            }
            None => Ok(Changed::default()),
        }
    }
}

/// What a change to a [`Live`] did.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Changed {
    /// Something was added or removed.
    pub(crate) any: bool,
    /// What a client lists changed: always for resources and prompts; for
    /// tools, unless progressive discovery leaves the change unlisted.
    pub(crate) listed: bool,
}

/// Whether `a` and `b` are the same tools (the same definitions, not
/// only the same names).
fn same_tools(a: &[Arc<Tool>], b: &[Arc<Tool>]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(a, b)| Arc::ptr_eq(a, b))
}
