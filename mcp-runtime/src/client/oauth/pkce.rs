//! PKCE (RFC 7636) with S256, and the random values of an authorization
//! request (`state`).

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::Digest;

use super::OAuthError;

/// A code verifier and its S256 challenge.
pub(crate) struct Pkce {
    /// Sent to the token endpoint only.
    pub(crate) verifier: String,
    /// BASE64URL(SHA256(verifier)), sent in the authorization request.
    pub(crate) challenge: String,
}

impl Pkce {
    /// A fresh verifier: 32 random bytes, 43 base64url characters (RFC 7636
    /// section 4.1 asks for 43 to 128 of them).
    pub(crate) fn new() -> Result<Pkce, OAuthError> {
        let verifier = random(32)?;
        let challenge = challenge(&verifier);
        Ok(Pkce {
            verifier,
            challenge,
        })
    }
}

/// The S256 challenge of `verifier`.
pub(crate) fn challenge(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(sha2::Sha256::digest(verifier.as_bytes()))
}

/// `bytes` random bytes as base64url without padding: an unguessable
/// value (a PKCE verifier, a `state`).
pub(crate) fn random(bytes: usize) -> Result<String, OAuthError> {
    let mut buffer = vec![0u8; bytes];
    getrandom::fill(&mut buffer).map_err(|e| {
        OAuthError::Authorizer(format!(
            "the operating system's random generator failed: {e}"
        ))
    })?;
    Ok(URL_SAFE_NO_PAD.encode(buffer))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rfc_7636_example() {
        // RFC 7636 appendix B.
        assert_eq!(
            challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
    }

    #[test]
    fn verifiers_are_long_enough_and_fresh() {
        let one = Pkce::new().unwrap();
        let two = Pkce::new().unwrap();
        assert_eq!(one.verifier.len(), 43);
        assert!(
            one.verifier
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        );
        assert_ne!(one.verifier, two.verifier);
        assert_eq!(one.challenge, challenge(&one.verifier));
    }
}
