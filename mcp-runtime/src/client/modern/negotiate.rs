//! Which era a server speaks, found when connecting. The client probes
//! with `server/discover` (carrying the era's `_meta`, and over HTTP its
//! headers): a discover result that lists 2026-07-28 makes the connection
//! modern. The specification has a client fall back to `initialize` on
//! any answer that is not a recognized modern one, whatever its code, and
//! on silence; so does this one:
//!
//! - a JSON-RPC error other than the era's own (-32601 from a server that
//!   has no such method, -32600 or -32602 from one that wants
//!   `initialize` first...), an HTTP 4xx without a JSON-RPC error body
//!   (a legacy endpoint's 400, 404 or 405; not 401 or 403, which ask for
//!   credentials and fail the connection), or no answer within the probe
//!   timeout: a legacy server, asked `initialize`;
//! - -32022 (unsupported version) listing 2026-07-28: asked again once
//!   (a server may refuse a first request that way); listing only legacy
//!   versions: `initialize` with the newest of them;
//! - -32020 (header mismatch) or -32021 (missing capability): a modern
//!   server that refused the probe; the connection fails with its error.
//!
//! A client told to offer a legacy version first
//! ([`ClientBuilder::protocol_version`](crate::client::ClientBuilder::protocol_version))
//! sends `initialize` first, and probes with `server/discover` when
//! `initialize` is refused (a server of the modern era only).

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value, json};

use super::headers::PROTOCOL_VERSION_KEY;
use super::{CLIENT_CAPABILITIES, CLIENT_INFO, SERVER_INFO};
use crate::client::error::ClientError;
use crate::client::handshake::Handshake;
use crate::client::session::Session;
use crate::jsonrpc::{HEADER_MISMATCH, MISSING_CLIENT_CAPABILITY, UNSUPPORTED_PROTOCOL_VERSION};
use crate::protocol::version::ProtocolVersion;

/// The longest the probe waits for an answer: a legacy server may stay
/// silent on a request before `initialize`.
const PROBE_TIMEOUT: Duration = Duration::from_secs(10);

/// What the server said of itself when the connection opened.
pub(crate) struct Opened {
    pub(crate) version: ProtocolVersion,
    pub(crate) server_info: Value,
    pub(crate) capabilities: Value,
    pub(crate) instructions: Option<String>,
}

/// The `_meta` every request of the 2026-07-28 era carries.
fn era_meta(setup: &Handshake) -> Map<String, Value> {
    let mut meta = Map::new();
    meta.insert(
        PROTOCOL_VERSION_KEY.into(),
        json!(ProtocolVersion::MODERN.as_str()),
    );
    meta.insert(CLIENT_CAPABILITIES.into(), setup.capabilities.clone());
    meta.insert(CLIENT_INFO.into(), setup.client_info.clone());
    meta
}

/// What the probe found.
enum Probe {
    Modern(Value),
    /// A legacy server, to be asked `initialize` with this version.
    Legacy(ProtocolVersion),
}

/// Finds the server's era and opens the connection in it.
pub(crate) async fn open(session: &Arc<Session>, setup: &Handshake) -> Result<Opened, ClientError> {
    if !setup.first.is_modern() {
        let refused = match initialize(session, setup, setup.first).await {
            Err(refused @ (ClientError::Rpc { .. } | ClientError::Http { .. })) => refused,
            other => return other,
        };
        // A server of the modern era only refuses `initialize`.
        return match probe(session, setup).await {
            Ok(Probe::Modern(result)) => Ok(modern(session, result)),
            _ => {
                session.set_meta(None);
                Err(refused)
            }
        };
    }
    match probe(session, setup).await? {
        Probe::Modern(result) => Ok(modern(session, result)),
        Probe::Legacy(version) => initialize(session, setup, version).await,
    }
}

/// The versions listed under `key` of `value`.
fn versions(value: Option<&Value>) -> Vec<&str> {
    value
        .and_then(Value::as_array)
        .map(|list| list.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// The newest legacy version among `listed`.
fn newest_legacy(listed: &[&str]) -> Option<ProtocolVersion> {
    listed
        .iter()
        .filter_map(|name| ProtocolVersion::parse_legacy(name))
        .max()
}

/// Sends `server/discover` as the 2026-07-28 era has it; see the module's
/// docs for what each answer means.
async fn probe(session: &Arc<Session>, setup: &Handshake) -> Result<Probe, ClientError> {
    session.set_meta(Some(era_meta(setup)));
    let timeout = session.timeout().min(PROBE_TIMEOUT);
    let mut asked_again = false;
    loop {
        let answer = session
            .request_within("server/discover", json!({}), None, false, Some(timeout))
            .await;
        let legacy = |why: &str| {
            tracing::debug!(why, "the server is of the legacy era: initializing");
            Ok(Probe::Legacy(ProtocolVersion::LATEST))
        };
        match answer {
            Ok(result) => {
                let listed = versions(result.get("supportedVersions"));
                if listed.contains(&ProtocolVersion::MODERN.as_str()) {
                    return Ok(Probe::Modern(result));
                }
                return match newest_legacy(&listed) {
                    Some(version) => Ok(Probe::Legacy(version)),
                    None => legacy("its answer to server/discover is not a discover result"),
                };
            }
            Err(ClientError::Rpc {
                code: UNSUPPORTED_PROTOCOL_VERSION,
                data,
                message,
            }) => {
                let listed = versions(data.as_ref().and_then(|d| d.get("supported")));
                if listed.contains(&ProtocolVersion::MODERN.as_str()) && !asked_again {
                    asked_again = true;
                    continue;
                }
                if let Some(version) = newest_legacy(&listed) {
                    return Ok(Probe::Legacy(version));
                }
                let listed = if listed.is_empty() {
                    message
                } else {
                    listed.join(", ")
                };
                return Err(ClientError::UnsupportedVersion(listed));
            }
            Err(
                refused @ ClientError::Rpc {
                    code: MISSING_CLIENT_CAPABILITY | HEADER_MISMATCH,
                    ..
                },
            ) => return Err(refused),
            Err(ClientError::Rpc { .. }) => return legacy("it refused server/discover"),
            // Not the era's refusal: credentials are missing or short.
            Err(
                refused @ ClientError::Http {
                    status: 401 | 403, ..
                },
            ) => return Err(refused),
            Err(ClientError::Http {
                status: 400..=499, ..
            }) => {
                return legacy("its endpoint refused server/discover");
            }
            Err(ClientError::Timeout) => return legacy("it did not answer server/discover"),
            Err(other) => return Err(other),
        }
    }
}

/// The connection is of the 2026-07-28 era; `result` answered the probe.
fn modern(session: &Session, mut result: Value) -> Opened {
    session.cache.keep("server/discover", None, &result);
    tracing::debug!("the server speaks 2026-07-28");
    let server_info = result
        .get_mut("_meta")
        .and_then(|meta| meta.get_mut(SERVER_INFO))
        .map(Value::take)
        .or_else(|| result.get_mut("serverInfo").map(Value::take))
        .unwrap_or(Value::Null);
    let mut take = |key: &str| result.get_mut(key).map(Value::take);
    Opened {
        version: ProtocolVersion::MODERN,
        server_info,
        capabilities: take("capabilities").unwrap_or(json!({})),
        instructions: take("instructions").and_then(|i| i.as_str().map(str::to_owned)),
    }
}

/// `initialize` offering `version`, then `notifications/initialized`.
async fn initialize(
    session: &Arc<Session>,
    setup: &Handshake,
    version: ProtocolVersion,
) -> Result<Opened, ClientError> {
    session.set_meta(None);
    let params = json!({
        "protocolVersion": version.as_str(),
        "capabilities": setup.capabilities,
        "clientInfo": setup.client_info,
    });
    let mut result = session.request("initialize", params, None, false).await?;
    let offered = result.get("protocolVersion").and_then(Value::as_str);
    let Some(version) = offered.and_then(ProtocolVersion::parse_legacy) else {
        let offered = offered.map_or_else(|| "(none)".to_owned(), str::to_owned);
        return Err(ClientError::UnsupportedVersion(offered));
    };
    let mut take = |key: &str| result.get_mut(key).map(Value::take);
    let opened = Opened {
        version,
        server_info: take("serverInfo").unwrap_or(Value::Null),
        capabilities: take("capabilities").unwrap_or(json!({})),
        instructions: take("instructions").and_then(|i| i.as_str().map(str::to_owned)),
    };
    session
        .notify("notifications/initialized", &json!({}))
        .await?;
    Ok(opened)
}
