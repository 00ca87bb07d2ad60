//! The MCP metrics of the semantic conventions, measured on the request and
//! session spans: `mcp.server.operation.duration` (one data point per
//! request, by method, tool or prompt and error type: the count of
//! requests and of errors comes with it) and `mcp.server.session.duration`.

use std::time::Instant;

use opentelemetry::KeyValue;
use opentelemetry::metrics::{Histogram, Meter};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Metadata, Subscriber};
use tracing_subscriber::Layer;
use tracing_subscriber::layer::Context;
use tracing_subscriber::registry::LookupSpan;

use super::{REQUEST_TARGET, SESSION_TARGET};

/// The bucket boundaries the conventions ask for, in seconds.
const BOUNDARIES: [f64; 14] = [
    0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
];

/// The span fields that are metric attributes (not the session or request
/// ids, nor the resource URI: too many values).
const ATTRIBUTES: [&str; 9] = [
    "mcp.method.name",
    "gen_ai.operation.name",
    "gen_ai.tool.name",
    "gen_ai.prompt.name",
    "error.type",
    "rpc.response.status_code",
    "mcp.protocol.version",
    "network.transport",
    "network.protocol.name",
];

/// Records the duration of every request and session span when it closes.
pub(crate) struct Durations {
    operation: Histogram<f64>,
    session: Histogram<f64>,
}

impl Durations {
    pub(crate) fn new(meter: &Meter) -> Durations {
        Durations {
            operation: meter
                .f64_histogram("mcp.server.operation.duration")
                .with_unit("s")
                .with_description(
                    "MCP request or notification duration as observed on the receiver from the \
                     time it was received until the result or ack is sent.",
                )
                .with_boundaries(BOUNDARIES.to_vec())
                .build(),
            session: meter
                .f64_histogram("mcp.server.session.duration")
                .with_unit("s")
                .with_description("The duration of the MCP session as observed on the MCP server.")
                .with_boundaries(BOUNDARIES.to_vec())
                .build(),
        }
    }

    /// Whether the layer wants the spans of this callsite.
    pub(crate) fn wants(metadata: &Metadata<'_>) -> bool {
        metadata.is_span()
            && (metadata.target() == REQUEST_TARGET || metadata.target() == SESSION_TARGET)
    }
}

/// What a span's metric will say, kept in its extensions.
struct Timed {
    started: Instant,
    session: bool,
    attributes: Vec<KeyValue>,
}

impl Visit for Timed {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.set(field, value.to_owned());
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.set(field, value.to_string());
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.set(field, format!("{value:?}"));
    }
}

impl Timed {
    fn set(&mut self, field: &Field, value: String) {
        let name = field.name();
        if !ATTRIBUTES.contains(&name) {
            return;
        }
        match self
            .attributes
            .iter_mut()
            .find(|kv| kv.key.as_str() == name)
        {
            Some(kv) => *kv = KeyValue::new(name, value),
            None => self.attributes.push(KeyValue::new(name, value)),
        }
    }
}

impl<S> Layer<S> for Durations
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(id) else { return };
        let mut timed = Timed {
            started: Instant::now(),
            session: attrs.metadata().target() == SESSION_TARGET,
            attributes: Vec::with_capacity(6),
        };
        attrs.record(&mut timed);
        span.extensions_mut().insert(timed);
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(id) else { return };
        if let Some(timed) = span.extensions_mut().get_mut::<Timed>() {
            values.record(timed);
        }
    }

    fn on_close(&self, id: Id, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(&id) else { return };
        let Some(timed) = span.extensions_mut().remove::<Timed>() else {
            return;
        };
        let seconds = timed.started.elapsed().as_secs_f64();
        let histogram = if timed.session {
            &self.session
        } else {
            &self.operation
        };
        histogram.record(seconds, &timed.attributes);
    }
}
