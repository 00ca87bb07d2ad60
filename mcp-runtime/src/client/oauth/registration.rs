//! Client registration, in the MCP specification's order ("Client
//! Registration Approaches", the same in 2025-11-25 and 2026-07-28): a
//! pre-registered client, else a client ID metadata document where the
//! authorization server supports them, else dynamic client registration
//! (RFC 7591). Issue 28 listed metadata documents first; the
//! specification puts pre-registered credentials first, and this follows
//! the specification.

use serde_json::{Value, json};

use super::OAuthError;
use super::discovery::ServerMetadata;
use super::settings::{Config, Grant};
use super::store::StoredRegistration;
use crate::auth::fetch::{Fetcher, is_loopback};

/// How the client authenticates at the token endpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AuthMethod {
    /// HTTP Basic with the form-encoded id and secret (RFC 6749 2.3.1).
    Basic,
    /// Id and secret in the form body.
    Post,
    /// A public client: only `client_id` in the body.
    None,
    /// A JWT signed with the client's key (RFC 7523).
    PrivateKeyJwt,
}

impl AuthMethod {
    fn name(self) -> &'static str {
        match self {
            AuthMethod::Basic => "client_secret_basic",
            AuthMethod::Post => "client_secret_post",
            AuthMethod::None => "none",
            AuthMethod::PrivateKeyJwt => "private_key_jwt",
        }
    }

    fn from_name(name: &str) -> Option<AuthMethod> {
        Some(match name {
            "client_secret_basic" => AuthMethod::Basic,
            "client_secret_post" => AuthMethod::Post,
            "none" => AuthMethod::None,
            "private_key_jwt" => AuthMethod::PrivateKeyJwt,
            _ => return None,
        })
    }
}

/// How the client is known to one authorization server.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Registration {
    pub(crate) client_id: String,
    pub(crate) client_secret: Option<String>,
    pub(crate) method: AuthMethod,
    /// Where the client id came from, for the logs.
    pub(crate) source: Source,
    /// The redirect URI registered (dynamic registrations).
    pub(crate) redirect_uri: Option<String>,
}

impl Registration {
    /// The registration as a store keeps it.
    pub(crate) fn to_stored(&self) -> StoredRegistration {
        let mut stored = StoredRegistration::new(self.client_id.clone(), self.method.name());
        stored.client_secret = self.client_secret.clone();
        stored.redirect_uri = self.redirect_uri.clone();
        stored
    }

    /// A dynamic registration kept by a store; `None` when it names a
    /// method this client does not know, or lacks the secret it needs.
    pub(crate) fn from_stored(stored: StoredRegistration) -> Option<Registration> {
        let method = AuthMethod::from_name(&stored.token_endpoint_auth_method)?;
        let needs_secret = matches!(method, AuthMethod::Basic | AuthMethod::Post);
        if (needs_secret && stored.client_secret.is_none()) || method == AuthMethod::PrivateKeyJwt {
            return None;
        }
        Some(Registration {
            client_id: stored.client_id,
            client_secret: stored.client_secret,
            method,
            source: Source::Dynamic,
            redirect_uri: stored.redirect_uri,
        })
    }
}

impl std::fmt::Debug for Registration {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registration")
            .field("client_id", &self.client_id)
            .field(
                "client_secret",
                &self.client_secret.as_ref().map(|_| "<redacted>"),
            )
            .field("method", &self.method)
            .field("source", &self.source)
            .field("redirect_uri", &self.redirect_uri)
            .finish()
    }
}

/// Where a client id came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Source {
    PreRegistered,
    MetadataDocument,
    Dynamic,
}

/// The method for a client with a secret at `server`: Basic unless the
/// server takes only the form body (RFC 8414: Basic when it does not say).
fn secret_method(server: &ServerMetadata) -> AuthMethod {
    match &server.token_endpoint_auth_methods {
        Some(methods)
            if !methods.iter().any(|m| m == "client_secret_basic")
                && methods.iter().any(|m| m == "client_secret_post") =>
        {
            AuthMethod::Post
        }
        _ => AuthMethod::Basic,
    }
}

/// Registers (or finds the registration of) the client at `server`.
/// `pre_registered` says whether the configured client id may be used
/// there (it is bound to the first authorization server it met).
#[cfg(test)]
pub(crate) async fn register(
    fetcher: &Fetcher,
    config: &Config,
    server: &ServerMetadata,
    redirect_uri: Option<&str>,
    pre_registered: bool,
) -> Result<Registration, OAuthError> {
    match configured(config, server, pre_registered)? {
        Some(registration) => Ok(registration),
        None => dynamic(fetcher, config, server, redirect_uri).await,
    }
}

/// The registration the configuration gives at `server`: the
/// pre-registered client (where `pre_registered` allows it), else the
/// client ID metadata document where the server supports them; `None`
/// when the client must register dynamically.
pub(crate) fn configured(
    config: &Config,
    server: &ServerMetadata,
    pre_registered: bool,
) -> Result<Option<Registration>, OAuthError> {
    if let (Some(client_id), true) = (&config.client_id, pre_registered) {
        let method = match &config.grant {
            #[cfg(feature = "client-jwt")]
            Grant::PrivateKeyJwt { .. } => AuthMethod::PrivateKeyJwt,
            _ if config.client_secret.is_some() => secret_method(server),
            _ => AuthMethod::None,
        };
        return Ok(Some(Registration {
            client_id: client_id.clone(),
            client_secret: config.client_secret.clone(),
            method,
            source: Source::PreRegistered,
            redirect_uri: None,
        }));
    }
    if !matches!(config.grant, Grant::AuthorizationCode(_)) {
        return Err(OAuthError::Registration(match &config.client_id {
            Some(_) => format!(
                "the client credentials were given for another authorization server; {} needs its own",
                server.issuer
            ),
            None => "client credentials need a client id".into(),
        }));
    }
    if let (Some(document), true) = (
        &config.metadata_document,
        server.client_id_metadata_document_supported,
    ) {
        return Ok(Some(Registration {
            client_id: document.clone(),
            client_secret: None,
            method: AuthMethod::None,
            source: Source::MetadataDocument,
            redirect_uri: None,
        }));
    }
    Ok(None)
}

/// Dynamic client registration (RFC 7591) at `server`, for `redirect_uri`.
pub(crate) async fn dynamic(
    fetcher: &Fetcher,
    config: &Config,
    server: &ServerMetadata,
    redirect_uri: Option<&str>,
) -> Result<Registration, OAuthError> {
    let Some(endpoint) = &server.registration_endpoint else {
        return Err(OAuthError::Registration(format!(
            "the authorization server {} offers neither dynamic client registration nor \
             (for this client) client ID metadata documents: register the client there and \
             give its id with OAuth::client_id, or publish a metadata document \
             (OAuth::metadata_document) if the server supports them",
            server.issuer
        )));
    };
    let redirect_uri = redirect_uri.unwrap_or_default();
    let body = registration_request(config, server, redirect_uri);
    let answer = fetcher.post_json(endpoint, &body).await.map_err(|e| {
        OAuthError::Registration(format!(
            "dynamic client registration at {endpoint} failed: {e}"
        ))
    })?;
    let mut registration = read_registration(&answer, &body, endpoint)?;
    registration.redirect_uri = Some(redirect_uri.to_owned());
    Ok(registration)
}

/// The RFC 7591 request: a native application for a loopback redirect
/// (the 2026-07-28 revision requires `application_type`), asking for
/// refresh tokens too.
pub(crate) fn registration_request(
    config: &Config,
    server: &ServerMetadata,
    redirect_uri: &str,
) -> Value {
    let native =
        url::Url::parse(redirect_uri).is_ok_and(|u| is_loopback(&u) || u.scheme() != "https");
    let method = match &server.token_endpoint_auth_methods {
        Some(methods) if methods.iter().any(|m| m == "none") => AuthMethod::None,
        Some(methods) if !methods.is_empty() => secret_method(server),
        // Nothing said: a public client, as a native application is.
        _ => AuthMethod::None,
    };
    json!({
        "client_name": config.client_name,
        "redirect_uris": [redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": method.name(),
        "application_type": if native { "native" } else { "web" },
    })
}

/// What the server registered: its client id, its secret, and the method
/// it settled on (the one asked for when it does not say).
fn read_registration(
    answer: &serde_json::Map<String, Value>,
    asked: &Value,
    endpoint: &str,
) -> Result<Registration, OAuthError> {
    let client_id = answer
        .get("client_id")
        .and_then(Value::as_str)
        .filter(|id| !id.is_empty())
        .ok_or_else(|| {
            OAuthError::Registration(format!("{endpoint} answered without a client_id"))
        })?;
    let client_secret = answer
        .get("client_secret")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let named = answer
        .get("token_endpoint_auth_method")
        .or_else(|| asked.get("token_endpoint_auth_method"))
        .and_then(Value::as_str)
        .unwrap_or("client_secret_basic");
    let method = AuthMethod::from_name(named).ok_or_else(|| {
        OAuthError::Registration(format!(
            "{endpoint} registered the token endpoint authentication {named:?}, which this client does not do"
        ))
    })?;
    if matches!(method, AuthMethod::Basic | AuthMethod::Post) && client_secret.is_none() {
        return Err(OAuthError::Registration(format!(
            "{endpoint} registered {named} but gave no client_secret"
        )));
    }
    Ok(Registration {
        client_id: client_id.to_owned(),
        client_secret,
        method,
        source: Source::Dynamic,
        redirect_uri: None,
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::client::oauth::{Authorizer, BoxFuture};

    struct Nobody;
    impl Authorizer for Nobody {
        fn redirect_uri(&self) -> String {
            "http://127.0.0.1:3000/callback".into()
        }
        fn authorize(&self, _: url::Url) -> BoxFuture<'_, Result<url::Url, OAuthError>> {
            Box::pin(async { Err(OAuthError::Authorizer("nobody".into())) })
        }
    }

    fn server(cimd: bool, registration: bool, methods: Option<&[&str]>) -> ServerMetadata {
        ServerMetadata {
            issuer: "http://127.0.0.1:9".into(),
            authorization_endpoint: Some("http://127.0.0.1:9/authorize".into()),
            token_endpoint: "http://127.0.0.1:9/token".into(),
            registration_endpoint: registration.then(|| "http://127.0.0.1:9/register".into()),
            scopes_supported: None,
            token_endpoint_auth_methods: methods.map(|m| m.iter().map(|s| s.to_string()).collect()),
            client_id_metadata_document_supported: cimd,
            iss_parameter_supported: false,
            dpop_algorithms: Vec::new(),
        }
    }

    fn config(id: Option<&str>, secret: Option<&str>, document: Option<&str>) -> Config {
        let mut config = Config::new(Grant::AuthorizationCode(Arc::new(Nobody)));
        config.client_name = "My app".into();
        config.client_id = id.map(str::to_owned);
        config.client_secret = secret.map(str::to_owned);
        config.metadata_document = document.map(str::to_owned);
        config
    }

    #[tokio::test]
    async fn pre_registered_then_metadata_document_then_nothing() {
        let fetcher = Fetcher::new(false).unwrap();
        let both = config(
            Some("pre"),
            Some("s"),
            Some("https://app.example/client.json"),
        );
        let cimd_server = server(true, true, Some(&["client_secret_post"]));
        let chosen = register(&fetcher, &both, &cimd_server, None, true)
            .await
            .unwrap();
        assert_eq!(
            (chosen.client_id.as_str(), chosen.source),
            ("pre", Source::PreRegistered)
        );
        assert_eq!(chosen.method, AuthMethod::Post);
        // Bound elsewhere: the metadata document, never the credentials.
        let chosen = register(&fetcher, &both, &cimd_server, None, false)
            .await
            .unwrap();
        assert_eq!(chosen.client_id, "https://app.example/client.json");
        assert_eq!(
            (chosen.client_secret, chosen.method),
            (None, AuthMethod::None)
        );
        // A server without metadata documents or registration: a clear error.
        let error = register(&fetcher, &both, &server(false, false, None), None, false)
            .await
            .unwrap_err();
        assert!(error.to_string().contains("OAuth::client_id"), "{error}");
    }

    #[test]
    fn the_registration_request() {
        let config = config(None, None, None);
        let body = registration_request(
            &config,
            &server(false, true, Some(&["client_secret_basic"])),
            "http://127.0.0.1:3000/cb",
        );
        assert_eq!(body["application_type"], "native");
        assert_eq!(
            body["grant_types"],
            json!(["authorization_code", "refresh_token"])
        );
        assert_eq!(body["token_endpoint_auth_method"], "client_secret_basic");
        assert_eq!(body["client_name"], "My app");
        let body = registration_request(
            &config,
            &server(false, true, Some(&["client_secret_basic", "none"])),
            "https://app.example/cb",
        );
        assert_eq!(body["application_type"], "web");
        assert_eq!(body["token_endpoint_auth_method"], "none");
    }

    #[test]
    fn what_the_server_registered_wins() {
        let asked = json!({"token_endpoint_auth_method": "none"});
        let answer = json!({"client_id": "c", "client_secret": "s", "token_endpoint_auth_method": "client_secret_post"});
        let read = read_registration(answer.as_object().unwrap(), &asked, "e").unwrap();
        assert_eq!(
            (read.method, read.client_secret.as_deref()),
            (AuthMethod::Post, Some("s"))
        );
        let answer = json!({"client_id": "c", "client_secret": "s"});
        let read = read_registration(answer.as_object().unwrap(), &asked, "e").unwrap();
        assert_eq!(read.method, AuthMethod::None);
        let answer = json!({"client_id": "c", "token_endpoint_auth_method": "client_secret_basic"});
        assert!(read_registration(answer.as_object().unwrap(), &asked, "e").is_err());
        assert!(read_registration(json!({}).as_object().unwrap(), &asked, "e").is_err());
    }
}
