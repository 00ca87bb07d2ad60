//! [`MountError`]: why an upstream could not be mounted.

use std::fmt;

use crate::client::ClientError;
use crate::registry::error::Primitive;

/// Why [`Server::mount`](crate::Server::mount) refused an upstream. Its
/// `Display` and `Debug` are both a sentence naming the upstream, the
/// problem and the fix.
#[non_exhaustive]
pub enum MountError {
    /// The upstream could not be reached, or its handshake failed.
    Connect {
        /// The upstream's label (its command line or URL).
        upstream: String,
        /// What the client saw.
        source: Box<ClientError>,
    },
    /// The upstream connected but could not list what it serves.
    List {
        /// The upstream's label.
        upstream: String,
        /// What the client saw.
        source: Box<ClientError>,
    },
    /// Something the upstream serves has the name or URI of something
    /// already served.
    Collision {
        /// A tool, a resource (or template) or a prompt.
        kind: Primitive,
        /// The name (tools and prompts, prefixed) or URI.
        key: String,
        /// The upstream's label.
        upstream: String,
        /// What already serves it.
        other: String,
    },
    /// The prefix cannot begin tool names.
    InvalidPrefix {
        /// The prefix.
        prefix: String,
    },
    /// [`Upstream::per_session`](crate::Upstream::per_session) on a client
    /// given already connected, which cannot connect once per session.
    PerSessionNeedsConnect {
        /// The upstream's label.
        upstream: String,
    },
}

impl fmt::Display for MountError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MountError::Connect { upstream, source } => write!(
                f,
                "could not mount the upstream server `{upstream}`: {source}; check that it starts \
                 (or answers at its URL) on its own"
            ),
            MountError::List { upstream, source } => write!(
                f,
                "the upstream server `{upstream}` connected but could not list what it serves: \
                 {source}"
            ),
            MountError::Collision {
                kind,
                key,
                upstream,
                other,
            } => {
                write!(
                    f,
                    "cannot mount the upstream server `{upstream}`: its {kind} `{key}` is already \
                     served by {other}; "
                )?;
                match kind {
                    Primitive::Resource => write!(
                        f,
                        "resource URIs are not prefixed, so leave one of the two out (or serve \
                         them from two servers)"
                    ),
                    _ => write!(f, "mount it under another prefix"),
                }
            }
            MountError::InvalidPrefix { prefix } => write!(
                f,
                "the mount prefix `{prefix}` cannot begin tool names: use letters, digits, `_`, \
                 `-` and `.` only (or \"\" for no prefix)"
            ),
            MountError::PerSessionNeedsConnect { upstream } => write!(
                f,
                "the upstream server `{upstream}` was given as a connected Client, which cannot \
                 connect again once per session: mount Upstream::command, Upstream::http or \
                 Upstream::connect with .per_session() instead"
            ),
        }
    }
}

impl fmt::Debug for MountError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // `main` returning the error prints `Debug`: the sentence too.
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for MountError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            MountError::Connect { source, .. } | MountError::List { source, .. } => Some(&**source),
            _ => None,
        }
    }
}

impl From<MountError> for std::io::Error {
    fn from(error: MountError) -> std::io::Error {
        std::io::Error::other(error)
    }
}
