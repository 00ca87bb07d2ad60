//! The `capabilities` an `initialize` answer declares: only what is
//! served, in the shape of the negotiated version.

use serde_json::{Map, Value, json};

use crate::protocol::version::ProtocolVersion;
use crate::registry::Registry;

/// What a server serves, as far as its capabilities tell.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Served {
    pub(crate) resources: bool,
    pub(crate) prompts: bool,
    pub(crate) completions: bool,
    /// A [`Notifier`](crate::Notifier) was taken: lists may change.
    pub(crate) list_changes: bool,
    /// Tools may run as tasks: the `tasks/*` methods are served.
    pub(crate) tasks: bool,
    /// A tool links a view, or a resource is one (MCP Apps).
    pub(crate) apps: bool,
    /// Skills are served: `skills/list` and `skills/get`.
    pub(crate) skills: bool,
}

impl Served {
    pub(crate) fn of(registry: &Registry) -> Served {
        Served {
            resources: !registry.resources().is_empty()
                || !registry.resource_templates().is_empty(),
            prompts: !registry.prompts().is_empty(),
            completions: registry.completes(),
            list_changes: false,
            tasks: false,
            apps: crate::registry::views::any_app(registry.tools(), registry.resources()),
            skills: registry.serves_skills(),
        }
    }

    /// Everything, with lists that change: a
    /// [`ServerHandle`](crate::ServerHandle) may add any primitive later.
    pub(crate) fn everything() -> Served {
        Served {
            resources: true,
            prompts: true,
            completions: true,
            list_changes: true,
            tasks: false,
            // A tool with a view may come too.
            apps: true,
            skills: false,
        }
    }

    /// Whether `method` belongs to something this server serves; methods
    /// of what it does not serve are answered "method not found".
    pub(crate) fn serves(&self, method: &str) -> bool {
        match method {
            "resources/list"
            | "resources/templates/list"
            | "resources/read"
            | "resources/subscribe"
            | "resources/unsubscribe" => self.resources,
            "prompts/list" | "prompts/get" => self.prompts,
            "completion/complete" => self.completions,
            "tasks/list" | "tasks/get" | "tasks/result" | "tasks/cancel" | "tasks/update" => {
                self.tasks
            }
            "skills/list" | "skills/get" => self.skills,
            _ => true,
        }
    }

    /// The `capabilities` object for `version`, for a client that is
    /// `identified` (authenticated: 2025-11-25 `tasks/list` can then show
    /// it its own tasks, and is declared only then).
    pub(crate) fn capabilities(&self, version: ProtocolVersion, identified: bool) -> Value {
        let mut capabilities = Map::new();
        capabilities.insert("logging".into(), json!({}));
        let changes = self.list_changes;
        capabilities.insert("tools".into(), json!({ "listChanged": changes }));
        if self.resources {
            capabilities.insert(
                "resources".into(),
                json!({ "subscribe": true, "listChanged": changes }),
            );
        }
        if self.prompts {
            capabilities.insert("prompts".into(), json!({ "listChanged": changes }));
        }
        if self.completions && version.has_completions_capability() {
            capabilities.insert("completions".into(), json!({}));
        }
        if self.tasks && version == ProtocolVersion::V2025_11_25 {
            let mut tasks = json!({ "cancel": {}, "requests": { "tools": { "call": {} } } });
            if identified {
                tasks["list"] = json!({});
            }
            capabilities.insert("tasks".into(), tasks);
        }
        let extensions = self.extensions(version);
        if !extensions.is_empty() {
            capabilities.insert("extensions".into(), Value::Object(extensions));
        }
        Value::Object(capabilities)
    }

    /// The `extensions` of the capabilities for `version`, each under its
    /// identifier; empty when none is served. Tasks are an extension in
    /// the 2026-07-28 era only (the legacy era has the `tasks`
    /// capability); MCP Apps is declared from 2025-06-18 on, in both eras.
    fn extensions(&self, version: ProtocolVersion) -> Map<String, Value> {
        let declared = [
            (
                crate::tasks::wire::EXTENSION,
                self.tasks && version.is_modern(),
            ),
            (crate::apps::EXTENSION, self.apps && version.has_apps()),
            // A string, not `crate::skills::EXTENSION`: that module needs
            // the `skills` feature, and `skills` is false without it.
            ("io.modelcontextprotocol/skills", self.skills),
        ];
        declared
            .into_iter()
            .filter(|&(_, served)| served)
            .map(|(id, _)| (id.to_owned(), json!({})))
            .collect()
    }
}
