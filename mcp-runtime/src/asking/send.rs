//! The low-level way a call asks its client something while it runs
//! ([`Context::send_request`]): through the call's task when it became one,
//! from the answers given in advance in a 2026-07-28 round, or as a request
//! of the server's on the connection, whose answer is routed back by id.

use serde_json::Value;

use crate::context::{Context, RequestScope};
use crate::jsonrpc::{self, RequestId};

impl Context {
    /// Sends the client a request and waits for its answer: the low-level
    /// way to ask it something while a call runs (`elicitation/create`,
    /// `sampling/createMessage`, `roots/list`, or any other method). On
    /// stdio the request goes out between the server's other messages; over
    /// HTTP, on the stream of the call that asks, and the client POSTs its
    /// answer.
    ///
    /// Fails without sending anything when the client did not declare the
    /// capability the method needs (`elicitation`, `sampling`, `roots`),
    /// and on a stateless HTTP server (`Server::stateless`), which has no
    /// way back from a client of protocol 2025-11-25 or earlier
    /// ([`ClientRequestError::Stateless`](crate::ClientRequestError::Stateless));
    /// fails when the client answers with an error, does not answer within
    /// the timeout ([`Server::client_request_timeout`](crate::Server::client_request_timeout),
    /// 5 minutes unless set), or goes away. Cancelling the call cancels the
    /// request (`notifications/cancelled` to the client).
    pub async fn send_request(
        &self,
        method: &str,
        params: Value,
    ) -> Result<Value, crate::asking::ask::ClientRequestError> {
        use crate::asking::ask::ClientRequestError;
        let Some(request) = self.request() else {
            return Err(ClientRequestError::NoClient);
        };
        let session = &request.session;
        if let Some(capability) = crate::asking::ask::capability(method)
            && session.client.capabilities.get(capability).is_none()
        {
            return Err(self.refused(ClientRequestError::NotSupported(capability.to_owned())));
        }
        let mut params = params;
        // Marks a 2025-11-25 task `input_required` while it waits.
        let mut _waiting = None;
        if let Some(task) = request.task.get() {
            let Some(id) = task.related_task() else {
                return task.ask(method, params, self.question_key()).await;
            };
            if let Value::Object(object) = &mut params {
                crate::tasks::wire::tie_to_task(object, id);
            }
            task.waiting(true);
            _waiting = Some(Waiting(&**task));
        }
        if let Some(replay) = &request.replay {
            // Answered in advance, or raised: the run then stops here and
            // is dropped by `Replay::run`.
            return match replay.answer(method, &params, self.question_key()) {
                Some(answer) => Ok(answer),
                None => std::future::pending().await,
            };
        }
        if session.one_way {
            return Err(ClientRequestError::Stateless(method.to_owned()));
        }
        let (id, answer) = session.asks.open();
        // Forgets the question and tells the client when the call stops
        // waiting for any reason but the answer.
        let mut pending = Pending {
            request,
            id: &id,
            waiting: true,
        };
        let mut line = Vec::new();
        jsonrpc::write_request(&mut line, &id, method, &params);
        line.push(b'\n');
        if !request.out.try_send(&line) {
            pending.waiting = false;
            session.asks.forget(&id);
            return Err(ClientRequestError::Disconnected);
        }
        let timeout = session.ask_timeout;
        let answer = tokio::select! {
            answer = tokio::time::timeout(timeout, answer) => answer,
            () = request.cancellation.cancelled() => return Err(ClientRequestError::Cancelled),
        };
        match answer {
            Ok(Ok(answer)) => {
                pending.waiting = false;
                answer
            }
            // The session ended: its questions went with it.
            Ok(Err(_)) => {
                pending.waiting = false;
                Err(ClientRequestError::Disconnected)
            }
            Err(_) => Err(ClientRequestError::Timeout(timeout)),
        }
    }
}

/// A 2025-11-25 task waiting on its client, until dropped.
struct Waiting<'a>(&'a dyn crate::asking::tasked::TaskChannel);

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.waiting(false);
    }
}

/// A request to the client that the call still waits for.
struct Pending<'a> {
    request: &'a RequestScope,
    id: &'a RequestId,
    waiting: bool,
}

impl Drop for Pending<'_> {
    fn drop(&mut self) {
        if !self.waiting {
            return;
        }
        self.request.session.asks.forget(self.id);
        let params = serde_json::json!({
            "requestId": serde_json::value::RawValue::from_string(self.id.as_json().to_owned()).ok(),
            "reason": "the server stopped waiting",
        });
        let mut line = Vec::new();
        jsonrpc::write_notification(&mut line, "notifications/cancelled", &params);
        line.push(b'\n');
        self.request.out.try_send(&line);
    }
}
