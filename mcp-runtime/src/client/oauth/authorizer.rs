//! [`Authorizer`]: the interactive step of the authorization code flow,
//! which belongs to the application (a browser, a device, a test script).

use std::future::Future;
use std::pin::Pin;

use super::OAuthError;

/// A boxed, sendable future, as [`Authorizer::authorize`] returns.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The interactive step of the authorization code flow: show the user the
/// authorization server's page, and hand back where it redirected to.
///
/// [`LoopbackAuthorizer`](super::LoopbackAuthorizer) is the ready one for
/// a desktop or command-line application (it prints the URL, opens a
/// browser, and listens on `127.0.0.1` for the redirect). Implement this
/// trait for anything else: a GUI's embedded browser, a script that posts
/// a test provider's login form, a device that shows a QR code.
///
/// ```no_run
/// use mcp_runtime::client::oauth::{Authorizer, BoxFuture, OAuthError, Url};
///
/// /// Asks the user to paste the address the browser ended on.
/// struct Paste;
///
/// impl Authorizer for Paste {
///     fn redirect_uri(&self) -> String {
///         "http://127.0.0.1:8976/callback".into()
///     }
///
///     fn authorize(&self, url: Url) -> BoxFuture<'_, Result<Url, OAuthError>> {
///         Box::pin(async move {
///             eprintln!("Open {url}, then paste the address you end on:");
///             let mut line = String::new();
///             std::io::stdin()
///                 .read_line(&mut line)
///                 .map_err(|e| OAuthError::Authorizer(e.to_string()))?;
///             Url::parse(line.trim()).map_err(|e| OAuthError::Redirect(e.to_string()))
///         })
///     }
/// }
/// ```
///
/// The flow checks what comes back (its `state`, its `iss`), not the
/// authorizer: an authorizer only carries the user there and back.
pub trait Authorizer: Send + Sync + 'static {
    /// The redirect URI: sent in the authorization request, registered by
    /// dynamic client registration and listed in a client ID metadata
    /// document.
    fn redirect_uri(&self) -> String;

    /// Takes the user to `url` (the authorization request, complete with
    /// PKCE challenge, `state` and `resource`) and returns the URL the
    /// authorization server redirected back to, query and all.
    fn authorize(&self, url: url::Url) -> BoxFuture<'_, Result<url::Url, OAuthError>>;
}
