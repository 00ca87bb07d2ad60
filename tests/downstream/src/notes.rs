use std::sync::Mutex;

use mcp_runtime::{State, tool};
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
