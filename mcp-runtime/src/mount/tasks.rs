//! [`Mounts`]: what the mounts of one server leave in it.

use tokio::task::AbortHandle;

use crate::registry::error::Primitive;

/// What the mounts of one server leave behind: their followers, stopped
/// when the server (or the builder, unserved) is dropped, and what they
/// mounted, to name it when something else collides with it.
#[derive(Default)]
pub(crate) struct Mounts {
    pub(crate) tasks: Vec<AbortHandle>,
    pub(crate) keys: Vec<(Primitive, String, String)>,
}

impl Drop for Mounts {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}
