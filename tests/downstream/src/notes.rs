//! Notes kept in memory: a tool saves them, resources read them (all, or
//! one by number through a template) and a prompt asks for a summary.

use std::sync::Mutex;

use mcp_runtime::{PromptMessage, State, prompt, resource, tool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Notes kept in memory, shared by the tools through `State<Notebook>`.
#[derive(Debug, Default)]
pub struct Notebook {
    notes: Mutex<Vec<Note>>,
}

/// A note.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct Note {
    /// What the note is about.
    pub title: String,
    /// Labels to find it by.
    #[serde(default)]
    pub tags: Vec<String>,
}

/// How many notes the notebook holds.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Saved {
    /// The number of notes after saving.
    pub count: usize,
}

/// Save a note.
#[tool(title = "Save note", destructive = false)]
async fn save_note(
    /// The note to save.
    note: Note,
    notebook: State<Notebook>,
) -> Result<Saved, String> {
    if note.title.trim().is_empty() {
        return Err("a note needs a title".to_owned());
    }
    let mut notes = notebook.notes.lock().map_err(|e| e.to_string())?;
    notes.push(note);
    Ok(Saved { count: notes.len() })
}

impl Notebook {
    /// A copy of the notes, oldest first.
    fn notes(&self) -> Result<Vec<Note>, String> {
        Ok(self.notes.lock().map_err(|e| e.to_string())?.clone())
    }
}

/// Every note saved so far, oldest first.
#[resource("notes://all", title = "All notes")]
async fn all_notes(notebook: State<Notebook>) -> Result<Vec<Note>, String> {
    notebook.notes()
}

/// One note, by its number: 1 is the first saved.
#[resource("notes://{number}", title = "A note")]
async fn note(number: usize, notebook: State<Notebook>) -> Result<Option<Note>, String> {
    let notes = notebook.notes()?;
    Ok(number.checked_sub(1).and_then(|i| notes.get(i)).cloned())
}

/// How to lay out a summary.
#[derive(Clone, Copy, Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Style {
    Bullets,
    Paragraph,
}

/// Summarize the notes saved so far.
#[prompt(title = "Summarize notes")]
async fn summarize_notes(
    /// How to lay it out: bullets or paragraph (completes with no code).
    style: Style,
    notebook: State<Notebook>,
) -> Result<Vec<PromptMessage>, String> {
    let notes = notebook.notes()?;
    if notes.is_empty() {
        return Err("there are no notes yet: save one with save_note".to_owned());
    }
    let listing: Vec<String> = notes
        .iter()
        .map(|note| format!("- {} [{}]", note.title, note.tags.join(", ")))
        .collect();
    let layout = match style {
        Style::Bullets => "a bulleted list",
        Style::Paragraph => "one paragraph",
    };
    Ok(vec![
        PromptMessage::user(format!("My notes:\n{}", listing.join("\n"))),
        PromptMessage::user(match notes.len() {
            1 => format!("Summarize this note as {layout}."),
            n => format!("Summarize these {n} notes as {layout}."),
        }),
    ])
}
