//! The skills a server serves, checked and hashed once at start-up: each
//! skill's `skills/list` entry, and its files as resources.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::Arc;

use serde::Serialize;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::Skill;
use super::frontmatter;
use crate::content::ResourceContents;
use crate::registry::error::RegistryError;
use crate::resources::dynamic::DynamicResource;

/// The most files a skill may have (the extension's limit).
const MAX_FILES: usize = 512;
/// The most bytes a skill's files may hold together (16 MiB).
const MAX_BYTES: usize = 16 * 1024 * 1024;

/// Every skill's entry, sorted by URI.
#[derive(Debug, Default)]
pub(crate) struct Catalog {
    entries: Vec<Entry>,
}

/// A skill's entry in `skills/list` and `skills/get`.
#[derive(Debug, Serialize)]
pub(crate) struct Entry {
    /// The URI of its `SKILL.md`.
    uri: String,
    /// The frontmatter, verbatim.
    frontmatter: Map<String, Value>,
    /// Every file, sorted by URI.
    resources: Vec<FileEntry>,
}

/// One file of a skill, as its entry lists it.
#[derive(Debug, Serialize)]
struct FileEntry {
    uri: String,
    /// `sha256:` and 64 lowercase hexadecimal digits.
    digest: String,
    /// Its length in bytes.
    size: usize,
}

impl Catalog {
    /// The catalog of `skills` and the resources that serve their files;
    /// why not, as a [`RegistryError::InvalidSkill`].
    pub(crate) fn build(
        skills: &[Skill],
    ) -> Result<(Catalog, Vec<DynamicResource>), RegistryError> {
        check_paths(skills)?;
        let mut entries = Vec::with_capacity(skills.len());
        let mut resources = Vec::new();
        for skill in skills {
            let (entry, files) = build_one(skill).map_err(|reason| invalid(skill, reason))?;
            entries.push(entry);
            resources.extend(files);
        }
        entries.sort_by(|a, b| a.uri.cmp(&b.uri));
        Ok((Catalog { entries }, resources))
    }

    /// Whether no skill is served.
    pub(crate) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Every entry, sorted by URI.
    pub(crate) fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The entry of the skill whose `SKILL.md` is at `uri`.
    pub(crate) fn get(&self, uri: &str) -> Option<&Entry> {
        self.entries
            .binary_search_by(|entry| entry.uri.as_str().cmp(uri))
            .ok()
            .map(|i| &self.entries[i])
    }
}

fn invalid(skill: &Skill, reason: String) -> RegistryError {
    RegistryError::InvalidSkill {
        path: skill.path.clone(),
        location: skill.location,
        reason,
    }
}

/// Refuses a bad path, and two skills at one path or one inside another.
fn check_paths(skills: &[Skill]) -> Result<(), RegistryError> {
    let mut seen: HashMap<&str, &Skill> = HashMap::new();
    for skill in skills {
        segments(&skill.path, "the skill's path").map_err(|reason| invalid(skill, reason))?;
        if let Some(first) = seen.insert(&skill.path, skill) {
            return Err(invalid(
                skill,
                format!(
                    "another skill at the same path was added at {}; give each skill a path \
                     of its own",
                    first.location
                ),
            ));
        }
    }
    for skill in skills {
        let mut prefix = skill.path.as_str();
        while let Some((parent, _)) = prefix.rsplit_once('/') {
            if let Some(outer) = seen.get(parent) {
                return Err(invalid(
                    skill,
                    format!(
                        "it lies inside the skill `{parent}` (added at {}); nested skills are \
                         not supported, so serve them side by side",
                        outer.location
                    ),
                ));
            }
            prefix = parent;
        }
    }
    Ok(())
}

/// Checks that `path` is `/`-separated plain segments (letters, digits,
/// `-`, `.`, `_`, `~`, so that its URI needs no escaping).
fn segments(path: &str, what: &str) -> Result<(), String> {
    let plain = |segment: &str| {
        !segment.is_empty()
            && segment != "."
            && segment != ".."
            && segment
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-._~".contains(&b))
    };
    if path.split('/').all(plain) {
        Ok(())
    } else {
        Err(format!(
            "{what} {path:?} must be `/`-separated segments of letters, digits, `-`, `.`, `_` and \
             `~` (no empty segment, no `.` or `..`)"
        ))
    }
}

/// One skill's entry and resources; what is wrong, as the end of a sentence.
fn build_one(skill: &Skill) -> Result<(Entry, Vec<DynamicResource>), String> {
    let Some((_, manifest)) = skill.files.iter().find(|(path, _)| path == "SKILL.md") else {
        return Err(
            "it has no `SKILL.md`; add one (`(\"SKILL.md\", include_str!(..))`), with YAML \
             frontmatter giving `name` and `description`"
                .into(),
        );
    };
    let frontmatter = frontmatter::parse(manifest)?;
    frontmatter::check(&frontmatter, &skill.path)?;
    if skill.files.len() > MAX_FILES {
        return Err(format!(
            "it has {} files, more than the {MAX_FILES} hosts must accept",
            skill.files.len()
        ));
    }
    let total: usize = skill.files.iter().map(|(_, text)| text.len()).sum();
    if total > MAX_BYTES {
        return Err(format!(
            "its files hold {total} bytes, more than the {MAX_BYTES} hosts must accept"
        ));
    }
    let root = format!("skill://{}", skill.path);
    let name = frontmatter
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let mut files = Vec::with_capacity(skill.files.len());
    let mut resources = Vec::with_capacity(skill.files.len());
    for (path, text) in &skill.files {
        segments(path, "the file path")?;
        let uri = format!("{root}/{path}");
        if files.iter().any(|file: &FileEntry| file.uri == uri) {
            return Err(format!("its file `{path}` is given twice"));
        }
        files.push(FileEntry {
            uri: uri.clone(),
            digest: digest(text.as_bytes()),
            size: text.len(),
        });
        let mut resource = file_resource(uri, mime_type(path), Arc::clone(text));
        resource.location = skill.location;
        if path == "SKILL.md" {
            resource.name.clone_from(&name);
            resource.description = frontmatter
                .get("description")
                .and_then(Value::as_str)
                .map(str::to_owned);
        } else {
            resource.name = format!("{name}/{path}");
        }
        resources.push(resource);
    }
    files.sort_by(|a, b| a.uri.cmp(&b.uri));
    let entry = Entry {
        uri: format!("{root}/SKILL.md"),
        frontmatter,
        resources: files,
    };
    Ok((entry, resources))
}

/// A resource that reads `text` at `uri`.
fn file_resource(uri: String, mime_type: &'static str, text: Arc<str>) -> DynamicResource {
    DynamicResource::new(uri.clone(), uri, move |uri, _vars, _ctx| {
        let text = Arc::clone(&text);
        async move {
            Ok(vec![
                ResourceContents::text(uri, text.to_string()).with_mime_type(mime_type),
            ])
        }
    })
    .mime_type(mime_type)
}

/// `sha256:` and the lowercase hex of the SHA-256 of `bytes`.
fn digest(bytes: &[u8]) -> String {
    let hash = Sha256::digest(bytes);
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for byte in hash {
        let _ = write!(out, "{byte:02x}");
    }
    out
}

/// The MIME type of a skill file, by its extension (text types: the files
/// are text).
fn mime_type(path: &str) -> &'static str {
    let extension = path
        .rsplit_once('.')
        .map(|(_, ext)| ext.to_ascii_lowercase())
        .unwrap_or_default();
    match extension.as_str() {
        "md" | "markdown" => "text/markdown",
        "json" => "application/json",
        "yaml" | "yml" => "application/yaml",
        "py" => "text/x-python",
        "sh" | "bash" => "application/x-sh",
        "js" | "mjs" => "text/javascript",
        "ts" => "text/typescript",
        "html" => "text/html",
        "css" => "text/css",
        "csv" => "text/csv",
        "xml" => "application/xml",
        "svg" => "image/svg+xml",
        _ => "text/plain",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_are_sha256_in_lowercase_hex() {
        assert_eq!(
            digest(b"abc"),
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn mime_types_follow_the_extension() {
        assert_eq!(mime_type("SKILL.md"), "text/markdown");
        assert_eq!(mime_type("scripts/run.PY"), "text/x-python");
        assert_eq!(mime_type("LICENSE"), "text/plain");
    }
}
