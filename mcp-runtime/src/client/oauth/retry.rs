//! The hook the HTTP transport calls: the credentials to send, and what
//! to do when the server refuses (401, or 403 `insufficient_scope`, or a
//! DPoP nonce asked for): obtain a token (or note the nonce) and send
//! again, at most [`OAuth::step_up_limit`] times for one request.

use reqwest::header::{HeaderMap, WWW_AUTHENTICATE};
use url::Url;

use super::challenge::BearerChallenge;
use super::{OAuth, OAuthError};

/// The authorizations made for one request.
#[derive(Debug, Default)]
pub(crate) struct Attempts {
    count: u32,
}

/// What one HTTP request carries.
pub(crate) struct Credentials {
    /// The access token (to tell a refused token from a newer one).
    pub(crate) token: String,
    /// The `Authorization` header: `Bearer <token>` or `DPoP <token>`.
    pub(crate) authorization: String,
    /// The `DPoP` proof header of a DPoP-bound token.
    pub(crate) dpop: Option<String>,
}

impl Credentials {
    /// A bearer token as it is.
    pub(crate) fn bearer(token: String) -> Credentials {
        Credentials {
            authorization: format!("Bearer {token}"),
            token,
            dpop: None,
        }
    }
}

impl OAuth {
    /// What a `method` request to `server` carries now, if a token is held.
    pub(crate) async fn credentials(&self, server: &Url, method: &str) -> Option<Credentials> {
        let current = self.shared.fresh(&self.config, server).await?;
        let token = current.token.access_token.clone();
        match (&current.proofs, current.token.token_type.as_str()) {
            (Some(proof), "DPoP") => {
                let nonce = self.shared.nonces.get(server);
                match proof(method, server, Some(&token), nonce.as_deref()) {
                    Ok(proof) => Some(Credentials {
                        authorization: format!("DPoP {token}"),
                        token,
                        dpop: Some(proof),
                    }),
                    Err(error) => {
                        tracing::warn!(%error, "cannot make a DPoP proof");
                        None
                    }
                }
            }
            _ => Some(Credentials::bearer(token)),
        }
    }

    /// A request to `server`, sent with the token `sent`, was answered
    /// `status` with these `headers`: `Ok(true)` when a new token (or a
    /// DPoP nonce) is ready and the request should be sent again,
    /// `Ok(false)` when the answer is not OAuth's to handle.
    pub(crate) async fn on_refusal(
        &self,
        server: &Url,
        status: u16,
        headers: &HeaderMap,
        sent: Option<String>,
        attempts: &mut Attempts,
    ) -> Result<bool, OAuthError> {
        if !matches!(status, 401 | 403) {
            return Ok(false);
        }
        let challenges: Vec<&str> = headers
            .get_all(WWW_AUTHENTICATE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .collect();
        let challenge = BearerChallenge::find(challenges.iter().copied());
        let error = challenge.as_ref().and_then(|c| c.error.as_deref());
        let step_up = match (status, error) {
            (401, _) => false,
            (403, Some("insufficient_scope")) => true,
            _ => return Ok(false),
        };
        let limit = self.config.step_up_limit;
        if attempts.count >= limit {
            return Err(OAuthError::StepUpLimit {
                attempts: attempts.count,
                challenge: format!("{status} {}", challenges.join(", ")),
            });
        }
        attempts.count += 1;
        // RFC 9449 section 9: the server wants its nonce in the proof.
        if error == Some("use_dpop_nonce") && self.shared.nonces.note(server, headers) {
            return Ok(true);
        }
        let challenge = challenge.unwrap_or_default();
        let mut registrations = self.shared.lock().await;
        // Another request obtained a new token while this one waited.
        if !step_up
            && let Some(current) = self.shared.current(server)
            && Some(&current.token.access_token) != sent.as_ref()
        {
            return Ok(true);
        }
        self.shared
            .obtain(
                &self.config,
                &mut registrations,
                server,
                &challenge,
                step_up,
                sent.as_deref(),
            )
            .await?;
        Ok(true)
    }
}
