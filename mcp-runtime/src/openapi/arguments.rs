//! One operation's parameters and request body as one input object: each
//! parameter a property under its name (a name already taken by an earlier
//! location gets `__query`, `__header` or `__cookie`), a plain-object JSON
//! or form body merged in when no member name collides, any other body one
//! argument `body`; with the plan of where each argument goes.

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

use super::document::escape;
use super::plan::{
    ArgumentPlan, BodyEncoding, BodyPlan, Parameter, ParameterLocation, QueryStyle, Wire,
};
use super::schema::{Direction, Schemas};

/// A parameter as found (references followed) and where.
pub(crate) struct RawParameter<'a> {
    pub(crate) value: &'a Value,
    pub(crate) at: String,
}

/// What the tool takes and how it goes on the wire.
pub(crate) struct Inputs {
    pub(crate) schema: Map<String, Value>,
    pub(crate) arguments: Vec<ArgumentPlan>,
    pub(crate) body: Option<BodyPlan>,
}

/// Header parameters no argument may set: the spec says `Accept`,
/// `Content-Type` and `Authorization` are ignored, and `Cookie` and `Host`
/// belong to the client.
const RESERVED_HEADERS: &[&str] = &["accept", "content-type", "authorization", "cookie", "host"];

/// The order locations claim names in.
const LOCATIONS: &[&str] = &["path", "query", "header", "cookie"];

/// The input of one operation. `skip_headers` are header names the
/// configured API key takes (lower case).
pub(crate) fn inputs(
    schemas: &mut Schemas<'_>,
    path: &str,
    parameters: &[RawParameter<'_>],
    body: Option<(&Value, String)>,
    skip_headers: &[String],
) -> Result<Inputs, String> {
    let mut properties = Map::new();
    let mut required = Vec::new();
    let mut arguments = Vec::new();
    let mut deps = BTreeSet::new();
    let mut sorted: Vec<(usize, &str, &str, &RawParameter<'_>)> = Vec::new();
    for parameter in parameters {
        let name = parameter
            .value
            .get("name")
            .and_then(Value::as_str)
            .ok_or_else(|| format!("a parameter has no `name` (at {})", parameter.at))?;
        let location = parameter
            .value
            .get("in")
            .and_then(Value::as_str)
            .unwrap_or("");
        let Some(order) = LOCATIONS.iter().position(|l| *l == location) else {
            return Err(format!(
                "the parameter \"{name}\" is `in: {location}`, which is none of path, query, \
                 header and cookie (at {})",
                parameter.at
            ));
        };
        if location == "header"
            && (RESERVED_HEADERS.contains(&name.to_ascii_lowercase().as_str())
                || skip_headers.contains(&name.to_ascii_lowercase()))
        {
            continue;
        }
        sorted.push((order, name, location, parameter));
    }
    sorted.sort_by_key(|(order, ..)| *order);
    check_placeholders(path, &sorted)?;
    for (_, name, location, parameter) in sorted {
        let (wire, schema) = parameter_wire(schemas, name, location, parameter, &mut deps)?;
        let mut argument = name.to_owned();
        if properties.contains_key(&argument) {
            argument = format!("{name}__{location}");
        }
        if properties.contains_key(&argument) {
            return Err(format!(
                "two parameters are named \"{name}\" in {location} (at {})",
                parameter.at
            ));
        }
        if location == "path" || parameter.value.get("required") == Some(&Value::Bool(true)) {
            required.push(Value::from(argument.clone()));
        }
        properties.insert(argument.clone(), schema);
        arguments.push(ArgumentPlan {
            argument,
            wire: Wire::Parameter(wire),
        });
    }
    let body = match body {
        Some((value, at)) => Some(request_body(
            schemas,
            value,
            &at,
            &mut properties,
            &mut required,
            &mut arguments,
            &mut deps,
        )?),
        None => None,
    };
    let mut schema = Map::new();
    schema.insert("type".into(), json!("object"));
    schema.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        schema.insert("required".into(), Value::Array(required));
    }
    schema.insert("additionalProperties".into(), json!(false));
    if let Some(defs) = schemas.defs(&deps, Direction::Input) {
        schema.insert("$defs".into(), defs);
    }
    crate::schema::generate::drop_nonstandard_formats(&mut schema);
    Ok(Inputs {
        schema,
        arguments,
        body,
    })
}

/// Every `{name}` in the path has its path parameter, and every path
/// parameter its `{name}`.
fn check_placeholders(
    path: &str,
    parameters: &[(usize, &str, &str, &RawParameter<'_>)],
) -> Result<(), String> {
    let placeholders: Vec<&str> = path
        .split('{')
        .skip(1)
        .filter_map(|rest| rest.split_once('}').map(|(name, _)| name))
        .collect();
    for placeholder in &placeholders {
        if !parameters
            .iter()
            .any(|(_, name, location, _)| *location == "path" && name == placeholder)
        {
            return Err(format!(
                "its path has {{{placeholder}}}, but no path parameter \"{placeholder}\" says what \
                 goes there"
            ));
        }
    }
    for (_, name, location, parameter) in parameters {
        if *location == "path" && !placeholders.contains(name) {
            return Err(format!(
                "the path parameter \"{name}\" has no {{{name}}} in the path (at {})",
                parameter.at
            ));
        }
    }
    Ok(())
}

/// The JSON type a converted schema gives its values, when it says one
/// (`null` aside).
fn kind(schema: &Value) -> Option<&str> {
    match schema.get("type") {
        Some(Value::String(kind)) => Some(kind),
        Some(Value::Array(kinds)) => kinds
            .iter()
            .filter_map(Value::as_str)
            .find(|k| *k != "null"),
        _ => None,
    }
}

fn parameter_wire(
    schemas: &mut Schemas<'_>,
    name: &str,
    location: &str,
    parameter: &RawParameter<'_>,
    deps: &mut BTreeSet<String>,
) -> Result<(Parameter, Value), String> {
    let at = &parameter.at;
    let value = parameter.value;
    let (raw_schema, schema_at, json) = match value.get("content").and_then(Value::as_object) {
        Some(content) => {
            let Some((media, media_value)) = content.iter().next() else {
                return Err(format!(
                    "the {location} parameter \"{name}\" has an empty `content` (at {at})"
                ));
            };
            if !is_json(media) {
                return Err(format!(
                    "the {location} parameter \"{name}\" is {media} content, which cannot be \
                     written; only application/json content is (at {at}/content)"
                ));
            }
            (
                media_value.get("schema"),
                format!("{at}/content/{}/schema", escape(media)),
                true,
            )
        }
        None => (value.get("schema"), format!("{at}/schema"), false),
    };
    let any = json!({});
    let piece = schemas.convert(raw_schema.unwrap_or(&any), &schema_at, Direction::Input)?;
    deps.extend(piece.deps);
    let mut schema = piece.value;
    if let (Some(description), Value::Object(map)) = (value.get("description"), &mut schema) {
        map.insert("description".into(), description.clone());
    }
    let default_style = match location {
        "query" | "cookie" => "form",
        _ => "simple",
    };
    let style = value
        .get("style")
        .and_then(Value::as_str)
        .unwrap_or(default_style);
    let explode = value
        .get("explode")
        .and_then(Value::as_bool)
        .unwrap_or(style == "form");
    let kind = if json { None } else { kind(&schema) };
    let refuse = |what: &str| {
        format!("the {location} parameter \"{name}\" {what}, which cannot be written (at {at})")
    };
    let location = match (location, style) {
        (_, _) if json => match location {
            "path" => ParameterLocation::Path,
            "query" => ParameterLocation::Query(QueryStyle::Form),
            "header" => ParameterLocation::Header,
            _ => ParameterLocation::Cookie,
        },
        ("path", "simple") => ParameterLocation::Path,
        ("header", "simple") => ParameterLocation::Header,
        ("query", "form") => ParameterLocation::Query(QueryStyle::Form),
        ("query", "spaceDelimited" | "pipeDelimited") if kind == Some("object") => {
            return Err(refuse(&format!("has style {style} on an object")));
        }
        ("query", "spaceDelimited") => ParameterLocation::Query(QueryStyle::SpaceDelimited),
        ("query", "pipeDelimited") => ParameterLocation::Query(QueryStyle::PipeDelimited),
        ("query", "deepObject") => {
            let nested = schema
                .get("properties")
                .and_then(Value::as_object)
                .is_some_and(|p| p.values().any(|sub| kind_of(sub) == Some("object")));
            if kind != Some("object") {
                return Err(refuse("has style deepObject but is not an object"));
            }
            if nested {
                return Err(refuse("has style deepObject with objects inside"));
            }
            ParameterLocation::Query(QueryStyle::DeepObject)
        }
        ("cookie", "form") if matches!(kind, Some("array" | "object")) => {
            return Err(refuse(&format!("is an {}", kind.unwrap_or_default())));
        }
        ("cookie", "form") => ParameterLocation::Cookie,
        (_, style) => return Err(refuse(&format!("has style {style}"))),
    };
    Ok((
        Parameter {
            name: name.to_owned(),
            location,
            explode,
            allow_reserved: value.get("allowReserved") == Some(&Value::Bool(true)),
            json,
        },
        schema,
    ))
}

fn kind_of(schema: &Value) -> Option<&str> {
    kind(schema)
}

/// A JSON media type: `application/json` or `*/*+json`, parameters aside.
pub(crate) fn is_json(media: &str) -> bool {
    let essence = media
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    essence == "application/json" || (essence.contains('/') && essence.ends_with("+json"))
}

const FORM: &str = "application/x-www-form-urlencoded";

#[allow(clippy::too_many_arguments)]
fn request_body(
    schemas: &mut Schemas<'_>,
    body: &Value,
    at: &str,
    properties: &mut Map<String, Value>,
    required: &mut Vec<Value>,
    arguments: &mut Vec<ArgumentPlan>,
    deps: &mut BTreeSet<String>,
) -> Result<BodyPlan, String> {
    let content = body.get("content").and_then(Value::as_object);
    let chosen = content.and_then(|c| {
        c.iter()
            .find(|(media, _)| is_json(media))
            .map(|(m, v)| (m, v, BodyEncoding::Json))
            .or_else(|| {
                c.iter()
                    .find(|(media, _)| {
                        media
                            .split(';')
                            .next()
                            .unwrap_or("")
                            .trim()
                            .eq_ignore_ascii_case(FORM)
                    })
                    .map(|(m, v)| (m, v, BodyEncoding::Form))
            })
    });
    let Some((media, media_value, encoding)) = chosen else {
        let types: Vec<&str> = content
            .into_iter()
            .flat_map(|c| c.keys())
            .map(String::as_str)
            .collect();
        let types = if types.is_empty() {
            "no media type".to_owned()
        } else {
            types.join(", ")
        };
        return Err(format!(
            "its request body is {types}, which cannot be sent; only JSON and flat {FORM} \
             bodies can (at {at}/content)"
        ));
    };
    let body_required = body.get("required") == Some(&Value::Bool(true));
    let schema_at = format!("{at}/content/{}/schema", escape(media));
    let any = json!({});
    let piece = schemas.convert(
        media_value.get("schema").unwrap_or(&any),
        &schema_at,
        Direction::Input,
    )?;
    deps.extend(piece.deps);
    let schema = piece.value;
    let members = plain_members(&schema);
    if encoding == BodyEncoding::Form {
        let Some(members) = &members else {
            return Err(format!(
                "its {FORM} body is not a plain object with `properties`, which cannot be \
                 written (at {schema_at})"
            ));
        };
        if let Some((name, _)) = members.iter().find(|(_, sub)| {
            kind(sub) == Some("object") || kind(sub).is_none() && sub.get("properties").is_some()
        }) {
            return Err(format!(
                "its {FORM} body has the object member \"{name}\", which cannot be written; \
                 only primitive and array members can (at {schema_at})"
            ));
        }
    }
    let merge = members
        .as_ref()
        .filter(|members| members.keys().all(|name| !properties.contains_key(name)));
    if let Some(members) = merge {
        let body_needs: Vec<&Value> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().collect())
            .unwrap_or_default();
        for (name, sub) in members.iter() {
            properties.insert(name.clone(), sub.clone());
            if body_required && body_needs.iter().any(|r| r.as_str() == Some(name)) {
                required.push(Value::from(name.clone()));
            }
            arguments.push(ArgumentPlan {
                argument: name.clone(),
                wire: Wire::BodyMember { name: name.clone() },
            });
        }
    } else {
        let argument = ["body", "request_body"]
            .into_iter()
            .find(|name| !properties.contains_key(*name))
            .ok_or_else(|| {
                format!(
                    "its request body needs an argument of its own, but parameters already take \
                     both `body` and `request_body` (at {at})"
                )
            })?;
        let mut schema = schema;
        if let (Some(description), Value::Object(map)) = (body.get("description"), &mut schema)
            && !map.contains_key("description")
        {
            map.insert("description".into(), description.clone());
        }
        properties.insert(argument.into(), schema);
        if body_required {
            required.push(Value::from(argument));
        }
        arguments.push(ArgumentPlan {
            argument: argument.into(),
            wire: Wire::Body,
        });
    }
    Ok(BodyPlan {
        media_type: media.clone(),
        encoding,
        required: body_required,
    })
}

/// The members of a plain-object schema (`properties`, and no
/// combinator that could change what an object is).
fn plain_members(schema: &Value) -> Option<&Map<String, Value>> {
    let map = schema.as_object()?;
    if ["oneOf", "anyOf", "allOf", "not", "if", "$ref"]
        .iter()
        .any(|k| map.contains_key(*k))
    {
        return None;
    }
    if kind(schema).is_some_and(|k| k != "object") {
        return None;
    }
    map.get("properties")?.as_object()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::openapi::document::{Document, Version};

    fn doc() -> Document {
        Document {
            root: json!({"components": {"schemas": {"Pet": {"type": "object", "properties": {
                "id": {"type": "integer", "readOnly": true}, "name": {"type": "string"}}}}}}),
            version: Version::V31,
        }
    }

    fn run(path: &str, parameters: &[Value], body: Option<Value>) -> Result<Inputs, String> {
        let doc = doc();
        let mut schemas = Schemas::new(&doc);
        let raw: Vec<RawParameter<'_>> = parameters
            .iter()
            .enumerate()
            .map(|(i, value)| RawParameter {
                value,
                at: format!("#/p/{i}"),
            })
            .collect();
        let body = body.as_ref().map(|b| (b, "#/body".to_owned()));
        inputs(&mut schemas, path, &raw, body, &["api_key".to_owned()])
    }

    fn names(inputs: &Inputs) -> Vec<&str> {
        inputs
            .arguments
            .iter()
            .map(|a| a.argument.as_str())
            .collect()
    }

    #[test]
    fn a_name_taken_by_an_earlier_location_gets_a_suffix() {
        let parameters = [
            json!({"name": "id", "in": "header", "schema": {"type": "string"}}),
            json!({"name": "id", "in": "query", "schema": {"type": "string"}}),
            json!({"name": "id", "in": "path", "required": true, "schema": {"type": "integer"}}),
        ];
        let inputs = run("/things/{id}", &parameters, None).unwrap();
        assert_eq!(names(&inputs), ["id", "id__query", "id__header"]);
        assert_eq!(inputs.schema["required"], json!(["id"]));
        assert_eq!(inputs.schema["additionalProperties"], json!(false));
        let Wire::Parameter(query) = &inputs.arguments[1].wire else {
            panic!("a parameter");
        };
        assert_eq!(query.name, "id");
        assert_eq!(query.location, ParameterLocation::Query(QueryStyle::Form));
        assert!(query.explode);
    }

    #[test]
    fn reserved_headers_and_the_key_header_are_no_arguments() {
        let parameters = [
            json!({"name": "Accept", "in": "header"}),
            json!({"name": "Authorization", "in": "header"}),
            json!({"name": "API_KEY", "in": "header"}),
            json!({"name": "X-Trace", "in": "header"}),
        ];
        assert_eq!(names(&run("/", &parameters, None).unwrap()), ["X-Trace"]);
    }

    #[test]
    fn a_plain_body_is_merged_and_any_other_is_one_argument() {
        let body = json!({"required": true, "content": {"application/json; charset=utf-8": {
            "schema": {"$ref": "#/components/schemas/Pet"}}}});
        let inputs = run("/", &[], Some(body)).unwrap();
        // `id` is read-only: not an argument.
        assert_eq!(names(&inputs), ["name"]);
        let plan = inputs.body.unwrap();
        assert_eq!(plan.media_type, "application/json; charset=utf-8");
        assert_eq!(plan.encoding, BodyEncoding::Json);
        assert!(plan.required);
        // A member named like a parameter: the body is `body`.
        let parameters = [json!({"name": "name", "in": "query"})];
        let body = json!({"content": {"application/vnd.api+json": {"schema": {"$ref": "#/components/schemas/Pet"}}}});
        let inputs = run("/", &parameters, Some(body)).unwrap();
        assert_eq!(names(&inputs), ["name", "body"]);
        assert!(matches!(inputs.arguments[1].wire, Wire::Body));
        assert!(inputs.schema.get("required").is_none());
        // `body` taken too: `request_body`; both taken: refused.
        let parameters = [json!({"name": "body", "in": "query"})];
        let array = json!({"content": {"application/json": {"schema": {"type": "array"}}}});
        let inputs = run("/", &parameters, Some(array.clone())).unwrap();
        assert_eq!(names(&inputs), ["body", "request_body"]);
        let parameters = [
            json!({"name": "body", "in": "query"}),
            json!({"name": "request_body", "in": "query"}),
        ];
        assert_eq!(
            run("/", &parameters, Some(array)).err().unwrap(),
            "its request body needs an argument of its own, but parameters already take both \
             `body` and `request_body` (at #/body)"
        );
    }

    #[test]
    fn form_bodies_must_be_flat() {
        let flat = json!({"content": {"application/x-www-form-urlencoded": {"schema": {"type": "object",
            "properties": {"a": {"type": "string"}, "b": {"type": "array", "items": {"type": "integer"}}}}}}});
        let inputs = run("/", &[], Some(flat)).unwrap();
        assert_eq!(inputs.body.unwrap().encoding, BodyEncoding::Form);
        let nested = json!({"content": {"application/x-www-form-urlencoded": {"schema": {"type": "object",
            "properties": {"a": {"type": "object"}}}}}});
        assert_eq!(
            run("/", &[], Some(nested)).err().unwrap(),
            "its application/x-www-form-urlencoded body has the object member \"a\", which cannot \
             be written; only primitive and array members can (at \
             #/body/content/application~1x-www-form-urlencoded/schema)"
        );
    }

    #[test]
    fn path_parameters_and_placeholders_match() {
        let parameters = [json!({"name": "id", "in": "path", "required": true})];
        assert_eq!(
            run("/things", &parameters, None).err().unwrap(),
            "the path parameter \"id\" has no {id} in the path (at #/p/0)"
        );
        let parameters = [json!({"name": "id", "in": "body"})];
        assert_eq!(
            run("/things", &parameters, None).err().unwrap(),
            "the parameter \"id\" is `in: body`, which is none of path, query, header and cookie \
             (at #/p/0)"
        );
    }

    #[test]
    fn accepted_styles_become_plans_and_json_content_is_marked() {
        let parameters = [
            json!({"name": "a", "in": "query", "style": "pipeDelimited", "explode": false, "schema": {"type": "array"}}),
            json!({"name": "b", "in": "query", "style": "deepObject", "schema": {"type": "object", "properties": {"x": {"type": "string"}}}}),
            json!({"name": "c", "in": "query", "content": {"application/json": {"schema": {"type": "object"}}}}),
            json!({"name": "d", "in": "cookie", "schema": {"type": "string"}}),
            json!({"name": "e", "in": "query", "allowReserved": true, "schema": {"type": "string"}}),
        ];
        let inputs = run("/", &parameters, None).unwrap();
        let plans: Vec<(ParameterLocation, bool, bool, bool)> = inputs
            .arguments
            .iter()
            .map(|a| match &a.wire {
                Wire::Parameter(p) => (p.location, p.explode, p.json, p.allow_reserved),
                _ => panic!("a parameter"),
            })
            .collect();
        assert_eq!(
            plans,
            [
                (
                    ParameterLocation::Query(QueryStyle::PipeDelimited),
                    false,
                    false,
                    false
                ),
                (
                    ParameterLocation::Query(QueryStyle::DeepObject),
                    false,
                    false,
                    false
                ),
                (
                    ParameterLocation::Query(QueryStyle::Form),
                    true,
                    true,
                    false
                ),
                (
                    ParameterLocation::Query(QueryStyle::Form),
                    true,
                    false,
                    true
                ),
                (ParameterLocation::Cookie, true, false, false),
            ]
        );
        let label = [json!({"name": "id", "in": "path", "required": true, "style": "label"})];
        assert_eq!(
            run("/{id}", &label, None).err().unwrap(),
            "the path parameter \"id\" has style label, which cannot be written (at #/p/0)"
        );
        let deep = [
            json!({"name": "f", "in": "query", "style": "deepObject", "schema": {"type": "string"}}),
        ];
        assert_eq!(
            run("/", &deep, None).err().unwrap(),
            "the query parameter \"f\" has style deepObject but is not an object, which cannot be \
             written (at #/p/0)"
        );
    }
}
