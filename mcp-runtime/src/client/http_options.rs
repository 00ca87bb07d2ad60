//! How the client reaches a Streamable HTTP server: [`HttpOptions`], which
//! [`Client::connect_http`](crate::client::Client::connect_http) takes.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use crate::client::oauth::OAuth;
use crate::client::transport::BoxFuture;

/// How long connecting to the server may take unless told otherwise.
const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

type TokenProvider = Arc<dyn Fn() -> BoxFuture<'static, Option<String>> + Send + Sync>;

#[derive(Clone)]
pub(crate) enum Token {
    Static(String),
    Provider(TokenProvider),
}

/// How [`Client::connect_http`](crate::client::Client::connect_http) reaches a server over Streamable HTTP: its
/// endpoint URL, credentials, timeouts.
///
/// ```no_run
/// use std::time::Duration;
/// use mcp_runtime::client::{Client, ClientError, HttpOptions};
///
/// # async fn run() -> Result<(), ClientError> {
/// let options = HttpOptions::new("http://127.0.0.1:8080/mcp")
///     .bearer_token("secret-token")
///     .timeout(Duration::from_secs(30));
/// let client = Client::connect_http(options).await?;
/// tracing::info!(tools = client.list_tools().await?.len());
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct HttpOptions {
    pub(crate) url: String,
    pub(crate) token: Option<Token>,
    pub(crate) oauth: Option<OAuth>,
    pub(crate) connect_timeout: Duration,
    pub(crate) timeout: Option<Duration>,
}

impl std::fmt::Debug for HttpOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the token.
        let token = match &self.token {
            None => "none",
            Some(Token::Static(_)) => "static",
            Some(Token::Provider(_)) => "provider",
        };
        f.debug_struct("HttpOptions")
            .field("url", &self.url)
            .field("token", &token)
            .field("oauth", &self.oauth)
            .field("connect_timeout", &self.connect_timeout)
            .field("timeout", &self.timeout)
            .finish()
    }
}

impl HttpOptions {
    /// The server's MCP endpoint, such as `http://127.0.0.1:8080/mcp`.
    pub fn new(url: impl Into<String>) -> HttpOptions {
        HttpOptions {
            url: url.into(),
            token: None,
            oauth: None,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            timeout: None,
        }
    }

    /// Sends `Authorization: Bearer <token>` with every HTTP request.
    pub fn bearer_token(mut self, token: impl Into<String>) -> HttpOptions {
        self.token = Some(Token::Static(token.into()));
        self
    }

    /// Asks `provider` for the bearer token before every HTTP request (it
    /// may cache, refresh when it expires…); `None` sends no
    /// `Authorization` header.
    pub fn token_provider<F, Fut>(mut self, provider: F) -> HttpOptions
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Option<String>> + Send + 'static,
    {
        self.token = Some(Token::Provider(Arc::new(move || Box::pin(provider()))));
        self
    }

    /// Obtains tokens with OAuth 2.1 as the server's challenges ask
    /// (discovery, registration, authorization, refresh, step-up: see
    /// [`OAuth`]), and sends the current one with every HTTP request. Takes
    /// the place of [`bearer_token`](HttpOptions::bearer_token) and
    /// [`token_provider`](HttpOptions::token_provider).
    ///
    /// ```no_run
    /// use mcp_runtime::client::oauth::{LoopbackAuthorizer, OAuth};
    /// use mcp_runtime::client::{Client, HttpOptions};
    ///
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// let oauth = OAuth::authorization_code(LoopbackAuthorizer::bind("127.0.0.1:0").await?);
    /// // The first 401 (to `initialize`) starts the authorization.
    /// let client = Client::connect_http(HttpOptions::new("https://mcp.example.com/mcp").oauth(oauth)).await?;
    /// # let _ = client;
    /// # Ok(())
    /// # }
    /// ```
    pub fn oauth(mut self, oauth: OAuth) -> HttpOptions {
        self.oauth = Some(oauth);
        self
    }

    /// How long connecting to the server may take (10 s unless set).
    pub fn connect_timeout(mut self, timeout: Duration) -> HttpOptions {
        self.connect_timeout = timeout;
        self
    }

    /// How long each request waits for its answer, as
    /// [`Client::set_timeout`](crate::client::Client::set_timeout) (60 s unless set); also how long the server
    /// may take to begin answering an HTTP request.
    pub fn timeout(mut self, timeout: Duration) -> HttpOptions {
        self.timeout = Some(timeout);
        self
    }
}
