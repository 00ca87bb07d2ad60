//! The authorization request (authorization code with PKCE S256, `state`
//! and RFC 8707 `resource`), the choice of its scopes, and the checks on
//! its response (`state`, RFC 9207 `iss`) before the code goes anywhere.

use url::Url;

use super::OAuthError;
use super::discovery::ServerMetadata;
use super::pkce::{Pkce, random};

/// An authorization request sent, waiting for its response.
pub(crate) struct Pending {
    /// Where the user is sent.
    pub(crate) url: Url,
    pub(crate) state: String,
    pub(crate) pkce: Pkce,
    pub(crate) redirect_uri: String,
    /// The issuer of the validated metadata the request was built from.
    pub(crate) issuer: String,
    pub(crate) iss_supported: bool,
}

/// The scopes to ask for (MCP "Scope Selection Strategy"): those
/// configured, else the challenge's, else the resource's
/// `scopes_supported`, else none; on a new authorization, with those
/// granted before (the challenged scopes are added to them, never put in
/// their place); `offline_access` when the authorization server lists it
/// and a refresh token is wanted.
pub(crate) fn select_scopes(
    configured: Option<&[String]>,
    challenged: Option<&[String]>,
    resource_supported: Option<&[String]>,
    granted: &[String],
    server: Option<&ServerMetadata>,
) -> Vec<String> {
    let mut scopes: Vec<String> = Vec::new();
    let mut add = |list: &[String]| {
        for scope in list {
            if !scopes.contains(scope) {
                scopes.push(scope.clone());
            }
        }
    };
    match (configured, challenged) {
        (Some(configured), challenged) => {
            add(configured);
            add(challenged.unwrap_or_default());
        }
        (None, Some(challenged)) => add(challenged),
        (None, None) => add(resource_supported.unwrap_or_default()),
    }
    add(granted);
    if server.is_some_and(|s| s.offers_scope("offline_access")) {
        add(&["offline_access".to_owned()]);
    }
    scopes
}

/// Builds the authorization request for `client_id` at `server`.
pub(crate) fn request(
    server: &ServerMetadata,
    client_id: &str,
    redirect_uri: &str,
    scopes: &[String],
    resource: &str,
) -> Result<Pending, OAuthError> {
    let endpoint = server.authorization_endpoint.as_deref().ok_or_else(|| {
        OAuthError::Discovery(format!(
            "the authorization server {} names no authorization endpoint",
            server.issuer
        ))
    })?;
    let mut url = Url::parse(endpoint).map_err(|e| {
        OAuthError::Discovery(format!("bad authorization endpoint {endpoint:?}: {e}"))
    })?;
    let pkce = Pkce::new()?;
    let state = random(24)?;
    {
        let mut query = url.query_pairs_mut();
        query
            .append_pair("response_type", "code")
            .append_pair("client_id", client_id)
            .append_pair("redirect_uri", redirect_uri)
            .append_pair("state", &state)
            .append_pair("code_challenge", &pkce.challenge)
            .append_pair("code_challenge_method", "S256")
            .append_pair("resource", resource);
        if !scopes.is_empty() {
            query.append_pair("scope", &scopes.join(" "));
        }
    }
    Ok(Pending {
        url,
        state,
        pkce,
        redirect_uri: redirect_uri.to_owned(),
        issuer: server.issuer.clone(),
        iss_supported: server.iss_parameter_supported,
    })
}

/// Checks the authorization response `back` and returns its code: it
/// arrived at the redirect URI, its `iss` is the issuer the request went
/// to (RFC 9207: compared whenever present, required when the server
/// promised it, and before anything else in the response is believed),
/// its `state` is the request's, and it holds a code rather than an error.
pub(crate) fn read_response(pending: &Pending, back: &Url) -> Result<String, OAuthError> {
    let expected = Url::parse(&pending.redirect_uri).map_err(|e| {
        OAuthError::Redirect(format!("bad redirect URI {:?}: {e}", pending.redirect_uri))
    })?;
    let place = |u: &Url| {
        (
            u.scheme().to_owned(),
            u.host_str().map(str::to_owned),
            u.port_or_known_default(),
            u.path().to_owned(),
        )
    };
    if place(back) != place(&expected) {
        return Err(OAuthError::Redirect(format!(
            "the authorization response went to {}{}, not to the redirect URI {}",
            back.origin().ascii_serialization(),
            back.path(),
            pending.redirect_uri
        )));
    }
    let param = |name: &str| {
        back.query_pairs()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.into_owned())
    };
    let iss = param("iss");
    let iss_ok = match (&iss, pending.iss_supported) {
        (Some(iss), _) => iss == &pending.issuer,
        (None, supported) => !supported,
    };
    if !iss_ok {
        return Err(OAuthError::IssuerParameter {
            expected: pending.issuer.clone(),
            found: iss,
        });
    }
    if param("state").as_deref() != Some(pending.state.as_str()) {
        return Err(OAuthError::StateMismatch);
    }
    if let Some(error) = param("error") {
        return Err(OAuthError::Denied {
            error,
            description: param("error_description"),
        });
    }
    param("code").filter(|c| !c.is_empty()).ok_or_else(|| {
        OAuthError::Redirect("the authorization response holds neither a code nor an error".into())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(iss_supported: bool) -> ServerMetadata {
        ServerMetadata {
            issuer: "https://as.example.com".into(),
            authorization_endpoint: Some("https://as.example.com/authorize?tenant=1".into()),
            token_endpoint: "https://as.example.com/token".into(),
            registration_endpoint: None,
            scopes_supported: Some(vec!["a".into(), "offline_access".into()]),
            token_endpoint_auth_methods: None,
            client_id_metadata_document_supported: false,
            iss_parameter_supported: iss_supported,
        }
    }

    fn strings(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn scope_selection() {
        let challenged = strings(&["files:read"]);
        let supported = strings(&["x", "y"]);
        let plain = {
            let mut s = server(false);
            s.scopes_supported = None;
            s
        };
        // The challenge, else scopes_supported, else nothing.
        assert_eq!(
            select_scopes(None, Some(&challenged), Some(&supported), &[], Some(&plain)),
            challenged
        );
        assert_eq!(
            select_scopes(None, None, Some(&supported), &[], Some(&plain)),
            supported
        );
        assert!(select_scopes(None, None, None, &[], Some(&plain)).is_empty());
        // A step-up keeps what was granted.
        assert_eq!(
            select_scopes(
                None,
                Some(&challenged),
                None,
                &strings(&["mcp:basic"]),
                Some(&plain)
            ),
            strings(&["files:read", "mcp:basic"])
        );
        // offline_access only where the authorization server lists it.
        assert_eq!(
            select_scopes(None, Some(&challenged), None, &[], Some(&server(false))),
            strings(&["files:read", "offline_access"])
        );
        // Configured scopes replace the choice; a challenge still adds.
        assert_eq!(
            select_scopes(
                Some(&strings(&["c"])),
                Some(&challenged),
                Some(&supported),
                &[],
                Some(&plain)
            ),
            strings(&["c", "files:read"])
        );
    }

    #[test]
    fn the_request_carries_pkce_state_and_resource() {
        let pending = request(
            &server(true),
            "client",
            "http://127.0.0.1:3000/cb",
            &strings(&["a", "b"]),
            "https://mcp.example.com/mcp",
        )
        .unwrap();
        let query: std::collections::HashMap<_, _> =
            pending.url.query_pairs().into_owned().collect();
        assert_eq!(query["tenant"], "1");
        assert_eq!(query["response_type"], "code");
        assert_eq!(query["code_challenge_method"], "S256");
        assert_eq!(
            query["code_challenge"],
            crate::client::oauth::pkce::challenge(&pending.pkce.verifier)
        );
        assert_eq!(query["state"], pending.state);
        assert_eq!(query["resource"], "https://mcp.example.com/mcp");
        assert_eq!(query["scope"], "a b");
        let none = request(&server(true), "c", "http://127.0.0.1:3000/cb", &[], "r").unwrap();
        assert!(!none.url.query_pairs().any(|(k, _)| k == "scope"));
    }

    fn answer(pending: &Pending, extra: &str) -> Result<String, OAuthError> {
        let back = format!(
            "http://127.0.0.1:3000/cb?code=the-code&state={}{extra}",
            pending.state
        );
        read_response(pending, &Url::parse(&back).unwrap())
    }

    #[test]
    fn the_rfc_9207_table() {
        let issuer = "https%3A%2F%2Fas.example.com";
        for (supported, extra, accepted) in [
            (true, format!("&iss={issuer}"), true),
            (false, String::new(), true),
            (true, String::new(), false),
            (
                true,
                "&iss=https%3A%2F%2Fevil.example.com".to_owned(),
                false,
            ),
            (
                false,
                "&iss=https%3A%2F%2Fevil.example.com".to_owned(),
                false,
            ),
            (false, format!("&iss={issuer}"), true),
            (true, format!("&iss={issuer}%2F"), false),
            (true, "&iss=HTTPS%3A%2F%2Fas.example.com".to_owned(), false),
        ] {
            let pending = request(
                &server(supported),
                "c",
                "http://127.0.0.1:3000/cb",
                &[],
                "r",
            )
            .unwrap();
            let read = answer(&pending, &extra);
            assert_eq!(
                read.is_ok(),
                accepted,
                "supported {supported}, {extra}: {read:?}"
            );
            if !accepted {
                assert!(
                    matches!(read, Err(OAuthError::IssuerParameter { .. })),
                    "{read:?}"
                );
            }
        }
    }

    #[test]
    fn state_error_and_place_are_checked() {
        let pending = request(&server(false), "c", "http://127.0.0.1:3000/cb", &[], "r").unwrap();
        assert_eq!(answer(&pending, "").unwrap(), "the-code");
        let forged = Url::parse("http://127.0.0.1:3000/cb?code=x&state=forged").unwrap();
        assert!(matches!(
            read_response(&pending, &forged),
            Err(OAuthError::StateMismatch)
        ));
        let elsewhere = Url::parse(&format!(
            "http://attacker.example/cb?code=x&state={}",
            pending.state
        ))
        .unwrap();
        assert!(matches!(
            read_response(&pending, &elsewhere),
            Err(OAuthError::Redirect(_))
        ));
        let denied = Url::parse(&format!(
            "http://127.0.0.1:3000/cb?error=access_denied&state={}",
            pending.state
        ))
        .unwrap();
        let error = read_response(&pending, &denied).unwrap_err();
        assert!(error.to_string().contains("access_denied"), "{error}");
        // An error that comes from another issuer is not believed.
        let pending = request(&server(true), "c", "http://127.0.0.1:3000/cb", &[], "r").unwrap();
        let mixed = Url::parse(&format!(
            "http://127.0.0.1:3000/cb?error=access_denied&state={}&iss=https%3A%2F%2Fevil.example.com",
            pending.state
        ))
        .unwrap();
        assert!(matches!(
            read_response(&pending, &mixed),
            Err(OAuthError::IssuerParameter { .. })
        ));
    }
}
