//! Skills (feature `skills`): folders of instructions that teach a model
//! how to use this server, served by the MCP Skills extension (SEP-2640,
//! `io.modelcontextprotocol/skills`).
//!
//! A *skill*, in the [Agent Skills](https://agentskills.io/specification)
//! format, is a directory with a `SKILL.md` (YAML frontmatter with at least
//! `name` and `description`, then markdown instructions) and any supporting
//! files it refers to by relative path (`references/cities.md`). A host
//! shows the model each skill's name and description, and loads the rest
//! only when the model needs it.
//!
//! [`Server::skill`](crate::Server::skill) serves one:
//!
//! - every file becomes a resource `skill://<skill-path>/<file-path>`
//!   (`SKILL.md` as `text/markdown`, with the frontmatter's `name` and
//!   `description` as the resource's), readable with `resources/read` and
//!   listed by `resources/list`;
//! - `skills/list` (paged like the other lists) and `skills/get` (by the
//!   `SKILL.md` URI; an unknown one is refused with `-32602`) answer each
//!   skill's entry: its `uri`, its `frontmatter` verbatim as JSON, and
//!   every file's `uri`, `digest` (`sha256:` and the lowercase hex of the
//!   SHA-256 of its bytes, computed once at start-up) and `size` in bytes.
//!   In the 2026-07-28 era both carry the lists' cache hint (`ttlMs`,
//!   `cacheScope`: see [`CacheHints::lists`](crate::CacheHints::lists));
//! - the capability `extensions["io.modelcontextprotocol/skills"]` is `{}`
//!   (no `resources/directory/read`), in every protocol version.
//!
//! The last segment of the skill's path is its name, and must equal the
//! frontmatter's `name`; earlier segments group skills
//! (`skill://weather/trip-briefing/SKILL.md` is the skill `trip-briefing`).
//!
//! ```
//! use mcp_runtime::Server;
//! use mcp_runtime::skills::Skill;
//!
//! const SKILL_MD: &str = "---
//! name: trip-briefing
//! description: Brief a traveller on the weather of a trip, day by day.
//! ---
//! Call `get_forecast` for each city; see [cities](references/cities.md).
//! ";
//!
//! let server = Server::new("weather", "1.0.0").skill(Skill::from_files(
//!     "weather/trip-briefing",
//!     [
//!         ("SKILL.md", SKILL_MD),
//!         ("references/cities.md", "Paris, Lyon and Nice."),
//!     ],
//! ));
//! # let _ = server;
//! ```
//!
//! In a real server the files live beside the code and come in with
//! `include_str!("skills/trip-briefing/SKILL.md")`, so the binary carries
//! them. Files are text (UTF-8).
//!
//! The server refuses to start, with a sentence naming the skill and where
//! it was added, when a skill has no `SKILL.md`, when the frontmatter is
//! missing, is not YAML or lacks a string `name` or `description`, when the
//! name breaks the Agent Skills naming rule (1 to 64 lowercase letters,
//! digits and single hyphens) or differs from the path's last segment, when
//! a path segment is not plain (letters, digits, `-`, `.`, `_`, `~`; not
//! `.` or `..`), when two skills share a path or one lies inside another,
//! when a file is given twice, and when a skill passes the extension's
//! limits (512 files, 16 MiB).

mod catalog;
mod frontmatter;

use std::sync::Arc;

use crate::location::Location;

pub(crate) use catalog::Catalog;

/// The extension's identifier, the key of its capability.
pub const EXTENSION: &str = "io.modelcontextprotocol/skills";

/// One skill: its path under `skill://` and its files. Served with
/// [`Server::skill`](crate::Server::skill); see the [module](self) for the
/// rules it must follow.
#[derive(Clone, Debug)]
pub struct Skill {
    pub(crate) path: String,
    pub(crate) files: Vec<(String, Arc<str>)>,
    pub(crate) location: Location,
}

impl Skill {
    /// A skill at `path` (`trip-briefing`, or grouped:
    /// `weather/trip-briefing`), with no files yet: add them with
    /// [`Skill::file`].
    #[track_caller]
    pub fn new(path: impl Into<String>) -> Skill {
        Skill {
            path: path.into(),
            files: Vec::new(),
            location: Location::caller(),
        }
    }

    /// A skill at `path` with these files, each a path relative to the
    /// skill's directory (`SKILL.md`, `references/cities.md`) and its text.
    #[track_caller]
    pub fn from_files<I, P, T>(path: impl Into<String>, files: I) -> Skill
    where
        I: IntoIterator<Item = (P, T)>,
        P: Into<String>,
        T: Into<Arc<str>>,
    {
        let mut skill = Skill::new(path);
        for (file, text) in files {
            skill = skill.file(file, text);
        }
        skill
    }

    /// Adds a file: its path relative to the skill's directory and its text.
    pub fn file(mut self, path: impl Into<String>, text: impl Into<Arc<str>>) -> Skill {
        self.files.push((path.into(), text.into()));
        self
    }

    /// The skill's path under `skill://`.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The URI of its `SKILL.md`: `skill://<path>/SKILL.md`.
    pub fn uri(&self) -> String {
        format!("skill://{}/SKILL.md", self.path)
    }
}
