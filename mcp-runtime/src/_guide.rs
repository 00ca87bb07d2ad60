//! The guide: how to write, serve, secure, observe and test an MCP server
//! with this crate, one chapter per module.
//!
//! These modules hold documentation only, no items. Their text lives in
//! `mcp-runtime/guide/*.md`; their Rust examples are compiled (and, where
//! they do not serve, run) by `cargo test --doc`.
//!
//! Writing a server:
//!
//! 1. [The command line](command_line): what `Server::run()` gives every
//!    binary, and the crate's cargo features.
//! 2. [What it serves](serves): each protocol version, what it gets.
//! 3. [What `#[tool]` derives](tools).
//! 4. [What `#[resource]` derives](resources), notifications and changes
//!    while running.
//! 5. [What `#[prompt]` and `#[complete]` derive](prompts).
//! 6. [Protocol versions](eras): the two eras, and how calls run.
//! 7. [Testing your tools](testing).
//!
//! Serving it:
//!
//! 8. [Serving over HTTP](http), parameters in headers, session limits.
//! 9. [Securing an HTTP server](auth) with OAuth (the `auth` feature).
//! 10. [Scaling out](scaling): a fleet behind a load balancer.
//! 11. [Middleware](middleware): tower layers around every request.
//! 12. [Telemetry](telemetry): tracing spans, OpenTelemetry export.
//!
//! Talking to others:
//!
//! 13. [Asking the client](asking): elicitation, sampling, roots.
//! 14. [Long-running tools](tasks): tasks, kept in memory or in Redis.
//! 15. [Calling other servers](client) (the `client` feature).
//! 16. [Gateways and chains](gateways): other servers served as ours.
//!
//! How it is checked:
//!
//! 17. [Reliability](reliability): property tests, hostile clients, fuzzing.
//! 18. [Performance](performance), measured against rmcp and others.
//! 19. [The repository's tests](tests).
//!
//! Extensions:
//!
//! 20. [Tools with a view](views): MCP Apps, HTML views of tools' results.
//! 21. [Skills](skills): instructions for a whole job (the `skills` feature).
//! 22. [Existing APIs as tools](openapi): an OpenAPI document's operations
//!     (the `openapi` feature).
//! 23. [Servers with many tools](many_tools): transforms, progressive
//!     discovery.

/// The text of a chapter that needs a cargo feature, when the documentation
/// is built without it (so unused when every feature is on).
#[allow(unused_macros)]
macro_rules! needs_feature {
    ($title:literal, $feature:literal) => {
        concat!(
            "# ",
            $title,
            "\n\nThis chapter is about the `",
            $feature,
            "` cargo feature: build the documentation with it (`cargo doc -p mcp-runtime \
             --features ",
            $feature,
            " --open`) to read it. docs.rs builds it with every feature."
        )
    };
}

#[doc = include_str!("../guide/01-command-line.md")]
pub mod command_line {}

#[doc = include_str!("../guide/02-serves.md")]
pub mod serves {}

#[doc = include_str!("../guide/03-tools.md")]
pub mod tools {}

#[doc = include_str!("../guide/04-resources.md")]
pub mod resources {}

#[doc = include_str!("../guide/05-prompts.md")]
pub mod prompts {}

#[doc = include_str!("../guide/06-eras.md")]
pub mod eras {}

#[doc = include_str!("../guide/07-testing.md")]
pub mod testing {}

#[cfg_attr(feature = "http", doc = include_str!("../guide/08-http.md"))]
#[cfg_attr(
    not(feature = "http"),
    doc = needs_feature!("Serving over HTTP", "http")
)]
pub mod http {}

#[cfg_attr(feature = "auth", doc = include_str!("../guide/09-auth.md"))]
#[cfg_attr(
    not(feature = "auth"),
    doc = needs_feature!("Securing an HTTP server", "auth")
)]
pub mod auth {}

#[doc = include_str!("../guide/10-scaling.md")]
pub mod scaling {}

#[doc = include_str!("../guide/11-middleware.md")]
pub mod middleware {}

#[doc = include_str!("../guide/12-telemetry.md")]
pub mod telemetry {}

#[doc = include_str!("../guide/13-asking.md")]
pub mod asking {}

#[doc = include_str!("../guide/14-tasks.md")]
pub mod tasks {}

#[cfg_attr(feature = "client", doc = include_str!("../guide/15-client.md"))]
#[cfg_attr(
    not(feature = "client"),
    doc = needs_feature!("Calling other servers", "client")
)]
pub mod client {}

#[cfg_attr(feature = "client", doc = include_str!("../guide/16-gateways.md"))]
#[cfg_attr(
    not(feature = "client"),
    doc = needs_feature!("Gateways and chains", "client")
)]
pub mod gateways {}

#[doc = include_str!("../guide/17-reliability.md")]
pub mod reliability {}

#[doc = include_str!("../guide/18-performance.md")]
pub mod performance {}

#[doc = include_str!("../guide/19-tests.md")]
pub mod tests {}

#[doc = include_str!("../guide/20-views.md")]
pub mod views {}

#[cfg_attr(feature = "skills", doc = include_str!("../guide/21-skills.md"))]
#[cfg_attr(not(feature = "skills"), doc = needs_feature!("Skills", "skills"))]
pub mod skills {}

#[cfg_attr(feature = "openapi", doc = include_str!("../guide/22-openapi.md"))]
#[cfg_attr(
    not(feature = "openapi"),
    doc = needs_feature!("Existing APIs as tools", "openapi")
)]
pub mod openapi {}

#[doc = include_str!("../guide/23-many-tools.md")]
pub mod many_tools {}
