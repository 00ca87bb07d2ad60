//! The client's roots (`roots/list`): the directories or other places the
//! user opened, asked for by a tool with [`Context::roots`] and kept per
//! session until the client says they changed.

use crate::asking::ask::{ClientRequestError, Root};
use crate::context::Context;

impl Context {
    /// The client's roots (`roots/list`): asked once per session, then kept
    /// until the client sends `notifications/roots/list_changed`. Fails as
    /// [`Context::send_request`] does; a client that did not declare the
    /// `roots` capability gets [`ClientRequestError::NotSupported`].
    pub async fn roots(&self) -> Result<Vec<Root>, ClientRequestError> {
        if let Some(session) = self.session()
            && let Some(roots) = session.roots.lock().ok().and_then(|r| r.clone())
        {
            return Ok(roots);
        }
        let answer = self
            .send_request("roots/list", serde_json::json!({}))
            .await?;
        let roots: Vec<Root> = answer
            .get("roots")
            .cloned()
            .and_then(|roots| serde_json::from_value(roots).ok())
            .ok_or_else(|| ClientRequestError::Rejected {
                code: crate::jsonrpc::INVALID_PARAMS,
                message: "the client's answer to roots/list has no `roots` list of {uri, name}"
                    .into(),
                data: Some(answer.clone()),
            })?;
        if let Some(session) = self.session()
            && let Ok(mut kept) = session.roots.lock()
        {
            *kept = Some(roots.clone());
        }
        Ok(roots)
    }
}
