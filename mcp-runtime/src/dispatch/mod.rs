//! One client connection, from the lines a transport reads to the messages
//! it writes: the lifecycle gate and routing by method (`connection`), the
//! calls in flight and waiting (`calls`), batches (`batch`), where replies
//! go (`reply`), what every connection of a server shares (`core`), what
//! it serves right now (`live`, paged by `pages`), and the path of a
//! request through the server's middleware (`layered`).

mod batch;
mod calls;
mod connection;
mod core;
mod incoming;
mod layered;
mod listen;
mod live;
mod modern;
mod pages;
mod prompts;
mod reply;
mod resources;

pub(crate) use self::connection::{Connection, serve};
pub(crate) use self::core::{Limits, ServerCore};
pub(crate) use self::incoming::{Incoming, for_each_line, lines_of};
pub(crate) use self::live::Live;
#[cfg(feature = "auth")]
pub(crate) use self::live::Snapshot;
#[cfg(feature = "http")]
pub(crate) use self::modern::{claims_modern, declared_version, meta_in};
