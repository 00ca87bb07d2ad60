//! Changing what a server serves while it runs: tools, resources and
//! prompts added and removed from any task, each change announced to every
//! session with its list's `list_changed` notification.

use std::sync::{Arc, Mutex, MutexGuard, Weak};

use crate::dispatch::{Live, ServerCore};
use crate::notify::{ListKind, Notifier};
use crate::prompts::dynamic::DynamicPrompt;
use crate::registry::change::{Change, List};
use crate::registry::error::RegistryError;
use crate::resources::dynamic::DynamicResource;
use crate::tools::build::build_dynamic;
use crate::tools::dynamic::DynamicTool;

/// Adds and removes tools, resources and prompts while the server runs,
/// for proxies and plugin hosts; cheap to clone, usable from any task.
/// Get one with [`Server::handle`](crate::Server::handle) before serving.
///
/// Each change that changes something is announced to every session
/// (`notifications/tools/list_changed` and its siblings); a server with a
/// handle declares `tools`, `resources`, `prompts` and `completions` with
/// `listChanged: true`, since any of them may appear. A call, read or get
/// already in progress finishes with what it started with.
///
/// With progressive discovery ([`Server::tool_search`](crate::Server::tool_search)),
/// a tool change is announced only when it changes what `tools/list`
/// shows (a pinned tool, or the threshold crossed); the search finds the
/// others.
///
/// In a fleet (instances sharing their sessions through a Redis session
/// store), each instance's registry is its own: a change is announced to
/// the clients of the instance it was made on only, so make it on every
/// instance.
///
/// Changes made before the server starts are applied when it starts, in
/// order (a duplicate then stops the server with both locations, as on the
/// builder).
///
/// ```
/// use mcp_runtime::{DynamicTool, Server, serde_json::json};
///
/// let mut server = Server::new("plugins", "1.0.0");
/// let handle = server.handle();
/// // Later, from any task, when a plugin loads:
/// let hello = DynamicTool::new(
///     "hello",
///     "Says hello.",
///     json!({"type": "object"}),
///     |_arguments, _ctx| async move { "hello" },
/// );
/// handle.add_tool(hello).expect("no other tool is named hello");
/// // ... and when it unloads:
/// handle.remove_tool("hello");
/// # let _ = server;
/// ```
#[derive(Clone)]
pub struct ServerHandle {
    notifier: Notifier,
    slot: Arc<Mutex<Slot>>,
}

enum Slot {
    /// The server has not started: changes wait for it.
    Pending(Vec<Change>),
    /// The server runs (or ran: the registry is gone when it has stopped).
    Serving(Weak<Live>),
}

impl ServerHandle {
    pub(crate) fn new(notifier: Notifier) -> ServerHandle {
        ServerHandle {
            notifier,
            slot: Arc::new(Mutex::new(Slot::Pending(Vec::new()))),
        }
    }

    /// The notifier of the same server, to announce updated resources.
    pub fn notifier(&self) -> &Notifier {
        &self.notifier
    }

    /// Adds a tool. Refused if a tool of that name is served (the error
    /// names both definitions) or if it cannot be served (an invalid name
    /// or schema), and after the server has stopped.
    pub fn add_tool(&self, tool: DynamicTool) -> Result<(), RegistryError> {
        let tool = Arc::new(build_dynamic(&tool)?);
        self.apply(Change::AddTool(tool)).map(drop)
    }

    /// Removes the tool with this name; whether one was served (before the
    /// server starts: `true`, the removal waits for it).
    pub fn remove_tool(&self, name: &str) -> bool {
        self.apply(Change::RemoveTool(name.to_owned()))
            .unwrap_or(false)
    }

    /// Adds a resource or resource template. Refused if one with that URI
    /// (template) is served or if it cannot be served, and after the
    /// server has stopped.
    pub fn add_resource(&self, resource: DynamicResource) -> Result<(), RegistryError> {
        let resource = Arc::new(resource.build()?);
        self.apply(Change::AddResource(resource)).map(drop)
    }

    /// Removes the resource or resource template with this URI (template);
    /// whether one was served (before the server starts: `true`).
    pub fn remove_resource(&self, uri: &str) -> bool {
        self.apply(Change::RemoveResource(uri.to_owned()))
            .unwrap_or(false)
    }

    /// Adds a prompt. Refused if a prompt of that name is served or if it
    /// cannot be served, and after the server has stopped.
    pub fn add_prompt(&self, prompt: DynamicPrompt) -> Result<(), RegistryError> {
        let prompt = Arc::new(prompt.build()?);
        self.apply(Change::AddPrompt(prompt)).map(drop)
    }

    /// Removes the prompt with this name; whether one was served (before
    /// the server starts: `true`).
    pub fn remove_prompt(&self, name: &str) -> bool {
        self.apply(Change::RemovePrompt(name.to_owned()))
            .unwrap_or(false)
    }

    /// Makes several changes, announcing each list that changed once;
    /// each change's outcome, in order (before the server starts, all
    /// wait for it). Fails only when the server has stopped.
    pub(crate) fn apply_all(
        &self,
        changes: Vec<Change>,
    ) -> Result<Vec<Result<bool, RegistryError>>, RegistryError> {
        let live = match &mut *self.lock() {
            Slot::Pending(pending) => {
                let outcomes = changes.iter().map(|_| Ok(true)).collect();
                pending.extend(changes);
                return Ok(outcomes);
            }
            Slot::Serving(live) => live.upgrade().ok_or(RegistryError::Stopped)?,
        };
        let mut touched = Vec::new();
        let outcomes = changes
            .iter()
            .map(|change| {
                let changed = live.change(change)?;
                // With progressive discovery, a tool that is not listed
                // changes no client's list: the next search finds it.
                if changed.listed && !touched.contains(&change.list()) {
                    touched.push(change.list());
                }
                Ok(changed.any)
            })
            .collect();
        for list in touched {
            self.announce(list);
        }
        Ok(outcomes)
    }

    /// Whether the server this handle changes has stopped serving.
    #[cfg(feature = "client")]
    pub(crate) fn is_stopped(&self) -> bool {
        matches!(&*self.lock(), Slot::Serving(live) if live.strong_count() == 0)
    }

    /// Tells this instance's clients that `list` changed. Never the
    /// fleet's: each instance's registry is its own, and another
    /// instance's clients would list that instance's.
    fn announce(&self, list: List) {
        self.notifier.list_changed_here(match list {
            List::Tools => ListKind::Tools,
            List::Resources => ListKind::Resources,
            List::Prompts => ListKind::Prompts,
        });
    }

    fn apply(&self, change: Change) -> Result<bool, RegistryError> {
        self.apply_all(vec![change])?.pop().unwrap_or(Ok(false))
    }

    /// Builds the server's core with the changes made so far, and from then
    /// on makes changes to it.
    pub(crate) fn start(
        &self,
        build: impl FnOnce(Vec<Change>) -> Result<ServerCore, RegistryError>,
    ) -> Result<ServerCore, RegistryError> {
        let mut slot = self.lock();
        let pending = match std::mem::replace(&mut *slot, Slot::Pending(Vec::new())) {
            Slot::Pending(changes) => changes,
            Slot::Serving(_) => Vec::new(),
        };
        let core = build(pending)?;
        *slot = Slot::Serving(Arc::downgrade(&core.live));
        Ok(core)
    }

    fn lock(&self) -> MutexGuard<'_, Slot> {
        self.slot.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl std::fmt::Debug for ServerHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerHandle").finish_non_exhaustive()
    }
}
