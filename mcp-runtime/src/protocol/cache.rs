//! How long a 2026-07-28 client may keep an answer: the `ttlMs` and
//! `cacheScope` of `server/discover`, the four list methods and
//! `resources/read` (SEP-2549). Set with
//! [`Server::cache_hints`](crate::Server::cache_hints); legacy clients are
//! never sent them.

use std::time::Duration;

/// Who may keep a cached answer (`cacheScope`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CacheScope {
    /// The answer holds nothing particular to the caller: any client or
    /// shared intermediary may serve it to anyone.
    Public,
    /// The answer may be reused only under the same authorization.
    Private,
}

impl CacheScope {
    /// The name on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            CacheScope::Public => "public",
            CacheScope::Private => "private",
        }
    }
}

/// One freshness hint: how long, and for whom.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CacheHint {
    /// How long the answer stays fresh (`ttlMs`; zero: re-fetch each time).
    pub ttl: Duration,
    /// Who may keep it.
    pub scope: CacheScope,
}

impl CacheHint {
    /// Fresh for `ttl`, for `scope`.
    pub fn new(ttl: Duration, scope: CacheScope) -> CacheHint {
        CacheHint { ttl, scope }
    }

    /// `"ttlMs":N,"cacheScope":"S"`, to go inside a result object.
    pub(crate) fn fields(self) -> String {
        format!(
            "\"ttlMs\":{},\"cacheScope\":\"{}\"",
            self.ttl.as_millis().min(u128::from(u64::MAX)),
            self.scope.as_str()
        )
    }
}

/// The freshness hints a server gives modern clients. The defaults: what
/// `server/discover` says holds for an hour and for everyone; the lists
/// for five minutes and for everyone (a [`Notifier`](crate::Notifier)
/// tells subscribers of changes sooner); a resource's contents are stale
/// at once and private to the caller. A server with authorization whose
/// lists depend on the caller's scopes sends those lists as private.
///
/// ```
/// use std::time::Duration;
/// use mcp_runtime::{CacheHint, CacheHints, CacheScope, Server};
///
/// let server = Server::new("docs", "1.0.0").cache_hints(
///     CacheHints::default()
///         .lists(CacheHint::new(Duration::from_secs(3600), CacheScope::Public))
///         .reads(CacheHint::new(Duration::from_secs(60), CacheScope::Public)),
/// );
/// # let _ = server;
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CacheHints {
    pub(crate) discover: CacheHint,
    pub(crate) lists: CacheHint,
    pub(crate) reads: CacheHint,
}

impl Default for CacheHints {
    fn default() -> Self {
        CacheHints {
            discover: CacheHint::new(Duration::from_secs(3600), CacheScope::Public),
            lists: CacheHint::new(Duration::from_secs(300), CacheScope::Public),
            reads: CacheHint::new(Duration::ZERO, CacheScope::Private),
        }
    }
}

impl CacheHints {
    /// The hint of `server/discover`.
    pub fn discover(mut self, hint: CacheHint) -> Self {
        self.discover = hint;
        self
    }

    /// The hint of `tools/list`, `prompts/list`, `resources/list` and
    /// `resources/templates/list`.
    pub fn lists(mut self, hint: CacheHint) -> Self {
        self.lists = hint;
        self
    }

    /// The hint of `resources/read`.
    pub fn reads(mut self, hint: CacheHint) -> Self {
        self.reads = hint;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_written_as_the_schema_names_them() {
        let hint = CacheHint::new(Duration::from_millis(1500), CacheScope::Private);
        assert_eq!(hint.fields(), r#""ttlMs":1500,"cacheScope":"private""#);
        let defaults = CacheHints::default();
        assert_eq!(
            defaults.lists.fields(),
            r#""ttlMs":300000,"cacheScope":"public""#
        );
        assert_eq!(
            defaults.reads.fields(),
            r#""ttlMs":0,"cacheScope":"private""#
        );
    }
}
