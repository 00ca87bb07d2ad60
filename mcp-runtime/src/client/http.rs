//! The Streamable HTTP transport (protocol versions 2025-03-26 to
//! 2025-11-25): each message is POSTed to the server's endpoint; the
//! answer is plain JSON or an SSE stream of messages, read in a task of its
//! own and resumed with `Last-Event-ID` if it drops before the answer.
//! After the handshake a GET stream carries what the server sends on its
//! own (list changes, resource updates), reopened when it drops. A session
//! the server forgot (404) is initialized again, transparently.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use reqwest::header::{ACCEPT, CONTENT_TYPE, WWW_AUTHENTICATE};
use reqwest::{Method, Response, StatusCode};
use serde_json::Value;
use serde_json::value::RawValue;
use tokio::sync::{oneshot, watch};
use tokio::task::AbortHandle;

use crate::client::error::ClientError;
use crate::client::http_options::{HttpOptions, Token};
use crate::client::oauth::{Attempts, OAuth};
use crate::client::session::DEFAULT_TIMEOUT;
use crate::client::sse::SseParser;
use crate::client::transport::{BoxFuture, Inbound, Received, Transport};
use crate::jsonrpc::{self, Line, Message};

const SESSION_ID: &str = "mcp-session-id";
const PROTOCOL_VERSION: &str = "mcp-protocol-version";
const LAST_EVENT_ID: &str = "last-event-id";
const ACCEPT_BOTH: &str = "application/json, text/event-stream";
const EVENT_STREAM: &str = "text/event-stream";

/// How many times a POST's stream that dropped before its answer is
/// resumed before the request fails.
const RESUME_ATTEMPTS: u32 = 3;
/// How long to wait before reconnecting when the server sent no `retry`.
const DEFAULT_RETRY: Duration = Duration::from_secs(1);
/// The longest wait between attempts to reopen the GET stream.
const MAX_BACKOFF: Duration = Duration::from_secs(30);
/// The largest plain JSON answer (or error body) read.
const MAX_BODY: usize = 64 * 1024 * 1024;
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
    /// Obtains the tokens, and answers 401 and 403 (then `token` is unused).
    oauth: Option<OAuth>,
    /// How long the server may take to begin answering.
    header_timeout: Duration,
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
            token: options.token,
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

    /// Waits `delay`; `false` if the transport closed meanwhile.
    async fn pause(&self, delay: Duration) -> bool {
        let mut stop = self.stop.clone();
        tokio::select! {
            () = tokio::time::sleep(delay) => !self.stopped(),
            _ = stop.wait_for(|stopped| *stopped) => false,
        }
    }

    async fn send(self: &Arc<Self>, message: Vec<u8>) -> Result<(), ClientError> {
        if self.stopped() {
            return Err(ClientError::Closed);
        }
        let out = outgoing(&message);
        let initialize = matches!(&out, Outgoing::Request(_, method) if method == "initialize");
        if let (true, Outgoing::Request(id, _)) = (initialize, &out) {
            self.state().initialize = Some((message.clone(), id.clone()));
        }
        let (mut response, used) = self.post(&message, !initialize).await?;
        if response.status() == StatusCode::NOT_FOUND
            && let Some(expired) = used
        {
            drop(response);
            self.reinitialize(&expired).await?;
            response = self.post(&message, true).await?.0;
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
    /// bearer token.
    async fn build(&self, method: Method, with_session: bool) -> reqwest::RequestBuilder {
        let token = self.bearer().await;
        self.build_with(method, with_session, token.as_deref())
    }

    /// The bearer token to send now, if any.
    async fn bearer(&self) -> Option<String> {
        if let Some(oauth) = &self.oauth {
            return oauth.bearer(&self.url).await;
        }
        match &self.token {
            None => None,
            Some(Token::Static(token)) => Some(token.clone()),
            Some(Token::Provider(provider)) => provider().await,
        }
    }

    fn build_with(
        &self,
        method: Method,
        with_session: bool,
        token: Option<&str>,
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
        if let Some(token) = token {
            request = request.bearer_auth(token);
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
    ) -> Result<(Response, Option<String>), ClientError> {
        let mut attempts = Attempts::default();
        loop {
            let used = with_session.then(|| self.state().session.clone()).flatten();
            let token = self.bearer().await;
            let request = self
                .build_with(Method::POST, with_session, token.as_deref())
                .header(ACCEPT, ACCEPT_BOTH)
                .header(CONTENT_TYPE, "application/json")
                .body(message.to_vec());
            let response = self.execute(request).await?;
            let Some(oauth) = &self.oauth else {
                return Ok((response, used));
            };
            let challenges: Vec<String> = (response.headers().get_all(WWW_AUTHENTICATE).iter())
                .filter_map(|v| v.to_str().ok().map(str::to_owned))
                .collect();
            let status = response.status().as_u16();
            if !oauth
                .on_refusal(&self.url, status, &challenges, token, &mut attempts)
                .await?
            {
                return Ok((response, used));
            }
        }
    }

    /// GETs the session's stream, or resumes one after `last_event_id`.
    async fn get(&self, last_event_id: Option<&str>) -> Result<Response, ClientError> {
        let mut request = self
            .build(Method::GET, true)
            .await
            .header(ACCEPT, EVENT_STREAM);
        if let Some(last) = last_event_id {
            request = request.header(LAST_EVENT_ID, last);
        }
        self.execute(request).await
    }

    /// Reads a successful POST's answer: plain JSON or an SSE stream, in
    /// a task of its own; what it holds goes to the session.
    fn receive(
        self: &Arc<Self>,
        response: Response,
        expect: Option<String>,
    ) -> Result<(), ClientError> {
        if response.status() == StatusCode::ACCEPTED {
            if let Some(id) = expect {
                // A request is answered with JSON or a stream; 202 means
                // no answer will come (ours says so for a cancelled call).
                let shared = Arc::clone(self);
                tokio::spawn(async move {
                    let reason = "the server accepted the request without answering (202)";
                    shared.fail(&id, reason).await;
                });
            }
            return Ok(());
        }
        let media = content_type(&response);
        if media.eq_ignore_ascii_case(EVENT_STREAM) {
            tokio::spawn(Arc::clone(self).follow(response, expect));
        } else if media.eq_ignore_ascii_case("application/json") {
            tokio::spawn(Arc::clone(self).read_json(response, expect));
        } else if expect.is_some() {
            return Err(ClientError::Http {
                status: response.status().as_u16(),
                message: format!("the answer's Content-Type is {media:?}, not JSON or SSE"),
                www_authenticate: None,
            });
        }
        Ok(())
    }

    async fn read_json(self: Arc<Self>, response: Response, expect: Option<String>) {
        let answered = match read_body(response).await {
            Ok(body) => self.deliver(&body, expect.as_deref()).await,
            Err(reason) => {
                if let Some(id) = &expect {
                    self.fail(id, &format!("reading the answer failed: {reason}"))
                        .await;
                }
                return;
            }
        };
        if let (false, Some(id)) = (answered, &expect) {
            self.fail(
                id,
                "the server's JSON answer holds no response to the request",
            )
            .await;
        }
    }

    /// Reads a POST's SSE stream; if it drops before the answer to
    /// `expect`, resumes it with `Last-Event-ID`, and fails the request
    /// when that is impossible.
    async fn follow(self: Arc<Self>, response: Response, expect: Option<String>) {
        let mut parser = SseParser::default();
        let mut answered = false;
        let mut ended = self
            .read_events(response, &mut parser, expect.as_deref(), &mut answered)
            .await;
        let Some(id) = expect else { return };
        let mut attempts = 0;
        while !answered {
            if self.stopped() {
                return;
            }
            let Some(last) = parser.last_id.clone() else {
                let reason =
                    format!("the answer's stream ended ({ended}) with no event id to resume from");
                return self.fail(&id, &reason).await;
            };
            if attempts == RESUME_ATTEMPTS {
                let reason = format!("the answer's stream ended and could not be resumed: {ended}");
                return self.fail(&id, &reason).await;
            }
            attempts += 1;
            if !self.pause(parser.retry.unwrap_or(DEFAULT_RETRY)).await {
                return;
            }
            tracing::debug!(last_event_id = last, "resuming the answer's stream");
            ended = match self.get(Some(&last)).await {
                Ok(response) if response.status().is_success() && is_sse(&response) => {
                    self.read_events(response, &mut parser, Some(&id), &mut answered)
                        .await
                }
                Ok(response) => format!("resuming it answered HTTP {}", response.status()),
                Err(error) => error.to_string(),
            };
        }
    }

    /// Reads an SSE stream to its end, passing each message on; sets
    /// `answered` when the response to `expect` passes. Returns how the
    /// stream ended, in words.
    async fn read_events(
        &self,
        mut response: Response,
        parser: &mut SseParser,
        expect: Option<&str>,
        answered: &mut bool,
    ) -> String {
        let mut stop = self.stop.clone();
        loop {
            let chunk = tokio::select! {
                chunk = response.chunk() => chunk,
                _ = stop.wait_for(|stopped| *stopped) => return "the client closed".into(),
            };
            match chunk {
                Ok(Some(bytes)) => match parser.feed(&bytes) {
                    Ok(events) => {
                        for data in events {
                            *answered |= self.deliver(&data, expect).await;
                        }
                    }
                    Err(_) => return "an event was too large".into(),
                },
                Ok(None) => return "the server ended it".into(),
                Err(error) => return chain(&error),
            }
        }
    }

    /// Passes one message (or each of a batch) to the session; `true` if
    /// the response to `expect` was among them.
    async fn deliver(&self, body: &[u8], expect: Option<&str>) -> bool {
        let (messages, answered) = self.split(body, expect);
        for message in messages {
            self.push(message).await;
        }
        answered
    }

    /// The messages in `body`, and whether the answer to `expect` is one.
    /// Notes the protocol version from the answer to `initialize`.
    fn split(&self, body: &[u8], expect: Option<&str>) -> (Vec<Vec<u8>>, bool) {
        let mut answered = false;
        let mut note = |message: &Message<'_>| {
            if let Message::Response {
                id: Some(id),
                result,
                ..
            } = message
            {
                answered |= expect == Some(id.as_json());
                self.note_version(id.as_json(), *result);
            }
        };
        let messages = match jsonrpc::parse_line(body) {
            Line::Blank => Vec::new(),
            Line::Batch(items) => items
                .into_iter()
                .map(|item| {
                    note(&jsonrpc::classify(item));
                    item.get().as_bytes().to_vec()
                })
                .collect(),
            Line::Single(message) => {
                note(&message);
                vec![body.to_vec()]
            }
            // The session logs what is not JSON.
            Line::ParseError => vec![body.to_vec()],
        };
        (messages, answered)
    }

    /// The answer to `initialize` names the version every later request
    /// carries in `MCP-Protocol-Version`.
    fn note_version(&self, id: &str, result: Option<&RawValue>) {
        let mut state = self.state();
        if state.initialize.as_ref().is_none_or(|(_, sent)| sent != id) {
            return;
        }
        let version = result
            .and_then(|r| serde_json::from_str::<Value>(r.get()).ok())
            .and_then(|r| r.get("protocolVersion")?.as_str().map(str::to_owned));
        if version.is_some() {
            state.version = version;
        }
    }

    async fn push(&self, message: Vec<u8>) {
        let inbound = self.inbound().clone();
        if let Some(inbound) = inbound {
            let _ = inbound.send(Received::Message(message)).await;
        }
    }

    /// Fails the request `id` (JSON text): its answer was lost.
    async fn fail(&self, id: &str, reason: &str) {
        tracing::debug!(id, reason, "a request's answer was lost");
        // Our ids are numbers; any other id is not one of our requests.
        let Ok(id) = id.trim().parse::<u64>() else {
            return;
        };
        let inbound = self.inbound().clone();
        if let Some(inbound) = inbound {
            let reason = reason.to_owned();
            let _ = inbound.send(Received::Lost { id, reason }).await;
        }
    }

    /// Starts (again) the task reading the session's GET stream; the
    /// receiver completes once the server answered its first GET (or the
    /// task ended).
    fn listen(self: &Arc<Self>) -> oneshot::Receiver<()> {
        let (opened, on_open) = oneshot::channel();
        if self.stopped() {
            return on_open;
        }
        let task = tokio::spawn(Arc::clone(self).listening(opened));
        if let Some(old) = self.state().listening.replace(task.abort_handle()) {
            old.abort();
        }
        on_open
    }

    /// The GET stream: what the server sends on its own. Reopened (with
    /// `Last-Event-ID`) after the server's `retry` when it ends, backing off
    /// when reopening fails; given up on 405 (the server offers none), 404
    /// (the session ended: the next POST starts a new one) and 401/403.
    async fn listening(self: Arc<Self>, opened: oneshot::Sender<()>) {
        let mut opened = Some(opened);
        let mut parser = SseParser::default();
        let mut failures = 0u32;
        loop {
            let last = parser.last_id.clone();
            let answer = self.get(last.as_deref()).await;
            if let Some(opened) = opened.take() {
                let _ = opened.send(());
            }
            let ended = match answer {
                Ok(response) if response.status().is_success() && is_sse(&response) => {
                    failures = 0;
                    let mut answered = false;
                    self.read_events(response, &mut parser, None, &mut answered)
                        .await
                }
                Ok(response) => {
                    let status = response.status();
                    if matches!(status.as_u16(), 401 | 403 | 404 | 405) {
                        tracing::debug!(%status, "no GET stream");
                        return;
                    }
                    format!("HTTP {status}")
                }
                Err(error) => error.to_string(),
            };
            if self.stopped() {
                return;
            }
            failures += 1;
            let base = parser.retry.unwrap_or(DEFAULT_RETRY);
            let delay = base
                .saturating_mul(1 << (failures - 1).min(16))
                .min(MAX_BACKOFF.max(base));
            tracing::debug!(reason = ended, ?delay, "the GET stream ended; reopening it");
            if !self.pause(delay).await {
                return;
            }
        }
    }

    /// The server forgot the session `expired` (404): initializes a new one
    /// with the `initialize` and `notifications/initialized` sent at first
    /// (the answer swallowed), then reopens the GET stream.
    async fn reinitialize(self: &Arc<Self>, expired: &str) -> Result<(), ClientError> {
        let _one_at_a_time = self.reinitializing.lock().await;
        let (initialize, initialized) = {
            let state = self.state();
            if state.session.as_deref() != Some(expired) {
                // Another request did it meanwhile.
                return Ok(());
            }
            (state.initialize.clone(), state.initialized.clone())
        };
        let Some((initialize, id)) = initialize else {
            return Err(ClientError::Closed);
        };
        tracing::info!("the server forgot the session (404): initializing a new one");
        let (response, _) = self.post(&initialize, false).await?;
        let response = refuse(response).await?;
        let session = response
            .headers()
            .get(SESSION_ID)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        tokio::time::timeout(self.header_timeout, self.swallow(response, &id))
            .await
            .map_err(|_| ClientError::Timeout)??;
        self.state().session = session;
        if let Some(initialized) = initialized {
            refuse(self.post(&initialized, true).await?.0).await?;
        }
        // As after the first handshake: the message sent again next may be
        // answered on the new GET stream.
        let _ = tokio::time::timeout(LISTEN_TIMEOUT, self.listen()).await;
        Ok(())
    }

    /// Reads the answer to a replayed `initialize` (`id`) without passing
    /// it on: an error if the server refused.
    async fn swallow(&self, response: Response, id: &str) -> Result<(), ClientError> {
        let mut answer = None;
        if is_sse(&response) {
            let mut response = response;
            let mut parser = SseParser::default();
            while let (None, Ok(Some(bytes))) = (&answer, response.chunk().await) {
                for data in parser.feed(&bytes).unwrap_or_default() {
                    answer = answer.or_else(|| self.answer_in(&data, id));
                }
            }
        } else {
            let body = read_body(response).await.unwrap_or_default();
            answer = self.answer_in(&body, id);
        }
        match answer {
            Some(None) => Ok(()),
            Some(Some(error)) => Err(ClientError::InvalidResponse {
                method: "initialize".into(),
                reason: format!("initializing a new session failed: {error}"),
            }),
            None => Err(ClientError::InvalidResponse {
                method: "initialize".into(),
                reason: "initializing a new session got no answer".into(),
            }),
        }
    }

    /// The answer to `id` in `body`, if there: `Some(None)` for a result,
    /// `Some(Some(error))` for an error.
    fn answer_in(&self, body: &[u8], id: &str) -> Option<Option<String>> {
        let check = |message: Message<'_>| match message {
            Message::Response {
                id: Some(got),
                error,
                result,
            } if got.as_json() == id => {
                self.note_version(id, result);
                Some(error.map(|e| e.get().to_owned()))
            }
            _ => None,
        };
        match jsonrpc::parse_line(body) {
            Line::Single(message) => check(message),
            Line::Batch(items) => items.into_iter().find_map(|i| check(jsonrpc::classify(i))),
            _ => None,
        }
    }
}

fn content_type(response: &Response) -> String {
    let value = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    value
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_owned()
}

fn is_sse(response: &Response) -> bool {
    content_type(response).eq_ignore_ascii_case(EVENT_STREAM)
}

/// A successful response as it is; an HTTP error as [`ClientError::Http`]
/// with the server's message (the JSON-RPC error's, or the body's).
async fn refuse(response: Response) -> Result<Response, ClientError> {
    let status = response.status();
    if status.is_success() {
        return Ok(response);
    }
    let www_authenticate = matches!(status.as_u16(), 401 | 403)
        .then(|| response.headers().get(WWW_AUTHENTICATE))
        .flatten()
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let body = tokio::time::timeout(DELETE_TIMEOUT, read_body(response))
        .await
        .ok()
        .and_then(Result::ok)
        .unwrap_or_default();
    let from_json = serde_json::from_slice::<Value>(&body).ok().and_then(|v| {
        let message = v.get("error")?.get("message")?.as_str()?;
        Some(message.to_owned())
    });
    let message = from_json.unwrap_or_else(|| {
        let text = String::from_utf8_lossy(&body);
        let text = text.trim();
        if text.is_empty() {
            status
                .canonical_reason()
                .unwrap_or("no reason given")
                .to_owned()
        } else {
            text.chars().take(500).collect()
        }
    });
    Err(ClientError::Http {
        status: status.as_u16(),
        message,
        www_authenticate,
    })
}

/// The whole body, at most [`MAX_BODY`] bytes.
async fn read_body(mut response: Response) -> Result<Vec<u8>, String> {
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| chain(&e))? {
        if body.len() + chunk.len() > MAX_BODY {
            return Err(format!("the body is larger than {MAX_BODY} bytes"));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

fn io_error(error: &reqwest::Error) -> ClientError {
    use std::io::ErrorKind;
    let kind = if error.is_timeout() {
        ErrorKind::TimedOut
    } else if error.is_connect() {
        ErrorKind::ConnectionRefused
    } else {
        ErrorKind::Other
    };
    ClientError::Io(std::io::Error::new(kind, chain(error)))
}

/// An error and its sources, in one line.
fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let words = cause.to_string();
        if !text.contains(&words) {
            text.push_str(": ");
            text.push_str(&words);
        }
        source = cause.source();
    }
    text
}
