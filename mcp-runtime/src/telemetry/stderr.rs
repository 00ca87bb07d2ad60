//! The stderr log's parts: events written to stderr (stdout is the
//! protocol's), filtered by `RUST_LOG`, `info` when it is unset. The
//! command line installs them alone (`cli::log`), the `otel` feature beside
//! its exporter.
//!
//! `RUST_LOG` is read as [`Targets`] reads it: a level (`debug`), and
//! `target=level` pairs (`mcp_runtime=debug,info`). That is what most
//! people write, without the regular-expression engine that `EnvFilter`'s
//! span and field filters need (it would nearly triple what logging adds
//! to a clean build); a binary that wants those installs its own
//! subscriber before `run()`.

use std::io::IsTerminal;

use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::registry::LookupSpan;

/// Events on stderr, in colour on a terminal unless `NO_COLOR` is set.
pub(crate) fn stderr_layer<S>() -> impl tracing_subscriber::Layer<S> + Send + Sync + 'static
where
    S: tracing::Subscriber + for<'a> LookupSpan<'a>,
{
    let ansi = std::io::stderr().is_terminal()
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(ansi)
}

/// The filter `RUST_LOG` asks for, and what is wrong with it if it cannot
/// be read (then the filter is the default, `info`).
pub(crate) fn filter(rust_log: Option<&str>) -> (Targets, Option<String>) {
    let default = Targets::new().with_default(LevelFilter::INFO);
    // `debug,` and `a, b` are meant as `debug` and `a,b`.
    let directives: Vec<&str> = rust_log
        .unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|directive| !directive.is_empty())
        .collect();
    if directives.is_empty() {
        return (default, None);
    }
    let spec = directives.join(",");
    match spec.parse::<Targets>() {
        Ok(targets) => (targets, None),
        Err(error) => (
            default,
            Some(format!(
                "RUST_LOG={spec:?} is not understood ({error}), so the log shows `info`: write \
                 a level and `target=level` pairs, such as `debug` or `mcp_runtime=debug,info`"
            )),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracing::Level;

    fn enabled(filter: &Targets, target: &str, level: Level) -> bool {
        filter.would_enable(target, &level)
    }

    #[test]
    fn unset_or_empty_is_info() {
        for spec in [None, Some(""), Some("  ")] {
            let (filter, problem) = super::filter(spec);
            assert_eq!(problem, None);
            assert!(enabled(&filter, "mcp_runtime::server", Level::INFO));
            assert!(enabled(&filter, "my_tools", Level::WARN));
            assert!(!enabled(&filter, "mcp_runtime::server", Level::DEBUG));
        }
    }

    #[test]
    fn levels_and_targets() {
        let (filter, problem) = super::filter(Some("debug"));
        assert_eq!(problem, None);
        assert!(enabled(&filter, "anything", Level::DEBUG));
        assert!(!enabled(&filter, "anything", Level::TRACE));

        let (filter, problem) = super::filter(Some(" mcp_runtime=debug, warn,"));
        assert_eq!(problem, None);
        assert!(enabled(&filter, "mcp_runtime::dispatch", Level::DEBUG));
        assert!(!enabled(&filter, "hyper", Level::INFO));
        assert!(enabled(&filter, "hyper", Level::WARN));
    }

    #[test]
    fn what_cannot_be_read_is_reported_and_info_is_kept() {
        let (filter, problem) = super::filter(Some("mcp_runtime=loud"));
        let problem = problem.expect("a problem");
        assert!(
            problem.starts_with("RUST_LOG=\"mcp_runtime=loud\" is not understood ("),
            "{problem}"
        );
        assert!(enabled(&filter, "mcp_runtime", Level::INFO));
        assert!(!enabled(&filter, "mcp_runtime", Level::DEBUG));
    }
}
