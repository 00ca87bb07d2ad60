//! How one argument's value is written on the wire: OpenAPI's parameter
//! styles (`simple`, `form`, `spaceDelimited`, `pipeDelimited`,
//! `deepObject`) and the percent-encoding of each place.
//!
//! Values are written by their JSON type at call time, not by the schema
//! (a parameter may be `oneOf: [string, array]`): strings as they are,
//! numbers and booleans as JSON text, and what a style cannot hold (an
//! object inside an array) as JSON text.
//!
//! Percent-encoding is written here rather than with the
//! `percent-encoding` crate: it is one loop over bytes with two sets, and
//! `url`'s own `form_urlencoded` writes a space as `+` and encodes the
//! delimiters (`,`, `|`, `[`, `]`) the styles need literally.

use serde_json::{Map, Value};

use super::plan::QueryStyle;

/// RFC 3986 reserved characters that `allowReserved` sends as they are.
/// `&`, `=`, `+` and `#` stay encoded: raw, they would split the pair,
/// read as a space, or end the query.
const RESERVED_KEPT: &[u8] = b":/?[]@!$'()*,;";

/// `text` with every byte outside RFC 3986 unreserved (`A-Z a-z 0-9 - . _
/// ~`) and outside `keep` percent-encoded (`/` included, unless kept).
pub(super) fn encode(text: &str, keep: &[u8]) -> String {
    let mut out = String::with_capacity(text.len());
    for &byte in text.as_bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) || keep.contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// A value as the text of one primitive: a string as it is, anything else
/// as JSON text (`7`, `true`, `null`, `{"a":1}`).
pub(super) fn scalar(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// The `simple` style (path and header): a primitive as itself, an array
/// as `a,b`, an object as `k,v,k2,v2` or, exploded, `k=v,k2=v2`; each
/// token passed through `enc` (the delimiters are not).
pub(super) fn simple(value: &Value, explode: bool, enc: &dyn Fn(&str) -> String) -> String {
    match value {
        Value::Array(items) => items
            .iter()
            .map(|item| enc(&scalar(item)))
            .collect::<Vec<_>>()
            .join(","),
        Value::Object(members) => members
            .iter()
            .map(|(key, member)| {
                let (key, member) = (enc(key), enc(&scalar(member)));
                if explode {
                    format!("{key}={member}")
                } else {
                    format!("{key},{member}")
                }
            })
            .collect::<Vec<_>>()
            .join(","),
        primitive => enc(&scalar(primitive)),
    }
}

/// The query pairs (`k=v`, already encoded) of one parameter, appended to
/// `out`.
pub(super) fn query(
    name: &str,
    value: &Value,
    style: QueryStyle,
    explode: bool,
    allow_reserved: bool,
    out: &mut Vec<String>,
) {
    let keep: &[u8] = if allow_reserved { RESERVED_KEPT } else { b"" };
    let enc = |text: &str| encode(text, keep);
    let key = encode(name, b"");
    match (value, style) {
        (Value::Object(members), QueryStyle::DeepObject) => {
            for (member, inner) in members {
                let key = format!("{key}[{}]", encode(member, b""));
                match inner {
                    // One level: an array member repeats the key.
                    Value::Array(items) => {
                        out.extend(items.iter().map(|i| format!("{key}={}", enc(&scalar(i)))))
                    }
                    inner => out.push(format!("{key}={}", enc(&scalar(inner)))),
                }
            }
        }
        (Value::Array(items), _) if explode && !items.is_empty() => {
            out.extend(
                items
                    .iter()
                    .map(|item| format!("{key}={}", enc(&scalar(item)))),
            );
        }
        (Value::Object(members), _) if explode => {
            // Exploded form objects: each member is a pair of its own.
            out.extend(
                members
                    .iter()
                    .map(|(k, v)| format!("{}={}", encode(k, b""), enc(&scalar(v)))),
            );
        }
        (Value::Array(items), _) => {
            let joined = items
                .iter()
                .map(|item| enc(&scalar(item)))
                .collect::<Vec<_>>()
                .join(delimiter(style));
            out.push(format!("{key}={joined}"));
        }
        (Value::Object(members), _) => {
            let joined = members
                .iter()
                .flat_map(|(k, v)| [enc(k), enc(&scalar(v))])
                .collect::<Vec<_>>()
                .join(delimiter(style));
            out.push(format!("{key}={joined}"));
        }
        (primitive, _) => out.push(format!("{key}={}", enc(&scalar(primitive)))),
    }
}

/// What separates the items of an unexploded array in a query style.
fn delimiter(style: QueryStyle) -> &'static str {
    match style {
        QueryStyle::SpaceDelimited => "%20",
        QueryStyle::PipeDelimited => "|",
        QueryStyle::Form | QueryStyle::DeepObject => ",",
    }
}

/// The `form` style of a cookie (`name=value`, arrays as `a,b`), each
/// value percent-encoded so that no `;`, `,` or space can end it.
pub(super) fn cookie(name: &str, value: &Value) -> String {
    let enc = |text: &str| encode(text, b"");
    let text = match value {
        Value::Array(_) | Value::Object(_) => simple(value, false, &enc),
        primitive => enc(&scalar(primitive)),
    };
    format!("{}={text}", encode(name, b""))
}

/// A flat `application/x-www-form-urlencoded` body: primitive members as
/// pairs, array members as repeated pairs, `null` members left out, and
/// nested objects as JSON text.
pub(super) fn form_body(members: &Map<String, Value>) -> String {
    let mut form = url::form_urlencoded::Serializer::new(String::new());
    for (name, value) in members {
        match value {
            Value::Null => {}
            Value::Array(items) => {
                for item in items {
                    form.append_pair(name, &scalar(item));
                }
            }
            other => {
                form.append_pair(name, &scalar(other));
            }
        }
    }
    form.finish()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn pairs(value: Value, style: QueryStyle, explode: bool, reserved: bool) -> String {
        let mut out = Vec::new();
        query("k", &value, style, explode, reserved, &mut out);
        out.join("&")
    }

    #[test]
    fn path_values_encode_everything_outside_unreserved_slash_included() {
        let enc = |t: &str| encode(t, b"");
        assert_eq!(
            simple(&json!("a/b c?d#e%"), false, &enc),
            "a%2Fb%20c%3Fd%23e%25"
        );
        assert_eq!(simple(&json!("Az09-._~"), false, &enc), "Az09-._~");
        assert_eq!(simple(&json!("é"), false, &enc), "%C3%A9");
        assert_eq!(simple(&json!(7), false, &enc), "7");
        assert_eq!(simple(&json!(1.5), false, &enc), "1.5");
        assert_eq!(simple(&json!(true), false, &enc), "true");
    }

    #[test]
    fn simple_style_arrays_and_objects() {
        let enc = |t: &str| encode(t, b"");
        assert_eq!(simple(&json!([3, "a,b", 5]), false, &enc), "3,a%2Cb,5");
        let object = json!({"role": "admin", "first": "Alex"});
        assert_eq!(simple(&object, false, &enc), "role,admin,first,Alex");
        assert_eq!(simple(&object, true, &enc), "role=admin,first=Alex");
        // Headers are not percent-encoded.
        let raw = |t: &str| t.to_owned();
        assert_eq!(simple(&json!(["a b", 2]), false, &raw), "a b,2");
    }

    #[test]
    fn form_style() {
        use QueryStyle::Form;
        assert_eq!(pairs(json!("a b&c"), Form, true, false), "k=a%20b%26c");
        assert_eq!(pairs(json!(5), Form, true, false), "k=5");
        assert_eq!(pairs(json!(false), Form, true, false), "k=false");
        assert_eq!(pairs(json!(["x", 2]), Form, true, false), "k=x&k=2");
        assert_eq!(pairs(json!(["x", "y,z"]), Form, false, false), "k=x,y%2Cz");
        assert_eq!(pairs(json!([]), Form, true, false), "k=");
        assert_eq!(
            pairs(json!({"R": 100, "G": "a b"}), Form, true, false),
            "R=100&G=a%20b"
        );
        assert_eq!(
            pairs(json!({"R": 100, "G": 200}), Form, false, false),
            "k=R,100,G,200"
        );
    }

    #[test]
    fn delimited_styles() {
        use QueryStyle::*;
        let colours = json!(["blue", "black", "a|b"]);
        assert_eq!(
            pairs(colours.clone(), SpaceDelimited, false, false),
            "k=blue%20black%20a%7Cb"
        );
        assert_eq!(
            pairs(colours.clone(), PipeDelimited, false, false),
            "k=blue|black|a%7Cb"
        );
        assert_eq!(
            pairs(colours, PipeDelimited, true, false),
            "k=blue&k=black&k=a%7Cb"
        );
    }

    #[test]
    fn deep_object_one_level() {
        let value = json!({"min": 1, "name": "a b", "tags": ["x", "y"], "sub": {"a": 1}});
        assert_eq!(
            pairs(value, QueryStyle::DeepObject, true, false),
            "k[min]=1&k[name]=a%20b&k[tags]=x&k[tags]=y&k[sub]=%7B%22a%22%3A1%7D"
        );
    }

    #[test]
    fn allow_reserved_keeps_reserved_characters_but_not_pair_breakers() {
        let value = json!("/a:b?c,d[e]@f&g=h+i#j k");
        assert_eq!(
            pairs(value.clone(), QueryStyle::Form, true, true),
            "k=/a:b?c,d[e]@f%26g%3Dh%2Bi%23j%20k"
        );
        assert_eq!(
            pairs(value, QueryStyle::Form, true, false),
            "k=%2Fa%3Ab%3Fc%2Cd%5Be%5D%40f%26g%3Dh%2Bi%23j%20k"
        );
    }

    #[test]
    fn cookies_are_encoded_so_nothing_ends_them() {
        assert_eq!(cookie("session", &json!("a; b=c")), "session=a%3B%20b%3Dc");
        assert_eq!(cookie("n", &json!(3)), "n=3");
        assert_eq!(cookie("list", &json!([1, 2])), "list=1,2");
    }

    #[test]
    fn form_bodies_are_flat() {
        let members =
            json!({"name": "Rex & co", "age": 3, "tags": ["a", "b"], "gone": null, "ok": true});
        let Value::Object(members) = members else {
            unreachable!()
        };
        assert_eq!(
            form_body(&members),
            "name=Rex+%26+co&age=3&tags=a&tags=b&ok=true"
        );
    }
}
