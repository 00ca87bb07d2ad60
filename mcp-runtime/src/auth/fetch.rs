//! Fetching from the authorization server: metadata, JWKS and
//! introspection answers, and for the client's OAuth (`client::oauth`) the
//! protected resource metadata, registrations and tokens; over HTTPS
//! (rustls on ring, plain http only to loopback unless allowed), with
//! timeouts and size limits.

use std::time::Duration;

use serde_json::{Map, Value};

/// How long one fetch may take.
const TIMEOUT: Duration = Duration::from_secs(10);
/// The largest document accepted.
const MAX_BYTES: usize = 1024 * 1024;

/// A fetch that failed, in words fit for a log (never a token).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct FetchError(pub(crate) String);

/// The HTTP client of one server's authentication, or of one client's
/// OAuth.
#[derive(Clone)]
pub(crate) struct Fetcher {
    client: reqwest::Client,
    allow_http: bool,
}

impl Fetcher {
    pub(crate) fn new(allow_http: bool) -> Result<Fetcher, FetchError> {
        // reqwest is built without a crypto provider of its own; ring is
        // installed unless the application installed one first.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = reqwest::Client::builder()
            .timeout(TIMEOUT)
            .connect_timeout(TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| FetchError(format!("cannot build the HTTP client: {e}")))?;
        Ok(Fetcher { client, allow_http })
    }

    /// Refuses `http://` except to loopback hosts (or when allowed).
    pub(crate) fn check_url(&self, url: &str) -> Result<reqwest::Url, FetchError> {
        let parsed =
            reqwest::Url::parse(url).map_err(|e| FetchError(format!("bad URL {url:?}: {e}")))?;
        match parsed.scheme() {
            "https" => Ok(parsed),
            "http" if self.allow_http || is_loopback(&parsed) => Ok(parsed),
            "http" => Err(FetchError(format!(
                "refusing to fetch {url} over plain http: use https, or \
                 allow_insecure_http() (on Auth or OAuth) if the network is trusted"
            ))),
            other => Err(FetchError(format!(
                "unsupported URL scheme {other:?} in {url}"
            ))),
        }
    }

    /// GET `url` as a JSON object.
    pub(crate) async fn get_json(&self, url: &str) -> Result<Map<String, Value>, FetchError> {
        let url = self.check_url(url)?;
        let request = self
            .client
            .get(url.clone())
            .header(reqwest::header::ACCEPT, "application/json");
        read_json(&url, request.send().await).await
    }

    /// POST a form to `url` with HTTP Basic client authentication, and
    /// read a JSON object back.
    #[cfg_attr(not(feature = "auth"), allow(dead_code))]
    pub(crate) async fn post_form(
        &self,
        url: &str,
        user: &str,
        password: &str,
        form: &[(&str, &str)],
    ) -> Result<Map<String, Value>, FetchError> {
        let url = self.check_url(url)?;
        let request = self.form_request(&url, Some((user, password)), form);
        read_json(&url, request.send().await).await
    }

    /// POST a form to `url` with `headers` (and HTTP Basic client
    /// authentication when `basic` holds an id and a secret); the status,
    /// the headers and the JSON object of the answer, whatever the status
    /// (an OAuth error answer is JSON too).
    #[cfg_attr(not(feature = "client"), allow(dead_code))]
    pub(crate) async fn post_form_raw(
        &self,
        url: &str,
        basic: Option<(&str, &str)>,
        form: &[(&str, &str)],
        headers: &[(&str, &str)],
    ) -> Result<(u16, reqwest::header::HeaderMap, Map<String, Value>), FetchError> {
        let url = self.check_url(url)?;
        let mut request = self.form_request(&url, basic, form);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let mut response = request
            .send()
            .await
            .map_err(|e| FetchError(format!("cannot reach {url}: {e}")))?;
        let status = response.status().as_u16();
        let answer_headers = response.headers().clone();
        let body = read_limited(&url, &mut response).await?;
        match serde_json::from_slice(&body) {
            Ok(Value::Object(map)) => Ok((status, answer_headers, map)),
            _ => Err(FetchError(format!(
                "{url} answered {status} without a JSON object"
            ))),
        }
    }

    /// The POST of `form` to `url`, asking for JSON, with HTTP Basic
    /// client authentication (id and secret form-encoded first, RFC 6749
    /// section 2.3.1) when `basic` holds them: what every form this
    /// fetcher posts to an authorization server starts as.
    fn form_request(
        &self,
        url: &reqwest::Url,
        basic: Option<(&str, &str)>,
        form: &[(&str, &str)],
    ) -> reqwest::RequestBuilder {
        let request = self
            .client
            .post(url.clone())
            .header(reqwest::header::ACCEPT, "application/json")
            .form(form);
        match basic {
            Some((user, password)) => {
                request.basic_auth(form_encode(user), Some(form_encode(password)))
            }
            None => request,
        }
    }

    /// POST a JSON document to `url` (a client registration, RFC 7591),
    /// and read a JSON object back.
    #[cfg_attr(not(feature = "client"), allow(dead_code))]
    pub(crate) async fn post_json(
        &self,
        url: &str,
        body: &Value,
    ) -> Result<Map<String, Value>, FetchError> {
        let url = self.check_url(url)?;
        let request = self
            .client
            .post(url.clone())
            .header(reqwest::header::ACCEPT, "application/json")
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body.to_string());
        read_json(&url, request.send().await).await
    }
}

/// RFC 6749 section 2.3.1: client id and secret are form-encoded before
/// they go into the Basic header.
pub(crate) fn form_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'*' => {
                out.push(byte as char)
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

/// `localhost`, or an IP address of the loopback interface.
pub(crate) fn is_loopback(url: &url::Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

async fn read_json(
    url: &reqwest::Url,
    sent: Result<reqwest::Response, reqwest::Error>,
) -> Result<Map<String, Value>, FetchError> {
    let mut response = sent.map_err(|e| FetchError(format!("cannot reach {url}: {e}")))?;
    let status = response.status();
    let body = read_limited(url, &mut response).await?;
    if !status.is_success() {
        // An OAuth error answer (RFC 6749 section 5.2) says why.
        let said = serde_json::from_slice::<Value>(&body).ok().and_then(|v| {
            let error = v.get("error")?.as_str()?.to_owned();
            Some(match v.get("error_description").and_then(Value::as_str) {
                Some(description) => format!(": {error} ({description})"),
                None => format!(": {error}"),
            })
        });
        return Err(FetchError(format!(
            "{url} answered {status}{}",
            said.unwrap_or_default()
        )));
    }
    match serde_json::from_slice(&body) {
        Ok(Value::Object(map)) => Ok(map),
        _ => Err(FetchError(format!(
            "{url} did not answer with a JSON object"
        ))),
    }
}

/// The body of `response`, at most [`MAX_BYTES`].
async fn read_limited(
    url: &reqwest::Url,
    response: &mut reqwest::Response,
) -> Result<Vec<u8>, FetchError> {
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| FetchError(format!("reading {url}: {e}")))?
    {
        if body.len() + chunk.len() > MAX_BYTES {
            return Err(FetchError(format!(
                "{url} sent more than {MAX_BYTES} bytes"
            )));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_credentials_are_form_encoded() {
        assert_eq!(form_encode("mcp-test"), "mcp-test");
        assert_eq!(form_encode("a b:c%"), "a+b%3Ac%25");
    }

    #[test]
    fn plain_http_only_to_loopback() {
        let fetcher = Fetcher::new(false).unwrap();
        assert!(fetcher.check_url("http://127.0.0.1:4455/jwks").is_ok());
        assert!(fetcher.check_url("http://localhost/jwks").is_ok());
        assert!(fetcher.check_url("http://[::1]:80/jwks").is_ok());
        assert!(fetcher.check_url("https://login.example.com/jwks").is_ok());
        let refused = fetcher
            .check_url("http://login.example.com/jwks")
            .unwrap_err();
        assert!(refused.0.contains("allow_insecure_http"), "{refused}");
        assert!(
            Fetcher::new(true)
                .unwrap()
                .check_url("http://login.example.com/")
                .is_ok()
        );
    }
}
