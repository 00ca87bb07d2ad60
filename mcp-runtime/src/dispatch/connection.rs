//! Legacy sessions (protocol versions up to 2025-11-25): the lifecycle
//! gate (`initialize` first and once, `ping` at any time, nothing else
//! before a session), the negotiation of `initialize`, and the start of
//! the session it agreed on. Past the gate, a request is routed by method
//! as in every era (`route`).

use std::sync::Arc;

use serde_json::value::RawValue;
use serde_json::{Value, json};

use super::frame::{Frame, Request, params_object};
use super::reply::{Answer, Replies, not_initialized, raw};
use super::state::Connection;
use crate::context::{ClientInfo, SessionShared};
use crate::jsonrpc::{
    self, ErrorObject, INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, RequestId,
};
use crate::middleware::McpService;
use crate::protocol::version::ProtocolVersion;
use crate::telemetry;

impl Connection {
    /// Serves a request of a legacy session, or of a connection that has
    /// none yet and did not claim the 2026-07-28 era: the lifecycle gate,
    /// then routing by method.
    pub(super) async fn handle_legacy(
        &mut self,
        request: Request<'_, '_>,
        frame: &mut Frame<'_>,
    ) -> Result<Answer, ErrorObject> {
        let layered = self.core.service.is_some();
        match request.method {
            "server/discover" => return Err(discover_refused()),
            "initialize" => {
                if let Some(service) = self.core.service.clone() {
                    let (id, params) = (frame.id, request.params);
                    let initializing =
                        self.initialize_layered(service, id, params, &mut frame.reply);
                    // Boxed: it stays out of every other request's future.
                    return Box::pin(initializing).await;
                }
                let result = self.initialize(request.params)?;
                let id = frame.id;
                frame
                    .reply
                    .write(|reply| jsonrpc::write_result(reply, id, &result));
                return Ok(Answer::Written);
            }
            "ping" if !layered => {
                let id = frame.id;
                frame
                    .reply
                    .write(|reply| jsonrpc::write_result(reply, id, &raw("{}")));
                return Ok(Answer::Written);
            }
            // Through the layers, with or without a session.
            "ping" => {}
            _ if self.session.is_none() => return Err(not_initialized()),
            _ => {}
        }
        self.route(request, frame).await
    }

    fn initialize(&mut self, params: Option<&RawValue>) -> Result<Box<RawValue>, ErrorObject> {
        let negotiated = self.negotiate(params)?;
        let result = serde_json::value::to_raw_value(&negotiated.result)
            .map_err(|_| ErrorObject::new(INTERNAL_ERROR, "internal error"))?;
        self.commit(negotiated);
        Ok(result)
    }

    /// `initialize` through the layers: negotiated first, then passed
    /// through them with its result, awaited here (nothing else can happen
    /// on a connection before it), and the session starts only if they
    /// answer `Ok`.
    async fn initialize_layered(
        &mut self,
        service: McpService,
        id: &RequestId,
        params: Option<&RawValue>,
        reply: &mut Replies<'_>,
    ) -> Result<Answer, ErrorObject> {
        let mut negotiated = self.negotiate(params)?;
        let version = negotiated.session.version;
        let result = std::mem::take(&mut negotiated.result);
        let result = (self.layered_initialize(service, id, params, version, result)).await?;
        self.commit(negotiated);
        reply.write(|reply| jsonrpc::write_result(reply, id, &result));
        Ok(Answer::Written)
    }

    /// What `initialize` with `params` agrees on, and its result; the
    /// session starts only when it is [committed](Connection::commit).
    fn negotiate(&self, params: Option<&RawValue>) -> Result<Negotiated, ErrorObject> {
        if self.session.is_some() {
            return Err(ErrorObject::new(
                INVALID_REQUEST,
                "already initialized: initialize may be sent only once per connection",
            ));
        }
        let params = params_object(params)?;
        let Some(requested) = params.get("protocolVersion").and_then(Value::as_str) else {
            return Err(ErrorObject::new(
                INVALID_PARAMS,
                "initialize needs `protocolVersion`, a string such as \"2025-06-18\"",
            ));
        };
        let version = ProtocolVersion::parse_legacy(requested).unwrap_or(ProtocolVersion::LATEST);
        let client_info = params.get("clientInfo");
        let text = |key: &str| {
            client_info
                .and_then(|c| c.get(key))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        let client = ClientInfo {
            name: text("name"),
            version: text("version"),
            capabilities: params
                .get("capabilities")
                .cloned()
                .unwrap_or_else(|| json!({})),
        };
        let session = Arc::new(self.core.new_session(version, client));
        let mut result = json!({
            "protocolVersion": version.as_str(),
            "capabilities": self.core.served.capabilities(version, self.identity.is_some()),
            "serverInfo": self.core.info.for_version(version),
        });
        if let Some(instructions) = &self.core.instructions {
            result["instructions"] = Value::String(instructions.clone());
        }
        Ok(Negotiated {
            session,
            requested: requested.to_owned(),
            result,
        })
    }

    /// Starts the session `initialize` negotiated.
    fn commit(&mut self, negotiated: Negotiated) {
        let Negotiated {
            session, requested, ..
        } = negotiated;
        tracing::info!(
            client = %session.client.name,
            client_version = %session.client.version,
            requested = requested,
            negotiated = %session.version,
            "client initialized"
        );
        self.start(session);
        self.register_notices();
    }

    /// Serves `session` from now on: what belongs to no call goes to this
    /// connection's output, and the session has its span. (Whether the
    /// hub tells it about changes is [`Connection::register_notices`].)
    pub(super) fn start(&mut self, session: Arc<SessionShared>) {
        let _ = session.notices.set(self.out.downgrade());
        self.session_span = telemetry::session_span(session.version, self.http);
        self.session = Some(session);
    }

    /// Has the server's hub tell this connection's session about changes
    /// (resources it subscribed to, list changes, log messages), on this
    /// connection's output. `initialize` does it; a resumed session does
    /// it only on the instance that holds its GET stream. `false` when
    /// there is no session yet, or it was registered already.
    pub(crate) fn register_notices(&mut self) -> bool {
        let Some(session) = self.session.as_ref().filter(|_| !self.registered) else {
            return false;
        };
        self.core.hub.register(session, self.out.downgrade());
        self.registered = true;
        true
    }

    /// Undoes [`Connection::register_notices`]: the server's hub no longer
    /// tells this connection's session about changes (in a fleet, the
    /// instance lost the session's GET stream to another). What belongs
    /// to a call of its own still reaches it. `false` when it was not
    /// registered. It may be registered again.
    #[cfg_attr(not(test), allow(dead_code))] // The fleet transport calls it.
    pub(crate) fn unregister_notices(&mut self) -> bool {
        let Some(session) = self.session.as_ref().filter(|_| self.registered) else {
            return false;
        };
        self.core.hub.unregister(session);
        self.registered = false;
        true
    }
}

/// What `initialize` agreed on, before the session starts.
struct Negotiated {
    session: Arc<SessionShared>,
    /// The version the client asked for, for the log.
    requested: String,
    /// The result to answer with.
    result: Value,
}

fn discover_refused() -> ErrorObject {
    ErrorObject::new(
        METHOD_NOT_FOUND,
        "Method not found: server/discover (this server speaks the initialize-based protocol; send initialize)",
    )
    .with_data(json!({ "method": "server/discover" }))
}
