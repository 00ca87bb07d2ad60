//! Reading a document: JSON or YAML into one `serde_json::Value`, the
//! version checks, and local JSON-pointer references (`#/components/..`).

use serde_json::Value;

/// The two versions read. They differ mostly inside Schema Objects, which
/// `schema.rs` brings to JSON Schema 2020-12.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Version {
    V30,
    V31,
}

/// A parsed, version-checked document.
#[derive(Debug)]
pub(crate) struct Document {
    pub(crate) root: Value,
    pub(crate) version: Version,
}

impl Document {
    /// Parses `text` (JSON when `name` ends in `.json` or the text starts
    /// with `{`, YAML otherwise) and checks its version.
    pub(crate) fn parse(name: &str, text: &str) -> Result<Document, String> {
        let root = parse_text(name, text)?;
        let version = check_version(&root)?;
        let webhooks_only = version == Version::V31 && root.get("webhooks").is_some();
        if !(root.get("paths").is_some_and(Value::is_object) || webhooks_only) {
            return Err("it has no `paths` object, so it describes no operation to serve".into());
        }
        Ok(Document { root, version })
    }

    /// The value at a local reference (`#/components/schemas/Pet`), or a
    /// sentence naming it and `at`, the pointer of the `$ref` that holds it.
    pub(crate) fn resolve(&self, reference: &str, at: &str) -> Result<&Value, String> {
        resolve_in(&self.root, reference, at)
    }

    /// `value`, with `$ref`s followed (parameters, request bodies,
    /// responses, path items), and the pointer where the result lives.
    pub(crate) fn follow<'a>(
        &'a self,
        mut value: &'a Value,
        mut at: String,
    ) -> Result<(&'a Value, String), String> {
        let mut seen = Vec::new();
        while let Some(reference) = value.get("$ref").and_then(Value::as_str) {
            if seen.iter().any(|s| s == reference) {
                return Err(format!(
                    "the reference {reference} (at {at}) leads back to itself through {}",
                    seen.join(" → ")
                ));
            }
            seen.push(reference.to_owned());
            value = self.resolve(reference, &at)?;
            at = reference.to_owned();
        }
        Ok((value, at))
    }
}

fn parse_text(name: &str, text: &str) -> Result<Value, String> {
    let json = name.to_ascii_lowercase().ends_with(".json") || text.trim_start().starts_with('{');
    if json {
        serde_json::from_str(text).map_err(|e| format!("it is not valid JSON: {e}"))
    } else {
        serde_norway::from_str(text).map_err(|e| format!("it is not YAML that JSON can carry: {e}"))
    }
}

fn check_version(root: &Value) -> Result<Version, String> {
    if !root.is_object() {
        return Err("it is not an object with `openapi`, `info` and `paths`".into());
    }
    if let Some(swagger) = root.get("swagger") {
        return Err(format!(
            "it is a Swagger {} document, which is not read here; convert it to OpenAPI 3 first \
             (for example with `npx swagger2openapi`), then serve the result",
            swagger
                .as_str()
                .map_or_else(|| swagger.to_string(), str::to_owned)
        ));
    }
    let version = match root.get("openapi") {
        Some(Value::String(version)) => version,
        Some(other) => {
            return Err(format!(
                "its `openapi` field is {other}, not a version string such as \"3.1.0\""
            ));
        }
        None => {
            return Err(
                "it has no `openapi` field, so it is no OpenAPI 3 document; only 3.0.x and \
                 3.1.x are read"
                    .into(),
            );
        }
    };
    let parsed = if version == "3.0" || version.starts_with("3.0.") {
        Version::V30
    } else if version == "3.1" || version.starts_with("3.1.") {
        Version::V31
    } else {
        return Err(format!(
            "its version is \"{version}\"; only OpenAPI 3.0.x and 3.1.x are read"
        ));
    };
    if parsed == Version::V31
        && let Some(dialect) = root.get("jsonSchemaDialect")
        && dialect.as_str() != Some(DIALECT_2020_12)
    {
        return Err(format!(
            "its `jsonSchemaDialect` is {dialect}; only JSON Schema 2020-12 \
             ({DIALECT_2020_12}) is read"
        ));
    }
    Ok(parsed)
}

/// The dialect 3.1 documents use unless they say otherwise.
pub(crate) const DIALECT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

fn resolve_in<'a>(root: &'a Value, reference: &str, at: &str) -> Result<&'a Value, String> {
    let Some(pointer) = reference.strip_prefix('#') else {
        return Err(format!(
            "the reference {reference} (at {at}) points outside this document; only references \
             inside it (`#/...`) are followed, so inline what it points to"
        ));
    };
    let pointer = crate::schema::validator::pointer::percent_decode(pointer)
        .ok_or_else(|| format!("the reference {reference} (at {at}) has a malformed %-escape"))?;
    if !pointer.is_empty() && !pointer.starts_with('/') {
        return Err(format!(
            "the reference {reference} (at {at}) is not a JSON pointer (`#/components/...`)"
        ));
    }
    let mut value = root;
    for segment in pointer.split('/').skip(1) {
        let key = segment.replace("~1", "/").replace("~0", "~");
        let next = match value {
            Value::Object(map) => map.get(&key),
            Value::Array(list) => key.parse::<usize>().ok().and_then(|i| list.get(i)),
            _ => None,
        };
        value = next.ok_or_else(|| {
            format!("the reference {reference} (at {at}) points to nothing in the document")
        })?;
    }
    Ok(value)
}

/// A JSON pointer segment escaped (`/` → `~1`, `~` → `~0`).
pub(crate) fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn parse(text: &str) -> Result<Document, String> {
        Document::parse("doc", text)
    }

    #[test]
    fn reads_json_and_yaml_and_names_the_place_of_a_syntax_error() {
        let yaml = "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths: {}\n";
        assert_eq!(parse(yaml).unwrap().version, Version::V31);
        let json = r#"{"openapi": "3.0.3", "paths": {}}"#;
        assert_eq!(parse(json).unwrap().version, Version::V30);
        let bad_json = "{\"openapi\": \"3.0.3\",\n  \"paths\": {,}}";
        let error = parse(bad_json).unwrap_err();
        assert!(
            error.starts_with("it is not valid JSON: ") && error.contains("line 2 column"),
            "{error}"
        );
        let bad_yaml = "openapi: 3.1.0\npaths:\n  /a: [\n";
        let error = parse(bad_yaml).unwrap_err();
        assert!(
            error.starts_with("it is not YAML that JSON can carry: ") && error.contains("line"),
            "{error}"
        );
    }

    #[test]
    fn refuses_swagger_other_versions_and_documents_without_paths() {
        let error = parse(r#"{"swagger": "2.0", "paths": {}}"#).unwrap_err();
        assert_eq!(
            error,
            "it is a Swagger 2.0 document, which is not read here; convert it to OpenAPI 3 first \
             (for example with `npx swagger2openapi`), then serve the result"
        );
        let error = parse(r#"{"openapi": "4.0.0", "paths": {}}"#).unwrap_err();
        assert_eq!(
            error,
            "its version is \"4.0.0\"; only OpenAPI 3.0.x and 3.1.x are read"
        );
        let error = parse(r#"{"openapi": "3.1.0"}"#).unwrap_err();
        assert_eq!(
            error,
            "it has no `paths` object, so it describes no operation to serve"
        );
        let error = parse(r#"{"info": {}}"#).unwrap_err();
        assert!(error.starts_with("it has no `openapi` field"), "{error}");
        let error = parse(
            r#"{"openapi": "3.1.0", "paths": {}, "jsonSchemaDialect": "https://spec.openapis.org/oas/3.1/dialect/base"}"#,
        )
        .unwrap_err();
        assert!(error.contains("only JSON Schema 2020-12"), "{error}");
    }

    #[test]
    fn resolves_local_pointers_with_escapes_and_names_bad_ones() {
        let doc = Document {
            root: json!({"components": {"schemas": {"a/b": {"x": 1}, "c~d": [0, {"y": 2}], "e f": 3}}}),
            version: Version::V31,
        };
        let at = "#/paths/~1pets/get";
        assert_eq!(
            doc.resolve("#/components/schemas/a~1b", at).unwrap(),
            &json!({"x": 1})
        );
        assert_eq!(
            doc.resolve("#/components/schemas/c~0d/1/y", at).unwrap(),
            &json!(2)
        );
        assert_eq!(
            doc.resolve("#/components/schemas/e%20f", at).unwrap(),
            &json!(3)
        );
        assert_eq!(
            doc.resolve("#/components/schemas/Missing", at).unwrap_err(),
            "the reference #/components/schemas/Missing (at #/paths/~1pets/get) points to \
             nothing in the document"
        );
        assert_eq!(
            doc.resolve("common.yaml#/Pet", at).unwrap_err(),
            "the reference common.yaml#/Pet (at #/paths/~1pets/get) points outside this \
             document; only references inside it (`#/...`) are followed, so inline what it \
             points to"
        );
    }

    #[test]
    fn follows_chains_and_refuses_a_loop() {
        let doc = Document {
            root: json!({"components": {"parameters": {
                "A": {"$ref": "#/components/parameters/B"},
                "B": {"name": "b", "in": "query"},
                "L": {"$ref": "#/components/parameters/L"}
            }}}),
            version: Version::V30,
        };
        let start = json!({"$ref": "#/components/parameters/A"});
        let (value, at) = doc.follow(&start, "#/x".into()).unwrap();
        assert_eq!(value["name"], "b");
        assert_eq!(at, "#/components/parameters/B");
        let looped = json!({"$ref": "#/components/parameters/L"});
        let error = doc.follow(&looped, "#/x".into()).unwrap_err();
        assert!(error.contains("leads back to itself"), "{error}");
    }
}
