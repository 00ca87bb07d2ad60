//! Export over OTLP (the `otel` cargo feature): every request's span as a
//! trace span, and the `mcp.server.operation.duration` and
//! `mcp.server.session.duration` histograms, to an OpenTelemetry collector
//! (or any OTLP receiver) over OTLP/HTTP with protobuf bodies.
//!
//! [`Server::run`](crate::Server::run) sets it up by itself, beside the
//! stderr log, when `OTEL_EXPORTER_OTLP_ENDPOINT` is set. A binary that
//! serves otherwise calls [`init`] first and keeps what it returns; one
//! with a subscriber of its own adds [`OtelGuard::layer`] to it.
//!
//! ```no_run
//! #[tokio::main]
//! async fn main() -> std::io::Result<()> {
//!     // The stderr log and the export, flushed when `telemetry` is dropped.
//!     let telemetry = mcp_runtime::otel::init().expect("telemetry set up");
//!     mcp_runtime::Server::new("weather", "1.0.0")
//!         .serve_stdio()
//!         .await?;
//!     drop(telemetry);
//!     Ok(())
//! }
//! ```
//!
//! The standard variables configure it:
//!
//! | Variable | |
//! | --- | --- |
//! | `OTEL_EXPORTER_OTLP_ENDPOINT` | the receiver's base URL (`http://localhost:4318` when unset); `/v1/traces` and `/v1/metrics` are added |
//! | `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT` | whole URLs for one signal |
//! | `OTEL_EXPORTER_OTLP_HEADERS` | headers sent with every export (`api-key=...`); never recorded anywhere |
//! | `OTEL_EXPORTER_OTLP_TIMEOUT` | milliseconds an export may take (10000) |
//! | `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES` | the resource; the service name defaults to the server's name under `run`, the executable's name under [`init`] |
//! | `OTEL_TRACES_EXPORTER`, `OTEL_METRICS_EXPORTER` | `none` turns one signal off |
//! | `OTEL_SDK_DISABLED` | `true`: `run` sets nothing up |
//! | `OTEL_BSP_SCHEDULE_DELAY`, `OTEL_METRIC_EXPORT_INTERVAL` | how often spans (5 s) and metrics (60 s) are sent |
//!
//! The MCP spans are always exported; other spans and events (a tool's
//! own) as `RUST_LOG` says, as for the stderr log (default `info`). HTTPS
//! endpoints are verified against the system's roots (rustls, with *ring*).

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use opentelemetry::InstrumentationScope;
use opentelemetry::KeyValue;
use opentelemetry::metrics::MeterProvider as _;
use opentelemetry::trace::{TraceContextExt as _, TracerProvider as _};
use opentelemetry_otlp::{MetricExporter, SpanExporter, WithHttpConfig as _};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::trace::SdkTracerProvider;
use serde_json::value::RawValue;
use tracing::Span;
use tracing::Subscriber;
use tracing_opentelemetry::OpenTelemetrySpanExt as _;
use tracing_subscriber::Layer;
use tracing_subscriber::filter::{Targets, filter_fn};
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::util::SubscriberInitExt as _;

use super::metrics::Durations;
use super::{REQUEST_TARGET, SESSION_TARGET};

/// The export set up by [`init`] or [`OtelGuard::from_env`]. Dropping it
/// sends what is still pending (spans, and the metrics' last values) and
/// stops the export: keep it until the server has stopped.
#[must_use = "dropping the guard stops the export"]
pub struct OtelGuard {
    traces: Option<SdkTracerProvider>,
    metrics: Option<SdkMeterProvider>,
}

/// Why the export could not be set up.
#[derive(Debug)]
pub struct OtelError(String);

impl fmt::Display for OtelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for OtelError {}

/// Sets up the export from the standard variables and installs the global
/// `tracing` subscriber: the stderr log (as [`Server::run`] does, filtered
/// by `RUST_LOG`) and the export. Fails if the export cannot be set up or
/// a global subscriber is installed already.
///
/// [`Server::run`]: crate::Server::run
pub fn init() -> Result<OtelGuard, OtelError> {
    let guard = OtelGuard::from_env()?;
    let (filter, problem) =
        crate::telemetry::stderr::filter(std::env::var("RUST_LOG").ok().as_deref());
    tracing_subscriber::registry()
        .with(crate::telemetry::stderr::stderr_layer().with_filter(filter.clone()))
        .with(guard.layer_with(filter))
        .try_init()
        .map_err(|_| OtelError("a global tracing subscriber is installed already".into()))?;
    if let Some(problem) = problem {
        tracing::warn!("{problem}");
    }
    Ok(guard)
}

impl OtelGuard {
    /// Sets up the export from the standard variables, without installing
    /// anything: add [`OtelGuard::layer`] to a subscriber.
    pub fn from_env() -> Result<OtelGuard, OtelError> {
        OtelGuard::for_service(&executable_name(), None)
    }

    /// The export of a service named `name` unless the variables name it.
    pub(crate) fn for_service(name: &str, version: Option<&str>) -> Result<OtelGuard, OtelError> {
        let resource = resource(name, version);
        let client = http_client()?;
        let traces = if exporter_off("OTEL_TRACES_EXPORTER") {
            None
        } else {
            let exporter = SpanExporter::builder()
                .with_http()
                .with_http_client(client.clone())
                .build()
                .map_err(|error| OtelError(format!("the OTLP span exporter: {error}")))?;
            Some(
                SdkTracerProvider::builder()
                    .with_batch_exporter(exporter)
                    .with_resource(resource.clone())
                    .build(),
            )
        };
        let metrics = if exporter_off("OTEL_METRICS_EXPORTER") {
            None
        } else {
            let exporter = MetricExporter::builder()
                .with_http()
                .with_http_client(client)
                .build()
                .map_err(|error| OtelError(format!("the OTLP metric exporter: {error}")))?;
            Some(
                SdkMeterProvider::builder()
                    .with_periodic_exporter(exporter)
                    .with_resource(resource)
                    .build(),
            )
        };
        Ok(OtelGuard { traces, metrics })
    }

    /// The layer that exports, for a subscriber built by hand: the MCP
    /// spans always, other spans and events as `RUST_LOG` says (default
    /// `info`).
    pub fn layer<S>(&self) -> impl Layer<S> + 'static
    where
        S: Subscriber + for<'a> LookupSpan<'a>,
    {
        let (filter, _) =
            crate::telemetry::stderr::filter(std::env::var("RUST_LOG").ok().as_deref());
        self.layer_with(filter)
    }

    /// The layer that exports the MCP spans, and what `others` enables.
    pub(crate) fn layer_with<S>(&self, others: Targets) -> impl Layer<S> + 'static
    where
        S: Subscriber + for<'a> LookupSpan<'a>,
    {
        let traces = self.traces.as_ref().map(|provider| {
            tracing_opentelemetry::layer()
                .with_tracer(provider.tracer_with_scope(scope()))
                .with_location(false)
                .with_threads(false)
                .with_target(false)
                .with_tracked_inactivity(false)
                .with_filter(filter_fn(move |metadata| match metadata.target() {
                    REQUEST_TARGET => true,
                    SESSION_TARGET => false,
                    target => others.would_enable(target, metadata.level()),
                }))
        });
        let metrics = self.metrics.as_ref().map(|provider| {
            Durations::new(&provider.meter_with_scope(scope()))
                .with_filter(filter_fn(Durations::wants))
        });
        Layer::and_then(traces, metrics)
    }
}

impl Drop for OtelGuard {
    fn drop(&mut self) {
        // Shutting down sends what is pending first.
        if let Some(traces) = self.traces.take()
            && let Err(error) = traces.shutdown()
        {
            tracing::warn!(%error, "the last spans could not be exported");
        }
        if let Some(metrics) = self.metrics.take()
            && let Err(error) = metrics.shutdown()
        {
            tracing::warn!(%error, "the last metrics could not be exported");
        }
    }
}

impl fmt::Debug for OtelGuard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OtelGuard")
            .field("traces", &self.traces.is_some())
            .field("metrics", &self.metrics.is_some())
            .finish()
    }
}

/// Whether [`Server::run`](crate::Server::run) sets up the export: an
/// endpoint is set, and the SDK is not disabled.
pub(crate) fn wanted() -> bool {
    let set = |name: &str| std::env::var_os(name).is_some_and(|value| !value.is_empty());
    let disabled = std::env::var("OTEL_SDK_DISABLED")
        .is_ok_and(|value| value.trim().eq_ignore_ascii_case("true"));
    !disabled
        && (set("OTEL_EXPORTER_OTLP_ENDPOINT")
            || set("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
            || set("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"))
}

/// Where the export goes, for the log line saying it is on.
pub(crate) fn endpoint() -> String {
    std::env::var("OTEL_EXPORTER_OTLP_ENDPOINT")
        .ok()
        .filter(|value| !value.is_empty())
        .or_else(|| std::env::var("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT").ok())
        .or_else(|| std::env::var("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT").ok())
        .unwrap_or_default()
}

fn exporter_off(variable: &str) -> bool {
    std::env::var(variable).is_ok_and(|value| value.trim().eq_ignore_ascii_case("none"))
}

fn scope() -> InstrumentationScope {
    InstrumentationScope::builder("mcp-runtime")
        .with_version(env!("CARGO_PKG_VERSION"))
        .build()
}

/// The resource: what the variables say, with `name` (and `version`) for
/// the service unless they name it.
fn resource(name: &str, version: Option<&str>) -> Resource {
    let attributes = std::env::var("OTEL_RESOURCE_ATTRIBUTES").unwrap_or_default();
    let in_attributes = |key: &str| {
        attributes
            .split(',')
            .any(|pair| pair.split('=').next().is_some_and(|k| k.trim() == key))
    };
    let mut builder = Resource::builder();
    let named = std::env::var("OTEL_SERVICE_NAME").is_ok_and(|value| !value.is_empty());
    if !named && !in_attributes("service.name") {
        builder = builder.with_service_name(name.to_owned());
    }
    if let Some(version) = version
        && !in_attributes("service.version")
    {
        builder = builder.with_attribute(KeyValue::new("service.version", version.to_owned()));
    }
    builder.build()
}

fn executable_name() -> String {
    std::env::current_exe()
        .ok()
        .and_then(|path| Some(path.file_stem()?.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "unknown_service".to_owned())
}

/// The blocking client the exporters send with (they send from threads of
/// their own): rustls with *ring* and the system's roots. Built on a
/// thread of its own, as a blocking client cannot be built inside an
/// async runtime.
fn http_client() -> Result<reqwest::blocking::Client, OtelError> {
    let timeout = std::env::var("OTEL_EXPORTER_OTLP_TIMEOUT")
        .ok()
        .and_then(|millis| millis.trim().parse().ok())
        .map_or(Duration::from_secs(10), Duration::from_millis);
    let build = move || -> Result<reqwest::blocking::Client, String> {
        use rustls_platform_verifier::BuilderVerifierExt as _;
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let tls = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .and_then(|builder| builder.with_platform_verifier())
            .map_err(|error| format!("TLS: {error}"))?
            .with_no_client_auth();
        reqwest::blocking::Client::builder()
            .tls_backend_preconfigured(tls)
            .timeout(timeout)
            .build()
            .map_err(|error| error.to_string())
    };
    std::thread::Builder::new()
        .name("otlp-client".into())
        .spawn(build)
        .map_err(|error| OtelError(format!("the OTLP HTTP client: {error}")))?
        .join()
        .map_err(|_| OtelError("the OTLP HTTP client: building it panicked".into()))?
        .map_err(|error| OtelError(format!("the OTLP HTTP client: {error}")))
}

/// Makes the span of a request a child of the client's span when
/// `params._meta` carries W3C trace context (`traceparent`, `tracestate`),
/// as the conventions ask, linked to the span it would have had.
pub(crate) fn adopt_parent(span: &Span, meta: Option<&RawValue>) {
    use opentelemetry::propagation::{Extractor, TextMapPropagator as _};

    #[derive(serde::Deserialize)]
    struct Meta<'a> {
        #[serde(borrow, default)]
        traceparent: Option<std::borrow::Cow<'a, str>>,
        #[serde(borrow, default)]
        tracestate: Option<std::borrow::Cow<'a, str>>,
    }
    impl Extractor for Meta<'_> {
        fn get(&self, key: &str) -> Option<&str> {
            match key {
                "traceparent" => self.traceparent.as_deref(),
                "tracestate" => self.tracestate.as_deref(),
                _ => None,
            }
        }
        fn keys(&self) -> Vec<&str> {
            vec!["traceparent", "tracestate"]
        }
    }

    let Some(meta) = meta.and_then(|raw| serde_json::from_str::<Meta<'_>>(raw.get()).ok()) else {
        return;
    };
    if meta.traceparent.is_none() {
        return;
    }
    let remote = opentelemetry_sdk::propagation::TraceContextPropagator::new().extract(&meta);
    if !remote.span().span_context().is_valid() {
        return;
    }
    let ambient = Span::current().context().span().span_context().clone();
    if span.set_parent(remote).is_ok() && ambient.is_valid() {
        span.add_link(ambient);
    }
}
