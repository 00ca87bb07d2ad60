//! How long one step of a test may take: every wait for the server has
//! this bound, so a hang fails the test instead of stalling the run.

use std::future::Future;
use std::time::Duration;

/// How long any one step may take: generous, for a loaded machine that
/// starts Node servers.
pub const STEP: Duration = Duration::from_secs(60);

/// `future`, or a panic naming the caller's line after [`STEP`].
#[track_caller]
pub fn within<F: Future>(future: F) -> impl Future<Output = F::Output> {
    let caller = std::panic::Location::caller();
    async move {
        tokio::time::timeout(STEP, future)
            .await
            .unwrap_or_else(|_| panic!("the step at {caller} did not finish within {STEP:?}"))
    }
}
