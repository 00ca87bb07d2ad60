//! Placeholder until branch oa-wire's call lands (the lead takes that
//! file at merge): the signature the conversion calls.

use super::plan::CallPlan;

/// Makes the HTTP request `plan` describes with `arguments`.
pub(crate) async fn call(plan: &CallPlan, arguments: serde_json::Value) -> crate::CallToolResult {
    let _ = (plan, arguments);
    crate::CallToolResult::error("not built yet")
}
