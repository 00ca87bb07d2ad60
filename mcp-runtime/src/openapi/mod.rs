//! OpenAPI 3.0 and 3.1 documents served as tools (feature `openapi`).
//!
//! (Being built for issue 31: the module docs come with the builder.)

// Until the conversion and the call use the plan (issue 31 in progress).
#[allow(dead_code)]
pub(crate) mod plan;
// Until the conversion's tools call it (issue 31 in progress).
#[allow(dead_code)]
pub(crate) mod call;
#[cfg(all(test, feature = "http"))]
mod call_tests;
mod request;
mod response;
mod styles;
#[cfg(test)]
mod test_plan;
