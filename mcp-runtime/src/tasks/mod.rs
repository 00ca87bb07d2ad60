//! Tasks: tool calls that outlive the request that started them.
//!
//! A tool declared `#[tool(task = "optional")]` or `"required"` may run as
//! a task: the call is answered at once with the task's id, runs on beside
//! the connection (which may close), and the client polls it, answers the
//! questions it asks, reads its result or cancels it. Two eras define
//! tasks, each with its own wire form:
//!
//! - protocol 2025-11-25 (SEP-1686, experimental in its schema): the client
//!   asks for a task with `params.task`; `tasks/get`, `tasks/result`,
//!   `tasks/list`, `tasks/cancel`;
//! - protocol 2026-07-28, the extension `io.modelcontextprotocol/tasks`
//!   (SEP-2663): the server decides, for a client whose request declares
//!   the extension; `tasks/get` (the result inlined once done),
//!   `tasks/update` (answers to the task's questions), `tasks/cancel`.
//!
//! What a task is lives in a [`TaskStore`]: [`MemoryTasks`] by default,
//! or `RedisTasks` across a fleet (feature `tasks-redis`). This module's
//! files, in the order data flows: `id` (unguessable ids), `record` (a task's state and the one state
//! machine every store applies), `store` (the trait), `memory` (the
//! default store), `config` (the server's settings), `runner` (the tasks
//! running on this instance), `asking` (the questions of a
//! 2026-07-28 task), `legacy` (how a 2025-11-25 task asks), `wire` (the two
//! eras' JSON).

mod asking;
pub(crate) mod config;
pub(crate) mod id;
mod legacy;
mod memory;
mod record;
#[cfg(feature = "tasks-redis")]
mod redis;
pub(crate) mod runner;
mod store;
mod waiters;
pub(crate) mod wire;

pub(crate) use asking::TaskLink;
pub(crate) use legacy::LegacyLink;

pub use memory::{DEFAULT_MAX_TASKS, MemoryTasks};
pub use record::{Change, Lease, TaskOutcome, TaskRecord, TaskStatus};
#[cfg(feature = "tasks-redis")]
pub use redis::RedisTasks;
pub use store::{StoreError, StoreFuture, TaskEvents, TaskStore, Updated};
