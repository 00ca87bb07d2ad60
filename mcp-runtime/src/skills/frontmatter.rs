//! A `SKILL.md`'s YAML frontmatter: found between its `---` lines, read
//! into JSON as written (every field, in the author's order), and checked
//! against the Agent Skills rules that `skills/list` promises clients.

use serde_json::{Map, Value};

/// The longest skill name the Agent Skills specification allows.
const NAME_MAX: usize = 64;
/// The longest description, in characters.
const DESCRIPTION_MAX: usize = 1024;
/// The longest `compatibility`, in characters.
const COMPATIBILITY_MAX: usize = 500;

/// The frontmatter of `markdown` (a `SKILL.md`), as a JSON object; the
/// reason, as the end of a sentence, when there is none or it is not a
/// mapping.
pub(crate) fn parse(markdown: &str) -> Result<Map<String, Value>, String> {
    let text = markdown.strip_prefix('\u{feff}').unwrap_or(markdown);
    let mut lines = text.split_inclusive('\n');
    let opening = lines.next().map(trim_line);
    if opening != Some("---") {
        return Err("SKILL.md must begin with a `---` line that opens its YAML frontmatter".into());
    }
    let mut yaml = String::new();
    let mut closed = false;
    for line in lines {
        if trim_line(line).trim_end_matches([' ', '\t']) == "---" {
            closed = true;
            break;
        }
        yaml.push_str(line.trim_end_matches(['\n', '\r']));
        yaml.push('\n');
    }
    if !closed {
        return Err("the frontmatter of SKILL.md has no closing `---` line".into());
    }
    match serde_norway::from_str::<Value>(&yaml) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(
            "the frontmatter of SKILL.md must be a mapping of keys to values (`name: ...`)".into(),
        ),
        Err(error) => Err(format!(
            "the frontmatter of SKILL.md is not YAML that JSON can carry: {error}"
        )),
    }
}

/// A line without its line ending.
fn trim_line(line: &str) -> &str {
    line.trim_end_matches(['\n', '\r'])
}

/// Checks `frontmatter` against the Agent Skills rules, for the skill at
/// `path` (whose last segment must be its `name`).
pub(crate) fn check(frontmatter: &Map<String, Value>, path: &str) -> Result<(), String> {
    let Some(Value::String(name)) = frontmatter.get("name") else {
        return Err("the frontmatter of SKILL.md needs `name`, a string".into());
    };
    name_rule(name)?;
    let last = path.rsplit('/').next().unwrap_or(path);
    if name != last {
        return Err(format!(
            "its frontmatter `name` is {name:?}, but the last segment of the skill's path is \
             {last:?}; they must be equal (rename the directory or the skill)"
        ));
    }
    let Some(Value::String(description)) = frontmatter.get("description") else {
        return Err("the frontmatter of SKILL.md needs `description`, a string".into());
    };
    let count = description.chars().count();
    if count == 0 || count > DESCRIPTION_MAX {
        return Err(format!(
            "its `description` has {count} characters; it must have 1 to {DESCRIPTION_MAX}"
        ));
    }
    match frontmatter.get("compatibility") {
        None => {}
        Some(Value::String(text)) if (1..=COMPATIBILITY_MAX).contains(&text.chars().count()) => {}
        Some(_) => {
            return Err(format!(
                "its `compatibility` must be a string of 1 to {COMPATIBILITY_MAX} characters"
            ));
        }
    }
    match frontmatter.get("metadata") {
        None => Ok(()),
        Some(Value::Object(map)) if map.values().all(Value::is_string) => Ok(()),
        Some(_) => Err("its `metadata` must map keys to strings".into()),
    }
}

/// The Agent Skills naming rule: 1 to 64 lowercase letters, digits and
/// single hyphens, neither first nor last.
pub(crate) fn name_rule(name: &str) -> Result<(), String> {
    let valid = !name.is_empty()
        && name.len() <= NAME_MAX
        && name.split('-').all(|part| {
            !part.is_empty()
                && part
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        });
    if valid {
        Ok(())
    } else {
        Err(format!(
            "its name {name:?} breaks the Agent Skills naming rule: 1 to {NAME_MAX} lowercase \
             letters, digits and single hyphens, not starting or ending with a hyphen"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn frontmatter_is_read_as_written() {
        let text = "---\r\nname: trip\ndescription: \"Plan: a trip\"\nlicense: MIT\nmetadata:\n  \
                    version: '1.0'\nflag: yes\ncount: 3\n---\n# Body\n";
        let map = parse(text).unwrap();
        assert_eq!(
            Value::Object(map),
            json!({"name": "trip", "description": "Plan: a trip", "license": "MIT",
                   "metadata": {"version": "1.0"}, "flag": "yes", "count": 3})
        );
    }

    #[test]
    fn names_follow_the_agent_skills_rule() {
        for good in ["a", "trip-briefing", "v2", &"x".repeat(64)] {
            assert!(name_rule(good).is_ok(), "{good}");
        }
        for bad in [
            "",
            "Trip",
            "trip--x",
            "-trip",
            "trip-",
            "trip_x",
            &"x".repeat(65),
        ] {
            assert!(name_rule(bad).is_err(), "{bad}");
        }
    }
}
