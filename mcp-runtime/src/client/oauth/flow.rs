//! The flow: from a server's challenge to a token it accepts. Discovery,
//! registration, then a stored token, a refresh, or a new authorization;
//! one at a time for all the clones of an [`OAuth`](super::OAuth).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use url::Url;

use super::OAuthError;
use super::authorization::{self, select_scopes};
use super::challenge::BearerChallenge;
use super::discovery::{self, ServerMetadata};
use super::registration::{self, Registration};
use super::settings::{Config, Grant};
use super::store::{StoredToken, TokenKey};
use super::token;
use crate::auth::fetch::Fetcher;

/// How long before its expiry a token is refreshed.
const REFRESH_MARGIN: Duration = Duration::from_secs(30);

/// What the clones of one [`OAuth`](super::OAuth) share.
#[derive(Default)]
pub(crate) struct Shared {
    /// The token sent to each server (by its URL), with what it is bound to.
    current: Mutex<HashMap<String, Arc<Current>>>,
    /// Held while a token is obtained: one authorization at a time.
    flow: tokio::sync::Mutex<Registrations>,
}

/// A token in use, and where it came from.
pub(crate) struct Current {
    pub(crate) key: TokenKey,
    pub(crate) token: StoredToken,
    server: ServerMetadata,
    registration: Registration,
}

/// The client's registrations, per authorization server issuer: one
/// server never sees another's credentials.
#[derive(Default)]
pub(crate) struct Registrations {
    by_issuer: HashMap<String, Registration>,
    /// The issuer the pre-registered client id was first used with.
    pre_registered_at: Option<String>,
}

impl Shared {
    fn current_map(&self) -> MutexGuard<'_, HashMap<String, Arc<Current>>> {
        self.current.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn current(&self, server: &Url) -> Option<Arc<Current>> {
        self.current_map().get(server.as_str()).cloned()
    }

    fn set_current(&self, server: &Url, current: Current) {
        self.current_map()
            .insert(server.as_str().to_owned(), Arc::new(current));
    }

    /// Locks the flow: one token obtained at a time.
    pub(crate) async fn lock(&self) -> tokio::sync::MutexGuard<'_, Registrations> {
        self.flow.lock().await
    }
}

fn fetcher(config: &Config) -> Result<Fetcher, OAuthError> {
    Fetcher::new(config.allow_insecure_http).map_err(|e| OAuthError::Discovery(e.0))
}

impl Shared {
    /// The current token for `server`, refreshed first when it is about to
    /// expire and can be; `None` when no token is held.
    pub(crate) async fn fresh_token(&self, config: &Config, server: &Url) -> Option<String> {
        let current = self.current(server)?;
        if !current.token.expires_within(REFRESH_MARGIN) || current.token.refresh_token.is_none() {
            return Some(current.token.access_token.clone());
        }
        let _one = self.lock().await;
        // Another request may have refreshed it meanwhile.
        let current = self.current(server)?;
        if !current.token.expires_within(REFRESH_MARGIN) {
            return Some(current.token.access_token.clone());
        }
        match self.refresh(config, server, &current).await {
            Ok(token) => Some(token),
            Err(error) => {
                // The expired token goes; the 401 it earns starts over.
                tracing::debug!(%error, "refreshing the access token failed");
                Some(current.token.access_token.clone())
            }
        }
    }

    /// Refreshes `current`; the new access token.
    async fn refresh(
        &self,
        config: &Config,
        server: &Url,
        current: &Current,
    ) -> Result<String, OAuthError> {
        let refresh_token = current
            .token
            .refresh_token
            .clone()
            .ok_or_else(|| OAuthError::Token("no refresh token".into()))?;
        let fetcher = fetcher(config)?;
        let mut token = token::request(
            &fetcher,
            config,
            &current.server,
            &current.registration,
            token::Grant::refresh(
                refresh_token.clone(),
                &current.key.resource,
                &current.token.scopes,
            ),
        )
        .await?;
        // A server that does not rotate refresh tokens keeps the old one.
        token.refresh_token.get_or_insert(refresh_token);
        self.keep(
            config,
            server,
            &current.key,
            &current.server,
            &current.registration,
            token.clone(),
        )?;
        tracing::debug!(issuer = current.key.issuer, "refreshed the access token");
        Ok(token.access_token)
    }

    fn keep(
        &self,
        config: &Config,
        server: &Url,
        key: &TokenKey,
        metadata: &ServerMetadata,
        registration: &Registration,
        token: StoredToken,
    ) -> Result<(), OAuthError> {
        config.store.save(key, &token)?;
        self.set_current(
            server,
            Current {
                key: key.clone(),
                token,
                server: metadata.clone(),
                registration: registration.clone(),
            },
        );
        Ok(())
    }

    /// Obtains a token for `server` after it refused `sent` with
    /// `challenge` (`step_up`: a 403 `insufficient_scope`). The caller
    /// holds the flow lock (`registrations`).
    pub(crate) async fn obtain(
        &self,
        config: &Config,
        registrations: &mut Registrations,
        server: &Url,
        challenge: &BearerChallenge,
        step_up: bool,
        sent: Option<&str>,
    ) -> Result<(), OAuthError> {
        let fetcher = fetcher(config)?;
        // Fetched again on every refusal: the resource may have moved to
        // another authorization server.
        let resource =
            discovery::protected_resource(&fetcher, server, challenge.resource_metadata.as_deref())
                .await?;
        let issuer = &resource.authorization_servers[0];
        let metadata = discovery::authorization_server(&fetcher, issuer).await?;
        let authorizer = match &config.grant {
            Grant::AuthorizationCode(authorizer) => Some(Arc::clone(authorizer)),
            _ => None,
        };
        let redirect_uri = authorizer.as_ref().map(|a| a.redirect_uri());
        let registration = self
            .registration(
                config,
                registrations,
                &fetcher,
                &metadata,
                redirect_uri.as_deref(),
            )
            .await?;
        let key = TokenKey {
            issuer: metadata.issuer.clone(),
            resource: resource.resource.clone(),
            client_id: registration.client_id.clone(),
        };
        let held = self.current(server).filter(|c| c.key == key);
        let stored = config.store.load(&key)?;
        let granted = held
            .as_ref()
            .map(|c| c.token.scopes.clone())
            .or_else(|| stored.as_ref().map(|s| s.scopes.clone()))
            .unwrap_or_default();
        if !step_up && let Some(stored) = stored {
            // A token kept from before (another run, another session), or
            // a refresh of it.
            if Some(stored.access_token.as_str()) != sent && !stored.expires_within(REFRESH_MARGIN)
            {
                tracing::debug!(issuer = key.issuer, "using a stored access token");
                return self.keep(config, server, &key, &metadata, &registration, stored);
            }
            if stored.refresh_token.is_some() {
                let current = Current {
                    key: key.clone(),
                    token: stored,
                    server: metadata.clone(),
                    registration: registration.clone(),
                };
                match self.refresh(config, server, &current).await {
                    Ok(_) => return Ok(()),
                    Err(error) => tracing::debug!(%error, "refreshing the access token failed"),
                }
            }
            config.store.remove(&key)?;
        }
        let offered = authorizer.is_some().then_some(&metadata);
        let scopes = select_scopes(
            config.scopes.as_deref(),
            challenge.scope.as_deref(),
            resource.scopes_supported.as_deref(),
            &granted,
            offered,
        );
        let token = match (&authorizer, redirect_uri, &config.grant) {
            (Some(authorizer), Some(redirect_uri), _) => {
                let pending = authorization::request(
                    &metadata,
                    &registration.client_id,
                    &redirect_uri,
                    &scopes,
                    &key.resource,
                )?;
                tracing::info!(
                    issuer = key.issuer,
                    resource = key.resource,
                    scopes = scopes.join(" "),
                    "authorizing"
                );
                let back = authorizer.authorize(pending.url.clone()).await?;
                let code = authorization::read_response(&pending, &back)?;
                let grant = token::Grant::code(
                    code,
                    pending.pkce.verifier,
                    pending.redirect_uri,
                    &key.resource,
                    &scopes,
                );
                token::request(&fetcher, config, &metadata, &registration, grant).await?
            }
            (_, _, Grant::JwtBearer(assertion)) => {
                tracing::info!(
                    issuer = key.issuer,
                    resource = key.resource,
                    "requesting a token with a JWT assertion"
                );
                let assertion = assertion().map_err(|e| {
                    OAuthError::Authorizer(format!("cannot obtain the JWT assertion: {e}"))
                })?;
                let grant = token::Grant::jwt_bearer(assertion, &key.resource, &scopes);
                token::request(&fetcher, config, &metadata, &registration, grant).await?
            }
            _ => {
                tracing::info!(
                    issuer = key.issuer,
                    resource = key.resource,
                    "requesting a token with client credentials"
                );
                let grant = token::Grant::client_credentials(&key.resource, &scopes);
                token::request(&fetcher, config, &metadata, &registration, grant).await?
            }
        };
        self.keep(config, server, &key, &metadata, &registration, token)
    }

    /// The client's registration at `metadata`'s server, made once.
    async fn registration(
        &self,
        config: &Config,
        registrations: &mut Registrations,
        fetcher: &Fetcher,
        metadata: &ServerMetadata,
        redirect_uri: Option<&str>,
    ) -> Result<Registration, OAuthError> {
        if let Some(known) = registrations.by_issuer.get(&metadata.issuer) {
            return Ok(known.clone());
        }
        let pre_registered = registrations
            .pre_registered_at
            .as_ref()
            .is_none_or(|issuer| issuer == &metadata.issuer);
        let registration =
            registration::register(fetcher, config, metadata, redirect_uri, pre_registered).await?;
        if registration.source == registration::Source::PreRegistered {
            registrations.pre_registered_at = Some(metadata.issuer.clone());
        }
        tracing::debug!(issuer = metadata.issuer, ?registration.source, client_id = registration.client_id, "registered");
        registrations
            .by_issuer
            .insert(metadata.issuer.clone(), registration.clone());
        Ok(registration)
    }
}
