//! The document's operations as tools: each `paths` entry's methods walked
//! (path-level parameters merged, the operation's winning), the filters
//! applied, and every chosen operation made a [`DynamicTool`] with its
//! [`CallPlan`], or a refusal that names it, the place and the fix.

use std::sync::Arc;

use serde_json::{Map, Value, json};
use url::Url;

use super::access;
use super::arguments::{self, RawParameter};
use super::document::{Document, escape};
use super::names;
use super::plan::{CallPlan, Settings};
use super::schema::{self, Direction, Schemas};
use super::{OpenApi, Refusal};
use crate::location::Location;
use crate::schema::arguments::ArgumentValidator;
use crate::tools::dynamic::DynamicTool;

/// The methods a path item can have.
const METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// One operation as found in the document.
pub(crate) struct Operation<'a> {
    /// Upper case: `GET`.
    pub(crate) method: String,
    pub(crate) path: &'a str,
    pub(crate) id: Option<&'a str>,
    pub(crate) value: &'a Value,
    /// `#/paths/~1pets/get`.
    pub(crate) at: String,
    pub(crate) item: &'a Value,
    pub(crate) item_at: String,
}

impl Operation<'_> {
    /// `GET /pets (listPets)`.
    pub(crate) fn label(&self) -> String {
        match self.id {
            Some(id) => format!("{} {} ({id})", self.method, self.path),
            None => format!("{} {}", self.method, self.path),
        }
    }

    /// What `.exclude_operations(..)` and the overrides call it.
    pub(crate) fn key(&self) -> String {
        match self.id {
            Some(id) => id.to_owned(),
            None => format!("{} {}", self.method, self.path),
        }
    }

    /// Whether `key` (an `operationId` or `"METHOD /path"`) names it.
    pub(crate) fn is(&self, key: &str) -> bool {
        if self.id == Some(key) {
            return true;
        }
        key.split_once(' ').is_some_and(|(method, path)| {
            method.eq_ignore_ascii_case(&self.method) && path == self.path
        })
    }

    fn tags(&self) -> Vec<String> {
        self.value
            .get("tags")
            .and_then(Value::as_array)
            .map(|tags| {
                tags.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// Every operation of the document, in document order.
pub(crate) fn operations(doc: &Document) -> Result<Vec<Operation<'_>>, String> {
    let mut all = Vec::new();
    let Some(paths) = doc.root.get("paths").and_then(Value::as_object) else {
        return Ok(all);
    };
    for (path, item) in paths {
        let item_at = format!("#/paths/{}", escape(path));
        let (item, item_at) = doc.follow(item, item_at)?;
        for method in METHODS {
            if let Some(value) = item.get(method) {
                all.push(Operation {
                    method: method.to_ascii_uppercase(),
                    path,
                    id: value.get("operationId").and_then(Value::as_str),
                    value,
                    at: format!("{item_at}/{method}"),
                    item,
                    item_at: item_at.clone(),
                });
            }
        }
    }
    Ok(all)
}

/// Whether the OpenAPI filters let `operation` through.
pub(crate) fn selected(api: &OpenApi, operation: &Operation<'_>) -> bool {
    let tags = operation.tags();
    let has_tag = |list: &[String]| tags.iter().any(|t| list.contains(t));
    api.include_tags.as_deref().is_none_or(has_tag)
        && !has_tag(&api.exclude_tags)
        && api.include_paths.as_ref().is_none_or(|patterns| {
            patterns.iter().any(|p| match p.strip_suffix('*') {
                Some(prefix) => operation.path.starts_with(prefix),
                None => operation.path == p,
            })
        })
        && api.include_methods.as_ref().is_none_or(|methods| {
            methods
                .iter()
                .any(|m| m.eq_ignore_ascii_case(&operation.method))
        })
        && api
            .include_operations
            .as_ref()
            .is_none_or(|keys| keys.iter().any(|k| operation.is(k)))
        && !api.exclude_operations.iter().any(|k| operation.is(k))
}

/// What the operations of one document share while they are converted.
pub(crate) struct Shared<'d> {
    pub(crate) api: &'d OpenApi,
    pub(crate) doc: &'d Document,
    pub(crate) schemas: Schemas<'d>,
    pub(crate) base: Url,
    pub(crate) settings: Arc<Settings>,
    pub(crate) key_headers: Vec<String>,
    pub(crate) location: Location,
}

/// The tool of one operation, or why it cannot be served (a clause that
/// follows "the operation GET /pets (listPets) is not supported: ").
pub(crate) fn tool(shared: &mut Shared<'_>, op: &Operation<'_>) -> Result<DynamicTool, String> {
    let api = shared.api;
    let name = served_name(api, op);
    let parameters = parameters(shared.doc, op)?;
    let body = match op.value.get("requestBody") {
        Some(body) => Some(shared.doc.follow(body, format!("{}/requestBody", op.at))?),
        None => None,
    };
    let inputs = arguments::inputs(
        &mut shared.schemas,
        op.path,
        &parameters,
        body,
        &shared.key_headers,
    )?;
    let mut input_schema = inputs.schema;
    inline_root(&mut input_schema);
    if let Err(e) = ArgumentValidator::new(&input_schema) {
        // Name the document's place of each definition the sentence names.
        let origins: Vec<String> = input_schema
            .get("$defs")
            .and_then(Value::as_object)
            .into_iter()
            .flat_map(|defs| defs.keys())
            .filter(|name| e.contains(&format!("/$defs/{name}`")))
            .filter_map(|name| {
                let origin = shared.schemas.origin(name)?;
                Some(format!("`/$defs/{name}` is {origin}"))
            })
            .collect();
        let origins = if origins.is_empty() {
            String::new()
        } else {
            format!(" ({})", origins.join(", "))
        };
        return Err(format!("its input schema cannot be checked: {e}{origins}"));
    }
    let (output, accept) = success(shared, op)?;
    let security = match op.value.get("security") {
        Some(security) => Some((security, format!("{}/security", op.at))),
        None => shared
            .doc
            .root
            .get("security")
            .map(|s| (s, "#/security".to_owned())),
    };
    let credentials = access::credentials(api, shared.doc, security)?;
    let servers = match (op.value.get("servers"), op.item.get("servers")) {
        (Some(servers), _) => Some((servers, format!("{}/servers", op.at))),
        (None, Some(servers)) => Some((servers, format!("{}/servers", op.item_at))),
        (None, None) => None,
    };
    let base = access::operation_base(api, &shared.base, servers)?;
    let method = reqwest::Method::from_bytes(op.method.as_bytes())
        .map_err(|e| format!("its method cannot be sent: {e}"))?;
    let plan = Arc::new(CallPlan {
        label: op.label(),
        method: method.clone(),
        base,
        path: op.path.to_owned(),
        arguments: inputs.arguments,
        body: inputs.body,
        accept,
        credentials,
        settings: Arc::clone(&shared.settings),
    });
    let description = match api.descriptions.iter().rev().find(|(key, _)| op.is(key)) {
        Some((_, text)) => text.clone(),
        None => description(op),
    };
    let handler_plan = Arc::clone(&plan);
    let mut tool = DynamicTool::new(
        name,
        description,
        Value::Object(input_schema),
        move |arguments, _ctx| {
            let plan = Arc::clone(&handler_plan);
            async move { super::call::call(&plan, arguments).await }
        },
    );
    tool.location = shared.location;
    if let Some(summary) = op.value.get("summary").and_then(Value::as_str) {
        tool.title = Some(summary.to_owned());
    }
    tool.tags = op.tags();
    let read_only = matches!(method, reqwest::Method::GET | reqwest::Method::HEAD);
    tool.hints.read_only = Some(read_only);
    if !read_only {
        tool.hints.destructive = Some(method == reqwest::Method::DELETE);
    }
    tool.hints.idempotent = Some(matches!(
        method,
        reqwest::Method::GET
            | reqwest::Method::HEAD
            | reqwest::Method::PUT
            | reqwest::Method::DELETE
            | reqwest::Method::OPTIONS
    ));
    tool.hints.open_world = Some(true);
    if let Some((schema, bare)) = output {
        tool.output_schema = Some(schema);
        tool.bare_output = bare;
    }
    Ok(tool)
}

/// The name an operation is served under: `.rename(..)`'s, else the
/// operation's own (each behind the prefix, if any).
fn served_name(api: &OpenApi, op: &Operation<'_>) -> String {
    match api.renames.iter().rev().find(|(key, _)| op.is(key)) {
        Some((_, name)) => match &api.prefix {
            Some(prefix) => format!("{prefix}_{name}"),
            None => name.clone(),
        },
        None => names::tool_name(api.prefix.as_deref(), op.id, &op.method, op.path),
    }
}

/// The path item's parameters and the operation's, references followed;
/// the operation's win on (`name`, `in`).
fn parameters<'a>(doc: &'a Document, op: &Operation<'a>) -> Result<Vec<RawParameter<'a>>, String> {
    let mut found: Vec<RawParameter<'a>> = Vec::new();
    for (owner, owner_at) in [(op.item, &op.item_at), (op.value, &op.at)] {
        let Some(list) = owner.get("parameters") else {
            continue;
        };
        let Some(list) = list.as_array() else {
            return Err(format!(
                "`parameters` is not a list (at {owner_at}/parameters)"
            ));
        };
        for (i, parameter) in list.iter().enumerate() {
            let (value, at) = doc.follow(parameter, format!("{owner_at}/parameters/{i}"))?;
            let key = |v: &Value| (v.get("name").cloned(), v.get("in").cloned());
            found.retain(|earlier| key(earlier.value) != key(value));
            found.push(RawParameter { value, at });
        }
    }
    Ok(found)
}

/// The success response's output schema (and whether it is bare, not an
/// object) and its JSON media type for `Accept`: the lowest explicit 2xx,
/// else `2XX`; `default` is not success.
#[allow(clippy::type_complexity)]
fn success(
    shared: &mut Shared<'_>,
    op: &Operation<'_>,
) -> Result<(Option<(Value, bool)>, Option<String>), String> {
    let Some(responses) = op.value.get("responses").and_then(Value::as_object) else {
        return Ok((None, None));
    };
    let mut codes: Vec<&String> = responses
        .keys()
        .filter(|code| {
            code.len() == 3
                && code.starts_with('2')
                && code[1..].bytes().all(|b| b.is_ascii_digit())
        })
        .collect();
    codes.sort();
    let code = codes
        .first()
        .copied()
        .or_else(|| responses.keys().find(|c| c.eq_ignore_ascii_case("2XX")));
    let Some(code) = code else {
        return Ok((None, None));
    };
    let at = format!("{}/responses/{}", op.at, escape(code));
    let (response, at) = shared.doc.follow(&responses[code], at)?;
    let Some((media, content)) = response
        .get("content")
        .and_then(Value::as_object)
        .and_then(|c| c.iter().find(|(media, _)| arguments::is_json(media)))
    else {
        return Ok((None, None));
    };
    let accept = Some(media.clone());
    let Some(schema) = content.get("schema").filter(|_| shared.api.output_schemas) else {
        return Ok((None, accept));
    };
    let schema_at = format!("{at}/content/{}/schema", escape(media));
    let piece = shared
        .schemas
        .convert(schema, &schema_at, Direction::Output)?;
    let mut value = piece.value;
    if let (Some(defs), Value::Object(map)) = (
        shared.schemas.defs(&piece.deps, Direction::Output),
        &mut value,
    ) {
        map.insert("$defs".into(), defs);
    }
    let Value::Object(mut map) = value else {
        // `true`: any value.
        return Ok((Some((json!({}), true)), accept));
    };
    inline_root(&mut map);
    crate::schema::generate::drop_nonstandard_formats(&mut map);
    let value = Value::Object(map);
    if schema::is_object(&value) {
        let mut value = value;
        value["type"] = json!("object");
        Ok((Some((value, false)), accept))
    } else {
        Ok((Some((value, true)), accept))
    }
}

/// A root that is only a reference into its own `$defs` (a recursive
/// type) gets that definition's members, as generated schemas do.
fn inline_root(root: &mut Map<String, Value>) {
    let Some(Value::String(reference)) = root.get("$ref") else {
        return;
    };
    let Some(name) = reference.strip_prefix("#/$defs/") else {
        return;
    };
    let Some(Value::Object(target)) = root.get("$defs").and_then(|d| d.get(name)).cloned() else {
        return;
    };
    root.remove("$ref");
    let defs = root.remove("$defs");
    for (key, value) in target {
        root.entry(key).or_insert(value);
    }
    // Last, as generated schemas have them.
    if let Some(defs) = defs {
        root.insert("$defs".into(), defs);
    }
}

/// `summary`, a blank line, `description`, and "Deprecated." when it is.
fn description(op: &Operation<'_>) -> String {
    let mut parts: Vec<&str> = ["summary", "description"]
        .iter()
        .filter_map(|k| op.value.get(*k).and_then(Value::as_str))
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    if op.value.get("deprecated") == Some(&Value::Bool(true)) {
        parts.push("Deprecated.");
    }
    if parts.is_empty() {
        return format!("{} {}", op.method, op.path);
    }
    parts.join("\n\n")
}

/// Converts every chosen operation of `doc`, keeping refusals as data.
pub(crate) fn convert_all(
    shared: &mut Shared<'_>,
    refusals: &mut Vec<Refusal>,
) -> Vec<DynamicTool> {
    let api = shared.api;
    let all = match operations(shared.doc) {
        Ok(all) => all,
        Err(reason) => {
            refusals.push(Refusal { tool: None, reason });
            return Vec::new();
        }
    };
    let keys = api
        .include_operations
        .iter()
        .flatten()
        .map(|k| ("include_operations", k))
        .chain(
            api.exclude_operations
                .iter()
                .map(|k| ("exclude_operations", k)),
        )
        .chain(api.renames.iter().map(|(k, _)| ("rename", k)))
        .chain(api.descriptions.iter().map(|(k, _)| ("describe", k)));
    for (method, key) in keys {
        if !all.iter().any(|op| op.is(key)) {
            let mut known: Vec<String> = all.iter().map(Operation::key).collect();
            let more = known.len().saturating_sub(30);
            known.truncate(30);
            let mut list = known.join(", ");
            if more > 0 {
                list.push_str(&format!(" and {more} more"));
            }
            refusals.push(Refusal {
                tool: None,
                reason: format!(
                    "`.{method}(..)` names \"{key}\", which is no operation of the document; name \
                     one by its operationId or as \"METHOD /path\": {list}"
                ),
            });
        }
    }
    let mut tools: Vec<(DynamicTool, String, String)> = Vec::new();
    for op in all.iter().filter(|op| selected(api, op)) {
        let key = op.key();
        let fix = format!(
            "; leave it out with .exclude_operations([\"{key}\"]) or serve the rest with \
             .skip_unsupported()"
        );
        match tool(shared, op) {
            Ok(tool) => {
                if let Some((_, first, _)) = tools.iter().find(|(t, ..)| t.name == tool.name) {
                    refusals.push(Refusal {
                        tool: Some(tool.name.clone()),
                        reason: format!(
                            "the operation {} would be served as the tool `{}`, like the \
                             operation {first}; give it another name with .rename(\"{key}\", \
                             \"..\"){fix}",
                            op.label(),
                            tool.name
                        ),
                    });
                    continue;
                }
                tools.push((tool, op.label(), key));
            }
            Err(clause) => refusals.push(Refusal {
                tool: Some(served_name(api, op)),
                reason: format!(
                    "the operation {} is not supported: {clause}{fix}",
                    op.label()
                ),
            }),
        }
    }
    tools.into_iter().map(|(tool, ..)| tool).collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::openapi::document::Version;

    fn doc() -> Document {
        Document {
            root: json!({
                "servers": [{"url": "https://api.example.com"}],
                "paths": {
                    "/pets/{id}": {
                        "parameters": [
                            {"name": "id", "in": "path", "required": true, "schema": {"type": "string"}},
                            {"name": "v", "in": "query", "schema": {"type": "string"}}
                        ],
                        "get": {
                            "operationId": "getPet", "tags": ["pets"], "summary": "Get",
                            "parameters": [{"name": "v", "in": "query", "schema": {"type": "integer"}}],
                            "responses": {
                                "default": {"description": "e", "content": {"application/json": {"schema": {"type": "string"}}}},
                                "2XX": {"description": "a", "content": {"application/json": {"schema": {"type": "boolean"}}}},
                                "201": {"description": "b", "content": {"application/json": {"schema": {"type": "integer"}}}},
                                "200": {"$ref": "#/components/responses/Pet"}
                            }
                        },
                        "delete": {"tags": ["admin"], "description": "Gone.", "deprecated": true,
                            "responses": {"2XX": {"description": "a", "content": {"application/problem+json": {"schema": {"type": "object"}}}}}}
                    },
                    "/a": {"$ref": "#/components/pathItems/A"}
                },
                "components": {
                    "responses": {"Pet": {"description": "p", "content": {
                        "text/html": {}, "application/json": {"schema": {"type": "object", "properties": {"n": {"type": "string", "writeOnly": true}}}}}}},
                    "pathItems": {"A": {"put": {"operationId": "putA", "responses": {}}}}
                }
            }),
            version: Version::V31,
        }
    }

    fn shared<'d>(api: &'d OpenApi, doc: &'d Document) -> Shared<'d> {
        Shared {
            api,
            doc,
            schemas: Schemas::new(doc),
            base: Url::parse("https://api.example.com").unwrap(),
            settings: Arc::new(Settings {
                client: crate::openapi::plan::http_client().unwrap(),
                timeout: std::time::Duration::from_secs(1),
                max_response_bytes: 1,
            }),
            key_headers: Vec::new(),
            location: Location::caller(),
        }
    }

    #[test]
    fn operations_are_walked_with_their_keys_and_labels() {
        let doc = doc();
        let all = operations(&doc).unwrap();
        let labels: Vec<String> = all.iter().map(Operation::label).collect();
        assert_eq!(
            labels,
            [
                "GET /pets/{id} (getPet)",
                "DELETE /pets/{id}",
                "PUT /a (putA)"
            ]
        );
        assert_eq!(all[2].at, "#/components/pathItems/A/put");
        assert!(all[0].is("getPet") && all[0].is("get /pets/{id}") && !all[0].is("GET /pets"));
        assert_eq!(all[1].key(), "DELETE /pets/{id}");
    }

    #[test]
    fn filters_choose_by_tag_path_method_and_key() {
        let doc = doc();
        let all = operations(&doc).unwrap();
        let chosen = |api: OpenApi| -> Vec<String> {
            all.iter()
                .filter(|op| selected(&api, op))
                .map(Operation::key)
                .collect()
        };
        let api = || OpenApi::from_text("t.json", "");
        assert_eq!(chosen(api().include_tags(["pets"])), ["getPet"]);
        assert_eq!(
            chosen(api().exclude_tags(["pets"])),
            ["DELETE /pets/{id}", "putA"]
        );
        assert_eq!(
            chosen(api().include_paths(["/p*"])),
            ["getPet", "DELETE /pets/{id}"]
        );
        assert_eq!(
            chosen(api().include_paths(["/a"]).include_methods(["put"])),
            ["putA"]
        );
        assert_eq!(
            chosen(
                api()
                    .include_methods(["GET", "delete"])
                    .exclude_operations(["getPet"])
            ),
            ["DELETE /pets/{id}"]
        );
        assert_eq!(
            chosen(api().include_operations(["DELETE /pets/{id}"])),
            ["DELETE /pets/{id}"]
        );
    }

    #[test]
    fn a_tool_has_its_parameters_success_schema_and_description() {
        let doc = doc();
        let api = OpenApi::from_text("t.json", "");
        let mut shared = shared(&api, &doc);
        let all = operations(&doc).unwrap();
        let get = tool(&mut shared, &all[0]).unwrap();
        assert_eq!(get.name, "getPet");
        assert_eq!(get.description, "Get");
        // The operation's `v` wins over the path item's.
        assert_eq!(
            get.input_schema["properties"]["v"],
            json!({"type": "integer"})
        );
        // 200 (a reference) before 201 and 2XX; `writeOnly` left out; JSON
        // chosen over HTML.
        assert_eq!(
            get.output_schema,
            Some(json!({"type": "object", "properties": {}}))
        );
        assert!(!get.bare_output);
        assert_eq!(get.hints.read_only, Some(true));
        assert_eq!(get.hints.destructive, None);
        let delete = tool(&mut shared, &all[1]).unwrap();
        assert_eq!(delete.name, "delete_pets_id");
        assert_eq!(delete.description, "Gone.\n\nDeprecated.");
        assert_eq!(delete.tags, ["admin"]);
        assert_eq!(delete.output_schema, Some(json!({"type": "object"})));
        let put = tool(&mut shared, &all[2]).unwrap();
        assert_eq!(put.output_schema, None);
        assert_eq!(put.description, "PUT /a");
        assert_eq!(put.hints.idempotent, Some(true));
    }

    #[test]
    fn output_schemas_can_be_left_out_and_non_objects_are_bare() {
        let doc = Document {
            root: json!({"paths": {"/n": {"get": {"operationId": "n", "responses": {
                "2XX": {"description": "a", "content": {"application/json": {"schema": {"type": "boolean"}}}}}}}}}),
            version: Version::V30,
        };
        let api = OpenApi::from_text("t.json", "");
        let mut shared = shared(&api, &doc);
        let all = operations(&doc).unwrap();
        let n = tool(&mut shared, &all[0]).unwrap();
        assert_eq!(n.output_schema, Some(json!({"type": "boolean"})));
        assert!(n.bare_output);
        let api = OpenApi::from_text("t.json", "").output_schemas(false);
        let mut shared = self::shared(&api, &doc);
        assert_eq!(tool(&mut shared, &all[0]).unwrap().output_schema, None);
    }
}
