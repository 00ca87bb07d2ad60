//! Calls end to end against in-process HTTP stubs on 127.0.0.1 that record
//! every request they get: the exact wire shapes, the results and errors a
//! model reads, and where credentials go (and do not go).

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::response::Response;
use serde_json::{Value, json};

use super::call::call;
use super::plan::{CallPlan, KeyLocation, QueryStyle};
use super::test_plan::PlanBuilder;
use crate::CallToolResult;

/// One request as the stub received it.
#[derive(Clone, Debug)]
struct Seen {
    method: String,
    /// The request target as sent: path and query, encoding untouched.
    target: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Every header and the target and body, as one text (to look for a
    /// secret anywhere).
    fn everything(&self) -> String {
        format!(
            "{} {}\n{:?}\n{}",
            self.method,
            self.target,
            self.headers,
            String::from_utf8_lossy(&self.body)
        )
    }
}

/// What the stub answers.
struct Answer {
    status: u16,
    headers: Vec<(&'static str, String)>,
    body: Vec<u8>,
    delay: Duration,
    /// Sent in pieces, without a `Content-Length`.
    chunked: bool,
}

impl Answer {
    fn new(status: u16) -> Answer {
        Answer {
            status,
            headers: Vec::new(),
            body: Vec::new(),
            delay: Duration::ZERO,
            chunked: false,
        }
    }

    fn json(status: u16, value: Value) -> Answer {
        Answer::new(status).body("application/json", value.to_string().into_bytes())
    }

    fn body(mut self, media_type: &str, body: Vec<u8>) -> Answer {
        self.headers.push(("content-type", media_type.to_owned()));
        self.body = body;
        self
    }

    fn header(mut self, name: &'static str, value: String) -> Answer {
        self.headers.push((name, value));
        self
    }
}

type Answering = dyn Fn(&Seen) -> Answer + Send + Sync;

struct StubState {
    seen: Mutex<Vec<Seen>>,
    answer: Box<Answering>,
}

/// An HTTP server on 127.0.0.1 that records requests; stopped on drop.
struct Stub {
    address: SocketAddr,
    state: Arc<StubState>,
    task: tokio::task::JoinHandle<()>,
}

impl Stub {
    async fn start(answer: impl Fn(&Seen) -> Answer + Send + Sync + 'static) -> Stub {
        let state = Arc::new(StubState {
            seen: Mutex::new(Vec::new()),
            answer: Box::new(answer),
        });
        let router = axum::Router::new()
            .fallback(record)
            .with_state(state.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a loopback port");
        let address = listener.local_addr().expect("its address");
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, router).await;
        });
        Stub {
            address,
            state,
            task,
        }
    }

    fn url(&self) -> String {
        format!("http://{}", self.address)
    }

    fn seen(&self) -> Vec<Seen> {
        self.state.seen.lock().unwrap().clone()
    }

    fn only(&self) -> Seen {
        let seen = self.seen();
        assert_eq!(seen.len(), 1, "{seen:#?}");
        seen.into_iter().next().unwrap()
    }
}

impl Drop for Stub {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn record(State(state): State<Arc<StubState>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let body = axum::body::to_bytes(body, 1 << 20)
        .await
        .map(|b| b.to_vec())
        .unwrap_or_default();
    let seen = Seen {
        method: parts.method.to_string(),
        target: parts.uri.to_string(),
        headers: parts
            .headers
            .iter()
            .map(|(n, v)| (n.to_string(), String::from_utf8_lossy(v.as_bytes()).into()))
            .collect(),
        body,
    };
    let answer = (state.answer)(&seen);
    state.seen.lock().unwrap().push(seen);
    tokio::time::sleep(answer.delay).await;
    let mut response = Response::builder().status(answer.status);
    for (name, value) in &answer.headers {
        response = response.header(*name, value);
    }
    let body = if answer.chunked {
        let pieces: Vec<Result<bytes::Bytes, std::io::Error>> = answer
            .body
            .chunks(100)
            .map(|piece| Ok(bytes::Bytes::copy_from_slice(piece)))
            .collect();
        Body::from_stream(futures_util::stream::iter(pieces))
    } else {
        Body::from(answer.body)
    };
    response.body(body).expect("a response")
}

/// The call, bounded so that no test can hang.
async fn run(plan: &CallPlan, arguments: Value) -> CallToolResult {
    tokio::time::timeout(Duration::from_secs(20), call(plan, arguments))
        .await
        .expect("the call ends")
}

fn ok_answer(_: &Seen) -> Answer {
    Answer::json(200, json!({"ok": true}))
}

#[tokio::test]
async fn path_query_header_and_cookie_shapes_on_the_wire() {
    let stub = Stub::start(ok_answer).await;
    let plan = PlanBuilder::get(&format!("{}/v1/", stub.url()), "/users/{id}/files/{file}")
        .path("id")
        .path_exploded("file")
        .query("status", QueryStyle::Form, true)
        .query("ids", QueryStyle::Form, false)
        .query("point", QueryStyle::Form, true)
        .query("words", QueryStyle::SpaceDelimited, false)
        .query("pipes", QueryStyle::PipeDelimited, false)
        .query("filter", QueryStyle::DeepObject, true)
        .reserved_query("next")
        .query("flag", QueryStyle::Form, true)
        .query("absent", QueryStyle::Form, true)
        .query("null", QueryStyle::Form, true)
        .header("X-Trace")
        .header("X-List")
        .cookie("theme")
        .cookie("n")
        .query("id", QueryStyle::Form, true)
        .argument_name("id__query")
        .accept("application/json")
        .build();
    let result = run(
        &plan,
        json!({
            "id": "a b/c",
            "file": {"x": 1, "y": "z"},
            "status": ["available", "sold"],
            "ids": [1, 2, 3],
            "point": {"lat": 1.5, "lng": -2},
            "words": ["a", "b"],
            "pipes": ["c", "d"],
            "filter": {"min": 1, "name": "é"},
            "next": "/page?x=1",
            "flag": true,
            "null": null,
            "X-Trace": "abc 123",
            "X-List": [1, "two"],
            "theme": "dark mode",
            "n": 7,
            "id__query": "q",
        }),
    )
    .await;
    assert!(!result.is_error, "{}", result.text());
    assert_eq!(result.structured_content, Some(json!({"ok": true})));
    let seen = stub.only();
    assert_eq!(seen.method, "GET");
    assert_eq!(
        seen.target,
        "/v1/users/a%20b%2Fc/files/x=1,y=z?status=available&status=sold&ids=1,2,3\
         &lat=1.5&lng=-2&words=a%20b&pipes=c|d&filter[min]=1&filter[name]=%C3%A9\
         &next=/page?x%3D1&flag=true&id=q"
    );
    assert_eq!(seen.header("x-trace"), Some("abc 123"));
    assert_eq!(seen.header("x-list"), Some("1,two"));
    assert_eq!(seen.header("cookie"), Some("theme=dark%20mode; n=7"));
    assert_eq!(seen.header("accept"), Some("application/json"));
    assert_eq!(seen.header("content-type"), None);
    assert_eq!(seen.header("authorization"), None);
}

#[tokio::test]
async fn json_bodies_gather_members_and_a_required_one_is_never_missing() {
    let stub = Stub::start(|_| Answer::json(201, json!({"id": 1}))).await;
    let plan = PlanBuilder::post(&stub.url(), "/pets")
        .header("X-Request-Id")
        .member("name")
        .member("tag")
        .json_body(true)
        .accept("application/json")
        .build();
    let result = run(
        &plan,
        json!({"name": "Rex", "tag": null, "X-Request-Id": "r1"}),
    )
    .await;
    assert_eq!(result.structured_content, Some(json!({"id": 1})));
    let result = run(&plan, json!({})).await;
    assert!(!result.is_error, "{}", result.text());
    let seen = stub.seen();
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[0].method, "POST");
    assert_eq!(seen[0].target, "/pets");
    assert_eq!(seen[0].header("content-type"), Some("application/json"));
    assert_eq!(seen[0].header("x-request-id"), Some("r1"));
    assert_eq!(
        serde_json::from_slice::<Value>(&seen[0].body).unwrap(),
        json!({"name": "Rex", "tag": null})
    );
    assert_eq!(seen[1].body, b"{}");

    let whole = PlanBuilder::post(&stub.url(), "/batch")
        .whole_body("body")
        .json_body(false)
        .build();
    run(&whole, json!({"body": [{"a": 1}, 2]})).await;
    run(&whole, json!({})).await;
    let seen = stub.seen();
    assert_eq!(seen[2].body, br#"[{"a":1},2]"#);
    assert!(seen[3].body.is_empty());
    assert_eq!(seen[3].header("content-type"), None);
}

#[tokio::test]
async fn form_bodies_are_url_encoded() {
    let stub = Stub::start(|_| Answer::new(204)).await;
    let plan = PlanBuilder::post(&stub.url(), "/login")
        .member("user")
        .member("scopes")
        .member("remember")
        .form_body()
        .build();
    let result = run(
        &plan,
        json!({"user": "a&b c", "scopes": ["read", "write"], "remember": false}),
    )
    .await;
    assert!(!result.is_error, "{}", result.text());
    assert_eq!(result.text(), "204 No Content");
    assert_eq!(result.structured_content, None);
    let seen = stub.only();
    assert_eq!(
        seen.header("content-type"),
        Some("application/x-www-form-urlencoded")
    );
    assert_eq!(
        String::from_utf8(seen.body).unwrap(),
        "user=a%26b+c&scopes=read&scopes=write&remember=false"
    );
}

#[tokio::test]
async fn successes_answer_json_as_structured_content_and_text_as_text() {
    let stub = Stub::start(|seen: &Seen| match seen.target.as_str() {
        "/array" => Answer::json(200, json!([1, {"a": null}])),
        "/text" => Answer::new(200).body("text/plain; charset=utf-8", b"plain words".to_vec()),
        "/untyped" => Answer::new(200).body("", b"{\"x\": 1}".to_vec()),
        "/problem" => Answer::new(200).body("application/problem+json", b"[true]".to_vec()),
        "/bad-json" => Answer::new(200).body("application/json", b"{oops".to_vec()),
        "/png" => Answer::new(200).body("image/png", vec![0x89, b'P', b'N', b'G', 0xff, 0]),
        "/empty" => Answer::new(200),
        _ => Answer::new(500),
    })
    .await;
    let get = |path: &str| PlanBuilder::get(&stub.url(), path).build();

    let result = run(&get("/array"), json!({})).await;
    assert_eq!(result.structured_content, Some(json!([1, {"a": null}])));
    assert!(!result.is_error);

    let result = run(&get("/text"), json!({})).await;
    assert_eq!(
        (result.text().as_str(), result.is_error),
        ("plain words", false)
    );
    assert_eq!(result.structured_content, None);

    let result = run(&get("/untyped"), json!({})).await;
    assert_eq!(result.structured_content, Some(json!({"x": 1})));

    let result = run(&get("/problem"), json!({})).await;
    assert_eq!(result.structured_content, Some(json!([true])));

    let result = run(&get("/bad-json"), json!({})).await;
    assert!(result.is_error);
    assert!(result.text().contains("invalid JSON"), "{}", result.text());

    let result = run(&get("/png"), json!({})).await;
    assert!(result.is_error);
    let text = result.text();
    assert!(text.contains("6 bytes of image/png"), "{text}");

    let result = run(&get("/empty"), json!({})).await;
    assert_eq!((result.text().as_str(), result.is_error), ("200 OK", false));

    // A HEAD answer announces a length it does not send; the limit and
    // the result go by what came.
    let head = PlanBuilder::new(reqwest::Method::HEAD, &stub.url(), "/array")
        .max_response_bytes(5)
        .build();
    let result = run(&head, json!({})).await;
    assert_eq!((result.text().as_str(), result.is_error), ("200 OK", false));
}

#[tokio::test]
async fn error_statuses_name_the_request_and_show_the_body() {
    let stub = Stub::start(|seen: &Seen| match seen.target.as_str() {
        "/pets/7" => Answer::json(404, json!({"code": 404, "message": "no such pet"})),
        "/huge" => Answer::new(500).body("text/plain", "x".repeat(20_000).into_bytes()),
        "/teapot" => Answer::new(418),
        _ => Answer::new(500),
    })
    .await;
    let plan = PlanBuilder::get(&stub.url(), "/pets/{petId}")
        .path("petId")
        .build();
    let result = run(&plan, json!({"petId": 7})).await;
    assert!(result.is_error);
    assert_eq!(
        result.text(),
        format!(
            "The API answered 404 Not Found to GET {}/pets/7:\n{{\n  \"code\": 404,\n  \
             \"message\": \"no such pet\"\n}}",
            stub.url()
        )
    );
    assert_eq!(result.structured_content, None);

    let result = run(&PlanBuilder::get(&stub.url(), "/huge").build(), json!({})).await;
    let text = result.text();
    assert!(text.starts_with(&format!(
        "The API answered 500 Internal Server Error to GET {}/huge:\nxxx",
        stub.url()
    )));
    assert!(
        text.contains("cut at 8 KiB of 20000 bytes"),
        "{}",
        &text[text.len() - 80..]
    );
    assert!(text.len() < 8 * 1024 + 200);

    let result = run(&PlanBuilder::get(&stub.url(), "/teapot").build(), json!({})).await;
    assert!(result.is_error);
    assert!(
        result.text().contains("418 I'm a teapot") && result.text().contains("empty body"),
        "{}",
        result.text()
    );
}

#[tokio::test]
async fn bad_arguments_are_error_results_and_send_nothing() {
    let stub = Stub::start(ok_answer).await;
    let plan = PlanBuilder::get(&stub.url(), "/files/{name}")
        .path("name")
        .build();
    let result = run(&plan, json!({"name": ".."})).await;
    assert!(result.is_error);
    assert!(
        result
            .text()
            .starts_with("GET /files/{name} (testOperation) was not called: the argument \"name\""),
        "{}",
        result.text()
    );
    let result = run(&plan, json!([1])).await;
    assert!(result.is_error, "{}", result.text());
    assert!(stub.seen().is_empty());
}

#[tokio::test]
async fn a_slow_api_times_out_with_a_sentence() {
    let stub = Stub::start(|_| {
        let mut answer = Answer::json(200, json!({}));
        answer.delay = Duration::from_secs(5);
        answer
    })
    .await;
    let plan = PlanBuilder::get(&stub.url(), "/slow")
        .api_key("key", KeyLocation::Query, "timeout-secret")
        .timeout(Duration::from_millis(200))
        .build();
    let result = run(&plan, json!({})).await;
    assert!(result.is_error);
    assert_eq!(
        result.text(),
        format!("GET {}/slow did not answer within 200 ms", stub.url())
    );
    // The request did arrive (with its key), only the answer was late.
    assert_eq!(stub.only().target, "/slow?key=timeout-secret");
}

#[tokio::test]
async fn a_refused_connection_says_so() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let plan = PlanBuilder::get(&format!("http://127.0.0.1:{port}/v1"), "/pets")
        .bearer("refused-secret")
        .build();
    let result = run(&plan, json!({})).await;
    assert!(result.is_error);
    let text = result.text();
    assert!(
        text.starts_with(&format!(
            "could not connect to 127.0.0.1:{port}: connection refused"
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!("GET http://127.0.0.1:{port}/v1/pets")),
        "{text}"
    );
}

#[tokio::test]
async fn bodies_over_the_limit_are_refused_naming_it() {
    let stub = Stub::start(|seen: &Seen| {
        let mut answer = Answer::new(200).body("application/json", vec![b' '; 5000]);
        answer.chunked = seen.target == "/chunked";
        answer
    })
    .await;
    for path in ["/sized", "/chunked"] {
        let plan = PlanBuilder::get(&stub.url(), path)
            .max_response_bytes(1000)
            .build();
        let result = run(&plan, json!({})).await;
        assert!(result.is_error, "{path}");
        assert!(
            result.text().contains("larger than 1000 bytes")
                && result.text().contains("max_response_bytes"),
            "{path}: {}",
            result.text()
        );
    }
}

#[tokio::test]
async fn each_credential_reaches_the_base_origin_where_its_scheme_says() {
    let stub = Stub::start(ok_answer).await;
    let plan = PlanBuilder::get(&format!("{}/v1", stub.url()), "/me")
        .query("page", QueryStyle::Form, true)
        .cookie("theme")
        .bearer("bearer-secret")
        .api_key("X-Api-Key", KeyLocation::Header, "header-secret")
        .api_key("api_key", KeyLocation::Query, "query secret")
        .api_key("session", KeyLocation::Cookie, "cookie-secret")
        .build();
    let result = run(&plan, json!({"page": 2, "theme": "dark"})).await;
    assert!(!result.is_error, "{}", result.text());
    let seen = stub.only();
    assert_eq!(seen.target, "/v1/me?page=2&api_key=query%20secret");
    assert_eq!(seen.header("authorization"), Some("Bearer bearer-secret"));
    assert_eq!(seen.header("x-api-key"), Some("header-secret"));
    assert_eq!(
        seen.header("cookie"),
        Some("theme=dark; session=cookie-secret")
    );

    let basic = PlanBuilder::get(&stub.url(), "/basic")
        .basic("ada", "basic-secret")
        .build();
    run(&basic, json!({})).await;
    let seen = stub.seen();
    // base64("ada:basic-secret")
    assert_eq!(
        seen[1].header("authorization"),
        Some("Basic YWRhOmJhc2ljLXNlY3JldA==")
    );
}

#[tokio::test]
async fn redirects_are_not_followed_so_credentials_never_reach_another_origin() {
    let elsewhere = Stub::start(ok_answer).await;
    let target = format!("{}/stolen", elsewhere.url());
    let location = target.clone();
    let api = Stub::start(move |_| Answer::new(302).header("location", location.clone())).await;
    let plan = PlanBuilder::get(&api.url(), "/download")
        .bearer("bearer-secret")
        .api_key("X-Api-Key", KeyLocation::Header, "header-secret")
        .api_key("key", KeyLocation::Query, "query-secret")
        .build();
    let result = run(&plan, json!({})).await;
    assert!(result.is_error);
    assert_eq!(
        result.text(),
        format!(
            "The API answered 302 Found to GET {}/download, a redirect to {target}, which this \
             tool does not follow",
            api.url()
        )
    );
    assert_eq!(api.seen().len(), 1);
    assert!(elsewhere.seen().is_empty(), "{:#?}", elsewhere.seen());
}

#[tokio::test]
async fn no_secret_appears_in_any_error_text() {
    // An API that echoes everything it got back, in an error answer, in a
    // redirect and in a body too large to read.
    let stub = Stub::start(|seen: &Seen| {
        let echo = seen.everything();
        match seen.target.split('?').next().unwrap_or_default() {
            "/redirect" => Answer::new(307).header("location", format!("/next?{echo:?}")),
            "/large" => Answer::new(200).body("text/plain", echo.repeat(50).into_bytes()),
            _ => Answer::new(401).body("text/plain", echo.into_bytes()),
        }
    })
    .await;
    let secrets = [
        "bearer-secret",
        "basic-secret",
        "header-secret",
        "query/secret",
        "cookie-secret",
    ];
    for path in ["/echo", "/redirect", "/large"] {
        let plan = PlanBuilder::get(&stub.url(), path)
            .bearer(secrets[0])
            .basic("ada", secrets[1])
            .api_key("X-Api-Key", KeyLocation::Header, secrets[2])
            .api_key("key", KeyLocation::Query, secrets[3])
            .api_key("session", KeyLocation::Cookie, secrets[4])
            .max_response_bytes(2000)
            .build();
        let result = run(&plan, json!({})).await;
        assert!(result.is_error, "{path}");
        let text = result.text();
        for secret in secrets {
            assert!(!text.contains(secret), "{path}: {secret} in {text}");
        }
        assert!(!text.contains("query%2Fsecret"), "{path}: {text}");
        assert!(!text.contains("YWRhOmJhc2ljLXNlY3JldA=="), "{path}: {text}");
    }
    // The echo did hold them: the scrubbing is what kept them out.
    let echoed = stub.seen()[0].everything();
    for sent in [
        secrets[0],
        "YWRhOmJhc2ljLXNlY3JldA==",
        secrets[2],
        "query%2Fsecret",
        secrets[4],
    ] {
        assert!(echoed.contains(sent), "{sent} not in {echoed}");
    }
    let echo = run(
        &PlanBuilder::get(&stub.url(), "/echo")
            .bearer("bearer-secret")
            .build(),
        json!({}),
    )
    .await;
    assert!(echo.text().contains("[redacted]"), "{}", echo.text());
}
