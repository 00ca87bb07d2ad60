//! The hook the HTTP transport calls: the token to send, and what to do
//! when the server refuses (401, or 403 `insufficient_scope`): obtain a
//! token and send again, at most [`OAuth::step_up_limit`] times for one
//! request.

use url::Url;

use super::challenge::BearerChallenge;
use super::{OAuth, OAuthError};

/// The authorizations made for one request.
#[derive(Debug, Default)]
pub(crate) struct Attempts {
    count: u32,
}

impl OAuth {
    /// The access token to send to `server` now, if one is held.
    pub(crate) async fn bearer(&self, server: &Url) -> Option<String> {
        self.shared.fresh_token(&self.config, server).await
    }

    /// A request to `server`, sent with the token `sent`, was answered
    /// `status` with these `WWW-Authenticate` values: `Ok(true)` when a new
    /// token is ready and the request should be sent again, `Ok(false)`
    /// when the answer is not OAuth's to handle.
    pub(crate) async fn on_refusal(
        &self,
        server: &Url,
        status: u16,
        challenges: &[String],
        sent: Option<String>,
        attempts: &mut Attempts,
    ) -> Result<bool, OAuthError> {
        let challenge = BearerChallenge::find(challenges.iter().map(String::as_str));
        let step_up = match (status, &challenge) {
            (401, _) => false,
            (403, Some(challenge)) if challenge.insufficient_scope() => true,
            _ => return Ok(false),
        };
        let challenge = challenge.unwrap_or_default();
        let limit = self.config.step_up_limit;
        if attempts.count >= limit {
            return Err(OAuthError::StepUpLimit {
                attempts: attempts.count,
                challenge: format!("{status} {}", challenges.join(", ")),
            });
        }
        attempts.count += 1;
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
