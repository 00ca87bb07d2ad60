//! Task ids: 128 bits from the operating system's random source, so one
//! caller cannot guess another's, written as 22 characters of unpadded
//! base64url (safe in a URL, a header and a Redis key).

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

/// A new task id, or `None` when the operating system gives no random
/// bytes (the task is then refused rather than made guessable).
pub(crate) fn new_task_id() -> Option<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).ok()?;
    Some(URL_SAFE_NO_PAD.encode(bytes))
}

/// Milliseconds since the Unix epoch, now.
pub(crate) fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_22_url_safe_characters_and_do_not_repeat() {
        let ids: std::collections::HashSet<String> =
            (0..1000).map(|_| new_task_id().unwrap()).collect();
        assert_eq!(ids.len(), 1000);
        for id in &ids {
            assert_eq!(id.len(), 22);
            assert!(
                id.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
            );
            assert_eq!(URL_SAFE_NO_PAD.decode(id).unwrap().len(), 16);
        }
    }
}
