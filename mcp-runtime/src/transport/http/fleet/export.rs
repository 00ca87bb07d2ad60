//! A POST's stream resumed on another instance of the fleet. The stream
//! lives on the instance that served the POST (its event ids name it:
//! `{inst}~{n}.{rid}_{seq}`); a client whose connection dropped resumes
//! it with `Last-Event-ID` wherever the balancer sends it.
//!
//! The resuming instance asks the owner (one message on its channel) to
//! copy the stream into the store, as the session's stream `{inst}.{n}`
//! whose entries are `0-{seq}` (so the entry ids are the event numbers),
//! and waits (at most [`ASKED`]) for the owner's word. The owner copies
//! every kept event, then each new one as it comes until the stream ends,
//! each copy waking the instances that wait for it (in the same script).
//! The resuming instance reads the store after the client's event, and
//! after each wake-up, until the response. An owner that is gone (no one
//! hears it, or no word in time), or no longer keeps the stream, leaves
//! what the store has, then the memory mode's answer: one error response
//! for the request the id names. Nothing of this touches a POST whose
//! client stays connected.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use axum::body::Body;
use axum::http::{Response, StatusCode};
use bytes::{BufMut, Bytes, BytesMut};
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

use super::super::event_id::{self, EventId};
use super::super::reply::error;
use super::super::session::Export;
use super::super::sessions::Sessions;
use super::super::stream::{EventStream, Read};
use crate::jsonrpc::{
    ErrorObject, INTERNAL_ERROR, INVALID_REQUEST, InstanceTag, RequestId, is_response, write_error,
};
use crate::sessions::RedisSessions;

/// How long the resuming instance waits for the owner's first word.
pub(super) const ASKED: Duration = Duration::from_secs(2);

/// How long a copied stream stays in the store (it goes with the session
/// before, if that ends).
const KEPT: Duration = Duration::from_secs(300);

/// How often a resumed stream that hears nothing checks that its owner is
/// still there (and sends a comment, so the connection is not idle).
const CHECK_EVERY: Duration = Duration::from_secs(5);

/// What instances tell each other about a POST's stream (`k`: `export`
/// from the resuming instance `to`, `wake` or `gone` back to it; `s`: the
/// session; `st`: the stream's name `{inst}.{n}`).
#[derive(Serialize, Deserialize)]
pub(super) struct Told {
    k: String,
    s: String,
    st: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    to: Option<String>,
}

const EXPORT: &str = "export";
const WAKE: &str = "wake";
const GONE: &str = "gone";

impl Told {
    /// A payload heard, if it is one of these.
    pub(super) fn from_text(text: &str) -> Option<Told> {
        // The channel mostly carries other messages: skip parsing them.
        if !text.contains("\"st\"") {
            return None;
        }
        let told: Told = serde_json::from_str(text).ok()?;
        [EXPORT, WAKE, GONE]
            .contains(&told.k.as_str())
            .then_some(told)
    }

    fn to_text(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// What a waiting resumption hears.
enum Word {
    /// More of the stream is in the store.
    Wake,
    /// The owner no longer keeps the stream.
    Gone,
}

/// A resumption waiting here: its token, and where its words go.
type Waiter = (u64, mpsc::UnboundedSender<Word>);

/// The POST streams this instance copies to the store, and the
/// resumptions of other instances' streams waiting here.
pub(super) struct Exports {
    store: RedisSessions,
    instance: InstanceTag,
    keep: usize,
    /// Streams being copied, by `{session} {name}`: the instances waiting.
    copying: Mutex<HashMap<String, Arc<tokio::sync::Mutex<Vec<String>>>>>,
    /// Resumptions waiting here, by `{session} {name}`.
    waiting: Mutex<HashMap<String, Vec<Waiter>>>,
    tokens: AtomicU64,
}

impl Exports {
    pub(super) fn new(store: RedisSessions, instance: InstanceTag, keep: usize) -> Exports {
        Exports {
            store,
            instance,
            keep,
            copying: Mutex::default(),
            waiting: Mutex::default(),
            tokens: AtomicU64::new(0),
        }
    }

    /// What another instance told this one about a POST stream.
    pub(super) fn heard(self: &Arc<Self>, cache: &Arc<Sessions>, told: Told) {
        let key = format!("{} {}", told.s, told.st);
        match told.k.as_str() {
            EXPORT => {
                let Some(to) = told.to else { return };
                let stream = (told.st.split_once('.'))
                    .filter(|(owner, _)| *owner == self.instance.as_str())
                    .and_then(|(_, n)| n.parse::<u64>().ok())
                    .filter(|n| *n != 0)
                    .and_then(|n| cache.peek(&told.s)?.stream(n));
                let exports = Arc::clone(self);
                tokio::spawn(async move {
                    match stream {
                        Some(stream) => exports.copy(told.s, told.st, stream, Some(to)).await,
                        None => exports.tell(&to, GONE, &told.s, &told.st).await,
                    }
                });
            }
            WAKE | GONE => {
                let word = || {
                    if told.k == WAKE {
                        Word::Wake
                    } else {
                        Word::Gone
                    }
                };
                let waiting = self.waiting.lock().unwrap_or_else(|e| e.into_inner());
                for (_, tell) in waiting.get(&key).into_iter().flatten() {
                    let _ = tell.send(word());
                }
            }
            _ => {}
        }
    }

    async fn tell(&self, to: &str, k: &str, session: &str, stream: &str) {
        let told = Told {
            k: k.into(),
            s: session.into(),
            st: stream.into(),
            to: None,
        };
        if let Err(error) = self.store.route(to, &told.to_text()).await {
            tracing::debug!(%error, "an instance resuming a stream not told");
        }
    }

    /// Copies `stream` into the store for the instance `to` (and any other
    /// waiting for it), until it ends; wakes `to` once it waits, and tells
    /// every instance waiting when the stream ended (`gone`: nothing more
    /// will come).
    async fn copy(
        self: Arc<Self>,
        session: String,
        name: String,
        stream: Arc<EventStream>,
        to: Option<String>,
    ) {
        let key = format!("{session} {name}");
        let (waiters, start) = {
            let mut copying = self.copying.lock().unwrap_or_else(|e| e.into_inner());
            match copying.get(&key) {
                Some(waiters) => (Arc::clone(waiters), false),
                None => {
                    let waiters = Arc::new(tokio::sync::Mutex::new(Vec::new()));
                    copying.insert(key.clone(), Arc::clone(&waiters));
                    (waiters, true)
                }
            }
        };
        if let Some(to) = to {
            // No copy is under way while `to` is added: what is in the
            // store now is all it was not woken for.
            let mut waiting = waiters.lock().await;
            if !waiting.contains(&to) {
                waiting.push(to.clone());
            }
            self.tell(&to, WAKE, &session, &name).await;
        }
        if !start {
            return;
        }
        // Read as a reader: the stream holds events back until they are in.
        let _reader = stream.attach();
        let mut cursor = 0;
        while let Read::Events(events) = stream.read(cursor).await {
            cursor = events.last().map_or(cursor, |(n, _)| *n);
            let lines: Vec<(u64, &str)> = events
                .iter()
                .map(|(n, line)| (*n, std::str::from_utf8(line).unwrap_or_default()))
                .collect();
            let waiting = waiters.lock().await;
            let copied = self
                .store
                .export(&session, &name, &lines, self.keep, KEPT, &waiting)
                .await;
            drop(waiting);
            match copied {
                Ok(Some(_)) => {}
                Ok(None) => break,
                Err(error) => {
                    tracing::warn!(%session, %error, "a POST stream not copied to the store");
                    break;
                }
            }
        }
        self.copying
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&key);
        let waiting = waiters.lock().await.clone();
        for to in waiting {
            self.tell(&to, GONE, &session, &name).await;
        }
    }

    /// What copies a POST stream of `session` whose reader dropped before
    /// its end to the store (a resumption elsewhere then finds it there,
    /// even once this instance is gone).
    pub(super) fn on_drop(exports: &Arc<Exports>, session: &str) -> Export {
        let exports = Arc::downgrade(exports);
        let session = session.to_owned();
        Box::new(move |stream| {
            let (Some(exports), Ok(runtime)) =
                (exports.upgrade(), tokio::runtime::Handle::try_current())
            else {
                return;
            };
            let name = format!("{}.{}", exports.instance, stream.number);
            tracing::debug!(%session, %name, "a POST stream's reader dropped: copied to the store");
            runtime.spawn(exports.copy(session.clone(), name, Arc::clone(stream), None));
        })
    }

    fn wait(&self, key: &str) -> (u64, mpsc::UnboundedReceiver<Word>) {
        let token = self.tokens.fetch_add(1, Ordering::Relaxed);
        let (tell, heard) = mpsc::unbounded_channel();
        let mut waiting = self.waiting.lock().unwrap_or_else(|e| e.into_inner());
        waiting
            .entry(key.to_owned())
            .or_default()
            .push((token, tell));
        (token, heard)
    }

    fn done(&self, key: &str, token: u64) {
        let mut waiting = self.waiting.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(list) = waiting.get_mut(key) {
            list.retain(|(t, _)| *t != token);
            if list.is_empty() {
                waiting.remove(key);
            }
        }
    }
}

/// A GET with `Last-Event-ID` naming `id`, a POST stream another
/// instance (`owner`) keeps, of `session`.
pub(super) async fn resume(
    exports: &Arc<Exports>,
    session: &str,
    owner: InstanceTag,
    id: EventId,
    tag: Option<&str>,
) -> Response<Body> {
    let name = format!("{owner}.{}", id.stream);
    let key = format!("{session} {name}");
    let (token, mut heard) = exports.wait(&key);
    let mut state = Resumed {
        exports: Arc::downgrade(exports),
        store: exports.store.clone(),
        session: session.to_owned(),
        name,
        key,
        token,
        owner,
        number: id.stream,
        tag: tag.map(Box::from),
        request: id.request,
        last: id.seq,
        heard: None,
        keep: exports.keep,
        over: false,
    };
    let alive = state.ask().await
        && matches!(
            tokio::time::timeout(ASKED, heard.recv()).await,
            Ok(Some(Word::Wake))
        );
    let mut first = BytesMut::new();
    state.read(&mut first).await;
    if !state.over && !alive {
        if first.is_empty() && state.request.is_none() {
            return error(
                StatusCode::GONE,
                Some(INVALID_REQUEST),
                "Gone: the server no longer keeps the stream Last-Event-ID names, so what was \
                 left of it is lost",
            );
        }
        state.lost(&mut first);
    }
    state.heard = Some(heard);
    let body = futures_util::stream::unfold(
        (Some(first.freeze()), Some(state)),
        |(first, state)| async move {
            if let Some(first) = first {
                return Some((Ok::<_, Infallible>(first), (None, state)));
            }
            let mut state = state?;
            if state.over {
                return None;
            }
            let chunk = state.next().await;
            Some((Ok(chunk), (None, Some(state))))
        },
    );
    super::super::sse::with_body(Body::from_stream(body))
}

/// A POST stream of another instance being sent from the store.
struct Resumed {
    exports: Weak<Exports>,
    store: RedisSessions,
    session: String,
    name: String,
    key: String,
    token: u64,
    owner: InstanceTag,
    number: u64,
    tag: Option<Box<str>>,
    request: Option<RequestId>,
    /// The last event sent.
    last: u64,
    heard: Option<mpsc::UnboundedReceiver<Word>>,
    keep: usize,
    /// The response was sent (or the error that stands for it).
    over: bool,
}

impl Drop for Resumed {
    fn drop(&mut self) {
        if let Some(exports) = self.exports.upgrade() {
            exports.done(&self.key, self.token);
        }
    }
}

impl Resumed {
    /// Asks the owner to copy the stream: whether anyone heard.
    async fn ask(&self) -> bool {
        let Some(exports) = self.exports.upgrade() else {
            return false;
        };
        let told = Told {
            k: EXPORT.into(),
            s: self.session.clone(),
            st: self.name.clone(),
            to: Some(exports.instance.as_str().to_owned()),
        };
        match self.store.route(self.owner.as_str(), &told.to_text()).await {
            Ok(heard) => heard > 0,
            Err(error) => {
                tracing::warn!(%error, "the owner of a POST stream not asked");
                false
            }
        }
    }

    /// Writes what the store has after the last event sent.
    async fn read(&mut self, chunk: &mut BytesMut) {
        while !self.over {
            let after = format!("0-{}", self.last);
            let entries = match (self.store)
                .replay(&self.session, &self.name, Some(&after), self.keep)
                .await
            {
                Ok(entries) => entries,
                Err(error) => {
                    tracing::warn!(session = %self.session, %error, "a POST stream not read");
                    return;
                }
            };
            let full = entries.len() >= self.keep.max(1);
            for (entry, line) in entries {
                let Some(seq) = entry.strip_prefix("0-").and_then(|n| n.parse().ok()) else {
                    continue;
                };
                if seq <= self.last {
                    continue;
                }
                self.write(chunk, seq, line.as_bytes());
                // A batch's stream (no request named) ends when its owner
                // says so.
                if self.request.is_some() && is_response(line.as_bytes()) {
                    self.over = true;
                }
            }
            if !full {
                return;
            }
        }
    }

    fn write(&mut self, chunk: &mut BytesMut, seq: u64, line: &[u8]) {
        chunk.reserve(line.len() + 64);
        chunk.put_slice(b"id: ");
        event_id::write(
            chunk,
            Some(self.owner),
            self.number,
            self.tag.as_deref(),
            seq,
        );
        chunk.put_slice(b"\ndata: ");
        chunk.put_slice(line);
        chunk.put_slice(b"\n\n");
        self.last = seq;
    }

    /// The owner is gone, or no longer keeps the stream: its request's
    /// answer is lost, which an error response says.
    fn lost(&mut self, chunk: &mut BytesMut) {
        self.over = true;
        let Some(request) = &self.request else {
            return;
        };
        tracing::info!(
            request = request.as_json(),
            owner = %self.owner,
            "a client resumed a stream whose instance is gone; its request is answered with an error"
        );
        let mut line = Vec::new();
        write_error(
            &mut line,
            Some(request),
            &ErrorObject::new(
                INTERNAL_ERROR,
                "the server instance serving this request stopped or no longer keeps its stream, \
                 so its result is lost; send the request again",
            ),
        );
        chunk.reserve(line.len() + 9);
        chunk.put_slice(b"data: ");
        chunk.put_slice(line.strip_suffix(b"\n").unwrap_or(&line));
        chunk.put_slice(b"\n\n");
    }

    /// The next chunk: events woken for, the error when the owner is gone,
    /// or a comment.
    async fn next(&mut self) -> Bytes {
        let mut chunk = BytesMut::new();
        let Some(heard) = self.heard.as_mut() else {
            self.over = true;
            return Bytes::new();
        };
        match tokio::time::timeout(CHECK_EVERY, heard.recv()).await {
            Ok(Some(Word::Wake)) => {
                let mut gone = false;
                while let Ok(word) = heard.try_recv() {
                    gone |= matches!(word, Word::Gone);
                }
                self.read(&mut chunk).await;
                if gone && !self.over {
                    self.lost(&mut chunk);
                }
            }
            Ok(Some(Word::Gone)) | Ok(None) => {
                self.read(&mut chunk).await;
                if !self.over {
                    self.lost(&mut chunk);
                }
            }
            Err(_) => {
                if !self.ask().await {
                    self.read(&mut chunk).await;
                    if !self.over {
                        self.lost(&mut chunk);
                    }
                } else {
                    chunk.put_slice(b": keep-alive\n\n");
                }
            }
        }
        chunk.freeze()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_what_instances_tell_of_post_streams_reads_as_told() {
        // As the store's script writes a wake-up (keys in any order).
        let wake = Told::from_text(r#"{"st":"ab12cd34.3","s":"S","k":"wake"}"#).unwrap();
        assert_eq!(
            (wake.k.as_str(), wake.s.as_str(), wake.st.as_str()),
            (WAKE, "S", "ab12cd34.3")
        );
        let asked = Told {
            k: EXPORT.into(),
            s: "S".into(),
            st: "ab12cd34.3".into(),
            to: Some("0000000c".into()),
        };
        let heard = Told::from_text(&asked.to_text()).unwrap();
        assert_eq!(heard.to.as_deref(), Some("0000000c"));
        for other in [
            r#"{"k":"answer","s":"S","id":1,"result":{}}"#,
            r#"{"origin":"x","method":"notifications/tools/list_changed"}"#,
            r#"{"k":"other","s":"S","st":"a.1"}"#,
            "not json \"st\"",
        ] {
            assert!(Told::from_text(other).is_none(), "{other}");
        }
    }
}
