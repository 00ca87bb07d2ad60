//! The flow: from a server's challenge to a token it accepts. Discovery,
//! registration, then a stored token, a refresh, or a new authorization;
//! one at a time for all the clones of an [`OAuth`](super::OAuth).

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use url::Url;

use super::OAuthError;
use super::authorization::{self, select_scopes};
use super::challenge::BearerChallenge;
use super::discovery::{self, ServerMetadata};
use super::registration::{self, Registration};
use super::settings::{Config, Grant};
use super::store::{RegistrationKey, StoredToken, TokenKey};
use super::token;
use crate::auth::fetch::Fetcher;

/// How long before its expiry a token is refreshed.
const REFRESH_MARGIN: Duration = Duration::from_secs(30);

/// What the clones of one [`OAuth`](super::OAuth) share.
#[derive(Default)]
pub(crate) struct Shared {
    /// The token sent to each server (by its URL), with what it is bound to.
    current: Mutex<HashMap<String, Arc<Current>>>,
    /// The servers whose last used token was looked for in the store.
    looked_up: Mutex<HashSet<String>>,
    /// Held while a token is obtained: one authorization at a time.
    flow: tokio::sync::Mutex<Registrations>,
    /// The nonces servers gave for DPoP proofs, by origin.
    pub(crate) nonces: token::Nonces,
    /// The DPoP key, made when first needed.
    #[cfg(feature = "client-jwt")]
    dpop_key: Mutex<Option<Arc<super::dpop::DpopKey>>>,
}

/// A token in use, and where it came from.
pub(crate) struct Current {
    pub(crate) key: TokenKey,
    pub(crate) token: StoredToken,
    /// Its authorization server and the client's registration there:
    /// `None` for a token taken from the store before the server asked
    /// for one (it cannot be refreshed before the discovery a 401 starts).
    discovered: Option<Discovered>,
    /// Makes the DPoP proofs of a DPoP-bound token.
    pub(crate) proofs: Option<Arc<token::ProofFn>>,
}

/// Where a token came from: what refreshing it needs.
struct Discovered {
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
    pub(crate) async fn fresh(&self, config: &Config, server: &Url) -> Option<Arc<Current>> {
        let current = match self.current(server) {
            Some(current) => current,
            None => self.last_used(config, server)?,
        };
        if !current.token.expires_within(REFRESH_MARGIN) || current.token.refresh_token.is_none() {
            return Some(current);
        }
        // Not refreshable before discovery: nothing is sent, and the 401
        // discovers.
        current.discovered.as_ref()?;
        let _one = self.lock().await;
        // Another request may have refreshed it meanwhile.
        let current = self.current(server)?;
        if !current.token.expires_within(REFRESH_MARGIN) {
            return Some(current);
        }
        match self.refresh(config, server, &current).await {
            Ok(()) => self.current(server),
            Err(error) => {
                // The expired token goes; the 401 it earns starts over.
                tracing::debug!(%error, "refreshing the access token failed");
                Some(current)
            }
        }
    }

    /// The token the store says was used last with `server` (looked for
    /// once per server), if it is still valid, is a bearer token and was
    /// issued for this server: sent with the first request, before the
    /// server's 401 names its authorization server.
    fn last_used(&self, config: &Config, server: &Url) -> Option<Arc<Current>> {
        let first = self
            .looked_up
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(server.as_str().to_owned());
        if !first {
            return None;
        }
        let key = match config.store.load_last_used(server.as_str()) {
            Ok(key) => key?,
            Err(error) => {
                tracing::debug!(%error, "reading the token store failed");
                return None;
            }
        };
        let issued_for = Url::parse(&key.resource).ok()?;
        if !discovery::covers(&issued_for, server) {
            return None;
        }
        let token = config.store.load(&key).ok()??;
        if token.expires_within(REFRESH_MARGIN) || !token.token_type.eq_ignore_ascii_case("bearer")
        {
            return None;
        }
        tracing::debug!(
            issuer = key.issuer,
            "sending the access token stored for this server"
        );
        let current = Current {
            key,
            token,
            discovered: None,
            proofs: None,
        };
        let mut map = self.current_map();
        Some(Arc::clone(
            map.entry(server.as_str().to_owned())
                .or_insert_with(|| Arc::new(current)),
        ))
    }

    /// The DPoP proofs for tokens from `metadata`'s server: when DPoP is
    /// on and the server takes ES256 proofs.
    #[cfg(feature = "client-jwt")]
    fn proofs(
        &self,
        config: &Config,
        metadata: &ServerMetadata,
    ) -> Result<Option<Arc<token::ProofFn>>, OAuthError> {
        if !config.dpop || !metadata.dpop_algorithms.iter().any(|a| a == "ES256") {
            return Ok(None);
        }
        let key = {
            let mut slot = self.dpop_key.lock().unwrap_or_else(|e| e.into_inner());
            match &*slot {
                Some(key) => Arc::clone(key),
                None => Arc::clone(slot.insert(Arc::new(super::dpop::DpopKey::generate()?))),
            }
        };
        Ok(Some(Arc::new(
            move |method: &str, url: &Url, token: Option<&str>, nonce: Option<&str>| {
                key.proof(method, url, token, nonce)
            },
        )))
    }

    #[cfg(not(feature = "client-jwt"))]
    fn proofs(
        &self,
        _: &Config,
        _: &ServerMetadata,
    ) -> Result<Option<Arc<token::ProofFn>>, OAuthError> {
        Ok(None)
    }

    fn dpop<'a>(&'a self, proofs: Option<&'a Arc<token::ProofFn>>) -> Option<token::Dpop<'a>> {
        proofs.map(|proof| token::Dpop {
            proof: &**proof,
            nonces: &self.nonces,
        })
    }

    /// Refreshes `current` (with a DPoP proof when it is DPoP-bound).
    async fn refresh(
        &self,
        config: &Config,
        server: &Url,
        current: &Current,
    ) -> Result<(), OAuthError> {
        let discovered = current
            .discovered
            .as_ref()
            .ok_or_else(|| OAuthError::Token("the token's issuer is not discovered yet".into()))?;
        let refresh_token = current
            .token
            .refresh_token
            .clone()
            .ok_or_else(|| OAuthError::Token("no refresh token".into()))?;
        let fetcher = fetcher(config)?;
        let mut token = token::request(
            &fetcher,
            config,
            &discovered.server,
            &discovered.registration,
            token::Grant::refresh(
                refresh_token.clone(),
                &current.key.resource,
                &current.token.scopes,
            ),
            self.dpop(current.proofs.as_ref()).as_ref(),
        )
        .await?;
        // A server that does not rotate refresh tokens keeps the old one.
        token.refresh_token.get_or_insert(refresh_token);
        self.keep(
            config,
            server,
            &current.key,
            &discovered.server,
            &discovered.registration,
            token,
            current.proofs.clone(),
        )?;
        tracing::debug!(issuer = current.key.issuer, "refreshed the access token");
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn keep(
        &self,
        config: &Config,
        server: &Url,
        key: &TokenKey,
        metadata: &ServerMetadata,
        registration: &Registration,
        token: StoredToken,
        proofs: Option<Arc<token::ProofFn>>,
    ) -> Result<(), OAuthError> {
        config.store.save(key, &token)?;
        if self
            .current(server)
            .is_none_or(|current| &current.key != key)
        {
            config.store.save_last_used(server.as_str(), key)?;
        }
        self.set_current(
            server,
            Current {
                key: key.clone(),
                token,
                discovered: Some(Discovered {
                    server: metadata.clone(),
                    registration: registration.clone(),
                }),
                proofs,
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
        let mut registration = self
            .registration(
                config,
                registrations,
                &fetcher,
                &metadata,
                redirect_uri.as_deref(),
            )
            .await?;
        let mut key = TokenKey {
            issuer: metadata.issuer.clone(),
            resource: resource.resource.clone(),
            client_id: registration.client_id.clone(),
        };
        let proofs = self.proofs(config, &metadata)?;
        let held = self.current(server).filter(|c| c.key == key);
        let stored = config.store.load(&key)?;
        let granted = held
            .as_ref()
            .map(|c| c.token.scopes.clone())
            .or_else(|| stored.as_ref().map(|s| s.scopes.clone()))
            .unwrap_or_default();
        let mut unknown_client = false;
        if !step_up && let Some(stored) = stored {
            // A token kept from before (another run, another session), or
            // a refresh of it.
            if Some(stored.access_token.as_str()) != sent && !stored.expires_within(REFRESH_MARGIN)
            {
                tracing::debug!(issuer = key.issuer, "using a stored access token");
                return self.keep(
                    config,
                    server,
                    &key,
                    &metadata,
                    &registration,
                    stored,
                    proofs,
                );
            }
            if stored.refresh_token.is_some() {
                let current = Current {
                    key: key.clone(),
                    token: stored,
                    discovered: Some(Discovered {
                        server: metadata.clone(),
                        registration: registration.clone(),
                    }),
                    proofs: proofs.clone(),
                };
                match self.refresh(config, server, &current).await {
                    Ok(_) => return Ok(()),
                    Err(error) => {
                        tracing::debug!(%error, "refreshing the access token failed");
                        // The server no longer knows the client (a
                        // registration kept from another run).
                        unknown_client = token::is_invalid_client(&error);
                    }
                }
            }
            config.store.remove(&key)?;
        }
        // A registration kept from another run, for another redirect URI:
        // good for its tokens, not for sending the user with this one; nor
        // one the server no longer knows.
        if registration.source == registration::Source::Dynamic
            && redirect_uri.is_some()
            && (unknown_client || registration.redirect_uri != redirect_uri)
        {
            registration = self
                .register_dynamically(
                    config,
                    registrations,
                    &fetcher,
                    &metadata,
                    redirect_uri.as_deref(),
                )
                .await?;
            key.client_id = registration.client_id.clone();
        }
        let offered = authorizer.is_some().then_some(&metadata);
        let scopes = select_scopes(
            config.scopes.as_deref(),
            challenge.scope.as_deref(),
            resource.scopes_supported.as_deref(),
            &granted,
            offered,
        );
        let dpop = self.dpop(proofs.as_ref());
        let grant = match (&authorizer, redirect_uri, &config.grant) {
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
                token::Grant::code(
                    code,
                    pending.pkce.verifier,
                    pending.redirect_uri,
                    &key.resource,
                    &scopes,
                )
            }
            (_, _, Grant::JwtBearer(assertion)) => {
                tracing::info!(
                    issuer = key.issuer,
                    resource = key.resource,
                    "requesting a token with a JWT assertion"
                );
                let assertion = assertion(super::AssertionRequest {
                    issuer: key.issuer.clone(),
                    resource: key.resource.clone(),
                    scopes: scopes.clone(),
                })
                .await?;
                token::Grant::jwt_bearer(assertion, &key.resource, &scopes)
            }
            _ => {
                tracing::info!(
                    issuer = key.issuer,
                    resource = key.resource,
                    "requesting a token with client credentials"
                );
                token::Grant::client_credentials(&key.resource, &scopes)
            }
        };
        let token = token::request(
            &fetcher,
            config,
            &metadata,
            &registration,
            grant,
            dpop.as_ref(),
        )
        .await?;
        self.keep(
            config,
            server,
            &key,
            &metadata,
            &registration,
            token,
            proofs,
        )
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
        if let Some(registration) = registration::configured(config, metadata, pre_registered)? {
            if registration.source == registration::Source::PreRegistered {
                registrations.pre_registered_at = Some(metadata.issuer.clone());
            }
            tracing::debug!(issuer = metadata.issuer, ?registration.source, client_id = registration.client_id, "registered");
            registrations
                .by_issuer
                .insert(metadata.issuer.clone(), registration.clone());
            return Ok(registration);
        }
        let kept = config
            .store
            .load_registration(&registration_key(config, metadata))?
            .and_then(Registration::from_stored);
        if let Some(registration) = kept {
            tracing::debug!(
                issuer = metadata.issuer,
                client_id = registration.client_id,
                "using the client registration kept in the token store"
            );
            registrations
                .by_issuer
                .insert(metadata.issuer.clone(), registration.clone());
            return Ok(registration);
        }
        self.register_dynamically(config, registrations, fetcher, metadata, redirect_uri)
            .await
    }

    /// Registers the client at `metadata`'s server (RFC 7591) and keeps
    /// the registration, in memory and in the store.
    async fn register_dynamically(
        &self,
        config: &Config,
        registrations: &mut Registrations,
        fetcher: &Fetcher,
        metadata: &ServerMetadata,
        redirect_uri: Option<&str>,
    ) -> Result<Registration, OAuthError> {
        let registration = registration::dynamic(fetcher, config, metadata, redirect_uri).await?;
        tracing::debug!(
            issuer = metadata.issuer,
            client_id = registration.client_id,
            "registered dynamically"
        );
        config.store.save_registration(
            &registration_key(config, metadata),
            &registration.to_stored(),
        )?;
        registrations
            .by_issuer
            .insert(metadata.issuer.clone(), registration.clone());
        Ok(registration)
    }
}

/// What the client's dynamic registration at `metadata`'s server is kept
/// under.
fn registration_key(config: &Config, metadata: &ServerMetadata) -> RegistrationKey {
    RegistrationKey::new(metadata.issuer.clone(), config.client_name.clone())
}
