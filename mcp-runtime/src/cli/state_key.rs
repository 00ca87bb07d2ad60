//! `MCP_STATE_KEY` and `MCP_STATE_KEY_PREVIOUS`: the keys that sign the
//! 2026-07-28 `requestState`, given by the operator of a binary that
//! [`Server::run`](crate::Server::run) serves, so that every instance of a
//! fleet behind one load balancer signs and accepts the same states
//! without a line of code.

use std::ffi::OsString;

/// The variable holding the current key: it signs new states, and states
/// signed with it are accepted.
pub(crate) const CURRENT: &str = "MCP_STATE_KEY";
/// The variable holding the key being retired: states it signed are still
/// accepted, none are signed with it.
pub(crate) const PREVIOUS: &str = "MCP_STATE_KEY_PREVIOUS";
/// The shortest key accepted: HMAC-SHA256's own output length, below
/// which a key is weaker than the signature it makes.
pub(crate) const MIN_BYTES: usize = 32;

/// The keys the environment gives.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct EnvKeys {
    pub(crate) current: Vec<u8>,
    pub(crate) previous: Option<Vec<u8>>,
}

/// The keys in the environment `var` reads (`std::env::var_os`, or a map
/// in tests): `None` when neither variable is set, an error sentence (for
/// `error: `) when one is set but cannot be used. A key is the variable's
/// bytes, whitespace at either end left out (a secret read from a file
/// often ends with a newline).
pub(crate) fn from_env(var: impl Fn(&str) -> Option<OsString>) -> Result<Option<EnvKeys>, String> {
    let current = key(CURRENT, var(CURRENT))?;
    let previous = key(PREVIOUS, var(PREVIOUS))?;
    match (current, previous) {
        (None, None) => Ok(None),
        (Some(current), previous) => Ok(Some(EnvKeys { current, previous })),
        (None, Some(_)) => Err(format!(
            "cannot start the MCP server: {PREVIOUS} is set but {CURRENT} is not; \
             {PREVIOUS} only keeps the key being retired accepted, set the new key in \
             {CURRENT}"
        )),
    }
}

fn key(name: &str, value: Option<OsString>) -> Result<Option<Vec<u8>>, String> {
    let Some(value) = value else {
        return Ok(None);
    };
    let value = value.into_string().map_err(|_| {
        format!(
            "cannot start the MCP server: {name} is not valid UTF-8; use a key of printable \
             characters, such as one made by `openssl rand -hex 32`"
        )
    })?;
    let value = value.trim();
    if value.len() < MIN_BYTES {
        return Err(format!(
            "cannot start the MCP server: {name} is {} bytes long, and a key that signs \
             requestState needs at least {MIN_BYTES}; make one with `openssl rand -hex 32` and \
             give every instance the same",
            value.len()
        ));
    }
    Ok(Some(value.as_bytes().to_vec()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "0123456789abcdef0123456789abcdef";
    const OLD: &str = "fedcba9876543210fedcba9876543210";

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<OsString> {
        let pairs: Vec<(String, OsString)> = pairs
            .iter()
            .map(|(name, value)| ((*name).to_owned(), OsString::from(value)))
            .collect();
        move |name| {
            pairs
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.clone())
        }
    }

    #[test]
    fn no_variable_means_no_keys() {
        assert_eq!(from_env(env(&[])), Ok(None));
    }

    #[test]
    fn the_current_key_and_the_previous_one_are_read() {
        assert_eq!(
            from_env(env(&[(CURRENT, KEY)])),
            Ok(Some(EnvKeys {
                current: KEY.as_bytes().to_vec(),
                previous: None
            }))
        );
        // A trailing newline (from a file) is not part of the key.
        let padded = format!(" {KEY}\n");
        assert_eq!(
            from_env(env(&[(CURRENT, &padded), (PREVIOUS, OLD)])),
            Ok(Some(EnvKeys {
                current: KEY.as_bytes().to_vec(),
                previous: Some(OLD.as_bytes().to_vec())
            }))
        );
    }

    #[test]
    fn short_keys_are_refused_naming_the_variable() {
        let short = &KEY[..31];
        let error = from_env(env(&[(CURRENT, short)])).unwrap_err();
        assert_eq!(
            error,
            "cannot start the MCP server: MCP_STATE_KEY is 31 bytes long, and a key that \
             signs requestState needs at least 32; make one with `openssl rand -hex 32` and \
             give every instance the same"
        );
        // Set but empty is a mistake too (a secret that did not arrive),
        // not "no key".
        let error = from_env(env(&[(CURRENT, "")])).unwrap_err();
        assert!(error.contains("MCP_STATE_KEY is 0 bytes long"), "{error}");
        let error = from_env(env(&[(CURRENT, KEY), (PREVIOUS, "old")])).unwrap_err();
        assert!(
            error.contains("MCP_STATE_KEY_PREVIOUS is 3 bytes long"),
            "{error}"
        );
    }

    #[test]
    fn a_previous_key_alone_is_refused() {
        let error = from_env(env(&[(PREVIOUS, OLD)])).unwrap_err();
        assert!(
            error.contains("MCP_STATE_KEY_PREVIOUS is set but MCP_STATE_KEY is not"),
            "{error}"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_key_that_is_not_utf8_is_refused() {
        use std::os::unix::ffi::OsStringExt;
        let bytes = OsString::from_vec(vec![0xff; 40]);
        let error = from_env(|name| (name == CURRENT).then(|| bytes.clone())).unwrap_err();
        assert!(
            error.contains("MCP_STATE_KEY is not valid UTF-8"),
            "{error}"
        );
    }
}
