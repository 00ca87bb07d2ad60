//! [`LoopbackAuthorizer`]: the interactive step for a desktop or
//! command-line application (RFC 8252 section 7.3): print the
//! authorization URL, open a browser where it can, and wait on
//! `127.0.0.1` for the one redirect that comes back.

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use super::{Authorizer, BoxFuture, OAuthError};

/// How long the user has to log in unless told otherwise.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(300);
/// The largest request head read from the browser.
const MAX_HEAD: usize = 16 * 1024;
/// The path of the redirect URI made by [`LoopbackAuthorizer::bind`].
const CALLBACK: &str = "/callback";

/// The ready [`Authorizer`] for an application on the user's machine: it
/// listens on a loopback address, prints the authorization URL to stderr
/// (never stdout, which may be a protocol stream), opens the default
/// browser where it can (`xdg-open`, `open`, `start`), and waits for the
/// authorization server's redirect, answering the browser with a short
/// page that says it may be closed.
///
/// ```no_run
/// use std::time::Duration;
/// use mcp_runtime::client::oauth::{LoopbackAuthorizer, OAuth};
///
/// # async fn run() -> Result<(), mcp_runtime::client::oauth::OAuthError> {
/// // Any free port, redirect URI http://127.0.0.1:<port>/callback.
/// let authorizer = LoopbackAuthorizer::bind("127.0.0.1:0")
///     .await?
///     .timeout(Duration::from_secs(120));
/// // Or the redirect URI an authorization server was told beforehand.
/// let fixed = LoopbackAuthorizer::redirect_to("http://127.0.0.1:8976/oauth/done").await?;
/// let oauth = OAuth::authorization_code(authorizer);
/// # let _ = (fixed, oauth);
/// # Ok(())
/// # }
/// ```
pub struct LoopbackAuthorizer {
    /// One authorization at a time on the listener.
    listener: tokio::sync::Mutex<TcpListener>,
    redirect_uri: String,
    path: String,
    timeout: Duration,
    open_browser: bool,
}

impl std::fmt::Debug for LoopbackAuthorizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoopbackAuthorizer")
            .field("redirect_uri", &self.redirect_uri)
            .field("timeout", &self.timeout)
            .field("open_browser", &self.open_browser)
            .finish()
    }
}

impl LoopbackAuthorizer {
    /// Listens on `address`, a loopback IP address and port (`"127.0.0.1:0"`
    /// for any free port); the redirect URI is
    /// `http://<address>/callback`. A non-loopback address is refused: the
    /// authorization code must not travel over the network.
    pub async fn bind(address: &str) -> Result<LoopbackAuthorizer, OAuthError> {
        let address: SocketAddr = address.parse().map_err(|e| {
            OAuthError::Redirect(format!("{address:?} is not an IP address and port: {e}"))
        })?;
        LoopbackAuthorizer::listen(address, CALLBACK).await
    }

    /// Listens where `redirect_uri` points: `http://127.0.0.1:PORT/path`,
    /// `http://[::1]:PORT/path` or `http://localhost:PORT/path` (bound on
    /// 127.0.0.1). Any other URI (another host, https, no port) is refused.
    pub async fn redirect_to(redirect_uri: &str) -> Result<LoopbackAuthorizer, OAuthError> {
        let parsed = url::Url::parse(redirect_uri)
            .map_err(|e| OAuthError::Redirect(format!("bad redirect URI {redirect_uri:?}: {e}")))?;
        let not_loopback = || {
            OAuthError::Redirect(format!(
                "the redirect URI {redirect_uri} is not a loopback http address \
                 (http://127.0.0.1:PORT/...): the loopback authorizer only listens there"
            ))
        };
        if parsed.scheme() != "http" {
            return Err(not_loopback());
        }
        let ip: IpAddr = match parsed.host() {
            Some(url::Host::Ipv4(ip)) if ip.is_loopback() => ip.into(),
            Some(url::Host::Ipv6(ip)) if ip.is_loopback() => ip.into(),
            Some(url::Host::Domain(name)) if name.eq_ignore_ascii_case("localhost") => {
                [127, 0, 0, 1].into()
            }
            _ => return Err(not_loopback()),
        };
        let port = parsed.port().ok_or_else(not_loopback)?;
        let mut authorizer = LoopbackAuthorizer::listen((ip, port).into(), parsed.path()).await?;
        authorizer.redirect_uri = redirect_uri.to_owned();
        Ok(authorizer)
    }

    async fn listen(address: SocketAddr, path: &str) -> Result<LoopbackAuthorizer, OAuthError> {
        if !address.ip().is_loopback() {
            return Err(OAuthError::Redirect(format!(
                "{} is not a loopback address: the loopback authorizer listens on 127.0.0.1 or ::1 only",
                address.ip()
            )));
        }
        let listener = TcpListener::bind(address)
            .await
            .map_err(|e| OAuthError::Authorizer(format!("cannot listen on {address}: {e}")))?;
        let bound = listener
            .local_addr()
            .map_err(|e| OAuthError::Authorizer(format!("cannot listen on {address}: {e}")))?;
        Ok(LoopbackAuthorizer {
            listener: tokio::sync::Mutex::new(listener),
            redirect_uri: format!("http://{bound}{path}"),
            path: path.to_owned(),
            timeout: DEFAULT_TIMEOUT,
            open_browser: true,
        })
    }

    /// How long to wait for the redirect (5 minutes unless set).
    pub fn timeout(mut self, timeout: Duration) -> LoopbackAuthorizer {
        self.timeout = timeout;
        self
    }

    /// Whether to try opening a browser (yes unless set); the URL is
    /// printed to stderr either way.
    pub fn open_browser(mut self, open: bool) -> LoopbackAuthorizer {
        self.open_browser = open;
        self
    }

    /// Waits for the browser's request to the redirect path; answers it
    /// and any other request (a favicon) with a page.
    async fn wait(&self) -> Result<url::Url, OAuthError> {
        let listener = self.listener.lock().await;
        loop {
            let (mut stream, _) = listener
                .accept()
                .await
                .map_err(|e| OAuthError::Authorizer(format!("accepting the redirect: {e}")))?;
            let Ok(Ok(target)) =
                tokio::time::timeout(Duration::from_secs(10), read_target(&mut stream)).await
            else {
                continue;
            };
            let ours = target.split('?').next() == Some(self.path.as_str());
            let page = if ours { DONE_PAGE } else { OTHER_PAGE };
            let status = if ours { "200 OK" } else { "404 Not Found" };
            let answer = format!(
                "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\nCache-Control: no-store\r\n\r\n{page}",
                page.len()
            );
            let _ = stream.write_all(answer.as_bytes()).await;
            let _ = stream.shutdown().await;
            if ours {
                let base = url::Url::parse(&self.redirect_uri)
                    .map_err(|e| OAuthError::Redirect(e.to_string()))?;
                return base.join(&target).map_err(|e| {
                    OAuthError::Redirect(format!("unreadable redirect {target:?}: {e}"))
                });
            }
        }
    }
}

const DONE_PAGE: &str = "<!doctype html><html><head><meta charset=\"utf-8\"><title>Authorized</title></head>\
<body><p>Authorization complete: you may close this window and return to the application.</p></body></html>";
const OTHER_PAGE: &str = "<!doctype html><html><head><meta charset=\"utf-8\"><title>Not found</title></head>\
<body><p>Nothing here.</p></body></html>";

/// The request target of an HTTP/1 request head (`GET /callback?code=.. HTTP/1.1`).
async fn read_target(stream: &mut tokio::net::TcpStream) -> std::io::Result<String> {
    let mut head = Vec::new();
    let mut buffer = [0u8; 2048];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && !head.windows(2).any(|w| w == b"\n\n") {
        let read = stream.read(&mut buffer).await?;
        if read == 0 || head.len() + read > MAX_HEAD {
            break;
        }
        head.extend_from_slice(&buffer[..read]);
    }
    let text = String::from_utf8_lossy(&head);
    let line = text.lines().next().unwrap_or_default();
    let mut words = line.split_ascii_whitespace();
    match (words.next(), words.next()) {
        (Some("GET"), Some(target)) if target.starts_with('/') => Ok(target.to_owned()),
        _ => Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "not a GET request",
        )),
    }
}

/// Opens `url` in the default browser, best effort.
fn open_browser(url: &str) {
    let mut command = if cfg!(target_os = "macos") {
        std::process::Command::new("open")
    } else if cfg!(windows) {
        let mut command = std::process::Command::new("cmd");
        command.args(["/C", "start", ""]);
        command
    } else {
        std::process::Command::new("xdg-open")
    };
    command
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    match command.spawn() {
        // Reaped in the background: the browser may outlive us.
        Ok(mut child) => {
            std::thread::spawn(move || child.wait());
        }
        Err(error) => tracing::debug!(%error, "could not open a browser"),
    }
}

impl Authorizer for LoopbackAuthorizer {
    fn redirect_uri(&self) -> String {
        self.redirect_uri.clone()
    }

    fn authorize(&self, url: url::Url) -> BoxFuture<'_, Result<url::Url, OAuthError>> {
        Box::pin(async move {
            // The URL holds no secret (PKCE sends only the challenge).
            eprintln!(
                "To authorize this application, open this address in a browser:\n\n    {url}\n"
            );
            // The address is in the block above, once.
            tracing::info!(
                redirect_uri = self.redirect_uri,
                "waiting for the authorization in the browser"
            );
            if self.open_browser {
                open_browser(url.as_str());
            }
            match tokio::time::timeout(self.timeout, self.wait()).await {
                Ok(answer) => answer,
                Err(_) => Err(OAuthError::Authorizer(format!(
                    "no redirect came back to {} within {:?}",
                    self.redirect_uri, self.timeout
                ))),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn non_loopback_redirects_are_refused() {
        for uri in [
            "http://192.0.2.1:8080/callback",
            "http://example.com:8080/callback",
            "https://127.0.0.1:8080/callback",
            "http://127.0.0.1/callback",
        ] {
            let error = LoopbackAuthorizer::redirect_to(uri).await.unwrap_err();
            assert!(
                error.to_string().contains("not a loopback"),
                "{uri}: {error}"
            );
        }
        let error = LoopbackAuthorizer::bind("0.0.0.0:0").await.unwrap_err();
        assert!(error.to_string().contains("not a loopback"), "{error}");
    }

    #[tokio::test]
    async fn the_redirect_is_caught_and_answered() {
        let authorizer = LoopbackAuthorizer::bind("127.0.0.1:0")
            .await
            .unwrap()
            .open_browser(false)
            .timeout(Duration::from_secs(10));
        let redirect = authorizer.redirect_uri();
        assert!(redirect.starts_with("http://127.0.0.1:") && redirect.ends_with("/callback"));
        let address = redirect
            .trim_start_matches("http://")
            .trim_end_matches("/callback")
            .to_owned();
        let browser = tokio::spawn(async move {
            let mut pages = Vec::new();
            for target in ["/favicon.ico", "/callback?code=abc&state=xyz"] {
                let mut stream = tokio::net::TcpStream::connect(&address).await.unwrap();
                let request = format!("GET {target} HTTP/1.1\r\nHost: {address}\r\n\r\n");
                stream.write_all(request.as_bytes()).await.unwrap();
                let mut page = String::new();
                stream.read_to_string(&mut page).await.unwrap();
                pages.push(page);
            }
            pages
        });
        let back = authorizer
            .authorize(url::Url::parse("https://as.example/authorize").unwrap())
            .await
            .unwrap();
        assert_eq!(back.path(), "/callback");
        assert_eq!(back.query(), Some("code=abc&state=xyz"));
        let pages = browser.await.unwrap();
        assert!(pages[0].starts_with("HTTP/1.1 404"), "{}", pages[0]);
        assert!(pages[1].contains("Authorization complete"), "{}", pages[1]);
    }

    #[tokio::test]
    async fn no_redirect_within_the_timeout() {
        let authorizer = LoopbackAuthorizer::bind("127.0.0.1:0")
            .await
            .unwrap()
            .open_browser(false)
            .timeout(Duration::from_millis(50));
        let error = authorizer
            .authorize(url::Url::parse("https://as.example/authorize").unwrap())
            .await
            .unwrap_err();
        assert!(
            error.to_string().contains("no redirect came back"),
            "{error}"
        );
    }
}
