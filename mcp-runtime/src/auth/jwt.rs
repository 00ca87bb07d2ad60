//! JWT access tokens: signature, algorithm, `iss`, `aud`, `exp` and `nbf`,
//! checked with `jsonwebtoken`.

use base64::Engine;
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, Validation};
use serde_json::{Map, Value};

use super::keys::{Jwks, Key, NoKey};
use super::{Identity, Rejection, claims};

/// Where a verifier's keys come from.
pub(crate) enum Keys {
    Static(Key),
    Jwks(Jwks),
}

pub(crate) struct JwtVerifier {
    pub(crate) keys: Keys,
    pub(crate) issuer: String,
    pub(crate) audience: String,
    pub(crate) algorithms: Vec<Algorithm>,
    pub(crate) leeway_secs: u64,
}

impl JwtVerifier {
    pub(crate) async fn verify(&self, token: &str) -> Result<Identity, Rejection> {
        let algorithm = algorithm_of(token)?;
        if !self.algorithms.contains(&algorithm) {
            return Err(Rejection::invalid(format!(
                "tokens signed with {algorithm:?} are not accepted"
            )));
        }
        let header = jsonwebtoken::decode_header(token)
            .map_err(|_| Rejection::invalid("the token's header is malformed"))?;
        let keys = match &self.keys {
            Keys::Static(key) => vec![key.clone()],
            Keys::Jwks(jwks) => match jwks.keys_for(header.kid.as_deref()).await {
                Ok(keys) => keys,
                Err(NoKey::Unknown) => {
                    return Err(Rejection::invalid(
                        "the token is signed with a key the authorization server does not publish",
                    ));
                }
                Err(NoKey::Unavailable(error)) => return Err(Rejection::Unavailable(error.0)),
            },
        };
        let mut validation = Validation::new(algorithm);
        validation.set_issuer(&[&self.issuer]);
        validation.set_audience(&[&self.audience]);
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        validation.validate_nbf = true;
        validation.leeway = self.leeway_secs;
        let mut last = Rejection::invalid("no key of the authorization server verifies the token");
        for key in keys
            .iter()
            .filter(|k| k.algorithm.is_none_or(|a| a == algorithm))
        {
            match jsonwebtoken::decode::<Map<String, Value>>(token, &key.key, &validation) {
                Ok(data) => return claims::identity(data.claims),
                Err(error) => {
                    last = rejection(error.kind());
                    if !matches!(
                        error.kind(),
                        ErrorKind::InvalidSignature | ErrorKind::InvalidKeyFormat
                    ) {
                        // The signature held: the claims are what failed,
                        // and another key would not change that.
                        break;
                    }
                }
            }
        }
        Err(last)
    }
}

/// The token's `alg`, read before anything else so that `none` and
/// unknown algorithms get a clear refusal.
fn algorithm_of(token: &str) -> Result<Algorithm, Rejection> {
    let malformed = || Rejection::invalid("the token is not a well-formed JWT");
    let header = token.split('.').next().ok_or_else(malformed)?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(header.trim_end_matches('='))
        .map_err(|_| malformed())?;
    let header: Map<String, Value> = serde_json::from_slice(&bytes).map_err(|_| malformed())?;
    let name = header
        .get("alg")
        .and_then(Value::as_str)
        .ok_or_else(malformed)?;
    if name.eq_ignore_ascii_case("none") {
        return Err(Rejection::invalid(
            "unsigned tokens (alg none) are not accepted",
        ));
    }
    name.parse()
        .map_err(|_| Rejection::invalid(format!("the signing algorithm {name:?} is not supported")))
}

fn rejection(kind: &ErrorKind) -> Rejection {
    Rejection::invalid(match kind {
        ErrorKind::ExpiredSignature => "the token has expired".to_owned(),
        ErrorKind::ImmatureSignature => "the token is not valid yet (nbf)".to_owned(),
        ErrorKind::InvalidAudience => {
            "the token was issued for another resource (aud does not name this server)".to_owned()
        }
        ErrorKind::InvalidIssuer => "the token was issued by an untrusted issuer (iss)".to_owned(),
        ErrorKind::InvalidSignature => "the token's signature is invalid".to_owned(),
        ErrorKind::MissingRequiredClaim(claim) => format!("the token has no `{claim}` claim"),
        ErrorKind::InvalidAlgorithm => "the token's algorithm does not match its key".to_owned(),
        _ => "the token is invalid".to_owned(),
    })
}

/// The algorithm names of [`Auth::algorithms`](super::Auth::algorithms),
/// parsed; `none` and unknown names are start-up errors.
pub(crate) fn parse_algorithms(names: &[String]) -> Result<Vec<Algorithm>, String> {
    names
        .iter()
        .map(|name| {
            if name.eq_ignore_ascii_case("none") {
                return Err("the JWT algorithm `none` cannot be accepted".to_owned());
            }
            name.parse::<Algorithm>().map_err(|_| {
                format!(
                    "unknown JWT algorithm {name:?}; expected one of RS256, RS384, RS512, PS256, \
                     PS384, PS512, ES256, ES384, EdDSA, HS256, HS384, HS512"
                )
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encoded(json: &str) -> String {
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(json)
    }

    #[test]
    fn alg_none_is_refused_by_name() {
        let token = format!("{}.{}.", encoded(r#"{"alg":"none"}"#), encoded("{}"));
        let Err(Rejection::Invalid(why)) = algorithm_of(&token) else {
            panic!("accepted")
        };
        assert!(why.contains("alg none"), "{why}");
        let token = format!("{}.{}.", encoded(r#"{"alg":"XY1"}"#), encoded("{}"));
        let Err(Rejection::Invalid(why)) = algorithm_of(&token) else {
            panic!("accepted")
        };
        assert!(why.contains("XY1"), "{why}");
        assert!(algorithm_of("not a token").is_err());
    }

    #[test]
    fn algorithm_lists_refuse_none_and_unknown_names() {
        assert!(parse_algorithms(&["RS256".into(), "ES256".into()]).is_ok());
        assert!(
            parse_algorithms(&["none".into()])
                .unwrap_err()
                .contains("`none`")
        );
        assert!(
            parse_algorithms(&["RS999".into()])
                .unwrap_err()
                .contains("RS999")
        );
    }
}
