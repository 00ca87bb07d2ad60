//! OpenAPI documents served as tools (feature `openapi`), as a client sees
//! them: the Petstore 3.1 document and its 3.0.3 twin
//! (`tests/openapi/petstore*.json`) listed in both eras, with wrapped and
//! bare outputs, a recursive schema in `$defs`, and every refusal sentence
//! with its place; filters that leave a refused operation out while the
//! rest serve. The calls themselves are tested with the HTTP side.
//!
//! The 3.1 listing is a golden snapshot (`tests/openapi/petstore.tools.json`);
//! after an intended change refresh it with
//! `UPDATE_SNAPSHOTS=1 cargo test -p mcp-tests --test openapi` and review
//! the diff.
//!
//! This binary defines no `#[tool]`, so what it serves is exactly what each
//! test adds.

use std::path::{Path, PathBuf};
use std::time::Duration;

use mcp_runtime::openapi::OpenApi;
use mcp_runtime::serde_json::{self, Value, json};
use mcp_runtime::testing::TestClient;
use mcp_runtime::{RegistryError, Server};

const LEGACY: &str = "2025-06-18";
const MODERN: &str = "2026-07-28";

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/openapi")
}

fn petstore(file: &str) -> OpenApi {
    OpenApi::from_file(dir().join(file)).base_url("http://127.0.0.1:4010")
}

/// The operations the Petstore documents hold that cannot be served.
const REFUSED: [&str; 2] = ["uploadPhoto", "getSession"];

async fn within<F: std::future::Future>(future: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(20), future)
        .await
        .expect("the server answered within 20 s")
}

async fn list(server: Server, version: &str) -> Vec<Value> {
    let mut client = within(TestClient::connect_with_version(server, version))
        .await
        .expect("it starts");
    within(client.list_tools()).await.expect("tools/list")
}

/// `tools/list` as a 2026-07-28 client asks it (per-request `_meta`).
async fn list_modern(server: Server) -> Vec<Value> {
    let mut client = TestClient::start(server).expect("it starts");
    let params = json!({"_meta": {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientInfo": {"name": "openapi-test", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }});
    let result = within(client.request("tools/list", params))
        .await
        .expect("tools/list");
    result["tools"].as_array().cloned().unwrap_or_default()
}

fn tool<'a>(tools: &'a [Value], name: &str) -> &'a Value {
    tools
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no tool {name} in {tools:#?}"))
}

fn names(tools: &[Value]) -> Vec<&str> {
    tools.iter().filter_map(|t| t["name"].as_str()).collect()
}

/// The reason of an `InvalidOpenApi`, after checking the sentence around
/// it names the document and this file.
fn refusal(server: Server, document: &str) -> String {
    let error = match TestClient::start(server) {
        Ok(_) => panic!("the server started"),
        Err(error) => error,
    };
    let text = error.to_string();
    match error {
        RegistryError::InvalidOpenApi {
            document: named,
            location,
            reason,
            ..
        } => {
            assert!(named.ends_with(document), "{named}");
            assert_eq!(location.file, file!());
            assert_eq!(
                text,
                format!(
                    "cannot start the MCP server: the OpenAPI document {named} (given to \
                     Server::openapi at {location}) cannot be served: {reason}"
                )
            );
            reason
        }
        other => panic!("not an OpenAPI refusal: {other}"),
    }
}

#[tokio::test]
async fn the_petstore_3_1_lists_as_its_snapshot() {
    let server = Server::new("petstore", "1").openapi(petstore("petstore.json").skip_unsupported());
    let tools = list(server, LEGACY).await;
    let actual = serde_json::to_string_pretty(&tools).unwrap() + "\n";
    let path = dir().join("petstore.tools.json");
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some_and(|v| v == "1") {
        std::fs::write(&path, &actual).unwrap();
    }
    let expected = std::fs::read_to_string(&path).expect("the snapshot exists");
    assert!(
        actual == expected,
        "the listing differs from {}; if the change is intended, rerun with UPDATE_SNAPSHOTS=1 \
         and review the diff:\n{actual}",
        path.display()
    );
    assert_eq!(
        names(&tools),
        [
            "addNote",
            "createPet",
            "deletePet",
            "getPet",
            "getTree",
            "get_store_inventory",
            "listPets",
            "searchPets"
        ]
    );
}

#[tokio::test]
async fn the_petstore_tools_have_their_names_schemas_and_hints() {
    let server = Server::new("petstore", "1").openapi(petstore("petstore.json").skip_unsupported());
    let tools = list(server, LEGACY).await;

    let list_pets = tool(&tools, "listPets");
    assert_eq!(list_pets["title"], "List pets");
    assert_eq!(
        list_pets["description"],
        "List pets\n\nThe pets in the store, at most `limit` of them."
    );
    assert_eq!(
        list_pets["annotations"],
        json!({"title": "List pets", "readOnlyHint": true, "idempotentHint": true, "openWorldHint": true})
    );
    assert_eq!(
        list_pets["inputSchema"],
        json!({
            "type": "object",
            "properties": {
                "limit": {"type": "integer", "exclusiveMinimum": 0, "maximum": 100, "description": "How many pets to list."},
                "status": {
                    "type": "array",
                    "items": {"type": "string", "enum": ["available", "pending", "sold"], "description": "Where the pet is in the store."},
                    "description": "Only pets with one of these statuses."
                }
            },
            "additionalProperties": false
        })
    );
    let pet = json!({"allOf": [
        {"type": "object", "required": ["name"], "properties": {
            "name": {"type": "string", "minLength": 1},
            "tag": {"type": ["string", "null"]},
            "status": {"type": "string", "enum": ["available", "pending", "sold"], "description": "Where the pet is in the store."}
        }},
        {"type": "object", "required": ["id"], "properties": {"id": {"type": "integer", "minimum": 1}}}
    ]});
    // An array: under `result` for clients before 2026-07-28.
    assert_eq!(
        list_pets["outputSchema"],
        json!({"type": "object", "properties": {"result": {"type": "array", "items": pet}}, "required": ["result"]})
    );

    // A path-level parameter, required; an int64 without its format.
    let get_pet = tool(&tools, "getPet");
    assert_eq!(
        get_pet["inputSchema"],
        json!({"type": "object", "properties": {"petId": {"type": "integer", "minimum": 1, "description": "The pet's id."}}, "required": ["petId"], "additionalProperties": false})
    );
    // allOf of objects is an object: listed as it is, with its type said.
    let mut object_pet = pet.clone();
    object_pet["type"] = json!("object");
    assert_eq!(get_pet["outputSchema"], object_pet);

    // A JSON body merged in, required with the body; a uuid header.
    let create = tool(&tools, "createPet");
    assert_eq!(
        create["inputSchema"],
        json!({
            "type": "object",
            "properties": {
                "X-Request-Id": {"type": "string", "format": "uuid", "description": "A UUID naming this request."},
                "name": {"type": "string", "minLength": 1},
                "tag": {"type": ["string", "null"]},
                "status": {"type": "string", "enum": ["available", "pending", "sold"], "description": "Where the pet is in the store."}
            },
            "required": ["X-Request-Id", "name"],
            "additionalProperties": false
        })
    );
    assert_eq!(
        create["annotations"],
        json!({"title": "Create a pet", "readOnlyHint": false, "destructiveHint": false, "idempotentHint": false, "openWorldHint": true})
    );
    let delete = tool(&tools, "deletePet");
    assert_eq!(delete["annotations"]["destructiveHint"], true);
    assert_eq!(delete["annotations"]["idempotentHint"], true);
    assert!(delete.get("outputSchema").is_none());

    // A form body merged in.
    assert_eq!(
        tool(&tools, "addNote")["inputSchema"]["required"],
        json!(["petId", "text"])
    );
    // Deprecated, said in the description.
    assert_eq!(
        tool(&tools, "searchPets")["description"],
        "Search pets\n\nQuery styles other than exploded form.\n\nDeprecated."
    );
    // No operationId: the method and path.
    assert_eq!(
        tool(&tools, "get_store_inventory")["outputSchema"],
        json!({"type": "object", "additionalProperties": {"type": "integer"}})
    );
}

#[tokio::test]
async fn a_self_referencing_schema_keeps_its_defs() {
    let server = Server::new("petstore", "1").openapi(petstore("petstore.json").skip_unsupported());
    let tools = list(server, LEGACY).await;
    let node = json!({"type": "object", "required": ["name"], "properties": {
        "name": {"type": "string"},
        "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}
    }});
    let mut expected = node.clone();
    expected["$defs"] = json!({"Node": node});
    assert_eq!(tool(&tools, "getTree")["outputSchema"], expected);
}

#[tokio::test]
async fn the_3_0_twin_lists_the_same_tools() {
    let v31 = list(
        Server::new("petstore", "1").openapi(petstore("petstore.json").skip_unsupported()),
        LEGACY,
    )
    .await;
    let v30 = list(
        Server::new("petstore", "1").openapi(petstore("petstore-3.0.json").skip_unsupported()),
        LEGACY,
    )
    .await;
    assert_eq!(v30, v31);
}

#[tokio::test]
async fn a_2026_07_28_client_sees_bare_output_schemas() {
    for file in ["petstore.json", "petstore-3.0.json"] {
        let tools =
            list_modern(Server::new("petstore", "1").openapi(petstore(file).skip_unsupported()))
                .await;
        let schema = &tool(&tools, "listPets")["outputSchema"];
        assert_eq!(schema["type"], "array", "{file}: {schema}");
        assert_eq!(schema["items"]["allOf"][1]["required"], json!(["id"]));
        assert_eq!(
            tool(&tools, "getPet")["outputSchema"]["type"],
            "object",
            "{file}"
        );
    }
}

#[tokio::test]
async fn the_tools_carry_the_operations_tags() {
    let api = petstore("petstore.json").skip_unsupported();
    let registry = Server::new("petstore", "1")
        .openapi(api)
        .registry()
        .unwrap();
    let tags = |name: &str| registry.get(name).unwrap().tags().to_vec();
    assert_eq!(tags("listPets"), ["pets"]);
    assert_eq!(tags("get_store_inventory"), ["store"]);
    assert_eq!(tags("getTree"), ["tree"]);
}

#[tokio::test]
async fn refused_operations_stop_the_start_one_sentence_each() {
    for file in ["petstore.json", "petstore-3.0.json"] {
        let reason = refusal(Server::new("p", "1").openapi(petstore(file)), file);
        assert_eq!(
            reason,
            "the operation POST /upload (uploadPhoto) is not supported: its request body is \
             multipart/form-data, which cannot be sent; only JSON and flat \
             application/x-www-form-urlencoded bodies can (at \
             #/paths/~1upload/post/requestBody/content); leave it out with \
             .exclude_operations([\"uploadPhoto\"]) or serve the rest with .skip_unsupported()"
        );
        let api = petstore(file).exclude_operations(["uploadPhoto"]);
        let reason = refusal(Server::new("p", "1").openapi(api), file);
        assert_eq!(
            reason,
            "the operation GET /session (getSession) is not supported: the cookie parameter \
             \"prefs\" is an array, which cannot be written (at \
             #/paths/~1session/get/parameters/0); leave it out with \
             .exclude_operations([\"getSession\"]) or serve the rest with .skip_unsupported()"
        );
    }
}

#[tokio::test]
async fn filters_leave_refused_operations_out_while_the_rest_serve() {
    // By the OpenAPI filter.
    let api = petstore("petstore.json").exclude_operations(REFUSED);
    let tools = list(Server::new("p", "1").openapi(api), LEGACY).await;
    assert_eq!(tools.len(), 8);
    // By the server's tool filter, which may name a refused tool.
    let server = Server::new("p", "1")
        .openapi(petstore("petstore.json"))
        .exclude_tools(REFUSED);
    assert_eq!(list(server, LEGACY).await.len(), 8);
    let server = Server::new("p", "1")
        .openapi(petstore("petstore.json"))
        .include_tools(["getPet"]);
    assert_eq!(names(&list(server, LEGACY).await), ["getPet"]);
    // By tag, path and method.
    let api = petstore("petstore.json")
        .include_tags(["store"])
        .exclude_operations(["getSession"]);
    assert_eq!(
        names(&list(Server::new("p", "1").openapi(api), LEGACY).await),
        ["get_store_inventory"]
    );
    let api = petstore("petstore.json")
        .include_paths(["/pets*"])
        .include_methods(["get"]);
    assert_eq!(
        names(&list(Server::new("p", "1").openapi(api), LEGACY).await),
        ["getPet", "listPets"]
    );
    let api = petstore("petstore.json").exclude_tags(["pets", "store"]);
    assert_eq!(
        names(&list(Server::new("p", "1").openapi(api), LEGACY).await),
        ["getTree"]
    );
    let api = petstore("petstore.json").include_operations(["getTree", "GET /pets/{petId}"]);
    assert_eq!(
        names(&list(Server::new("p", "1").openapi(api), LEGACY).await),
        ["getPet", "getTree"]
    );
}

#[tokio::test]
async fn skip_unsupported_serves_the_rest() {
    let tools = list(
        Server::new("p", "1").openapi(petstore("petstore.json").skip_unsupported()),
        LEGACY,
    )
    .await;
    for refused in REFUSED {
        assert!(!names(&tools).contains(&refused));
    }
    assert_eq!(tools.len(), 8);
}

#[tokio::test]
async fn rename_describe_and_prefix_change_what_is_listed() {
    let api = petstore("petstore.json")
        .skip_unsupported()
        .prefix("store")
        .rename("getPet", "fetch_pet")
        .describe("GET /pets", "Every pet.");
    let tools = list(Server::new("p", "1").openapi(api), LEGACY).await;
    assert!(names(&tools).contains(&"store_fetch_pet"));
    assert!(names(&tools).contains(&"store_get_store_inventory"));
    assert_eq!(tool(&tools, "store_listPets")["description"], "Every pet.");
    assert_eq!(tool(&tools, "store_listPets")["title"], "List pets");
    assert!(!names(&tools).contains(&"store_getPet"));
}

#[test]
fn a_key_that_names_no_operation_is_refused_with_the_keys() {
    let api = petstore("petstore.json")
        .skip_unsupported()
        .rename("getPets", "x");
    let reason = refusal(Server::new("p", "1").openapi(api), "petstore.json");
    assert_eq!(
        reason,
        "`.rename(..)` names \"getPets\", which is no operation of the document; name one by its \
         operationId or as \"METHOD /path\": listPets, createPet, getPet, deletePet, addNote, \
         searchPets, GET /store/inventory, getTree, uploadPhoto, getSession"
    );
}

/// A one-operation document around `operation` (at `/things/{id}` `get`
/// when `path` has `{id}`), with `components`.
fn doc(version: &str, path: &str, operation: Value, components: Value) -> String {
    json!({
        "openapi": version,
        "info": {"title": "t", "version": "1"},
        "servers": [{"url": "https://api.example.com/v1"}],
        "paths": {path: {"get": operation}},
        "components": components
    })
    .to_string()
}

fn refused_text(name: &str, text: String) -> String {
    let server = Server::new("p", "1").openapi(OpenApi::from_text(name, text));
    refusal(server, name)
}

#[test]
fn documents_that_cannot_be_read_are_refused_whatever_the_filter() {
    let reason = refused_text(
        "bad.json",
        "{\"openapi\": \"3.1.0\",\n \"paths\": {,}}".into(),
    );
    assert_eq!(
        reason,
        "it is not valid JSON: key must be a string at line 2 column 12"
    );
    let reason = refused_text("bad.yaml", "openapi: 3.1.0\npaths:\n  /a: [\n".into());
    assert!(
        reason.starts_with("it is not YAML that JSON can carry: ") && reason.contains("line"),
        "{reason}"
    );
    let reason = refused_text("old.json", r#"{"swagger": "2.0", "paths": {}}"#.into());
    assert_eq!(
        reason,
        "it is a Swagger 2.0 document, which is not read here; convert it to OpenAPI 3 first \
         (for example with `npx swagger2openapi`), then serve the result"
    );
    let server = Server::new("p", "1")
        .openapi(OpenApi::from_file(dir().join("missing.json")))
        .exclude_tools(["anything"]);
    let reason = refusal(server, "missing.json");
    assert!(reason.starts_with("it cannot be read: "), "{reason}");
    // A relative server and no base URL.
    let text = json!({"openapi": "3.0.3", "servers": [{"url": "/api"}], "paths": {}}).to_string();
    assert_eq!(
        refused_text("rel.json", text),
        "the server URL \"/api\" (at #/servers/0) is relative, and a document read from a file \
         has no URL to resolve it against; give the API's URL with `.base_url(..)`"
    );
}

#[test]
fn unresolvable_and_external_references_name_their_place() {
    let op = json!({"operationId": "getThing", "parameters": [
        {"name": "id", "in": "path", "required": true, "schema": {"$ref": "#/components/schemas/Id"}}
    ], "responses": {"204": {"description": "ok"}}});
    let text = doc("3.1.0", "/things/{id}", op, json!({}));
    assert_eq!(
        refused_text("refs.json", text),
        "the operation GET /things/{id} (getThing) is not supported: the reference \
         #/components/schemas/Id (at #/paths/~1things~1{id}/get/parameters/0/schema) points to \
         nothing in the document; leave it out with .exclude_operations([\"getThing\"]) or serve \
         the rest with .skip_unsupported()"
    );
    let op = json!({"operationId": "getThing", "responses": {"200": {"description": "ok",
        "content": {"application/json": {"schema": {"$ref": "common.json#/Thing"}}}}}});
    let text = doc("3.0.3", "/things", op, json!({}));
    assert_eq!(
        refused_text("refs.json", text),
        "the operation GET /things (getThing) is not supported: the reference common.json#/Thing \
         (at #/paths/~1things/get/responses/200/content/application~1json/schema) points \
         outside this document; only references inside it (`#/...`) are followed, so inline \
         what it points to; leave it out with .exclude_operations([\"getThing\"]) or serve the \
         rest with .skip_unsupported()"
    );
}

#[test]
fn a_loop_that_never_enters_the_value_is_refused_by_the_validator() {
    let op = json!({"operationId": "loop", "parameters": [
        {"name": "q", "in": "query", "schema": {"$ref": "#/components/schemas/A"}}
    ], "responses": {"204": {"description": "ok"}}});
    let components = json!({"schemas": {"A": {"allOf": [{"$ref": "#/components/schemas/A"}]}}});
    let reason = refused_text("loop.json", doc("3.1.0", "/things", op, components));
    assert_eq!(
        reason,
        "the operation GET /things (loop) is not supported: its input schema cannot be checked: \
         the schema at `/$defs/A` refers back to itself without going into the value (through \
         `$ref`, `allOf`, `anyOf`, `oneOf`, `not`, `if`, `then` or `else`), so validation would \
         never end (`/$defs/A` is #/components/schemas/A); leave it out with .exclude_operations([\"loop\"]) or serve the rest with \
         .skip_unsupported()"
    );
}

#[test]
fn styles_and_bodies_that_cannot_be_written_are_refused() {
    let cases = [
        (
            json!({"name": "id", "in": "path", "required": true, "style": "matrix", "schema": {"type": "string"}}),
            "/things/{id}",
            "the path parameter \"id\" has style matrix, which cannot be written (at \
             #/paths/~1things~1{id}/get/parameters/0)",
        ),
        (
            json!({"name": "f", "in": "query", "style": "spaceDelimited", "schema": {"type": "object"}}),
            "/things",
            "the query parameter \"f\" has style spaceDelimited on an object, which cannot be \
             written (at #/paths/~1things/get/parameters/0)",
        ),
        (
            json!({"name": "f", "in": "query", "style": "deepObject", "schema": {"type": "object",
                "properties": {"inner": {"type": "object"}}}}),
            "/things",
            "the query parameter \"f\" has style deepObject with objects inside, which cannot be \
             written (at #/paths/~1things/get/parameters/0)",
        ),
        (
            json!({"name": "f", "in": "query", "content": {"text/csv": {"schema": {"type": "string"}}}}),
            "/things",
            "the query parameter \"f\" is text/csv content, which cannot be written; only \
             application/json content is (at #/paths/~1things/get/parameters/0/content)",
        ),
    ];
    for (parameter, path, clause) in cases {
        let op = json!({"operationId": "op", "parameters": [parameter], "responses": {"204": {"description": "ok"}}});
        assert_eq!(
            refused_text("styles.json", doc("3.1.0", path, op, json!({}))),
            format!(
                "the operation GET {path} (op) is not supported: {clause}; leave it out with \
                 .exclude_operations([\"op\"]) or serve the rest with .skip_unsupported()"
            )
        );
    }
    let op =
        json!({"operationId": "op", "parameters": [], "responses": {"204": {"description": "ok"}}});
    assert_eq!(
        refused_text("styles.json", doc("3.1.0", "/things/{id}", op, json!({}))),
        "the operation GET /things/{id} (op) is not supported: its path has {id}, but no path \
         parameter \"id\" says what goes there; leave it out with .exclude_operations([\"op\"]) \
         or serve the rest with .skip_unsupported()"
    );
    let op = json!({"operationId": "op", "requestBody": {"content": {"text/plain": {"schema": {"type": "string"}}}},
        "responses": {"204": {"description": "ok"}}});
    assert_eq!(
        refused_text("bodies.json", doc("3.1.0", "/things", op, json!({}))),
        "the operation GET /things (op) is not supported: its request body is text/plain, which \
         cannot be sent; only JSON and flat application/x-www-form-urlencoded bodies can (at \
         #/paths/~1things/get/requestBody/content); leave it out with \
         .exclude_operations([\"op\"]) or serve the rest with .skip_unsupported()"
    );
}

#[test]
fn another_origin_is_refused_unless_allowed() {
    let op = json!({"operationId": "upload", "servers": [{"url": "https://uploads.example.com"}],
        "responses": {"204": {"description": "ok"}}});
    let text = doc("3.1.0", "/things", op, json!({}));
    assert_eq!(
        refused_text("origins.json", text.clone()),
        "the operation GET /things (upload) is not supported: its `servers` entry \
         https://uploads.example.com/ is on another origin than the base URL \
         https://api.example.com/v1, and credentials must not go there unasked; allow it with \
         `.allow_origin(\"https://uploads.example.com\")` (at #/paths/~1things/get/servers); \
         leave it out with .exclude_operations([\"upload\"]) or serve the rest with \
         .skip_unsupported()"
    );
    let api = OpenApi::from_text("origins.json", text).allow_origin("https://uploads.example.com");
    let registry = Server::new("p", "1").openapi(api).registry().unwrap();
    assert!(registry.get("upload").is_some());
}

#[test]
fn credentials_the_document_cannot_place_are_refused() {
    let reason = refusal(
        Server::new("p", "1").openapi(petstore("petstore.json").skip_unsupported().basic("u", "p")),
        "petstore.json",
    );
    assert_eq!(
        reason,
        "`.basic(..)` was given, but no security scheme of the document is http basic (its \
         schemes: bearer, api_key)"
    );
    let op = json!({"operationId": "op", "responses": {"204": {"description": "ok"}}});
    let api = OpenApi::from_text("plain.json", doc("3.1.0", "/things", op.clone(), json!({})))
        .api_key("k");
    let reason = refusal(Server::new("p", "1").openapi(api), "plain.json");
    assert!(
        reason.starts_with("`.api_key(..)` was given, but the document declares no apiKey"),
        "{reason}"
    );
    // A bearer token over plain http to a host other than loopback.
    let api = OpenApi::from_text("plain.json", doc("3.1.0", "/things", op, json!({})))
        .base_url("http://api.example.com")
        .bearer("t");
    assert_eq!(
        refusal(Server::new("p", "1").openapi(api), "plain.json"),
        "credentials would go over plain http to http://api.example.com/; use https, or call \
         `.allow_insecure_http()` if this network is trusted"
    );
}

#[test]
fn operations_named_alike_are_refused_with_a_rename() {
    let text = json!({
        "openapi": "3.1.0",
        "servers": [{"url": "https://api.example.com"}],
        "paths": {
            "/a": {"get": {"operationId": "a/list", "responses": {"204": {"description": "ok"}}}},
            "/b": {"get": {"operationId": "a.list", "responses": {"204": {"description": "ok"}}},
                   "post": {"operationId": "a list", "responses": {"204": {"description": "ok"}}}}
        }
    })
    .to_string();
    let reason = refused_text("dupes.json", text.clone());
    assert_eq!(
        reason,
        "the operation POST /b (a list) would be served as the tool `a_list`, like the operation \
         GET /a (a/list); give it another name with .rename(\"a list\", \"..\"); leave it out \
         with .exclude_operations([\"a list\"]) or serve the rest with .skip_unsupported()"
    );
    let api = OpenApi::from_text("dupes.json", text).rename("a list", "create_a");
    let registry = Server::new("p", "1").openapi(api).registry().unwrap();
    assert!(registry.get("create_a").is_some());
    assert!(registry.get("a.list").is_some());
}

#[tokio::test]
async fn from_url_fetches_resolves_relative_servers_and_follows_no_redirect() {
    use axum::http::{StatusCode, header::LOCATION};
    use axum::routing::get;

    let text = std::fs::read_to_string(dir().join("petstore.json")).unwrap();
    let mut doc: Value = serde_json::from_str(&text).unwrap();
    // Relative: resolved against the document's URL (from a file, refused).
    doc["servers"] = json!([{"url": "/v1"}]);
    let body = doc.to_string();
    let router = axum::Router::new()
        .route("/openapi.json", get(move || async move { body }))
        .route(
            "/moved",
            get(|| async { (StatusCode::FOUND, [(LOCATION, "/openapi.json")]) }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let server = tokio::spawn(async move { axum::serve(listener, router).await });

    let url = format!("http://127.0.0.1:{port}/openapi.json");
    let api = within(OpenApi::from_url(&url)).await.expect("fetched");
    let tools = list(
        Server::new("p", "1").openapi(api.skip_unsupported()),
        LEGACY,
    )
    .await;
    assert_eq!(tools.len(), 8);
    let reason = refusal(
        Server::new("p", "1").openapi(within(OpenApi::from_url(&url)).await.unwrap()),
        "/openapi.json",
    );
    assert!(
        reason.starts_with("the operation POST /upload (uploadPhoto)"),
        "{reason}"
    );

    let moved = format!("http://127.0.0.1:{port}/moved");
    let error = within(OpenApi::from_url(&moved)).await.unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "cannot fetch the OpenAPI document {moved}: it answered 302 Found, a redirect, which \
             is not followed; give the final URL"
        )
    );
    let missing = format!("http://127.0.0.1:{port}/missing.json");
    let error = within(OpenApi::from_url(&missing)).await.unwrap_err();
    assert_eq!(
        error.to_string(),
        format!("cannot fetch the OpenAPI document {missing}: it answered 404 Not Found")
    );
    let error = within(OpenApi::from_url("file:///etc/passwd"))
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "file:///etc/passwd is not an http or https URL"
    );
    server.abort();
}

/// One request the stub API received.
#[derive(Debug, Clone)]
struct Seen {
    method: String,
    /// Path and query, as sent.
    target: String,
    headers: axum::http::HeaderMap,
    body: String,
}

/// A stub of the Petstore API on loopback that records what it receives.
async fn stub() -> (
    String,
    std::sync::Arc<std::sync::Mutex<Vec<Seen>>>,
    tokio::task::JoinHandle<()>,
) {
    use axum::body::{Body, to_bytes};
    use axum::http::{Request, StatusCode, header::CONTENT_TYPE};
    use axum::response::IntoResponse;

    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = std::sync::Arc::clone(&seen);
    let handler = move |request: Request<Body>| {
        let log = std::sync::Arc::clone(&log);
        async move {
            let (parts, body) = request.into_parts();
            let body = to_bytes(body, 1 << 20).await.unwrap_or_default();
            let target = parts
                .uri
                .path_and_query()
                .map(|p| p.to_string())
                .unwrap_or_default();
            let path = parts.uri.path().to_owned();
            log.lock().unwrap().push(Seen {
                method: parts.method.to_string(),
                target,
                headers: parts.headers,
                body: String::from_utf8_lossy(&body).into_owned(),
            });
            let pet = json!({"id": 7, "name": "Rex", "tag": null});
            let (status, answer) = match (parts.method.as_str(), path.as_str()) {
                ("GET", "/pets") => (StatusCode::OK, json!([pet])),
                ("POST", "/pets") => (StatusCode::CREATED, pet),
                ("GET", "/pets/7") => (StatusCode::OK, pet),
                ("GET", "/store/inventory") => (StatusCode::OK, json!({"available": 3})),
                _ => (StatusCode::OK, json!([])),
            };
            (
                status,
                [(CONTENT_TYPE, "application/json")],
                answer.to_string(),
            )
                .into_response()
        }
    };
    let router = axum::Router::new().fallback(handler);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
    let server = tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    (base, seen, server)
}

fn modern_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientInfo": {"name": "openapi-test", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    })
}

#[tokio::test]
async fn calls_reach_the_api_as_the_document_says() {
    let (base, seen, server) = stub().await;
    for file in ["petstore.json", "petstore-3.0.json"] {
        seen.lock().unwrap().clear();
        let server = || {
            let api = OpenApi::from_file(dir().join(file))
                .base_url(&base)
                .bearer("t0ken")
                .api_key("k3y")
                .skip_unsupported();
            Server::new("petstore", "1").openapi(api)
        };
        let mut client = within(TestClient::connect_with_version(server(), LEGACY))
            .await
            .unwrap();

        // An array answer: under `result` before 2026-07-28...
        let listed = within(client.call_tool(
            "listPets",
            json!({"limit": 5, "status": ["available", "sold"]}),
        ))
        .await
        .unwrap();
        assert_eq!(listed["isError"], false, "{file}: {listed}");
        assert_eq!(
            listed["structuredContent"],
            json!({"result": [{"id": 7, "name": "Rex", "tag": null}]})
        );
        // ... and bare after.
        let mut modern = TestClient::start(server()).unwrap();
        let params = json!({"name": "listPets", "arguments": {}, "_meta": modern_meta()});
        let answer = within(modern.request("tools/call", params)).await.unwrap();
        assert_eq!(
            answer["structuredContent"],
            json!([{"id": 7, "name": "Rex", "tag": null}]),
            "{file}: {answer}"
        );

        // Merged body members and a header; the bearer token.
        let created = within(client.call_tool(
            "createPet",
            json!({"X-Request-Id": "3fa85f64-5717-4562-b3fc-2c963f66afa6", "name": "Rex", "tag": null}),
        ))
        .await
        .unwrap();
        assert_eq!(created["structuredContent"]["id"], 7, "{file}: {created}");
        // A path-level parameter; the API key where the scheme says.
        within(client.call_tool("getPet", json!({"petId": 7})))
            .await
            .unwrap();
        within(client.call_tool("get_store_inventory", json!({})))
            .await
            .unwrap();
        let searched = within(client.call_tool(
            "searchPets",
            json!({"ids": [1, 2], "tags": ["a", "b"], "filter": {"name": "x"}}),
        ))
        .await
        .unwrap();
        assert_eq!(searched["isError"], false, "{file}: {searched}");

        let seen = seen.lock().unwrap().clone();
        let targets: Vec<(String, String)> = seen
            .iter()
            .map(|s| (s.method.clone(), s.target.clone()))
            .collect();
        assert_eq!(
            targets,
            [
                (
                    "GET".into(),
                    "/pets?limit=5&status=available&status=sold".into()
                ),
                ("GET".into(), "/pets".into()),
                ("POST".into(), "/pets".into()),
                ("GET".into(), "/pets/7".into()),
                ("GET".into(), "/store/inventory".into()),
                (
                    "GET".into(),
                    "/search?ids=1,2&tags=a|b&filter[name]=x".into()
                ),
            ],
            "{file}"
        );
        let create = &seen[2];
        assert_eq!(
            serde_json::from_str::<Value>(&create.body).unwrap(),
            json!({"name": "Rex", "tag": null})
        );
        assert_eq!(
            create.headers["x-request-id"],
            "3fa85f64-5717-4562-b3fc-2c963f66afa6"
        );
        assert_eq!(create.headers["authorization"], "Bearer t0ken");
        assert_eq!(create.headers["content-type"], "application/json");
        let inventory = &seen[4];
        assert_eq!(inventory.headers["api_key"], "k3y");
        assert!(inventory.headers.get("authorization").is_none());
    }
    server.abort();
}

#[tokio::test]
async fn without_output_schemas_array_answers_are_objects_for_older_clients() {
    // No output schema to say the answer is an array, so the runtime does
    // not wrap it: the tool must, for clients before 2026-07-28 (the
    // Python SDK refuses a `structuredContent` that is not an object).
    let (base, _seen, server) = stub().await;
    let petstore = || {
        let api = OpenApi::from_file(dir().join("petstore.json"))
            .base_url(&base)
            .bearer("t0ken")
            .output_schemas(false)
            .skip_unsupported();
        Server::new("petstore", "1").openapi(api)
    };
    let pets = json!([{"id": 7, "name": "Rex", "tag": null}]);
    let mut client = within(TestClient::connect_with_version(petstore(), LEGACY))
        .await
        .unwrap();
    let listed = within(client.call_tool("listPets", json!({})))
        .await
        .unwrap();
    assert_eq!(
        listed["structuredContent"],
        json!({"result": pets}),
        "{listed}"
    );
    // The text keeps the answer as the API gave it.
    let text: Value = serde_json::from_str(listed["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(text, pets);
    // An object answer stays as it is.
    let pet = within(client.call_tool("getPet", json!({"petId": 7})))
        .await
        .unwrap();
    assert_eq!(pet["structuredContent"]["name"], "Rex", "{pet}");

    let mut modern = TestClient::start(petstore()).unwrap();
    let params = json!({"name": "listPets", "arguments": {}, "_meta": modern_meta()});
    let answer = within(modern.request("tools/call", params)).await.unwrap();
    assert_eq!(answer["structuredContent"], pets, "{answer}");
    server.abort();
}

#[tokio::test]
async fn transforms_hide_refused_operations_and_rename_served_ones() {
    use mcp_runtime::ToolTransform;

    let (base, _seen, server) = stub().await;
    let api = OpenApi::from_file(dir().join("petstore.json")).base_url(&base);
    let mut hidden = Server::new("p", "1").openapi(api);
    for name in REFUSED {
        hidden = hidden.transform(ToolTransform::new(name).hide());
    }
    let hidden = hidden.transform(ToolTransform::new("listPets").rename("pets"));
    let mut client = within(TestClient::connect_with_version(hidden, LEGACY))
        .await
        .expect("it starts");
    let tools = within(client.list_tools()).await.unwrap();
    assert_eq!(tools.len(), 8);
    assert_eq!(
        tool(&tools, "pets")["outputSchema"]["required"],
        json!(["result"])
    );
    let listed = within(client.call_tool("pets", json!({}))).await.unwrap();
    assert_eq!(
        listed["structuredContent"],
        json!({"result": [{"id": 7, "name": "Rex", "tag": null}]}),
        "{listed}"
    );
    server.abort();
}
