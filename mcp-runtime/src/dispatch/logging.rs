//! `logging/setLevel` (legacy sessions): the level of the log messages a
//! session receives. (A 2026-07-28 request names its level in `_meta`.)

use std::sync::atomic::Ordering;

use serde_json::{Map, Value};

use crate::context::{LogLevel, SessionChange, SessionShared};
use crate::jsonrpc::{ErrorObject, INVALID_PARAMS};

/// `logging/setLevel` of `session`.
pub(super) fn set_level(
    params: &Map<String, Value>,
    session: &SessionShared,
) -> Result<(), ErrorObject> {
    let name = params
        .get("level")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let level = LogLevel::parse(name).ok_or_else(|| {
        ErrorObject::new(
            INVALID_PARAMS,
            format!("unknown log level {name:?}; expected one of debug, info, notice, warning, error, critical, alert, emergency"),
        )
    })?;
    session.log_level.store(level as u8, Ordering::Relaxed);
    session.changed(SessionChange::LogLevel(level as u8));
    Ok(())
}
