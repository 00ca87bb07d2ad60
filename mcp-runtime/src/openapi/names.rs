//! Tool names from operations: the `operationId` (or `method_path` when
//! there is none) with every character outside `[A-Za-z0-9_.-]` replaced
//! by `_`; a name over 64 characters keeps its first 55, then `_` and 8 hex
//! digits of the SHA-256 of the whole name, so that it stays stable and
//! two long names with one beginning stay apart.

use sha2::{Digest, Sha256};

/// The longest tool name clients accept.
const MAX: usize = 64;

/// The tool name of an operation (`prefix` already joined in).
pub(crate) fn tool_name(
    prefix: Option<&str>,
    operation_id: Option<&str>,
    method: &str,
    path: &str,
) -> String {
    let base = match operation_id {
        Some(id) => id.to_owned(),
        None => format!(
            "{}_{}",
            method.to_ascii_lowercase(),
            path.trim_matches('/')
                .replace(['{', '}'], "")
                .replace('/', "_")
        ),
    };
    let joined = match prefix {
        Some(prefix) => format!("{prefix}_{base}"),
        None => base,
    };
    fit(&sanitize(&joined))
}

/// Every character outside `[A-Za-z0-9_.-]` as `_`.
pub(crate) fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// `name` cut to 64 characters with a hash of the whole (ASCII only, as
/// `sanitize` leaves it).
fn fit(name: &str) -> String {
    if name.is_empty() {
        return "operation".into();
    }
    if name.len() <= MAX {
        return name.to_owned();
    }
    let digest = Sha256::digest(name.as_bytes());
    let hex: String = digest[..4].iter().map(|b| format!("{b:02x}")).collect();
    format!("{}_{hex}", &name[..55])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_operation_id_or_the_method_and_path() {
        assert_eq!(tool_name(None, Some("repos/get"), "GET", "/x"), "repos_get");
        assert_eq!(
            tool_name(None, None, "GET", "/pets/{petId}"),
            "get_pets_petId"
        );
        assert_eq!(tool_name(None, None, "GET", "/"), "get_");
        assert_eq!(
            tool_name(Some("gh"), Some("issues/list"), "GET", "/x"),
            "gh_issues_list"
        );
        assert_eq!(
            tool_name(None, Some("ünïcode id"), "GET", "/x"),
            "_n_code_id"
        );
    }

    #[test]
    fn long_names_keep_a_stable_hash_of_the_whole() {
        let a = format!("{}-definition", "x".repeat(60));
        let b = format!("{}-definitions", "x".repeat(60));
        let (na, nb) = (
            tool_name(None, Some(&a), "GET", "/"),
            tool_name(None, Some(&b), "GET", "/"),
        );
        assert_eq!(na.len(), 64);
        assert_eq!(nb.len(), 64);
        assert_ne!(na, nb);
        assert_eq!(&na[..56], &format!("{}_", "x".repeat(55)));
        assert_eq!(na, tool_name(None, Some(&a), "GET", "/"));
    }
}
