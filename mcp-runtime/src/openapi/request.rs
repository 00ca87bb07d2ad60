//! The HTTP request of one call, written from the plan and the arguments:
//! the URL (base path, filled path template, query), the headers, the
//! cookies and the body. Credentials are not added here (`call.rs` adds
//! them, once it has checked where the request goes), so everything this
//! module writes may be shown in a message.

use reqwest::header::{HeaderName, HeaderValue};
use serde_json::{Map, Value};

use super::plan::{BodyEncoding, CallPlan, Credential, KeyLocation, ParameterLocation, Wire};
use super::styles;

/// A request ready to send, credentials not yet added.
#[derive(Debug)]
pub(super) struct Prepared {
    /// The final URL: the base's origin, never anything an argument chose.
    pub(super) url: url::Url,
    pub(super) headers: Vec<(HeaderName, HeaderValue)>,
    /// `name=value` pairs, sent as one `Cookie` header.
    pub(super) cookies: Vec<String>,
    /// The body (with the plan's media type), when one is sent.
    pub(super) body: Option<Vec<u8>>,
}

/// Headers an argument never sets: the ones OpenAPI says a header
/// parameter cannot name (`Accept`, `Content-Type`, `Authorization`), and
/// the ones the request itself or the credentials own.
const OWNED_HEADERS: &[&str] = &[
    "accept",
    "content-type",
    "authorization",
    "cookie",
    "host",
    "content-length",
    "transfer-encoding",
    "connection",
];

/// The request of `plan` with `arguments`; the reason when the arguments
/// cannot be written (a sentence to follow "… was not called: ").
pub(super) fn prepare(plan: &CallPlan, arguments: &Value) -> Result<Prepared, String> {
    let empty = Map::new();
    let arguments = match arguments {
        Value::Object(members) => members,
        Value::Null => &empty,
        other => {
            return Err(format!(
                "the arguments must be a JSON object, not {}",
                kind(other)
            ));
        }
    };
    let mut path_values: Vec<(&str, &str, String)> = Vec::new();
    let mut query = Vec::new();
    let mut headers = Vec::new();
    let mut cookies = Vec::new();
    let mut members = Map::new();
    let mut whole_body = None;

    for argument in &plan.arguments {
        let given = arguments.get(&argument.argument);
        let parameter = match &argument.wire {
            Wire::BodyMember { name } => {
                // An explicit `null` member is sent: to an API it can mean
                // "clear this" (GitHub's `"milestone": null`).
                if let Some(value) = given {
                    members.insert(name.clone(), value.clone());
                }
                continue;
            }
            Wire::Body => {
                whole_body = given.filter(|value| !value.is_null());
                continue;
            }
            Wire::Parameter(parameter) => parameter,
        };
        let Some(value) = given.filter(|value| !value.is_null()) else {
            if parameter.location == ParameterLocation::Path {
                return Err(format!(
                    "the argument \"{}\" is missing, and it fills {{{}}} in the path",
                    argument.argument, parameter.name
                ));
            }
            // Absent or null optional parameters are left out.
            continue;
        };
        let json_text;
        let value = if parameter.json {
            json_text = Value::String(value.to_string());
            &json_text
        } else {
            value
        };
        match parameter.location {
            ParameterLocation::Path => {
                let text = styles::simple(value, parameter.explode, &|t| styles::encode(t, b""));
                path_values.push((&parameter.name, &argument.argument, text));
            }
            ParameterLocation::Query(style) => styles::query(
                &parameter.name,
                value,
                style,
                parameter.explode,
                parameter.allow_reserved,
                &mut query,
            ),
            ParameterLocation::Header => {
                if is_owned_header(&parameter.name, &plan.credentials) {
                    continue;
                }
                let text = styles::simple(value, parameter.explode, &|t| t.to_owned());
                headers.push(header(&argument.argument, &parameter.name, &text)?);
            }
            ParameterLocation::Cookie => cookies.push(styles::cookie(&parameter.name, value)),
        }
    }

    let path = fill_path(&plan.path, &path_values)?;
    let url = join(&plan.base, &path, &query);
    let body = match &plan.body {
        None => None,
        Some(body) => {
            let value = match whole_body {
                Some(value) => Some(value.clone()),
                None if !members.is_empty() || body.required => Some(Value::Object(members)),
                None => None,
            };
            match (value, body.encoding) {
                (None, _) => None,
                (Some(value), BodyEncoding::Json) => Some(value.to_string().into_bytes()),
                (Some(Value::Object(members)), BodyEncoding::Form) => {
                    Some(styles::form_body(&members).into_bytes())
                }
                (Some(other), BodyEncoding::Form) => {
                    return Err(format!(
                        "the body is sent as {}, which holds an object, not {}",
                        body.media_type,
                        kind(&other)
                    ));
                }
            }
        }
    };
    Ok(Prepared {
        url,
        headers,
        cookies,
        body,
    })
}

/// The base URL with the filled path appended to its path (concatenated,
/// never resolved as a reference, which would drop `/v1`) and the query.
///
/// Only the path and the query of a copy of the base are set, so the
/// scheme, host and port stay the base's whatever the arguments hold: path
/// values arrive percent-encoded (`/`, `?`, `#`, `\` and `@` included) and
/// dot segments are refused before this, so `set_path` has nothing to
/// normalise into another place.
fn join(base: &url::Url, path: &str, query: &[String]) -> url::Url {
    let mut url = base.clone();
    let separator = if path.starts_with('/') { "" } else { "/" };
    let joined = format!("{}{separator}{path}", base.path().trim_end_matches('/'));
    url.set_path(&joined);
    url.set_fragment(None);
    let mut pairs: Vec<&str> = base.query().into_iter().filter(|q| !q.is_empty()).collect();
    pairs.extend(query.iter().map(String::as_str));
    url.set_query((!pairs.is_empty()).then(|| pairs.join("&")).as_deref());
    url
}

/// The path template with every `{name}` replaced by its encoded value
/// (`values`: wire name, argument name, encoded text). A segment that
/// becomes `.` or `..` is refused: the URL parser would resolve it into
/// another path.
pub(super) fn fill_path(template: &str, values: &[(&str, &str, String)]) -> Result<String, String> {
    let mut out = Vec::new();
    for segment in template.split('/') {
        let mut filled = String::new();
        let mut used = Vec::new();
        let mut rest = segment;
        while let Some(open) = rest.find('{') {
            let Some(close) = rest[open..].find('}').map(|c| open + c) else {
                break;
            };
            filled.push_str(&rest[..open]);
            let name = &rest[open + 1..close];
            match values.iter().find(|(wire, _, _)| *wire == name) {
                Some((_, argument, text)) => {
                    filled.push_str(text);
                    used.push(*argument);
                }
                None => filled.push_str(&rest[open..=close]),
            }
            rest = &rest[close + 1..];
        }
        filled.push_str(rest);
        if !used.is_empty() && (filled == "." || filled == "..") {
            let named = used
                .iter()
                .map(|a| format!("\"{a}\""))
                .collect::<Vec<_>>()
                .join(" and ");
            let verb = if used.len() == 1 { "makes" } else { "make" };
            return Err(format!(
                "the argument {named} {verb} the path segment \"{filled}\", which would \
                 point the request at another path; give the value the API expects there"
            ));
        }
        out.push(filled);
    }
    Ok(out.join("/"))
}

/// A header parameter the request or the credentials own (ignored when an
/// argument names it).
fn is_owned_header(name: &str, credentials: &[Credential]) -> bool {
    OWNED_HEADERS.iter().any(|h| name.eq_ignore_ascii_case(h))
        || credentials.iter().any(|credential| {
            matches!(credential, Credential::ApiKey { name: key, location: KeyLocation::Header, .. }
                if key.eq_ignore_ascii_case(name))
        })
}

/// One header of an argument, or why it cannot be sent.
fn header(argument: &str, name: &str, text: &str) -> Result<(HeaderName, HeaderValue), String> {
    let header = HeaderName::from_bytes(name.as_bytes())
        .map_err(|_| format!("\"{name}\" is not a valid HTTP header name"))?;
    let value = HeaderValue::from_str(text).map_err(|_| {
        format!(
            "the argument \"{argument}\" cannot be sent as the header {name}: a header \
             carries printable ASCII only, not line breaks, control characters or other \
             scripts"
        )
    })?;
    Ok((header, value))
}

/// A JSON type in words.
fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::plan::QueryStyle;
    use super::super::test_plan::PlanBuilder;
    use super::*;

    fn url_of(plan: &CallPlan, arguments: Value) -> String {
        prepare(plan, &arguments).unwrap().url.to_string()
    }

    #[test]
    fn base_path_and_path_are_concatenated() {
        let plan = PlanBuilder::get("http://127.0.0.1:1/v1", "/pets/{petId}")
            .path("petId")
            .build();
        assert_eq!(
            url_of(&plan, json!({"petId": 7})),
            "http://127.0.0.1:1/v1/pets/7"
        );
        let plan = PlanBuilder::get("http://127.0.0.1:1/", "/pets").build();
        assert_eq!(url_of(&plan, json!({})), "http://127.0.0.1:1/pets");
    }

    #[test]
    fn every_placeholder_is_filled_wherever_it_stands() {
        let plan = PlanBuilder::get(
            "http://h.example/api",
            "/repos/{owner}/compare/{base}...{head}",
        )
        .path("owner")
        .path("base")
        .path("head")
        .build();
        assert_eq!(
            url_of(
                &plan,
                json!({"owner": "a b", "base": "main", "head": "feature/x"})
            ),
            "http://h.example/api/repos/a%20b/compare/main...feature%2Fx"
        );
    }

    #[test]
    fn dot_segments_are_refused_naming_the_argument() {
        let plan = PlanBuilder::get("http://h.example/v1", "/files/{name}/meta")
            .path("name")
            .build();
        for dots in [".", ".."] {
            let error = prepare(&plan, &json!({"name": dots})).unwrap_err();
            assert!(error.contains("\"name\""), "{error}");
            assert!(error.contains(&format!("\"{dots}\"")), "{error}");
        }
        // Dots inside a longer segment, or encoded slashes, stay in place.
        assert_eq!(
            url_of(&plan, json!({"name": "../etc"})),
            "http://h.example/v1/files/..%2Fetc/meta"
        );
        assert_eq!(
            url_of(&plan, json!({"name": "..."})),
            "http://h.example/v1/files/.../meta"
        );
        let two = PlanBuilder::get("http://h.example", "/x/{a}{b}")
            .path("a")
            .path("b")
            .build();
        let error = prepare(&two, &json!({"a": ".", "b": "."})).unwrap_err();
        assert!(error.contains("\"a\" and \"b\""), "{error}");
    }

    #[test]
    fn path_values_cannot_move_the_host() {
        let plan = PlanBuilder::get("http://api.example:8080/v1", "/{p}")
            .path("p")
            .build();
        for evil in [
            "//evil.example/x",
            "@evil.example",
            "http://evil.example/",
            "\\\\evil.example",
            "?x#y",
        ] {
            let url = prepare(&plan, &json!({"p": evil})).unwrap().url;
            assert_eq!(url.host_str(), Some("api.example"), "{evil}");
            assert_eq!(url.port(), Some(8080), "{evil}");
            assert_eq!(url.path_segments().unwrap().count(), 2, "{evil}: {url}");
            assert_eq!(url.query(), None, "{evil}");
        }
    }

    #[test]
    fn a_missing_path_argument_is_named() {
        let plan = PlanBuilder::get("http://h.example", "/pets/{petId}")
            .path("petId")
            .build();
        let error = prepare(&plan, &json!({})).unwrap_err();
        assert!(error.contains("\"petId\""), "{error}");
    }

    #[test]
    fn query_parameters_follow_their_style_and_skip_absent_and_null() {
        let plan = PlanBuilder::get("http://h.example", "/pets")
            .query("status", QueryStyle::Form, true)
            .query("ids", QueryStyle::Form, false)
            .query("tags", QueryStyle::PipeDelimited, false)
            .query("filter", QueryStyle::DeepObject, true)
            .query("limit", QueryStyle::Form, true)
            .query("gone", QueryStyle::Form, true)
            .build();
        let url = url_of(
            &plan,
            json!({
                "status": ["a", "b"], "ids": [1, 2], "tags": ["x", "y"],
                "filter": {"min": 1}, "limit": 10, "gone": null
            }),
        );
        assert_eq!(
            url,
            "http://h.example/pets?status=a&status=b&ids=1,2&tags=x|y&filter[min]=1&limit=10"
        );
    }

    #[test]
    fn json_content_parameters_are_json_text() {
        let plan = PlanBuilder::get("http://h.example", "/q")
            .json_query("where")
            .build();
        assert_eq!(
            url_of(&plan, json!({"where": {"a": [1]}})),
            "http://h.example/q?where=%7B%22a%22%3A%5B1%5D%7D"
        );
    }

    #[test]
    fn headers_are_simple_and_owned_ones_are_ignored() {
        let plan = PlanBuilder::get("http://h.example", "/")
            .header("X-Ids")
            .header("Authorization")
            .header("X-Key")
            .api_key("X-Key", KeyLocation::Header, "s3cret")
            .build();
        let prepared = prepare(
            &plan,
            &json!({"X-Ids": [1, 2], "Authorization": "Bearer mine", "X-Key": "other"}),
        )
        .unwrap();
        let headers: Vec<_> = prepared
            .headers
            .iter()
            .map(|(n, v)| format!("{n}: {}", v.to_str().unwrap()))
            .collect();
        assert_eq!(headers, ["x-ids: 1,2"]);
        let bad = prepare(&plan, &json!({"X-Ids": "a\r\nb"})).unwrap_err();
        assert!(bad.contains("\"X-Ids\""), "{bad}");
    }

    #[test]
    fn bodies_gather_members_or_take_the_whole_argument() {
        let plan = PlanBuilder::post("http://h.example", "/pets")
            .member("name")
            .member("tag")
            .json_body(true)
            .build();
        let body = |arguments| {
            String::from_utf8(prepare(&plan, &arguments).unwrap().body.unwrap()).unwrap()
        };
        assert_eq!(
            body(json!({"name": "Rex", "tag": null})),
            r#"{"name":"Rex","tag":null}"#
        );
        assert_eq!(body(json!({})), "{}");
        let optional = PlanBuilder::post("http://h.example", "/pets")
            .member("name")
            .json_body(false)
            .build();
        assert!(prepare(&optional, &json!({})).unwrap().body.is_none());
        let whole = PlanBuilder::post("http://h.example", "/pets")
            .whole_body("body")
            .json_body(false)
            .build();
        let prepared = prepare(&whole, &json!({"body": [1, 2]})).unwrap();
        assert_eq!(prepared.body.unwrap(), b"[1,2]");
    }

    #[test]
    fn a_form_body_must_be_an_object() {
        let plan = PlanBuilder::post("http://h.example", "/f")
            .whole_body("body")
            .form_body()
            .build();
        let error = prepare(&plan, &json!({"body": [1]})).unwrap_err();
        assert!(
            error.contains("application/x-www-form-urlencoded"),
            "{error}"
        );
        assert!(prepare(&plan, &json!("x")).is_err());
    }
}
