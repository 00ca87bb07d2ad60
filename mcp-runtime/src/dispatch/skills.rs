//! `skills/list` and `skills/get` (feature `skills`): the entries of the
//! skills a server serves, from the catalog built at start-up (the list
//! paged like the others). Both eras and the layered path answer them here;
//! the 2026-07-28 tail (cache hint) is added by the caller.

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::live::Snapshot;
use crate::jsonrpc::{ErrorObject, INVALID_PARAMS};
use crate::protocol::version::ProtocolVersion;

/// The result of `method` (`skills/list` or `skills/get`) with `params`.
pub(super) fn answer(
    snapshot: &Snapshot,
    method: &str,
    params: &Map<String, Value>,
    version: ProtocolVersion,
) -> Result<Box<RawValue>, ErrorObject> {
    if method == "skills/list" {
        return Ok(snapshot
            .skills_page(params.get("cursor"), version)?
            .to_owned());
    }
    let Some(uri) = params.get("uri").and_then(Value::as_str) else {
        return Err(ErrorObject::new(
            INVALID_PARAMS,
            "skills/get needs `uri`, the URI of a skill's SKILL.md (see skills/list)",
        ));
    };
    let Some(entry) = snapshot.registry.skills.get(uri) else {
        return Err(ErrorObject::new(
            INVALID_PARAMS,
            format!("No skill is served at {uri} (see skills/list)"),
        ));
    };
    let result = serde_json::json!({ "skill": entry });
    serde_json::value::to_raw_value(&result).map_err(|error| {
        ErrorObject::new(
            crate::jsonrpc::INTERNAL_ERROR,
            format!("the skill could not be serialized: {error}"),
        )
    })
}
