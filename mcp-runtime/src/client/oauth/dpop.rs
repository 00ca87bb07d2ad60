//! DPoP (RFC 9449): a key of the client's own (ES256, made in memory for
//! the life of the [`OAuth`](super::OAuth)), and the proofs that bind its
//! tokens to it: one per HTTP request, at the token endpoint and at the
//! server.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use p256::ecdsa::signature::Signer;
use p256::ecdsa::{Signature, SigningKey};
use serde_json::{Value, json};

use super::OAuthError;
use super::pkce::random;

/// The client's DPoP key.
pub(crate) struct DpopKey {
    signing: SigningKey,
    /// The public key as a JWK (RFC 7517), in every proof's header.
    jwk: Value,
}

impl std::fmt::Debug for DpopKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DpopKey").field("jwk", &self.jwk).finish()
    }
}

impl DpopKey {
    /// A new P-256 key from the operating system's random generator.
    pub(crate) fn generate() -> Result<DpopKey, OAuthError> {
        let signing = loop {
            let mut bytes = [0u8; 32];
            getrandom::fill(&mut bytes).map_err(|e| {
                OAuthError::Authorizer(format!(
                    "the operating system's random generator failed: {e}"
                ))
            })?;
            // Out of the curve's range with a probability of about 2^-32.
            if let Ok(key) = SigningKey::from_slice(&bytes) {
                break key;
            }
        };
        let point = signing.verifying_key().to_encoded_point(false);
        let (Some(x), Some(y)) = (point.x(), point.y()) else {
            return Err(OAuthError::Authorizer(
                "the DPoP public key has no coordinates".into(),
            ));
        };
        let jwk = json!({
            "kty": "EC",
            "crv": "P-256",
            "x": URL_SAFE_NO_PAD.encode(x),
            "y": URL_SAFE_NO_PAD.encode(y),
        });
        Ok(DpopKey { signing, jwk })
    }

    /// A proof for one request (RFC 9449 section 4.2): `method` and `url`
    /// (its query and fragment left out), the hash of `access_token` when
    /// one is presented (`ath`), and the server's `nonce` when it gave one.
    pub(crate) fn proof(
        &self,
        method: &str,
        url: &url::Url,
        access_token: Option<&str>,
        nonce: Option<&str>,
    ) -> Result<String, OAuthError> {
        let mut target = url.clone();
        target.set_query(None);
        target.set_fragment(None);
        let now = super::token::now();
        let header = json!({"typ": "dpop+jwt", "alg": "ES256", "jwk": self.jwk});
        let mut claims = json!({
            "jti": random(16)?,
            "htm": method,
            "htu": target.as_str(),
            "iat": now,
        });
        if let Some(token) = access_token {
            // base64url(SHA-256), the hash PKCE's S256 takes too.
            claims["ath"] = json!(super::pkce::challenge(token));
        }
        if let Some(nonce) = nonce {
            claims["nonce"] = json!(nonce);
        }
        let signing_input = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(header.to_string()),
            URL_SAFE_NO_PAD.encode(claims.to_string())
        );
        let signature: Signature = self.signing.sign(signing_input.as_bytes());
        Ok(format!(
            "{signing_input}.{}",
            URL_SAFE_NO_PAD.encode(signature.to_bytes())
        ))
    }
}

#[cfg(test)]
mod tests {
    use sha2::Digest;

    use super::*;
    use p256::ecdsa::VerifyingKey;
    use p256::ecdsa::signature::Verifier;

    fn decode(part: &str) -> Value {
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(part).unwrap()).unwrap()
    }

    #[test]
    fn proofs_are_signed_fresh_and_bound() {
        let key = DpopKey::generate().unwrap();
        let url = url::Url::parse("https://mcp.example.com/mcp?x=1#f").unwrap();
        let proof = key.proof("POST", &url, Some("token"), Some("n-1")).unwrap();
        let parts: Vec<&str> = proof.split('.').collect();
        assert_eq!(parts.len(), 3);
        let header = decode(parts[0]);
        assert_eq!(header["typ"], "dpop+jwt");
        assert_eq!(header["alg"], "ES256");
        assert!(header["jwk"].get("d").is_none(), "no private part");
        let claims = decode(parts[1]);
        assert_eq!(claims["htm"], "POST");
        assert_eq!(claims["htu"], "https://mcp.example.com/mcp");
        assert_eq!(claims["nonce"], "n-1");
        assert_eq!(
            claims["ath"],
            URL_SAFE_NO_PAD.encode(sha2::Sha256::digest(b"token"))
        );
        let signature = Signature::from_slice(&URL_SAFE_NO_PAD.decode(parts[2]).unwrap()).unwrap();
        let verifying = VerifyingKey::from(&key.signing);
        let input = format!("{}.{}", parts[0], parts[1]);
        verifying.verify(input.as_bytes(), &signature).unwrap();
        let again = key.proof("POST", &url, None, None).unwrap();
        assert_ne!(
            decode(again.split('.').nth(1).unwrap())["jti"],
            claims["jti"]
        );
        assert!(
            decode(again.split('.').nth(1).unwrap())
                .get("ath")
                .is_none()
        );
    }
}
