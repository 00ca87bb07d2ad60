//! The protocol versions served, and what each defines. The lowest layer
//! of the protocol: anything may ask a version what it has.
//!
//! Two eras: the legacy versions (2024-11-05 to 2025-11-25) open a session
//! with `initialize`; the modern one (2026-07-28) has no handshake, and
//! every request names its version in `_meta`.

use std::fmt;

/// A protocol version: one of the legacy (initialize-based) era, or the
/// modern one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum ProtocolVersion {
    /// 2024-11-05: the base protocol.
    V2024_11_05,
    /// 2025-03-26: tool annotations, audio content, JSON-RPC batches.
    V2025_03_26,
    /// 2025-06-18: titles, structured output, resource links; no batches.
    V2025_06_18,
    /// 2025-11-25: icons, JSON Schema 2020-12 as the default dialect.
    V2025_11_25,
    /// 2026-07-28: no `initialize` and no sessions; each request carries its
    /// version and the client's capabilities in `_meta`, and a server that
    /// needs input answers `input_required` instead of asking.
    V2026_07_28,
}

impl ProtocolVersion {
    /// Every version served, oldest first.
    pub const ALL: [ProtocolVersion; 5] = [
        ProtocolVersion::V2024_11_05,
        ProtocolVersion::V2025_03_26,
        ProtocolVersion::V2025_06_18,
        ProtocolVersion::V2025_11_25,
        ProtocolVersion::V2026_07_28,
    ];

    /// The versions `initialize` negotiates, oldest first.
    pub const LEGACY: [ProtocolVersion; 4] = [
        ProtocolVersion::V2024_11_05,
        ProtocolVersion::V2025_03_26,
        ProtocolVersion::V2025_06_18,
        ProtocolVersion::V2025_11_25,
    ];

    /// The newest legacy version: what `initialize` answers a client asking
    /// for one we do not know.
    pub const LATEST: ProtocolVersion = ProtocolVersion::V2025_11_25;

    /// The modern version: served per request, without `initialize`.
    pub const MODERN: ProtocolVersion = ProtocolVersion::V2026_07_28;

    /// The version's name, as sent on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            ProtocolVersion::V2024_11_05 => "2024-11-05",
            ProtocolVersion::V2025_03_26 => "2025-03-26",
            ProtocolVersion::V2025_06_18 => "2025-06-18",
            ProtocolVersion::V2025_11_25 => "2025-11-25",
            ProtocolVersion::V2026_07_28 => "2026-07-28",
        }
    }

    /// The version with this name, if served.
    pub fn parse(name: &str) -> Option<ProtocolVersion> {
        ProtocolVersion::ALL
            .into_iter()
            .find(|v| v.as_str() == name)
    }

    /// The legacy version with this name: what `initialize` may agree on.
    pub fn parse_legacy(name: &str) -> Option<ProtocolVersion> {
        ProtocolVersion::parse(name).filter(|v| !v.is_modern())
    }

    /// Whether this version is of the modern era (no `initialize`, `_meta`
    /// on every request).
    pub fn is_modern(self) -> bool {
        self >= ProtocolVersion::V2026_07_28
    }

    pub(crate) fn index(self) -> usize {
        self as usize
    }

    pub(crate) fn has_tool_annotations(self) -> bool {
        self >= ProtocolVersion::V2025_03_26
    }

    pub(crate) fn has_audio(self) -> bool {
        self >= ProtocolVersion::V2025_03_26
    }

    /// JSON-RPC batches: only 2025-03-26 defines them.
    pub(crate) fn accepts_batches(self) -> bool {
        self == ProtocolVersion::V2025_03_26
    }

    pub(crate) fn has_structured_output(self) -> bool {
        self >= ProtocolVersion::V2025_06_18
    }

    /// `title` on tools, resources, prompts and their arguments, and
    /// `_meta` on them: 2025-06-18.
    pub(crate) fn has_titles(self) -> bool {
        self >= ProtocolVersion::V2025_06_18
    }

    /// MCP Apps (`io.modelcontextprotocol/ui`) among the capabilities'
    /// `extensions`: 2025-06-18, the first version whose tools and
    /// resources carry the `_meta` the extension lives in.
    pub(crate) fn has_apps(self) -> bool {
        self >= ProtocolVersion::V2025_06_18
    }

    /// `icons`, and `serverInfo`'s `title`, `description` and `websiteUrl`:
    /// 2025-11-25.
    pub(crate) fn has_icons(self) -> bool {
        self >= ProtocolVersion::V2025_11_25
    }

    /// A tool's `execution` (its `taskSupport`): 2025-11-25 only. The
    /// 2026-07-28 `Tool` has none (tasks moved to an extension there).
    pub(crate) fn has_tool_execution(self) -> bool {
        self == ProtocolVersion::V2025_11_25
    }

    /// The `completions` capability: 2025-03-26 (the method is older).
    pub(crate) fn has_completions_capability(self) -> bool {
        self >= ProtocolVersion::V2025_03_26
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
