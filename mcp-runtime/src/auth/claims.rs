//! A token's claims (or an introspection answer) as an [`Identity`].

use serde_json::{Map, Value};

use super::{Identity, Rejection};

/// The caller the claims describe: `sub` (or, for a token a client got
/// for itself, `client_id`), the scopes of `scope` (space-separated, RFC
/// 8693) or `scp` (a list, as some providers write it), and `client_id`
/// (or `azp`).
pub(crate) fn identity(claims: Map<String, Value>) -> Result<Identity, Rejection> {
    let text = |key: &str| claims.get(key).and_then(Value::as_str).map(str::to_owned);
    let client_id = text("client_id").or_else(|| text("azp"));
    let Some(subject) = text("sub").or_else(|| client_id.clone()) else {
        return Err(Rejection::invalid("the token names no subject (sub)"));
    };
    let scopes: Vec<String> = match claims.get("scope").or_else(|| claims.get("scp")) {
        Some(Value::String(list)) => list.split_whitespace().map(str::to_owned).collect(),
        Some(Value::Array(list)) => list
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    };
    let mut identity = Identity::new(subject).with_scopes(scopes);
    if let Some(client_id) = client_id {
        identity = identity.with_client_id(client_id);
    }
    Ok(identity.with_claims(claims))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn of(value: Value) -> Result<Identity, Rejection> {
        identity(value.as_object().unwrap().clone())
    }

    #[test]
    fn subject_scopes_and_client() {
        let who = of(json!({"sub": "alice", "scope": "a b  c", "client_id": "app"})).unwrap();
        assert_eq!(who.subject(), "alice");
        assert_eq!(who.scopes(), ["a", "b", "c"]);
        assert_eq!(who.client_id(), Some("app"));
        assert_eq!(who.claim("sub"), Some(&json!("alice")));
        let who = of(json!({"client_id": "machine", "scp": ["x"]})).unwrap();
        assert_eq!(
            (who.subject(), who.scopes()),
            ("machine", &["x".to_owned()][..])
        );
        assert!(of(json!({"scope": "a"})).is_err());
    }
}
