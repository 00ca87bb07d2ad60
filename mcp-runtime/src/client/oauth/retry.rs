//! The transport's hook (in progress).

use super::{OAuth, OAuthError};

/// The authorizations made for one request.
#[derive(Debug, Default)]
pub(crate) struct Attempts {
    pub(crate) count: u32,
}

impl OAuth {
    /// The access token to send to `server` now, if one is held.
    pub(crate) async fn bearer(&self, server: &url::Url) -> Option<String> {
        let _ = server;
        None
    }

    /// A request to `server` was refused with `status` and these
    /// `WWW-Authenticate` values: `true` when a new token is ready and the
    /// request should be sent again.
    pub(crate) async fn on_refusal(
        &self,
        server: &url::Url,
        status: u16,
        challenges: &[String],
        sent: Option<String>,
        attempts: &mut Attempts,
    ) -> Result<bool, OAuthError> {
        let _ = (server, status, challenges, sent, attempts);
        Ok(false)
    }
}
