//! The `requestState` of the 2026-07-28 era: what a server hands its
//! client with `input_required` and gets back on the retry. It passes
//! through the client, so it is signed (HMAC-SHA256) and checked on
//! return: refused when any byte changed, when it expired, or when it is
//! presented on another request (another method, tool, prompt or resource,
//! other arguments, or another authenticated caller).
//!
//! What it carries: the answers of the earlier rounds, so that any
//! instance of a fleet sharing the key can serve the next round. It is
//! signed, not encrypted: the client can read the answers it gave.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

type HmacSha256 = Hmac<Sha256>;

/// The keys that sign and check `requestState`, and how long a state
/// stays good. Instances serving one client (a fleet behind a load
/// balancer) must share the current key. To rotate, make the new key
/// current and keep the old one as [`previous`](StateKeys::previous) for
/// one expiry period: states signed with either are accepted, new ones
/// are signed with the current key.
///
/// Without keys from [`Server::request_state_keys`](crate::Server::request_state_keys),
/// a server makes a random key at start-up: enough for one process, not
/// for a fleet. A binary served by [`Server::run`](crate::Server::run)
/// also takes them from the environment, without code: `MCP_STATE_KEY`
/// (the current key) and `MCP_STATE_KEY_PREVIOUS` (the one being
/// retired), which win over the keys set in code.
///
/// ```
/// use std::time::Duration;
/// use mcp_runtime::{Server, StateKeys};
///
/// // 32 random bytes or more, the same on every instance (from a secret store).
/// let current = "9f2c1e0b7a6d5c4b3a29181706f5e4d3c2b1a09f8e7d6c5b4a3928170605f4e3";
/// let server = Server::new("orders", "1.0.0").request_state_keys(
///     StateKeys::new(current)
///         .previous("the key used until yesterday")
///         .ttl(Duration::from_secs(600)),
/// );
/// # let _ = server;
/// ```
#[derive(Clone)]
pub struct StateKeys {
    current: Vec<u8>,
    previous: Vec<Vec<u8>>,
    ttl: Duration,
}

impl std::fmt::Debug for StateKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StateKeys")
            .field("previous", &self.previous.len())
            .field("ttl", &self.ttl)
            .finish_non_exhaustive()
    }
}

/// How long a state stays good by default: a person may be answering.
const DEFAULT_TTL: Duration = Duration::from_secs(15 * 60);

impl StateKeys {
    /// Signs with `secret` (use 32 random bytes or more).
    pub fn new(secret: impl AsRef<[u8]>) -> StateKeys {
        StateKeys {
            current: secret.as_ref().to_vec(),
            previous: Vec::new(),
            ttl: DEFAULT_TTL,
        }
    }

    /// Also accepts states signed with `secret` (a key being retired).
    pub fn previous(mut self, secret: impl AsRef<[u8]>) -> StateKeys {
        self.previous.push(secret.as_ref().to_vec());
        self
    }

    /// How long a state stays good after it is handed out (default 15
    /// minutes).
    pub fn ttl(mut self, ttl: Duration) -> StateKeys {
        self.ttl = ttl;
        self
    }

    /// These keys in place of ours, with our expiry: the keys an operator
    /// gives in the environment replace the code's, not its `ttl`.
    pub(crate) fn rekeyed(&self, current: Vec<u8>, previous: Option<Vec<u8>>) -> StateKeys {
        StateKeys {
            current,
            previous: previous.into_iter().collect(),
            ttl: self.ttl,
        }
    }

    /// A random key, for one process.
    pub(crate) fn random() -> StateKeys {
        let mut secret = [0u8; 32];
        if getrandom::fill(&mut secret).is_err() {
            // No randomness: a key from the clock and the process, which
            // a client cannot guess across requests either.
            let seed = format!("{:?}{}", SystemTime::now(), std::process::id());
            secret.copy_from_slice(&Sha256::digest(seed.as_bytes()));
        }
        StateKeys::new(secret)
    }

    /// A state for the request `binding` names, carrying `answers`.
    pub(crate) fn seal(&self, binding: &str, answers: &Map<String, Value>) -> String {
        let payload = Payload {
            expires: now_secs().saturating_add(self.ttl.as_secs()),
            binding: binding.to_owned(),
            answers: answers.clone(),
        };
        let json = serde_json::to_vec(&payload).unwrap_or_default();
        let body = URL_SAFE_NO_PAD.encode(json);
        let tag = URL_SAFE_NO_PAD.encode(mac(&self.current, body.as_bytes()));
        format!("{body}.{tag}")
    }

    /// The answers in `state`, if it is one of ours, unexpired, for the
    /// request `binding` names.
    pub(crate) fn open(
        &self,
        state: &str,
        binding: &str,
    ) -> Result<Map<String, Value>, StateError> {
        let (body, tag) = state.split_once('.').ok_or(StateError::Forged)?;
        let tag = URL_SAFE_NO_PAD
            .decode(tag)
            .map_err(|_| StateError::Forged)?;
        let signed = std::iter::once(&self.current)
            .chain(&self.previous)
            .any(|key| verify(key, body.as_bytes(), &tag));
        if !signed {
            return Err(StateError::Forged);
        }
        let json = URL_SAFE_NO_PAD
            .decode(body)
            .map_err(|_| StateError::Forged)?;
        let payload: Payload = serde_json::from_slice(&json).map_err(|_| StateError::Forged)?;
        if payload.expires < now_secs() {
            return Err(StateError::Expired);
        }
        if payload.binding != binding {
            return Err(StateError::OtherRequest);
        }
        Ok(payload.answers)
    }
}

/// Why a `requestState` was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StateError {
    /// Not signed by any of our keys, or not a state at all.
    Forged,
    /// Past its expiry.
    Expired,
    /// Made for another request (or caller).
    OtherRequest,
}

impl std::fmt::Display for StateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            StateError::Forged => "it was not issued by this server or was modified",
            StateError::Expired => "it expired; send the request again without it",
            StateError::OtherRequest => {
                "it was issued for another request; send it only with the request it came with"
            }
        })
    }
}

#[derive(Serialize, Deserialize)]
struct Payload {
    #[serde(rename = "e")]
    expires: u64,
    #[serde(rename = "b")]
    binding: String,
    #[serde(rename = "a")]
    answers: Map<String, Value>,
}

fn mac(key: &[u8], data: &[u8]) -> Vec<u8> {
    // HMAC takes a key of any length.
    let mut mac = HmacSha256::new_from_slice(key).unwrap_or_else(|_| {
        HmacSha256::new_from_slice(&[0]).unwrap_or_else(|_| unreachable!("HMAC keys any length"))
    });
    mac.update(data);
    mac.finalize().into_bytes().to_vec()
}

fn verify(key: &[u8], data: &[u8], tag: &[u8]) -> bool {
    HmacSha256::new_from_slice(key).is_ok_and(|mut mac| {
        mac.update(data);
        // Constant time.
        mac.verify_slice(tag).is_ok()
    })
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// What a state is bound to: the method, the name of what it asks for
/// (tool, prompt, resource URI), its arguments (keys sorted, so their
/// order does not matter) and who asked, as a SHA-256 digest.
pub(crate) fn binding(method: &str, name: &str, arguments: &Value, caller: Option<&str>) -> String {
    let mut hasher = Sha256::new();
    for part in [method, name, caller.unwrap_or_default()] {
        hasher.update(part.as_bytes());
        hasher.update([0]);
    }
    let mut canonical = Vec::new();
    write_canonical(&mut canonical, arguments);
    hasher.update(&canonical);
    URL_SAFE_NO_PAD.encode(hasher.finalize())
}

fn write_canonical(out: &mut Vec<u8>, value: &Value) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<_> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            out.push(b'{');
            for (i, (key, value)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                let _ = serde_json::to_writer(&mut *out, key);
                out.push(b':');
                write_canonical(out, value);
            }
            out.push(b'}');
        }
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_canonical(out, item);
            }
            out.push(b']');
        }
        other => {
            let _ = serde_json::to_writer(&mut *out, other);
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn answers() -> Map<String, Value> {
        json!({"q1": {"action": "accept", "content": {"name": "Ada"}}})
            .as_object()
            .unwrap()
            .clone()
    }

    #[test]
    fn a_state_comes_back_with_its_answers() {
        let keys = StateKeys::new("k".repeat(32));
        let bound = binding("tools/call", "t", &json!({"b": 1, "a": [2]}), None);
        let state = keys.seal(&bound, &answers());
        // The order of the arguments' keys does not matter.
        let same = binding("tools/call", "t", &json!({"a": [2], "b": 1}), None);
        assert_eq!(keys.open(&state, &same), Ok(answers()));
    }

    #[test]
    fn a_changed_state_is_refused() {
        let keys = StateKeys::new("k".repeat(32));
        let bound = binding("tools/call", "t", &json!({}), None);
        let state = keys.seal(&bound, &answers());
        let mut tampered = state.clone();
        tampered.push_str("-TAMPERED");
        assert_eq!(keys.open(&tampered, &bound), Err(StateError::Forged));
        let (body, tag) = state.split_once('.').unwrap();
        let mut bytes = URL_SAFE_NO_PAD.decode(body).unwrap();
        bytes[5] ^= 1;
        let forged = format!("{}.{tag}", URL_SAFE_NO_PAD.encode(bytes));
        assert_eq!(keys.open(&forged, &bound), Err(StateError::Forged));
        assert_eq!(keys.open("not a state", &bound), Err(StateError::Forged));
        let other = StateKeys::new("o".repeat(32));
        assert_eq!(other.open(&state, &bound), Err(StateError::Forged));
    }

    #[test]
    fn a_state_is_good_only_for_its_request_and_its_time() {
        let keys = StateKeys::new("k".repeat(32));
        let bound = binding("tools/call", "t", &json!({"n": 1}), Some("alice"));
        let state = keys.seal(&bound, &answers());
        for other in [
            binding("tools/call", "t", &json!({"n": 2}), Some("alice")),
            binding("tools/call", "u", &json!({"n": 1}), Some("alice")),
            binding("prompts/get", "t", &json!({"n": 1}), Some("alice")),
            binding("tools/call", "t", &json!({"n": 1}), Some("bob")),
        ] {
            assert_eq!(keys.open(&state, &other), Err(StateError::OtherRequest));
        }
        let expired = StateKeys::new("k".repeat(32)).ttl(Duration::ZERO);
        let state = expired.seal(&bound, &answers());
        std::thread::sleep(Duration::from_millis(1100));
        assert_eq!(keys.open(&state, &bound), Err(StateError::Expired));
    }

    #[test]
    fn keys_rotate() {
        let old = StateKeys::new("old key");
        let bound = binding("tools/call", "t", &json!({}), None);
        let state = old.seal(&bound, &answers());
        let rotated = StateKeys::new("new key").previous("old key");
        assert_eq!(rotated.open(&state, &bound), Ok(answers()));
        let fresh = rotated.seal(&bound, &answers());
        assert_eq!(
            StateKeys::new("new key").open(&fresh, &bound),
            Ok(answers())
        );
        assert_eq!(old.open(&fresh, &bound), Err(StateError::Forged));
    }
}
