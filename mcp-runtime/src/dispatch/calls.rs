//! The calls of one connection: started, running, waiting, cancelled.
//!
//! At most `max_in_flight` calls run at once. A call that completes when
//! first polled is answered there and then, and never becomes a task; one
//! that has to wait runs as a task of its own. When every slot is taken, a
//! new call waits in a backlog, in arrival order, and the connection keeps
//! reading: a `ping` is still answered, and a `notifications/cancelled`
//! still reaches a waiting call, which is then dropped without ever running.
//! Reading stops only when the backlog is full (`max_backlog_bytes`), so
//! memory stays bounded however fast a client sends.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::Poll;
use std::time::Instant;

use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore, TryAcquireError};
use tokio::task::{AbortHandle, JoinSet};
use tracing::Instrument;

use super::core::{Limits, ServerCore};
use super::frame::{BatchSlot, Frame};
use super::job::{Job, request_context};
use super::live::Snapshot;
use super::reply::{Answer, write_call_result};
use crate::asking::rounds::Interim;
use crate::auth::Identity;
use crate::context::{Context, SessionShared};
use crate::jsonrpc::call_params::CallParams;
use crate::jsonrpc::{ErrorObject, INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, RequestId};
use crate::telemetry::{self, Answered};
use crate::tools::def::Outcome;

/// What a waiting call costs the backlog beyond its message: an estimate
/// of its task, its context and its entry in the table of calls.
pub(crate) const WAITING_CALL_OVERHEAD: usize = 1024;

/// Where the response to a call that became a task goes.
pub(crate) enum Route {
    /// Straight to the output.
    Direct,
    /// To the batch it belongs to (`None` when cancelled).
    Batch(BatchSlot),
}

/// A call running or waiting as a task, found by its request id.
struct InFlight {
    abort: AbortHandle,
    ctx: Context,
}

/// The bytes of the calls waiting for a slot.
struct Backlog {
    bytes: AtomicUsize,
    max: usize,
    room: Notify,
}

impl Backlog {
    /// Whether a call of `cost` bytes may wait now. An empty backlog takes
    /// any call, so one larger than the limit is not refused forever.
    fn has_room(&self, cost: usize) -> bool {
        let bytes = self.bytes.load(Ordering::Acquire);
        bytes == 0 || bytes.saturating_add(cost) <= self.max
    }
}

/// A waiting call's share of the backlog, given back when it starts or is
/// dropped.
struct Ticket {
    backlog: Arc<Backlog>,
    cost: usize,
}

impl Ticket {
    fn take(backlog: &Arc<Backlog>, cost: usize) -> Ticket {
        backlog.bytes.fetch_add(cost, Ordering::AcqRel);
        Ticket {
            backlog: Arc::clone(backlog),
            cost,
        }
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        self.backlog.bytes.fetch_sub(self.cost, Ordering::AcqRel);
        self.backlog.room.notify_waiters();
    }
}

/// How a task's call gets its slot.
enum Start {
    /// It holds one already: it was polled once and has to wait.
    Running(OwnedSemaphorePermit),
    /// It waits for one, in the backlog.
    Waiting(Ticket, Arc<Semaphore>),
}

/// The calls of one connection running or waiting as tasks, by the
/// canonical key of their request ids. Cheap to clone.
#[derive(Clone)]
pub(crate) struct Running(Arc<Mutex<HashMap<String, InFlight>>>);

impl Running {
    /// Whether the call with this id (its canonical key) runs or waits.
    // For the transport of a fleet (issue 29), not built yet.
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) fn contains(&self, key: &str) -> bool {
        self.0.lock().is_ok_and(|map| map.contains_key(key))
    }

    /// Cancels the call with this id (its canonical key), running or
    /// waiting: it is dropped and never answered.
    pub(crate) fn cancel(&self, key: &str) -> bool {
        let entry = self.0.lock().ok().and_then(|mut map| map.remove(key));
        let Some(entry) = entry else {
            return false;
        };
        entry.ctx.cancel();
        entry.abort.abort();
        true
    }
}

pub(crate) struct Calls {
    /// One permit per call that may run. Tokio's semaphore is fair: a
    /// freed permit goes to the longest-waiting call, and `try_acquire`
    /// fails while any call waits, so a new call never overtakes the backlog.
    slots: Arc<Semaphore>,
    backlog: Arc<Backlog>,
    in_flight: Arc<Mutex<HashMap<String, InFlight>>>,
    /// Calls and batches running as tasks.
    tasks: JoinSet<()>,
}

impl Calls {
    pub(crate) fn new(limits: &Limits) -> Calls {
        Calls {
            slots: Arc::new(Semaphore::new(limits.max_in_flight.max(1))),
            backlog: Arc::new(Backlog {
                bytes: AtomicUsize::new(0),
                max: limits.max_backlog_bytes,
                room: Notify::new(),
            }),
            in_flight: Arc::default(),
            tasks: JoinSet::new(),
        }
    }

    /// Starts a call of the tool `params` names, for the request of
    /// `frame`: see [`Calls::run`].
    pub(crate) async fn start(
        &mut self,
        core: &Arc<ServerCore>,
        snapshot: &Snapshot,
        params: Box<CallParams<'_>>,
        session: Arc<SessionShared>,
        identity: Option<&Arc<Identity>>,
        frame: &mut Frame<'_>,
    ) -> Result<Answer, ErrorObject> {
        let id = frame.id;
        let Some(tool) = snapshot.registry.get(&params.name).map(Arc::clone) else {
            return Err(ErrorObject::new(
                INVALID_PARAMS,
                format!("Unknown tool: {}", params.name),
            ));
        };
        self.check_unused(id)?;
        let plan =
            super::task_calls::plan(core, tool.task_support(), &session, params.task, &tool.name)?;
        // A 2025-11-25 task outlives its request's stream (over HTTP): what
        // it sends goes where the session's other messages go.
        let notices = matches!(plan, super::task_calls::Plan::Legacy { .. })
            .then(|| session.notices.get().and_then(|out| out.upgrade()))
            .flatten();
        let ctx = request_context(
            &session,
            Arc::clone(&tool.name),
            id,
            params.progress_token,
            notices.as_ref().unwrap_or(frame.out),
            identity,
        );
        let call_ctx = ctx.clone();
        let arguments = params.arguments;
        let timeout = core.limits.default_timeout;
        let call = async move {
            let outcome = tool.call(arguments, call_ctx.clone(), timeout).await;
            match call_ctx.take_required_error() {
                Some(error) => Outcome::Failed(error),
                None => outcome,
            }
        };
        let job = Job {
            method: "tools/call",
            version: session.version,
            write: write_call_result,
            is_error: Outcome::is_error,
            tail: core.tail(&session, "tools/call"),
            round: session.round.clone(),
        };
        if !matches!(plan, super::task_calls::Plan::Plain) {
            let start = super::task_calls::Start {
                core,
                session: &session,
                owner: identity.map(|identity| identity.subject().to_owned()),
                ctx,
                job,
                settle: crate::tasks::runner::settle,
            };
            return Box::pin(super::task_calls::start(start, plan, Box::pin(call), frame)).await;
        }
        // Boxed here, not inside `run`: an `async fn`'s arguments stay in
        // its future for its whole life, and this one's in every request's.
        self.run(ctx, Box::pin(call), job, frame).await
    }

    /// Refuses an id already used by a call in progress. Most of the time
    /// no call is running as a task, and the id is not looked up (nor its
    /// key built) at all. (A task's entry is removed before the task ends.)
    pub(crate) fn check_unused(&self, id: &RequestId) -> Result<(), ErrorObject> {
        let in_use = !self.tasks.is_empty()
            && self
                .in_flight
                .lock()
                .is_ok_and(|m| m.contains_key(&id.key()));
        if in_use {
            return Err(ErrorObject::new(
                INVALID_REQUEST,
                format!("request id {id} is already in use by a call in progress"),
            ));
        }
        Ok(())
    }

    /// Runs `call` for the request of `frame` as a call of this
    /// connection: in a slot, or waiting for one in the backlog (the size
    /// of its message counted against it); cancellable; answered with
    /// `job.write` when it completes: at once, into the frame's reply, or
    /// later from its task, to the batch when the frame's `batch_slot`
    /// holds a sender (which it then takes), else to the frame's output.
    pub(crate) async fn run<F, R>(
        &mut self,
        ctx: Context,
        call: Pin<Box<F>>,
        job: Job<R>,
        frame: &mut Frame<'_>,
    ) -> Result<Answer, ErrorObject>
    where
        F: Future<Output = R> + Send + 'static,
        R: Answered + Interim + Send + 'static,
    {
        // A call that may ask in the 2026-07-28 era runs with its round's
        // answers and stops at the first question without one.
        let mut call: Pin<Box<dyn Future<Output = R> + Send>> = match &job.round {
            Some(round) => Box::pin(Arc::clone(round).drive(call)),
            None => call,
        };
        let (id, out) = (frame.id, frame.out);
        let cost = frame.size.saturating_add(WAITING_CALL_OVERHEAD);
        let start = loop {
            match Arc::clone(&self.slots).try_acquire_owned() {
                Ok(permit) => {
                    // Most calls complete without waiting on anything: poll
                    // once here, and only a call that has to wait becomes a
                    // task of its own. This saves a spawn and a hand-over
                    // between threads per call.
                    let first =
                        std::future::poll_fn(|cx| Poll::Ready(call.as_mut().poll(cx))).await;
                    if let Poll::Ready(result) = first {
                        ctx.finish();
                        telemetry::completed(&result);
                        (frame.reply).write(|reply| job.answer(reply, id, &result));
                        return Ok(Answer::Written);
                    }
                    break Start::Running(permit);
                }
                Err(TryAcquireError::NoPermits) if self.backlog.has_room(cost) => {
                    break Start::Waiting(
                        Ticket::take(&self.backlog, cost),
                        Arc::clone(&self.slots),
                    );
                }
                Err(TryAcquireError::NoPermits) => {
                    // The backlog is full: reading stops here until a
                    // waiting call starts or is cancelled. What is answered
                    // already goes out first.
                    tracing::debug!(
                        waiting_bytes = self.backlog.bytes.load(Ordering::Relaxed),
                        "every call slot is busy and the backlog is full; reading paused"
                    );
                    let backlog = &self.backlog;
                    out.released_while(crate::wait::until(&backlog.room, || {
                        backlog.has_room(cost)
                    }))
                    .await;
                }
                Err(TryAcquireError::Closed) => {
                    return Err(ErrorObject::new(INTERNAL_ERROR, "internal error"));
                }
            }
        };
        let route = match frame.batch_slot.take() {
            Some(sender) => Route::Batch(sender),
            None => Route::Direct,
        };
        let key = id.key();
        let task_key = key.clone();
        let in_flight = Arc::clone(&self.in_flight);
        let out = out.clone();
        let id = id.clone();
        let task_ctx = ctx.clone();
        // The request's span, kept open until the call answers.
        let span = telemetry::current_request();
        let unanswered = telemetry::Unanswered::new(&span);
        let task = async move {
            let _permit = match start {
                Start::Running(permit) => permit,
                Start::Waiting(ticket, slots) => {
                    let Ok(permit) = slots.acquire_owned().await else {
                        return;
                    };
                    drop(ticket);
                    tracing::debug!("a slot is free: the call starts");
                    permit
                }
            };
            let started = Instant::now();
            let result = call.await;
            task_ctx.finish();
            let wanted = in_flight
                .lock()
                .is_ok_and(|mut m| m.remove(&task_key).is_some());
            let outcome = match (wanted, (job.is_error)(&result)) {
                (false, _) => "cancelled",
                (true, true) => "error",
                (true, false) => "ok",
            };
            unanswered.ended(wanted, &result);
            tracing::debug!(
                method = job.method,
                elapsed_us = started.elapsed().as_micros() as u64,
                outcome,
                "answered"
            );
            let mut reply = Vec::new();
            job.answer(&mut reply, &id, &result);
            match route {
                Route::Direct if wanted => {
                    reply.push(b'\n');
                    out.send(&reply).await;
                }
                Route::Direct => {}
                Route::Batch(sender) => {
                    let _ = sender.send(wanted.then_some(reply));
                }
            }
        }
        .instrument(span);
        // Held while spawning, so the task cannot finish (and look for its
        // entry) before the entry is there.
        let Ok(mut map) = self.in_flight.lock() else {
            return Err(ErrorObject::new(INTERNAL_ERROR, "internal error"));
        };
        let abort = self.tasks.spawn(task);
        map.insert(key, InFlight { abort, ctx });
        Ok(Answer::Later)
    }

    /// Cancels the call with this id (its canonical key), running or
    /// waiting: it is dropped and never answered.
    pub(crate) fn cancel(&self, key: &str) -> bool {
        self.running().cancel(key)
    }

    /// The calls running or waiting as tasks, for what cancels them
    /// without the connection (a cancellation routed from another
    /// instance of a fleet).
    pub(crate) fn running(&self) -> Running {
        Running(Arc::clone(&self.in_flight))
    }

    /// Runs `task` beside the calls (a batch waiting for its calls'
    /// replies): waited for at EOF, dropped when the output closes.
    pub(crate) fn spawn(&mut self, task: impl Future<Output = ()> + Send + 'static) {
        self.tasks.spawn(task);
    }

    /// Forgets the tasks that have ended.
    pub(crate) fn reap(&mut self) {
        while self.tasks.try_join_next().is_some() {}
    }

    /// Drops every call and batch (the output is closed, or the session
    /// ended), with what they hold: their outputs close.
    pub(crate) fn abort_all(&mut self) {
        self.tasks.abort_all();
        if let Ok(mut map) = self.in_flight.lock() {
            for (_, call) in map.drain() {
                call.ctx.cancel();
            }
        }
    }

    /// Waits up to `grace` for every call and batch to end, then drops the rest.
    pub(crate) async fn finish(&mut self, grace: std::time::Duration) {
        tracing::debug!(
            in_flight = self.tasks.len(),
            "input ended; finishing calls in flight"
        );
        let drained = tokio::time::timeout(grace, async {
            while self.tasks.join_next().await.is_some() {}
        })
        .await;
        if drained.is_err() {
            tracing::warn!(
                abandoned = self.tasks.len(),
                "calls still running after the shutdown grace period were abandoned"
            );
            self.tasks.abort_all();
        }
    }
}
