//! A server that cannot start: the sentence that says why and how to fix
//! it, written on stderr by the runtime itself and returned as the
//! `std::io::Error` of `Server::serve_stdio` and `serve_http`.
//!
//! A `main` that returns `std::io::Result<()>` prints a failure as
//! `Error: ` and the error's `Debug`, and the `Debug` of an `io::Error` is
//! a struct whatever it wraps (`Custom { kind: .., error: .. }`): no type of
//! ours can change that line. So the sentence goes on stderr first, as
//! `error: <sentence>` on a line of its own (as `Server::run` prints it),
//! and the error wrapped in the `io::Error` has a `Debug` that is the
//! sentence itself (no quotes, no escapes), so that even the line `main`
//! adds reads as the sentence.

use std::io;
#[cfg(feature = "http")]
use std::{fmt, net::SocketAddr};

/// Writes `error` on stderr as `error: <sentence>` and returns it as the
/// `io::Error` (of `kind`) that the `serve_*` functions return.
pub(crate) fn failed<E>(kind: io::ErrorKind, error: E) -> io::Error
where
    E: std::error::Error + Send + Sync + 'static,
{
    // On stderr itself, not only through `tracing`: a `main` as short as
    // the README's installs no subscriber.
    eprintln!("error: {error}");
    io::Error::new(kind, error)
}

/// Whether `error` is a start-up error that `failed` already wrote on
/// stderr (so that `Server::run` does not write it twice).
pub(crate) fn already_said(error: &io::Error) -> bool {
    error.get_ref().is_some_and(|inner| {
        #[cfg(feature = "http")]
        if inner.is::<HttpStartError>() {
            return true;
        }
        inner.is::<crate::RegistryError>()
    })
}

/// Binds the listener of `Server::serve_http`, or says on stderr why it
/// cannot, with the fix.
#[cfg(feature = "http")]
pub(crate) async fn bind(
    addr: impl tokio::net::ToSocketAddrs,
) -> io::Result<tokio::net::TcpListener> {
    let addrs: Vec<SocketAddr> = match tokio::net::lookup_host(addr).await {
        Ok(addrs) => addrs.collect(),
        Err(source) => {
            let kind = source.kind();
            return Err(failed(kind, HttpStartError::Resolve(source)));
        }
    };
    tokio::net::TcpListener::bind(&addrs[..])
        .await
        .map_err(|source| {
            let kind = source.kind();
            failed(kind, HttpStartError::Bind { addrs, source })
        })
}

/// Why `Server::serve_http` could not start listening.
#[cfg(feature = "http")]
#[derive(thiserror::Error)]
pub(crate) enum HttpStartError {
    /// The address names no host this machine can resolve.
    #[error(
        "cannot serve HTTP: the address does not resolve ({0}); name it as HOST:PORT, such as \
         127.0.0.1:8080"
    )]
    Resolve(#[source] io::Error),
    /// The store of shared sessions (`Server::sessions`) does not answer:
    /// the sentence names who gave it and its server.
    #[error("cannot start the MCP server: {0}")]
    Sessions(String),
    /// No address it resolves to could be bound.
    #[error("cannot serve HTTP at {}: {source}; {}", list(addrs), bind_fix(source.kind()))]
    Bind {
        addrs: Vec<SocketAddr>,
        #[source]
        source: io::Error,
    },
}

#[cfg(feature = "http")]
impl fmt::Debug for HttpStartError {
    /// The sentence of `Display`, so that `main` returning the error (which
    /// prints `Debug`) shows the problem and its fix rather than a struct.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(feature = "http")]
fn list(addrs: &[SocketAddr]) -> String {
    if addrs.is_empty() {
        return "no address".into();
    }
    addrs
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" or ")
}

/// What to do when an address cannot be bound, by why.
#[cfg(feature = "http")]
fn bind_fix(kind: io::ErrorKind) -> &'static str {
    match kind {
        io::ErrorKind::AddrInUse => {
            "another program listens on that port: stop it, or choose another port"
        }
        io::ErrorKind::PermissionDenied => {
            "ports below 1024 need privileges: choose a port from 1024 up, such as 8080"
        }
        io::ErrorKind::AddrNotAvailable => {
            "that address is not one of this machine's: name one of its own, such as 127.0.0.1"
        }
        _ => "choose another address, such as 127.0.0.1:8080",
    }
}

#[cfg(all(test, feature = "http"))]
mod tests {
    use super::*;

    #[test]
    fn a_port_in_use_is_one_sentence_with_its_fix_in_every_form() {
        let error = HttpStartError::Bind {
            addrs: vec!["127.0.0.1:8080".parse().unwrap()],
            source: io::Error::from(io::ErrorKind::AddrInUse),
        };
        let sentence = error.to_string();
        assert!(
            sentence.starts_with("cannot serve HTTP at 127.0.0.1:8080: "),
            "{sentence}"
        );
        assert!(
            sentence.ends_with(
                "; another program listens on that port: stop it, or choose another port"
            ),
            "{sentence}"
        );
        let wrapped = io::Error::new(io::ErrorKind::AddrInUse, error);
        assert!(already_said(&wrapped));
        assert_eq!(
            format!("{wrapped:?}"),
            format!("Custom {{ kind: AddrInUse, error: {sentence} }}")
        );
        assert!(!already_said(&io::Error::other("broken pipe")));
    }
}
