//! Tests of URI templates: parsing and its errors, matching (decoding,
//! backtracking, what does not match), specificity, expansion, and a
//! round-trip property (expand, then match, gives the values back).

use proptest::prelude::*;

use super::{TemplateError, UriTemplate};

fn template(text: &str) -> UriTemplate {
    UriTemplate::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// The match of `uri` against `text`, as owned pairs.
fn bind(text: &str, uri: &str) -> Option<Vec<(String, String)>> {
    template(text).matches(uri).map(|vars| {
        vars.into_iter()
            .map(|(name, value)| (name.to_owned(), value))
            .collect()
    })
}

fn pairs(expected: &[(&str, &str)]) -> Option<Vec<(String, String)>> {
    Some(
        expected
            .iter()
            .map(|(name, value)| (name.to_string(), value.to_string()))
            .collect(),
    )
}

fn error(text: &str) -> TemplateError {
    match UriTemplate::parse(text) {
        Ok(_) => panic!("{text} parsed"),
        Err(e) => e,
    }
}

#[test]
fn conformance_fixture() {
    let text = "test://template/{id}/data";
    assert_eq!(
        bind(text, "test://template/123/data"),
        pairs(&[("id", "123")])
    );
    assert_eq!(bind(text, "test://template/1/2/data"), None);
    assert_eq!(bind(text, "test://template//data"), None);
    assert_eq!(bind(text, "test://template/123/data/more"), None);
    assert_eq!(bind(text, "test://other/123/data"), None);
}

#[test]
fn values_are_percent_decoded() {
    let text = "weather://cities/{name}";
    assert_eq!(
        bind(text, "weather://cities/S%C3%A3o%20Paulo"),
        pairs(&[("name", "São Paulo")])
    );
    // Raw non-ASCII and other characters are taken as they are.
    assert_eq!(
        bind(text, "weather://cities/São Paulo:x@y"),
        pairs(&[("name", "São Paulo:x@y")])
    );
    // Lower-case hex digits decode too.
    assert_eq!(
        bind(text, "weather://cities/%c3%a3"),
        pairs(&[("name", "ã")])
    );
    // An encoded `/` is fine in a level-1 value: only a raw one is refused.
    assert_eq!(
        bind(text, "weather://cities/a%2Fb"),
        pairs(&[("name", "a/b")])
    );
    assert_eq!(bind(text, "weather://cities/a/b"), None);
}

#[test]
fn broken_encodings_do_not_match() {
    let text = "weather://cities/{name}";
    for uri in [
        "weather://cities/%zz",
        "weather://cities/a%",
        "weather://cities/a%4",
        "weather://cities/%%41",
        // Not UTF-8: a lone continuation byte, a truncated sequence.
        "weather://cities/%A3",
        "weather://cities/%C3",
        "weather://cities/%C3x",
    ] {
        assert_eq!(bind(text, uri), None, "{uri}");
    }
    assert_eq!(bind("file:///{+path}", "file:///a/%ff/b"), None);
}

#[test]
fn level_1_values_stop_at_slash_question_mark_and_hash() {
    let text = "users://{id}";
    assert_eq!(bind(text, "users://42"), pairs(&[("id", "42")]));
    for uri in ["users://4/2", "users://4?2", "users://4#2", "users://"] {
        assert_eq!(bind(text, uri), None, "{uri}");
    }
    // `{+name}` takes them.
    assert_eq!(
        bind("users://{+id}", "users://4/2?x#y"),
        pairs(&[("id", "4/2?x#y")])
    );
}

#[test]
fn reserved_expansion() {
    let text = "file:///{+path}";
    assert_eq!(
        bind(text, "file:///home/user/notes.txt"),
        pairs(&[("path", "home/user/notes.txt")])
    );
    assert_eq!(
        bind(text, "file:///my%20files/r%C3%A9sum%C3%A9.pdf"),
        pairs(&[("path", "my files/résumé.pdf")])
    );
    assert_eq!(bind(text, "file:///"), None);
    assert_eq!(bind(text, "file://x"), None);
}

#[test]
fn literal_after_the_last_expression() {
    let text = "users://{id}/profile";
    assert_eq!(
        bind(text, "users://alice/profile"),
        pairs(&[("id", "alice")])
    );
    assert_eq!(bind(text, "users://alice/profile/x"), None);
    assert_eq!(bind(text, "users://alice/bob/profile"), None);
    assert_eq!(bind(text, "users:///profile"), None);
    assert_eq!(bind(text, "users://alice"), None);
}

#[test]
fn several_expressions() {
    let text = "db://{table}/{id}";
    assert_eq!(
        bind(text, "db://users/17"),
        pairs(&[("table", "users"), ("id", "17")])
    );
    assert_eq!(bind(text, "db://users/17/x"), None);
    assert_eq!(bind(text, "db://users/"), None);
    assert_eq!(bind(text, "db:///17"), None);

    let text = "repo://{owner}/{name}/blob/{+path}";
    assert_eq!(
        bind(text, "repo://me/proj/blob/src/lib.rs"),
        pairs(&[("owner", "me"), ("name", "proj"), ("path", "src/lib.rs")])
    );
}

#[test]
fn reserved_values_backtrack_over_the_following_literal() {
    let text = "a/{+p}/end";
    assert_eq!(bind(text, "a/x/y/end"), pairs(&[("p", "x/y")]));
    assert_eq!(bind(text, "a/x/end/y/end"), pairs(&[("p", "x/end/y")]));
    assert_eq!(bind(text, "a/x/end/y"), None);
    assert_eq!(bind(text, "a///end"), pairs(&[("p", "/")]));
    assert_eq!(bind(text, "a//end"), None);
    assert_eq!(bind(text, "a/end"), None);

    // Longest first, but shorter when what follows needs it.
    let text = "x://{+a}/{b}/{c}";
    assert_eq!(
        bind(text, "x://1/2/3/4"),
        pairs(&[("a", "1/2"), ("b", "3"), ("c", "4")])
    );
}

#[test]
fn level_1_values_are_the_shortest_the_rest_allows() {
    assert_eq!(
        bind("x://{a}-{b}", "x://1-2-3"),
        pairs(&[("a", "1"), ("b", "2-3")])
    );
    assert_eq!(
        bind("x://{a}-{b}/c", "x://1-2-3/c"),
        pairs(&[("a", "1"), ("b", "2-3")])
    );
    // Overlapping occurrences of the literal are all tried.
    assert_eq!(
        bind("x://{a}aa{b}", "x://baaab"),
        pairs(&[("a", "b"), ("b", "ab")])
    );
    assert_eq!(
        bind("x://{a}aa{b}/", "x://baaab/"),
        pairs(&[("a", "b"), ("b", "ab")])
    );
    // A split inside a percent-encoded character is passed over.
    assert_eq!(
        bind("t://{a}9/{b}", "t://%C3%A99/z"),
        pairs(&[("a", "é"), ("b", "z")])
    );
    // So is one between the bytes of a character, where a value would not
    // decode.
    assert_eq!(
        bind("t://{a}%A9{b}", "t://%C3%A9%A9x"),
        pairs(&[("a", "é"), ("b", "x")])
    );
    assert_eq!(bind("t://{a}%A9{b}", "t://%C3%A9x"), None);
}

#[test]
fn plain_uris() {
    let plain = template("config://app");
    assert!(!plain.is_template());
    assert_eq!(plain.variables().count(), 0);
    assert_eq!(plain.matches("config://app"), Some(vec![]));
    assert_eq!(plain.matches("config://app/x"), None);
    assert_eq!(plain.matches("config://ap"), None);
    assert_eq!(plain.expand(&[]), "config://app");
    assert!(template("x://{a}").is_template());
    assert_eq!(template("").matches(""), Some(vec![]));
}

#[test]
fn accessors() {
    let t = template("repo://{owner}/{name}/{+path}");
    assert_eq!(t.as_str(), "repo://{owner}/{name}/{+path}");
    assert_eq!(t.to_string(), t.as_str());
    assert_eq!(t.variables().collect::<Vec<_>>(), ["owner", "name", "path"]);
    assert_eq!(
        template("{a}/x").matches("1/x"),
        Some(vec![("a", "1".to_owned())])
    );
}

#[test]
fn the_most_specific_template_wins() {
    let templates = [
        "users://{id}/{+rest}",
        "users://{id}/profile",
        "users://admin/{page}",
        "users://{+anything}",
        "users://admin/profile",
    ]
    .map(template);
    let winner = |uri: &str| {
        templates
            .iter()
            .filter(|t| t.matches(uri).is_some())
            .max_by_key(|t| t.specificity())
            .map(UriTemplate::as_str)
    };
    assert_eq!(
        winner("users://admin/profile"),
        Some("users://admin/profile")
    );
    assert_eq!(
        winner("users://admin/settings"),
        Some("users://admin/{page}")
    );
    assert_eq!(winner("users://bob/profile"), Some("users://{id}/profile"));
    assert_eq!(winner("users://bob/a/b"), Some("users://{id}/{+rest}"));
    assert_eq!(winner("users://bob"), Some("users://{+anything}"));

    // As many literal characters: fewer `{+name}` wins, then the text that
    // sorts first.
    let more_specific = |a, b| template(a).specificity() > template(b).specificity();
    assert!(more_specific("x://{a}/{b}", "x://{a}/{+b}"));
    assert!(more_specific("x://{a}/{b}", "x://{b}/{a}"));
    assert!(more_specific("x://ab/{a}", "x://a/{a}"));
    assert!(more_specific("x://abc/{+a}", "x://ab/{a}"));
}

#[test]
fn expansion_encodes() {
    let t = template("x://{a}/{+b}");
    assert_eq!(
        t.expand(&[("a", "São Paulo/1?#%"), ("b", "dir/São Paulo?q=1#f%41")]),
        "x://S%C3%A3o%20Paulo%2F1%3F%23%25/dir/S%C3%A3o%20Paulo?q=1#f%2541"
    );
    assert_eq!(t.expand(&[("a", "-._~AZaz09")]), "x://-._~AZaz09/");
    assert_eq!(
        template("x://{+b}").expand(&[("b", ":/?#[]@!$&'()*+,;=")]),
        "x://:/?#[]@!$&'()*+,;="
    );
}

#[test]
fn parse_errors() {
    let cases = [
        (
            "x://{a",
            "unbalanced brace: the `{` at character 5 has no matching `}`",
        ),
        (
            "x://{a{b}}",
            "unbalanced brace: the `{` at character 5 has no matching `}`",
        ),
        (
            "x://a}",
            "unbalanced brace: the `}` at character 6 closes no `{`",
        ),
        (
            "x://{a}/b}",
            "unbalanced brace: the `}` at character 10 closes no `{`",
        ),
        (
            "x://{}",
            "the expression at character 5 has an empty variable name",
        ),
        (
            "x://é/{+}",
            "the expression at character 7 has an empty variable name",
        ),
        (
            "x://{a-b}",
            "invalid variable name `a-b` in the expression at character 5: \
             names are made of ASCII letters, digits and `_`",
        ),
        (
            "x://{é}",
            "invalid variable name `é` in the expression at character 5: \
             names are made of ASCII letters, digits and `_`",
        ),
        (
            "x://{+%41}",
            "invalid variable name `%41` in the expression at character 5: \
             names are made of ASCII letters, digits and `_`",
        ),
        (
            "x://{a}/{a}",
            "the variable `a` appears twice, at characters 5 and 9",
        ),
        (
            "x://{a}/{+a}",
            "the variable `a` appears twice, at characters 5 and 9",
        ),
        (
            "x://{a}{b}",
            "the expressions at characters 5 and 8 have nothing between them, \
             so where one value ends and the next begins would be ambiguous",
        ),
        (
            "x://{+a}{b}",
            "the expressions at characters 5 and 9 have nothing between them, \
             so where one value ends and the next begins would be ambiguous",
        ),
    ];
    for (text, message) in cases {
        assert_eq!(error(text).to_string(), message, "{text}");
    }
}

#[test]
fn unsupported_forms() {
    let cases = [
        ("x://a{?q}", "the `?` operator"),
        ("x://a{&q}", "the `&` operator"),
        ("x://a{#x}", "the `#` operator"),
        ("x://a{/x}", "the `/` operator"),
        ("x://a{.x}", "the `.` operator"),
        ("x://a{;x}", "the `;` operator"),
        ("x://a{=x}", "the `=` operator"),
        ("x://a{a,b}", "a list of variables"),
        ("x://a{+a,b}", "a list of variables"),
        ("x://a{x*}", "the `*` modifier"),
        ("x://a{x:3}", "a prefix modifier `:N`"),
        ("x://a{+x:3}", "a prefix modifier `:N`"),
    ];
    for (text, what) in cases {
        let expression = &text[5..];
        assert_eq!(
            error(text).to_string(),
            format!(
                "unsupported expression `{expression}` at character 6 ({what}): \
                 only {{name}} and {{+name}} are supported"
            ),
            "{text}"
        );
    }
}

#[test]
fn matching_is_not_exponential() {
    // Without remembering dead ends, each `{+name}` would try every `x`
    // for every choice of the ones before it.
    let t = template("a://{+a}x{+b}x{+c}x{+d}x{+e}!");
    let uri = format!("a://{}", "x".repeat(1000));
    assert_eq!(t.matches(&uri), None);
    let t = template("a://{a}x{b}x{c}x{d}x{e}!");
    assert_eq!(t.matches(&uri), None);
}

/// Templates for which expanding any non-empty values and matching the
/// result gives the values back: each literal after an expression holds a
/// character that the following values' encodings cannot contain where it
/// would be mistaken for it.
const ROUND_TRIP: &[&str] = &[
    "test://template/{id}/data",
    "weather://cities/{name}",
    "db://{table}/{id}",
    "users://{id}/profile",
    "file:///{+path}",
    "a/{+p}/end",
    "repo://{owner}/{name}/blob/{+path}?ref={rev}",
    "x://{+a}/{b}/{c}",
];

fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>().prop_filter("not empty", |s| !s.is_empty()),
        "[a-z0-9/%?#:@&=+ é😀._~-]{1,12}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(1000)
    ))]

    #[test]
    fn expand_then_match_gives_the_values_back(
        index in 0..ROUND_TRIP.len(),
        values in prop::collection::vec(value(), 4),
    ) {
        let t = template(ROUND_TRIP[index]);
        let vars: Vec<(&str, &str)> = t.variables().zip(values.iter().map(String::as_str)).collect();
        let uri = t.expand(&vars);
        let matched = t.matches(&uri);
        let expected: Vec<(&str, String)> =
            vars.iter().map(|(name, value)| (*name, value.to_string())).collect();
        prop_assert_eq!(matched, Some(expected), "{}", uri);
    }

    #[test]
    fn matching_anything_does_not_panic(
        index in 0..ROUND_TRIP.len(),
        tail in prop_oneof![any::<String>(), "[a-z/%?#=.é9A-F]{0,30}"],
    ) {
        let t = template(ROUND_TRIP[index]);
        // Most URIs that could match start with the first literal.
        let uri = format!("{}{tail}", t.as_str().split('{').next().unwrap_or_default());
        if let Some(vars) = t.matches(&uri) {
            prop_assert_eq!(vars.len(), t.variables().count());
        }
    }
}
