//! What every connection of one server shares, built once at start-up: the
//! registry, the limits, and the `tools/list` pages serialized per version.

use std::time::Duration;

use serde_json::Value;
use serde_json::value::RawValue;

use crate::jsonrpc::{ErrorObject, INVALID_PARAMS};
use crate::protocol::shape;
use crate::protocol::version::ProtocolVersion;
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
    pub(crate) name: String,
    pub(crate) version: String,
    pub(crate) instructions: Option<String>,
    pub(crate) registry: Registry,
    /// `tools/list` results, serialized once: `[version][page]`.
    pages: Vec<Vec<Box<RawValue>>>,
    pub(crate) limits: Limits,
}

impl ServerCore {
    pub(crate) fn new(
        name: String,
        version: String,
        instructions: Option<String>,
        registry: Registry,
        limits: Limits,
    ) -> ServerCore {
        let page_size = limits.page_size.unwrap_or(usize::MAX).max(1);
        let pages = ProtocolVersion::ALL
            .iter()
            .map(|&version| {
                let tools = registry.tools();
                let chunks: Vec<_> = if tools.is_empty() {
                    vec![&tools[..0]]
                } else {
                    tools.chunks(page_size.min(tools.len())).collect()
                };
                let count = chunks.len();
                chunks
                    .into_iter()
                    .enumerate()
                    .map(|(i, chunk)| {
                        #[derive(serde::Serialize)]
                        struct Page<'a> {
                            tools: Vec<shape::ToolEntry<'a>>,
                            #[serde(
                                rename = "nextCursor",
                                skip_serializing_if = "Option::is_none"
                            )]
                            next_cursor: Option<String>,
                        }
                        let page = Page {
                            tools: chunk
                                .iter()
                                .map(|tool| shape::ToolEntry { tool, version })
                                .collect(),
                            next_cursor: (i + 1 < count).then(|| cursor(i + 1)),
                        };
                        serde_json::value::to_raw_value(&page).unwrap_or_default()
                    })
                    .collect()
            })
            .collect();
        ServerCore {
            name,
            version,
            instructions,
            registry,
            pages,
            limits,
        }
    }
}

impl ServerCore {
    /// The `tools/list` page at `cursor` (the first without one), in
    /// `version`'s shape.
    pub(crate) fn tools_page(
        &self,
        cursor: Option<&Value>,
        version: ProtocolVersion,
    ) -> Result<&RawValue, ErrorObject> {
        let pages = &self.pages[version.index()];
        let page = match cursor {
            None | Some(Value::Null) => 0,
            Some(Value::String(c)) => match parse_cursor(c) {
                Some(i) if i > 0 && i < pages.len() => i,
                _ => {
                    return Err(ErrorObject::new(
                        INVALID_PARAMS,
                        format!("Invalid cursor: {c:?}"),
                    ));
                }
            },
            Some(_) => {
                return Err(ErrorObject::new(
                    INVALID_PARAMS,
                    "`cursor` must be a string",
                ));
            }
        };
        Ok(&pages[page])
    }
}

fn cursor(page: usize) -> String {
    format!("page-{page}")
}

fn parse_cursor(cursor: &str) -> Option<usize> {
    cursor.strip_prefix("page-")?.parse().ok()
}
