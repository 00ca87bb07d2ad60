//! The log of a server binary whose `main` sets up none: `tracing` events
//! on stderr (stdout is the protocol's), filtered by `RUST_LOG`, `info`
//! when it is unset.
//! Its parts are in `telemetry::stderr`.

use crate::telemetry::stderr::{filter, stderr_layer};
#[cfg(feature = "otel")]
use tracing_subscriber::Layer as _;
use tracing_subscriber::filter::Targets;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

/// What the log set up that must outlive the serving: with the `otel`
/// feature, the OTLP export (flushed when dropped).
#[must_use]
#[derive(Default)]
pub(crate) struct Guard {
    #[cfg(feature = "otel")]
    _otel: Option<crate::otel::OtelGuard>,
}

/// Installs the stderr log as the global subscriber, unless one is
/// installed already (the user's own wins). With the `otel` feature and
/// `OTEL_EXPORTER_OTLP_ENDPOINT` set, the subscriber also exports over
/// OTLP, as the service `name` (unless `OTEL_SERVICE_NAME` says otherwise).
pub(crate) fn install(name: &str, version: &str) -> Guard {
    let (filter, problem) = filter(std::env::var("RUST_LOG").ok().as_deref());
    #[cfg(feature = "otel")]
    if crate::telemetry::otel::wanted() && !tracing::dispatcher::has_been_set() {
        match crate::otel::OtelGuard::for_service(name, Some(version)) {
            Ok(otel) => {
                let installed = tracing_subscriber::registry()
                    .with(stderr_layer().with_filter(filter.clone()))
                    .with(otel.layer_with(filter))
                    .try_init()
                    .is_ok();
                if !installed {
                    return Guard::default();
                }
                if let Some(problem) = problem {
                    tracing::warn!("{problem}");
                }
                tracing::info!(
                    endpoint = %crate::telemetry::otel::endpoint(),
                    "exporting traces and metrics over OTLP"
                );
                return Guard { _otel: Some(otel) };
            }
            Err(error) => {
                install_stderr(filter, problem);
                tracing::warn!("telemetry is not exported: {error}");
                return Guard::default();
            }
        }
    }
    let _ = (name, version);
    install_stderr(filter, problem);
    Guard::default()
}

/// The stderr log alone.
fn install_stderr(filter: Targets, problem: Option<String>) {
    let installed = tracing_subscriber::registry()
        .with(stderr_layer())
        .with(filter)
        .try_init()
        .is_ok();
    if let Some(problem) = problem.filter(|_| installed) {
        tracing::warn!("{problem}");
    }
}
