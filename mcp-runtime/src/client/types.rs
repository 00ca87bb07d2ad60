//! What the list and completion calls return: the server's JSON, kept
//! whole (a proxy passes schemas and annotations on untouched), with
//! accessors for the members most callers read.

use serde_json::Value;

macro_rules! json_wrapper {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq)]
        pub struct $name(pub(crate) Value);

        impl $name {
            /// The whole object, as the server sent it.
            pub fn as_json(&self) -> &Value {
                &self.0
            }

            /// The whole object, as the server sent it.
            pub fn into_json(self) -> Value {
                self.0
            }

            fn text(&self, key: &str) -> Option<&str> {
                self.0.get(key).and_then(Value::as_str)
            }

            /// `title`, if given.
            pub fn title(&self) -> Option<&str> {
                self.text("title")
            }

            /// `description`, if given.
            pub fn description(&self) -> Option<&str> {
                self.text("description")
            }
        }
    };
}

json_wrapper!(
    /// A tool, as `tools/list` describes it.
    ToolInfo
);

impl ToolInfo {
    /// `name`: what [`Client::call_tool`](crate::client::Client::call_tool) takes.
    pub fn name(&self) -> &str {
        self.text("name").unwrap_or_default()
    }

    /// `inputSchema`.
    pub fn input_schema(&self) -> Option<&Value> {
        self.0.get("inputSchema")
    }

    /// `outputSchema`, if the tool has one.
    pub fn output_schema(&self) -> Option<&Value> {
        self.0.get("outputSchema")
    }

    /// `annotations`, if given.
    pub fn annotations(&self) -> Option<&Value> {
        self.0.get("annotations")
    }
}

json_wrapper!(
    /// A resource, as `resources/list` describes it.
    ResourceInfo
);

impl ResourceInfo {
    /// `uri`.
    pub fn uri(&self) -> &str {
        self.text("uri").unwrap_or_default()
    }

    /// `name`.
    pub fn name(&self) -> &str {
        self.text("name").unwrap_or_default()
    }

    /// `mimeType`, if given.
    pub fn mime_type(&self) -> Option<&str> {
        self.text("mimeType")
    }
}

json_wrapper!(
    /// A resource template, as `resources/templates/list` describes it.
    ResourceTemplateInfo
);

impl ResourceTemplateInfo {
    /// `uriTemplate` (RFC 6570).
    pub fn uri_template(&self) -> &str {
        self.text("uriTemplate").unwrap_or_default()
    }

    /// `name`.
    pub fn name(&self) -> &str {
        self.text("name").unwrap_or_default()
    }

    /// `mimeType`, if given.
    pub fn mime_type(&self) -> Option<&str> {
        self.text("mimeType")
    }
}

json_wrapper!(
    /// A prompt, as `prompts/list` describes it.
    PromptInfo
);

impl PromptInfo {
    /// `name`: what [`Client::get_prompt`](crate::client::Client::get_prompt) takes.
    pub fn name(&self) -> &str {
        self.text("name").unwrap_or_default()
    }

    /// The arguments' names, with whether each is required.
    pub fn arguments(&self) -> Vec<(&str, bool)> {
        let arguments = self.0.get("arguments").and_then(Value::as_array);
        arguments
            .into_iter()
            .flatten()
            .filter_map(|a| {
                let name = a.get("name")?.as_str()?;
                let required = a.get("required").and_then(Value::as_bool) == Some(true);
                Some((name, required))
            })
            .collect()
    }
}

json_wrapper!(
    /// The server's `serverInfo`.
    ServerInfo
);

impl ServerInfo {
    /// `name`.
    pub fn name(&self) -> &str {
        self.text("name").unwrap_or_default()
    }

    /// `version`.
    pub fn version(&self) -> &str {
        self.text("version").unwrap_or_default()
    }
}

/// The server's `capabilities`.
#[derive(Clone, Debug, PartialEq)]
pub struct ServerCapabilities(pub(crate) Value);

impl ServerCapabilities {
    /// The whole object, as the server sent it.
    pub fn as_json(&self) -> &Value {
        &self.0
    }

    fn has(&self, key: &str) -> bool {
        self.0.get(key).is_some_and(Value::is_object)
    }

    fn flag(&self, key: &str, flag: &str) -> bool {
        self.0
            .get(key)
            .and_then(|c| c.get(flag))
            .and_then(Value::as_bool)
            == Some(true)
    }

    /// Whether the server offers tools.
    pub fn tools(&self) -> bool {
        self.has("tools")
    }

    /// Whether the server offers resources.
    pub fn resources(&self) -> bool {
        self.has("resources")
    }

    /// Whether resources can be subscribed to.
    pub fn resource_subscribe(&self) -> bool {
        self.flag("resources", "subscribe")
    }

    /// Whether the server offers prompts.
    pub fn prompts(&self) -> bool {
        self.has("prompts")
    }

    /// Whether the server completes arguments.
    pub fn completions(&self) -> bool {
        self.has("completions")
    }

    /// Whether the server sends log messages (`logging/setLevel`).
    pub fn logging(&self) -> bool {
        self.has("logging")
    }

    /// Whether the server announces changes to this list (`"tools"`,
    /// `"resources"` or `"prompts"`).
    pub fn list_changed(&self, list: &str) -> bool {
        self.flag(list, "listChanged")
    }
}

/// The answer of `completion/complete`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Completion {
    /// The suggested values, at most 100.
    pub values: Vec<String>,
    /// How many values there are in all, if the server knows.
    pub total: Option<u64>,
    /// Whether there are more values than those sent.
    pub has_more: bool,
}
