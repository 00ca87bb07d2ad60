//! Waiting on a [`Notify`] for a condition, without missing a wake.

use tokio::sync::Notify;

/// Waits until `ready()` holds, checking again after every wake of
/// `notify`. Interest is registered before each check, so a wake that comes
/// between the check and the wait is not lost (whether it was sent with
/// `notify_one` or `notify_waiters`).
pub(crate) async fn until(notify: &Notify, mut ready: impl FnMut() -> bool) {
    loop {
        let notified = notify.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        if ready() {
            return;
        }
        notified.await;
    }
}
