//! The `/mcp` endpoint: the checks every request passes, in this order
//! (`Host`/`Origin` 403, access 401/403, the method 405; for a POST,
//! `Accept` 406, `Content-Type` 415, shutdown 503, the body's size 413, JSON
//! -32700, the era and `MCP-Protocol-Version`, the token's scopes), before it is handed to the endpoint of its era
//! ([`legacy`](super::legacy) or [`modern`](super::modern)), and shutdown.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use axum::body::Body;
use axum::http::header::{ALLOW, CONTENT_LENGTH, CONTENT_TYPE};
use axum::http::{HeaderValue, Method, Request, Response, StatusCode};

use super::HttpConfig;
use super::access::Access;
use super::era;
use super::guard::Guard;
use super::headers::{self, Accepts};
use super::legacy::Legacy;
use super::modern::{self, Modern};
use super::reply::{error, not_found, too_large, unavailable};
use super::request::{Posts, Sender, read_body};
use crate::auth::Identity;
use crate::dispatch::ServerCore;
use crate::jsonrpc::{self, Line, PARSE_ERROR};

pub(crate) struct Endpoint {
    pub(crate) core: Arc<ServerCore>,
    stateless: bool,
    guard: Guard,
    /// Bearer tokens and scopes, with `Server::auth` (feature `auth`).
    pub(crate) access: Access,
    legacy: Legacy,
    modern: Modern,
    shutting_down: AtomicBool,
}

impl Endpoint {
    pub(crate) fn new(core: Arc<ServerCore>, config: &HttpConfig, local: bool) -> Endpoint {
        let posts = Arc::new(Posts::new(Arc::clone(&core), config.replay_events));
        Endpoint {
            stateless: config.stateless,
            guard: Guard::new(&config.allowed_hosts, &config.allowed_origins, local),
            access: Access::new(config),
            legacy: Legacy::new(Arc::clone(&core), config, Arc::clone(&posts)),
            modern: Modern::new(Arc::clone(&core), posts),
            shutting_down: AtomicBool::new(false),
            core,
        }
    }

    /// Serves one HTTP request to `/mcp`.
    pub(crate) async fn handle(&self, request: Request<Body>) -> Response<Body> {
        if let Err(reason) = self.guard.check(request.headers()) {
            tracing::warn!(reason, "HTTP request refused");
            return error(StatusCode::FORBIDDEN, None, reason);
        }
        if let Some(start) = self.legacy.start_fleet() {
            start.await;
        }
        let identity = match self.access.admit(&self.core, request.headers()).await {
            Ok(identity) => identity,
            Err(refused) => return *refused,
        };
        match *request.method() {
            Method::POST => self.post(request, identity).await,
            Method::GET if era::is_modern_get(request.headers()) => modern::get(),
            Method::GET => {
                self.legacy
                    .get(request.headers(), identity.as_deref())
                    .await
            }
            Method::DELETE => {
                self.legacy
                    .delete(request.headers(), identity.as_deref())
                    .await
            }
            _ => {
                let mut response = error(
                    StatusCode::METHOD_NOT_ALLOWED,
                    None,
                    "Method Not Allowed: use POST, GET or DELETE",
                );
                response.headers_mut().insert(
                    ALLOW,
                    HeaderValue::from_static(if self.stateless {
                        "POST"
                    } else {
                        "GET, POST, DELETE"
                    }),
                );
                response
            }
        }
    }

    /// A request for any path but the endpoint's: the Protected Resource
    /// Metadata where it lives, 404 elsewhere.
    pub(crate) fn other(&self, path: &str) -> Response<Body> {
        self.access
            .metadata(&self.core, path)
            .unwrap_or_else(not_found)
    }

    async fn post(
        &self,
        request: Request<Body>,
        identity: Option<Arc<Identity>>,
    ) -> Response<Body> {
        let (mut parts, body) = request.into_parts();
        // The extensions are for the layers of `Server::layer` (moved, not
        // copied).
        let sender = Sender::new(identity, std::mem::take(&mut parts.extensions));
        let headers = &parts.headers;
        let accepts = Accepts::of(headers);
        if !accepts.json && !accepts.sse {
            return error(
                StatusCode::NOT_ACCEPTABLE,
                None,
                "Not Acceptable: the Accept header must allow application/json and text/event-stream",
            );
        }
        let json_body = headers
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(';').next())
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("application/json"));
        if !json_body {
            return error(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                None,
                "Unsupported Media Type: the body must be application/json",
            );
        }
        if self.shutting_down.load(Ordering::Acquire) {
            return unavailable(None, "Service Unavailable: the server is shutting down");
        }
        let limit = self.core.limits.max_message_bytes;
        let declared = headers
            .get(CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<usize>().ok());
        if declared.is_some_and(|n| n > limit) {
            return too_large(limit);
        }
        let Some(body) = read_body(body, limit).await else {
            // Past the limit (a client that went away mid-body reads nothing).
            return too_large(limit);
        };
        let line = jsonrpc::parse_line(&body);
        if matches!(line, Line::ParseError | Line::Blank) {
            return error(
                StatusCode::BAD_REQUEST,
                Some(PARSE_ERROR),
                "Parse error: the body is not valid JSON",
            );
        }
        let modern = era::is_modern(headers, &line);
        let version = match headers::version(headers) {
            Ok(version) => version,
            Err(_) if modern => None,
            Err(response) => return *response,
        };
        if let Err(refused) = self.access.authorize(&self.core, &line, sender.identity()) {
            return *refused;
        }
        if modern {
            return self
                .modern
                .post(line, body.len(), headers, accepts, sender)
                .await;
        }
        self.legacy
            .post(line, body.len(), headers, version, accepts, sender)
            .await
    }

    /// Shutdown: refuse new work, let calls in flight answer within
    /// `grace`, then end every session.
    pub(crate) async fn shutdown(&self, grace: Duration) {
        self.shutting_down.store(true, Ordering::Release);
        // Open subscriptions (2026-07-28) are answered, which ends them.
        self.core.hub.end_subscriptions();
        self.legacy.shutdown(grace).await;
    }
}
