//! Who may use the endpoint: with `Server::auth` (feature `auth`),
//! every request's bearer token is checked (401 when missing or invalid),
//! a request for a tool, resource or prompt whose scopes the token lacks
//! is refused (403), and the Protected Resource Metadata is published.
//! Without auth (or without the `auth` feature) everything is admitted and
//! nothing here costs more than a branch.

/// The access rules of one endpoint.
#[derive(Default)]
pub(crate) struct Access {
    #[cfg(feature = "auth")]
    auth: Option<std::sync::Arc<crate::auth::Authenticator>>,
}

#[cfg(not(feature = "auth"))]
mod open {
    use std::sync::Arc;

    use axum::body::Body;
    use axum::http::{HeaderMap, Response};

    use super::Access;
    use crate::auth::Identity;
    use crate::dispatch::ServerCore;
    use crate::jsonrpc::Line;

    impl Access {
        pub(crate) fn new(_: &crate::transport::http::HttpConfig) -> Access {
            Access {}
        }

        pub(crate) async fn admit(
            &self,
            _: &ServerCore,
            _: &HeaderMap,
        ) -> Result<Option<Arc<Identity>>, Box<Response<Body>>> {
            Ok(None)
        }

        pub(crate) fn authorize(
            &self,
            _: &ServerCore,
            _: &Line<'_>,
            _: Option<&Identity>,
        ) -> Result<(), Box<Response<Body>>> {
            Ok(())
        }

        pub(crate) fn metadata(&self, _: &ServerCore, _: &str) -> Option<Response<Body>> {
            None
        }

        pub(crate) fn metadata_paths(&self) -> Vec<String> {
            Vec::new()
        }
    }
}

#[cfg(feature = "auth")]
mod checked {
    use std::collections::BTreeSet;
    use std::sync::Arc;

    use axum::body::Body;
    use axum::http::header::{
        ACCESS_CONTROL_ALLOW_ORIGIN, CACHE_CONTROL, CONTENT_TYPE, WWW_AUTHENTICATE,
    };
    use axum::http::{HeaderMap, HeaderValue, Response, StatusCode};
    use serde_json::Value;
    use serde_json::value::RawValue;

    use super::Access;
    use crate::auth::{Authenticator, Identity, Rejection};
    use crate::dispatch::ServerCore;
    use crate::dispatch::Snapshot;
    use crate::jsonrpc::{self, Line, Message};
    use crate::transport::http::reply::{error, unavailable};

    impl Access {
        pub(crate) fn new(config: &crate::transport::http::HttpConfig) -> Access {
            Access {
                auth: config.auth.clone(),
            }
        }

        /// The caller a request's token proves: `Ok(None)` without auth;
        /// a 401 (or 503 when the authorization server cannot be asked)
        /// otherwise.
        pub(crate) async fn admit(
            &self,
            core: &ServerCore,
            headers: &HeaderMap,
        ) -> Result<Option<Arc<Identity>>, Box<Response<Body>>> {
            let Some(auth) = &self.auth else {
                return Ok(None);
            };
            match auth.authenticate(headers).await {
                Ok(identity) => Ok(Some(identity)),
                Err(rejection) => Err(Box::new(self.refuse(auth, core, &rejection))),
            }
        }

        fn refuse(
            &self,
            auth: &Authenticator,
            core: &ServerCore,
            rejection: &Rejection,
        ) -> Response<Body> {
            let declared = declared_scopes(&core.live.load());
            let scopes = auth.challenge.scopes(&declared);
            let (status, message, challenge) = match rejection {
                Rejection::Missing => (
                    StatusCode::UNAUTHORIZED,
                    "Unauthorized: this server needs an OAuth access token (Authorization: \
                     Bearer <token>); its Protected Resource Metadata names the authorization \
                     server"
                        .to_owned(),
                    auth.challenge.unauthorized(scopes, None),
                ),
                Rejection::Invalid(reason) => {
                    // Never the token: only why it failed.
                    tracing::info!(reason = %reason, "request refused: invalid access token");
                    (
                        StatusCode::UNAUTHORIZED,
                        format!("Unauthorized: invalid access token: {reason}"),
                        auth.challenge.unauthorized(scopes, Some(reason)),
                    )
                }
                Rejection::Unavailable(reason) => {
                    tracing::error!(reason = %reason, "cannot check access tokens: the authorization server is unavailable");
                    return unavailable(
                        Some(jsonrpc::INTERNAL_ERROR),
                        "Service Unavailable: the authorization server cannot be reached to check the token; try again later",
                    );
                }
            };
            with_challenge(
                error(status, Some(jsonrpc::INVALID_REQUEST), &message),
                &challenge,
            )
        }

        /// Refuses (403) a message calling a tool, reading a resource or
        /// getting a prompt whose scopes `identity` lacks.
        pub(crate) fn authorize(
            &self,
            core: &ServerCore,
            line: &Line<'_>,
            identity: Option<&Identity>,
        ) -> Result<(), Box<Response<Body>>> {
            let (Some(auth), Some(identity)) = (&self.auth, identity) else {
                return Ok(());
            };
            let snapshot = core.live.load();
            let mut needed: Vec<String> = auth.required_scopes.clone();
            let mut add = |message: &Message<'_>| {
                for scope in scopes_of(&snapshot, message) {
                    if !needed.contains(&scope) {
                        needed.push(scope);
                    }
                }
            };
            match line {
                Line::Single(message) => add(message),
                Line::Batch(items) => {
                    for item in items {
                        add(&jsonrpc::classify(item));
                    }
                }
                Line::Blank | Line::ParseError => {}
            }
            if identity.missing(&needed).is_empty() {
                return Ok(());
            }
            tracing::info!(
                subject = identity.subject(),
                needed = %needed.join(" "),
                "request refused: insufficient scope"
            );
            let response = error(
                StatusCode::FORBIDDEN,
                Some(jsonrpc::INVALID_REQUEST),
                &format!(
                    "Forbidden: this request needs the scope(s) {}; the token grants {}",
                    needed.join(", "),
                    if identity.scopes().is_empty() {
                        "none".to_owned()
                    } else {
                        identity.scopes().join(", ")
                    }
                ),
            );
            Err(Box::new(with_challenge(
                response,
                &auth.challenge.insufficient_scope(&needed),
            )))
        }

        /// The Protected Resource Metadata, when `path` is where it lives.
        pub(crate) fn metadata(&self, core: &ServerCore, path: &str) -> Option<Response<Body>> {
            let auth = self.auth.as_ref()?;
            if !auth.challenge.metadata_paths.iter().any(|p| p == path) {
                return None;
            }
            let declared = declared_scopes(&core.live.load());
            let document = auth.challenge.document(auth.challenge.scopes(&declared));
            Some(
                Response::builder()
                    .header(CONTENT_TYPE, HeaderValue::from_static("application/json"))
                    .header(CACHE_CONTROL, HeaderValue::from_static("max-age=300"))
                    // Browser-based clients read it from another origin.
                    .header(ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"))
                    .body(Body::from(document.to_string()))
                    .unwrap_or_default(),
            )
        }

        /// The paths the metadata is served at (for the router).
        pub(crate) fn metadata_paths(&self) -> Vec<String> {
            self.auth
                .as_ref()
                .map(|auth| auth.challenge.metadata_paths.clone())
                .unwrap_or_default()
        }
    }

    fn with_challenge(mut response: Response<Body>, challenge: &str) -> Response<Body> {
        if let Ok(value) = HeaderValue::from_str(challenge) {
            response.headers_mut().insert(WWW_AUTHENTICATE, value);
        }
        response
    }

    /// The scopes the entry a message asks for declares.
    fn scopes_of(snapshot: &Snapshot, message: &Message<'_>) -> Vec<String> {
        let Message::Request {
            method,
            params,
            call,
            ..
        } = message
        else {
            return Vec::new();
        };
        let text = |key: &str| -> Option<String> {
            let params: serde_json::Map<String, Value> =
                serde_json::from_str(params.map_or("{}", RawValue::get)).ok()?;
            params.get(key)?.as_str().map(str::to_owned)
        };
        match &**method {
            "tools/call" => {
                // The proxy of progressive discovery needs its target's.
                let registry = &snapshot.registry;
                let tool = match call {
                    Some(Ok(call)) => registry.called(&call.name, Some(&call.arguments)),
                    Some(Err(_)) => None,
                    None => {
                        let params: Option<serde_json::Map<String, Value>> =
                            serde_json::from_str(params.map_or("{}", RawValue::get)).ok();
                        params.as_ref().and_then(|params| {
                            let name = params.get("name")?.as_str()?;
                            registry.called(name, params.get("arguments"))
                        })
                    }
                };
                tool.map(|tool| tool.scopes().to_vec())
            }
            "resources/read" => text("uri").and_then(|uri| {
                snapshot
                    .registry
                    .find_resource(&uri)
                    .map(|(resource, _)| resource.scopes().to_vec())
            }),
            "prompts/get" => text("name").and_then(|name| {
                snapshot
                    .registry
                    .prompt(&name)
                    .map(|prompt| prompt.scopes().to_vec())
            }),
            _ => None,
        }
        .unwrap_or_default()
    }

    /// Every scope a tool, resource or prompt declares, in order.
    fn declared_scopes(snapshot: &Snapshot) -> Vec<String> {
        let registry = &snapshot.registry;
        let tools = registry.tools().iter().flat_map(|t| t.scopes());
        let resources = registry
            .resources()
            .iter()
            .chain(registry.resource_templates())
            .flat_map(|r| r.scopes());
        let prompts = registry.prompts().iter().flat_map(|p| p.scopes());
        tools
            .chain(resources)
            .chain(prompts)
            .cloned()
            .collect::<BTreeSet<String>>()
            .into_iter()
            .collect()
    }
}
