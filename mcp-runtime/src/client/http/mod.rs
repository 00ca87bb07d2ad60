//! The Streamable HTTP transport (protocol versions 2025-03-26 to
//! 2025-11-25): each message is POSTed to the server's endpoint; the
//! answer is plain JSON or an SSE stream of messages, read in a task of its
//! own and resumed with `Last-Event-ID` if it drops before the answer.
//! After the handshake a GET stream carries what the server sends on its
//! own (list changes, resource updates), reopened when it drops. A session
//! the server forgot (404) is initialized again, transparently.
//!
//! A request of the 2026-07-28 era (its `_meta` names the version) is
//! sent without a session, with the era's headers
//! ([`modern::headers`](crate::client::modern::headers)); an HTTP error
//! whose body is the JSON-RPC error of the request is that request's
//! answer; its stream is never resumed, and cancelling it closes it.
//!
//! Here: the transport, what its tasks share, and the POST every message
//! goes out with (OAuth answering a 401 or 403 there). The 2026-07-28
//! era's sending is in [`modern`]; answers are read in [`read`], the GET
//! stream is kept in [`listen`], a forgotten session is replaced in
//! [`session`], and refusals become errors in [`refusal`].

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE};
use reqwest::{Method, Response, StatusCode};
use tokio::sync::watch;
use tokio::task::AbortHandle;

use self::refusal::{chain, io_error, refuse};
use crate::client::error::ClientError;
use crate::client::http_options::{HttpOptions, Token};
use crate::client::modern::headers::Marks;
use crate::client::oauth::{Attempts, Credentials, OAuth};
use crate::client::session::DEFAULT_TIMEOUT;
use crate::client::transport::{BoxFuture, Inbound, Transport};
use crate::jsonrpc::{self, Line, Message};

mod listen;
mod modern;
mod read;
mod refusal;
mod session;

const SESSION_ID: &str = "mcp-session-id";
const PROTOCOL_VERSION: &str = "mcp-protocol-version";
const ACCEPT_BOTH: &str = "application/json, text/event-stream";
const EVENT_STREAM: &str = "text/event-stream";

/// How long to wait before reconnecting when the server sent no `retry`.
const DEFAULT_RETRY: Duration = Duration::from_secs(1);
/// How long `close` waits for the server to acknowledge the DELETE.
const DELETE_TIMEOUT: Duration = Duration::from_secs(5);
/// How long the handshake waits for the server to answer the first GET
/// (open the stream, or refuse it) before going on without it.
const LISTEN_TIMEOUT: Duration = Duration::from_secs(5);

pub(crate) struct HttpTransport {
    shared: Arc<Shared>,
    stop: watch::Sender<bool>,
}

impl Drop for HttpTransport {
    fn drop(&mut self) {
        let _ = self.stop.send(true);
        if let Some(listening) = self.shared.state().listening.take() {
            listening.abort();
        }
    }
}

/// What the transport and its tasks share.
struct Shared {
    http: reqwest::Client,
    url: reqwest::Url,
    token: Option<Token>,
    /// The `x-mcp-header` marks of the tools listed (2026-07-28).
    marks: Arc<Marks>,
    /// Obtains the tokens, and answers 401 and 403 (then `token` is unused).
    oauth: Option<OAuth>,
    /// How long the server may take to begin answering.
    header_timeout: Duration,
    /// The longest message read (a JSON body, an SSE event's data).
    max_message: usize,
    /// Taken by `close`: tasks clone it only while they push a message,
    /// so the session sees the end once it is taken.
    inbound: Mutex<Option<Inbound>>,
    state: Mutex<State>,
    /// Held while the session is initialized again.
    reinitializing: tokio::sync::Mutex<()>,
    /// `true` (or the sender gone): the transport is closed.
    stop: watch::Receiver<bool>,
}

#[derive(Default)]
struct State {
    session: Option<String>,
    version: Option<String>,
    /// The `initialize` request as sent (and its id), to send again when
    /// the server forgets the session.
    initialize: Option<(Vec<u8>, String)>,
    /// The `notifications/initialized` as sent.
    initialized: Option<Vec<u8>>,
    /// The task reading the GET stream.
    listening: Option<AbortHandle>,
    /// The 2026-07-28 era's version, once a request of that era was sent
    /// (a request of the legacy era ends it).
    modern: Option<String>,
    /// The tasks reading the answers of the 2026-07-28 era's requests, by
    /// id: cancelling one closes its stream.
    streams: Vec<(String, AbortHandle)>,
}

/// What the client sends, as far as the transport cares.
enum Outgoing {
    /// A request: its id as JSON text, its method.
    Request(String, String),
    Notification(String),
    Other,
}

fn outgoing(message: &[u8]) -> Outgoing {
    match jsonrpc::parse_line(message) {
        Line::Single(Message::Request { id, method, .. }) => {
            Outgoing::Request(id.as_json().to_owned(), method.into_owned())
        }
        Line::Single(Message::Notification { method, .. }) => {
            Outgoing::Notification(method.into_owned())
        }
        _ => Outgoing::Other,
    }
}

impl HttpTransport {
    pub(crate) fn new(
        options: HttpOptions,
        inbound: Inbound,
        marks: Arc<Marks>,
    ) -> Result<HttpTransport, ClientError> {
        let invalid = |reason: String| {
            ClientError::Io(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                reason,
            ))
        };
        let url = reqwest::Url::parse(&options.url)
            .map_err(|e| invalid(format!("bad URL {:?}: {e}", options.url)))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(invalid(format!("not an http(s) URL: {}", options.url)));
        }
        // reqwest is built without a crypto provider of its own; ring is
        // installed unless the application installed one first.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::builder()
            .connect_timeout(options.connect_timeout)
            .build()
            .map_err(|e| invalid(format!("cannot build the HTTP client: {}", chain(&e))))?;
        let (stop, stopped) = watch::channel(false);
        let shared = Arc::new(Shared {
            http,
            url,
            max_message: options.max_message(),
            token: options.token,
            marks,
            oauth: options.oauth,
            header_timeout: options.timeout.unwrap_or(DEFAULT_TIMEOUT),
            inbound: Mutex::new(Some(inbound)),
            state: Mutex::new(State::default()),
            reinitializing: tokio::sync::Mutex::new(()),
            stop: stopped,
        });
        Ok(HttpTransport { shared, stop })
    }
}

impl Transport for HttpTransport {
    fn send(&self, message: Vec<u8>) -> BoxFuture<'_, Result<(), ClientError>> {
        Box::pin(self.shared.send(message))
    }

    fn close(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            let _ = self.stop.send(true);
            let session = {
                let mut state = self.shared.state();
                if let Some(listening) = state.listening.take() {
                    listening.abort();
                }
                state.session.clone()
            };
            if session.is_some() {
                let delete = async {
                    let request = self.shared.build(Method::DELETE, true).await;
                    // 405: the server does not let clients end sessions.
                    let _ = request.send().await;
                };
                let _ = tokio::time::timeout(DELETE_TIMEOUT, delete).await;
            }
            // The session sees the end: requests still waiting get `Closed`.
            self.shared.inbound().take();
        })
    }
}

impl Shared {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn inbound(&self) -> MutexGuard<'_, Option<Inbound>> {
        self.inbound.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn stopped(&self) -> bool {
        *self.stop.borrow() || self.stop.has_changed().is_err()
    }

    async fn send(self: &Arc<Self>, message: Vec<u8>) -> Result<(), ClientError> {
        if self.stopped() {
            return Err(ClientError::Closed);
        }
        let out = outgoing(&message);
        let era = self.era(&message, &out);
        if let Some(era) = era {
            return self.send_modern(message, out, era).await;
        }
        let initialize = matches!(&out, Outgoing::Request(_, method) if method == "initialize");
        if let (true, Outgoing::Request(id, _)) = (initialize, &out) {
            self.state().initialize = Some((message.clone(), id.clone()));
        }
        let (mut response, used) = self.post(&message, !initialize, &[]).await?;
        if response.status() == StatusCode::NOT_FOUND
            && let Some(expired) = used
        {
            drop(response);
            self.reinitialize(&expired).await?;
            response = self.post(&message, true, &[]).await?.0;
        }
        let response = refuse(response).await?;
        if initialize {
            let session = response
                .headers()
                .get(SESSION_ID)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned);
            self.state().session = session;
        }
        if let Outgoing::Notification(method) = &out
            && method == "notifications/initialized"
        {
            self.state().initialized = Some(message);
            // The handshake ends once the GET stream is open (or refused):
            // what the server sends on it from then on, such as the answer
            // to a call whose own stream dropped, is not missed because the
            // stream was still being opened.
            let opened = self.listen();
            let _ = tokio::time::timeout(LISTEN_TIMEOUT, opened).await;
        }
        let expect = match out {
            Outgoing::Request(id, _) => Some(id),
            _ => None,
        };
        self.receive(response, expect)
    }

    /// A request with the session's headers (`with_session`) and the
    /// credentials.
    async fn build(&self, method: Method, with_session: bool) -> reqwest::RequestBuilder {
        let credentials = self.credentials(&method).await;
        self.build_with(method, with_session, credentials.as_ref())
    }

    /// What a `method` request carries now: the bearer token, or OAuth's
    /// token (and DPoP proof).
    async fn credentials(&self, method: &Method) -> Option<Credentials> {
        if let Some(oauth) = &self.oauth {
            return oauth.credentials(&self.url, method.as_str()).await;
        }
        match &self.token {
            None => None,
            Some(Token::Static(token)) => Some(Credentials::bearer(token.clone())),
            Some(Token::Provider(provider)) => provider().await.map(Credentials::bearer),
        }
    }

    fn build_with(
        &self,
        method: Method,
        with_session: bool,
        credentials: Option<&Credentials>,
    ) -> reqwest::RequestBuilder {
        let mut request = self.http.request(method, self.url.clone());
        if with_session {
            let state = self.state();
            if let Some(session) = &state.session {
                request = request.header(SESSION_ID, session);
            }
            if let Some(version) = &state.version {
                request = request.header(PROTOCOL_VERSION, version);
            }
        }
        if let Some(credentials) = credentials {
            request = request.header(AUTHORIZATION, &credentials.authorization);
            if let Some(proof) = &credentials.dpop {
                request = request.header("dpop", proof);
            }
        }
        request
    }

    /// Sends `request`, waiting at most the header timeout for the server
    /// to begin answering.
    async fn execute(&self, request: reqwest::RequestBuilder) -> Result<Response, ClientError> {
        match tokio::time::timeout(self.header_timeout, request.send()).await {
            Err(_) => Err(ClientError::Timeout),
            Ok(Err(error)) => Err(io_error(&error)),
            Ok(Ok(response)) => Ok(response),
        }
    }

    /// POSTs `message`; returns the response and the session id it named.
    /// With OAuth, a 401 or 403 the flow can answer (a new token) sends
    /// the message again, within the flow's limit.
    async fn post(
        &self,
        message: &[u8],
        with_session: bool,
        era: &[(String, String)],
    ) -> Result<(Response, Option<String>), ClientError> {
        let mut attempts = Attempts::default();
        loop {
            let used = with_session.then(|| self.state().session.clone()).flatten();
            let credentials = self.credentials(&Method::POST).await;
            let mut request = self.build_with(Method::POST, with_session, credentials.as_ref());
            for (name, value) in era {
                request = request.header(name, value);
            }
            let request = request
                .header(ACCEPT, ACCEPT_BOTH)
                .header(CONTENT_TYPE, "application/json")
                .body(message.to_vec());
            let response = self.execute(request).await?;
            let Some(oauth) = &self.oauth else {
                return Ok((response, used));
            };
            let (status, sent) = (response.status().as_u16(), credentials.map(|c| c.token));
            if !oauth
                .on_refusal(&self.url, status, response.headers(), sent, &mut attempts)
                .await?
            {
                return Ok((response, used));
            }
        }
    }
}
