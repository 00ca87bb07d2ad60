//! The log, on stderr, set up before the upstreams are mounted.
//!
//! `Server::run` sets up the same one (filtered by `RUST_LOG`, `info` by
//! default) unless `main` set up one first, but only once it runs: after
//! the mounts, whose lines (each upstream's stderr as it starts, the
//! mounts' own) would go nowhere. So the fronts set it up themselves.

use std::io::IsTerminal;

use tracing_subscriber::Layer;
use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

/// Installs the log: `RUST_LOG` (a level, and `target=level` pairs), else
/// `info`.
pub fn to_stderr() {
    let rust_log = std::env::var("RUST_LOG").unwrap_or_default();
    let filter = match rust_log.trim() {
        "" => None,
        spec => spec.parse::<Targets>().ok(),
    };
    let understood = filter.is_some() || rust_log.trim().is_empty();
    let filter = filter.unwrap_or_else(|| Targets::new().with_default(LevelFilter::INFO));
    let ansi = std::io::stderr().is_terminal()
        && std::env::var_os("NO_COLOR").is_none_or(|value| value.is_empty());
    let layer = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(ansi)
        .with_filter(filter);
    let _ = tracing_subscriber::registry().with(layer).try_init();
    if !understood {
        tracing::warn!(
            "RUST_LOG={rust_log:?} is not understood, so the log shows `info`: write a level and `target=level` pairs, such as `debug` or `chain=debug,info`"
        );
    }
}
