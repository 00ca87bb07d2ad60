//! Asking the client while a request runs: its user (`elicit`), its model
//! (`sampling`) or its roots (`roots`).
//!
//! - `ask`: the requests a server sends its client in a legacy session,
//!   and their answers routed back by id;
//! - `rounds`, `replay` and `request_state`: the 2026-07-28 way, where the
//!   server may not send requests: a request whose handler asks is
//!   answered `input_required`, and runs again with the answers the client
//!   sends back, carried in a signed `requestState`;
//! - `elicit`, `sampling`, `roots`: what can be asked, in either era.

pub(crate) mod ask;
pub(crate) mod elicit;
pub(crate) mod replay;
pub(crate) mod request_state;
pub(crate) mod roots;
pub(crate) mod rounds;
pub(crate) mod sampling;
mod send;
pub(crate) mod tasked;
