//! An OTLP receiver for the telemetry tests: OTLP/HTTP with protobuf
//! bodies (`POST /v1/traces`, `POST /v1/metrics`), decoded with the
//! official `opentelemetry-proto` definitions, on a loopback port. It keeps
//! every export it is sent; the tests read what came over the wire.

#![allow(dead_code)]

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::post;
use opentelemetry_proto::tonic::collector::metrics::v1::{
    ExportMetricsServiceRequest, ExportMetricsServiceResponse,
};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use opentelemetry_proto::tonic::metrics::v1::metric;
use prost::Message;

#[derive(Default)]
struct Received {
    traces: Vec<ExportTraceServiceRequest>,
    metrics: Vec<ExportMetricsServiceRequest>,
    /// Bodies that were not OTLP protobuf, with their content type.
    rejected: Vec<String>,
}

/// The receiver: serves until dropped.
pub struct Receiver {
    pub addr: SocketAddr,
    received: Arc<Mutex<Received>>,
    _runtime: tokio::runtime::Runtime,
}

/// One exported span, flattened.
#[derive(Clone, Debug)]
pub struct SpanSeen {
    pub name: String,
    /// `SpanKind` as the protocol numbers it (2: server).
    pub kind: i32,
    pub attributes: HashMap<String, String>,
    /// `StatusCode` as numbered (0 unset, 1 ok, 2 error) and the message.
    pub status: (i32, String),
    pub trace_id: Vec<u8>,
    pub parent_span_id: Vec<u8>,
    pub links: Vec<(Vec<u8>, Vec<u8>)>,
    pub start_ns: u64,
    pub end_ns: u64,
    pub resource: HashMap<String, String>,
    pub scope: String,
}

/// One data point of a histogram, flattened.
#[derive(Clone, Debug)]
pub struct PointSeen {
    pub metric: String,
    pub unit: String,
    pub attributes: HashMap<String, String>,
    pub count: u64,
    pub sum: f64,
    pub bounds: Vec<f64>,
}

impl Receiver {
    pub fn start() -> Receiver {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("a runtime");
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        listener.set_nonblocking(true).unwrap();
        let addr = listener.local_addr().unwrap();
        let received = Arc::new(Mutex::new(Received::default()));
        let app = Router::new()
            .route("/v1/traces", post(traces))
            .route("/v1/metrics", post(metrics))
            .with_state(Arc::clone(&received));
        runtime.spawn(async move {
            let listener = tokio::net::TcpListener::from_std(listener).expect("listener");
            axum::serve(listener, app).await
        });
        Receiver {
            addr,
            received,
            _runtime: runtime,
        }
    }

    /// What `OTEL_EXPORTER_OTLP_ENDPOINT` is set to.
    pub fn endpoint(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Waits up to `timeout` for `done` to hold of what was received.
    pub fn wait_for(&self, timeout: Duration, what: &str, done: impl Fn(&Receiver) -> bool) {
        let deadline = Instant::now() + timeout;
        while !done(self) {
            assert!(
                Instant::now() < deadline,
                "the receiver did not get {what} within {timeout:?}; spans: {:#?}; points: {:#?}",
                self.spans(),
                self.histogram_points()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Bodies that were not OTLP protobuf.
    pub fn rejected(&self) -> Vec<String> {
        self.received.lock().unwrap().rejected.clone()
    }

    /// Every span received, in the order received.
    pub fn spans(&self) -> Vec<SpanSeen> {
        let received = self.received.lock().unwrap();
        let mut spans = Vec::new();
        for export in &received.traces {
            for resource_spans in &export.resource_spans {
                let resource = resource_spans
                    .resource
                    .as_ref()
                    .map(|r| attributes(&r.attributes))
                    .unwrap_or_default();
                for scope_spans in &resource_spans.scope_spans {
                    let scope = scope_spans
                        .scope
                        .as_ref()
                        .map(|s| s.name.clone())
                        .unwrap_or_default();
                    for span in &scope_spans.spans {
                        let status = span
                            .status
                            .as_ref()
                            .map(|s| (s.code, s.message.clone()))
                            .unwrap_or_default();
                        spans.push(SpanSeen {
                            name: span.name.clone(),
                            kind: span.kind,
                            attributes: attributes(&span.attributes),
                            status,
                            trace_id: span.trace_id.clone(),
                            parent_span_id: span.parent_span_id.clone(),
                            links: span
                                .links
                                .iter()
                                .map(|l| (l.trace_id.clone(), l.span_id.clone()))
                                .collect(),
                            start_ns: span.start_time_unix_nano,
                            end_ns: span.end_time_unix_nano,
                            resource: resource.clone(),
                            scope: scope.clone(),
                        });
                    }
                }
            }
        }
        spans
    }

    /// Every histogram data point received. Exports are cumulative: a later
    /// point of the same series supersedes an earlier one.
    pub fn histogram_points(&self) -> Vec<PointSeen> {
        let received = self.received.lock().unwrap();
        let mut points = Vec::new();
        for export in &received.metrics {
            for resource_metrics in &export.resource_metrics {
                for scope_metrics in &resource_metrics.scope_metrics {
                    for metric in &scope_metrics.metrics {
                        let Some(metric::Data::Histogram(histogram)) = &metric.data else {
                            continue;
                        };
                        for point in &histogram.data_points {
                            points.push(PointSeen {
                                metric: metric.name.clone(),
                                unit: metric.unit.clone(),
                                attributes: attributes(&point.attributes),
                                count: point.count,
                                sum: point.sum.unwrap_or_default(),
                                bounds: point.explicit_bounds.clone(),
                            });
                        }
                    }
                }
            }
        }
        points
    }

    /// The latest point of `metric` whose attributes include `wanted` (and
    /// have none of the keys of `absent`).
    pub fn point(
        &self,
        metric: &str,
        wanted: &[(&str, &str)],
        absent: &[&str],
    ) -> Option<PointSeen> {
        self.histogram_points().into_iter().rev().find(|point| {
            point.metric == metric
                && wanted
                    .iter()
                    .all(|(k, v)| point.attributes.get(*k).map(String::as_str) == Some(*v))
                && absent.iter().all(|k| !point.attributes.contains_key(*k))
        })
    }
}

fn attributes(list: &[KeyValue]) -> HashMap<String, String> {
    list.iter()
        .map(|kv| (kv.key.clone(), text(kv.value.as_ref())))
        .collect()
}

fn text(value: Option<&AnyValue>) -> String {
    match value.and_then(|v| v.value.as_ref()) {
        Some(any_value::Value::StringValue(s)) => s.clone(),
        Some(any_value::Value::IntValue(i)) => i.to_string(),
        Some(any_value::Value::BoolValue(b)) => b.to_string(),
        Some(any_value::Value::DoubleValue(d)) => d.to_string(),
        other => format!("{other:?}"),
    }
}

fn is_protobuf(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes() == b"application/x-protobuf")
}

fn protobuf(body: Vec<u8>) -> impl IntoResponse {
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "application/x-protobuf")],
        body,
    )
}

fn reject(received: &Mutex<Received>, headers: &HeaderMap) -> (StatusCode, &'static str) {
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
        .unwrap_or_default();
    received.lock().unwrap().rejected.push(content_type);
    (StatusCode::BAD_REQUEST, "not an OTLP protobuf export")
}

async fn traces(
    State(received): State<Arc<Mutex<Received>>>,
    headers: HeaderMap,
    body: Bytes,
) -> axum::response::Response {
    match ExportTraceServiceRequest::decode(body) {
        Ok(export) if is_protobuf(&headers) => {
            received.lock().unwrap().traces.push(export);
            protobuf(ExportTraceServiceResponse::default().encode_to_vec()).into_response()
        }
        _ => reject(&received, &headers).into_response(),
    }
}

async fn metrics(
    State(received): State<Arc<Mutex<Received>>>,
    headers: HeaderMap,
    body: Bytes,
) -> axum::response::Response {
    match ExportMetricsServiceRequest::decode(body) {
        Ok(export) if is_protobuf(&headers) => {
            received.lock().unwrap().metrics.push(export);
            protobuf(ExportMetricsServiceResponse::default().encode_to_vec()).into_response()
        }
        _ => reject(&received, &headers).into_response(),
    }
}
