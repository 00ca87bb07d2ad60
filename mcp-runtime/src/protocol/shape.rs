//! The shaping of results for each protocol version: a client is never
//! sent a field its version does not define.

use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};
use serde_json::Value;

use crate::content::Content;
use crate::protocol::version::ProtocolVersion;
use crate::tools::def::{Outcome, TaskSupport, Tool};
use crate::tools::output::CallToolResult;

impl Tool {
    /// The tool as a `tools/list` entry, with every field the newest
    /// protocol version defines.
    pub fn to_json(&self) -> Value {
        tool_json(self, ProtocolVersion::LATEST)
    }
}

/// A `tools/list` entry for `version`.
pub(crate) fn tool_json(tool: &Tool, version: ProtocolVersion) -> Value {
    serde_json::to_value(ToolEntry { tool, version }).unwrap_or_default()
}

/// A `tools/list` entry for `version`, serialized straight from the tool
/// (its schemas borrowed, not copied into a tree of values).
pub(crate) struct ToolEntry<'a> {
    pub(crate) tool: &'a Tool,
    pub(crate) version: ProtocolVersion,
}

impl Serialize for ToolEntry<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let (tool, version) = (self.tool, self.version);
        let title = tool.title().filter(|_| version.has_structured_output());
        let output_schema = match &tool.bare_output_schema {
            Some(bare) if version.is_modern() => Some(bare),
            _ => tool.output_schema(),
        }
        .filter(|_| version.has_structured_output());
        let annotations = tool
            .annotations()
            .filter(|_| version.has_tool_annotations());
        // Absent means forbidden: only a tool that allows tasks says so.
        let task = Some(tool.task_support())
            .filter(|&task| task != TaskSupport::Forbidden && version.has_tool_execution());
        let fields = 3
            + usize::from(title.is_some())
            + usize::from(output_schema.is_some())
            + usize::from(annotations.is_some())
            + usize::from(task.is_some())
            + tool.metadata.fields(version);
        let mut map = serializer.serialize_map(Some(fields))?;
        map.serialize_entry("name", tool.name())?;
        if let Some(title) = title {
            map.serialize_entry("title", title)?;
        }
        map.serialize_entry("description", tool.description())?;
        map.serialize_entry("inputSchema", tool.input_schema())?;
        if let Some(schema) = output_schema {
            map.serialize_entry("outputSchema", schema)?;
        }
        // `annotations.title` is how 2025-03-26 clients see a title.
        if let Some(annotations) = &annotations {
            map.serialize_entry("annotations", annotations)?;
        }
        if let Some(task) = task {
            map.serialize_entry("execution", &Execution(task))?;
        }
        tool.metadata.serialize_into(&mut map, version)?;
        map.end()
    }
}

/// A tool's `execution` object: `{"taskSupport": ".."}`.
struct Execution(TaskSupport);

impl Serialize for Execution {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(1))?;
        map.serialize_entry("taskSupport", self.0.as_str())?;
        map.end()
    }
}

/// A `tools/call` result for `version`: fields and content types the
/// version lacks are left out or degraded to text.
#[cfg(test)]
pub(crate) fn call_result_json(result: &CallToolResult, version: ProtocolVersion) -> Value {
    serde_json::to_value(ShapedCallResult { result, version }).unwrap_or_default()
}

/// A `tools/call` result serialized for `version` straight from the
/// result, without building an intermediate JSON tree.
pub(crate) struct ShapedCallResult<'a> {
    pub(crate) result: &'a CallToolResult,
    pub(crate) version: ProtocolVersion,
}

impl Serialize for ShapedCallResult<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let structured = self
            .result
            .structured_content
            .as_ref()
            .filter(|_| self.version.has_structured_output());
        let mut map = serializer.serialize_map(Some(2 + usize::from(structured.is_some())))?;
        map.serialize_entry(
            "content",
            &ShapedContents {
                blocks: &self.result.content,
                version: self.version,
            },
        )?;
        if let Some(structured) = structured {
            map.serialize_entry("structuredContent", structured)?;
        }
        map.serialize_entry("isError", &self.result.is_error)?;
        map.end()
    }
}

/// Appends what a call produced, shaped for `version`.
pub(crate) fn write_outcome(out: &mut Vec<u8>, outcome: &Outcome, version: ProtocolVersion) {
    match outcome {
        Outcome::Result(result) => write_call_result(out, result, version),
        // What `Outcome::into_result` gives, without reading the JSON back:
        // the text block holds the JSON text.
        Outcome::Structured(json) => {
            write_text_result(out, [json.get()], Some(&**json), false, version)
        }
        // Written as an error response by the caller; as a result, its text.
        Outcome::Failed(error) => write_text_result(
            out,
            [error.message.as_str()],
            None::<&serde_json::value::RawValue>,
            true,
            version,
        ),
    }
}

/// Appends a `tools/call` result shaped for `version`. Results whose blocks
/// are all plain text (what most tools return) are written directly; the
/// rest go through [`ShapedCallResult`]. Both write the same bytes.
pub(crate) fn write_call_result(
    out: &mut Vec<u8>,
    result: &CallToolResult,
    version: ProtocolVersion,
) {
    let plain_text = result
        .content
        .iter()
        .all(|block| matches!(block, Content::Text(text) if text.annotations.is_none()));
    if plain_text {
        let texts = result.content.iter().filter_map(Content::as_text);
        let structured = result.structured_content.as_ref();
        write_text_result(out, texts, structured, result.is_error, version);
    } else if serde_json::to_writer(&mut *out, &ShapedCallResult { result, version }).is_err() {
        out.extend_from_slice(b"{}");
    }
}

/// Appends a result of plain text blocks (no annotations) and optional
/// structured content, as [`ShapedCallResult`] would write it.
fn write_text_result<'t, S: Serialize + ?Sized>(
    out: &mut Vec<u8>,
    texts: impl IntoIterator<Item = &'t str>,
    structured: Option<&S>,
    is_error: bool,
    version: ProtocolVersion,
) {
    out.extend_from_slice(b"{\"content\":[");
    for (i, text) in texts.into_iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"type\":\"text\",\"text\":");
        // Writing a string into a Vec cannot fail.
        let _ = serde_json::to_writer(&mut *out, text);
        out.push(b'}');
    }
    out.push(b']');
    if let Some(structured) = structured.filter(|_| version.has_structured_output()) {
        out.extend_from_slice(b",\"structuredContent\":");
        if serde_json::to_writer(&mut *out, structured).is_err() {
            out.extend_from_slice(b"null");
        }
    }
    out.extend_from_slice(if is_error {
        b",\"isError\":true}"
    } else {
        b",\"isError\":false}"
    });
}

/// Content blocks shaped for `version`.
struct ShapedContents<'a> {
    blocks: &'a [Content],
    version: ProtocolVersion,
}

impl Serialize for ShapedContents<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.blocks.len()))?;
        for block in self.blocks {
            seq.serialize_element(&ShapedContent {
                block,
                version: self.version,
            })?;
        }
        seq.end()
    }
}

/// One content block shaped for `version`.
pub(crate) struct ShapedContent<'a> {
    pub(crate) block: &'a Content,
    pub(crate) version: ProtocolVersion,
}

impl Serialize for ShapedContent<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if needs_shaping(self.block, self.version) {
            content_json(self.block, self.version).serialize(serializer)
        } else {
            self.block.serialize(serializer)
        }
    }
}

/// Whether a block has something `version` does not define.
fn needs_shaping(block: &Content, version: ProtocolVersion) -> bool {
    if version.has_structured_output() {
        return false;
    }
    let annotations = match block {
        Content::Audio(_) if !version.has_audio() => return true,
        Content::ResourceLink(_) => return true,
        Content::Text(c) => &c.annotations,
        Content::Image(c) | Content::Audio(c) => &c.annotations,
        Content::Resource(c) => &c.annotations,
    };
    annotations
        .as_ref()
        .is_some_and(|a| a.last_modified.is_some())
}

fn content_json(block: &Content, version: ProtocolVersion) -> Value {
    let degraded = match block {
        Content::Audio(audio) if !version.has_audio() => Some(Content::text(format!(
            "[audio content ({}) is not supported by this client's protocol version]",
            audio.mime_type
        ))),
        Content::ResourceLink(link) if !version.has_structured_output() => {
            let mut text = format!("Resource: {}", link.uri);
            if let Some(title) = link.title.as_ref().or(Some(&link.name)) {
                text = format!("{text} ({title})");
            }
            if let Some(description) = &link.description {
                text = format!("{text}: {description}");
            }
            Some(Content::text(text))
        }
        _ => None,
    };
    let mut value = serde_json::to_value(degraded.as_ref().unwrap_or(block)).unwrap_or_default();
    // `lastModified` arrived with 2025-06-18.
    if !version.has_structured_output()
        && let Some(annotations) = value.get_mut("annotations").and_then(Value::as_object_mut)
    {
        annotations.remove("lastModified");
        if annotations.is_empty()
            && let Some(block) = value.as_object_mut()
        {
            block.remove("annotations");
        }
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::Annotations;
    use serde_json::json;

    #[test]
    fn negotiation_names() {
        for v in ProtocolVersion::ALL {
            assert_eq!(ProtocolVersion::parse(v.as_str()), Some(v));
        }
        assert_eq!(ProtocolVersion::parse("2099-01-01"), None);
    }

    #[test]
    fn plain_text_results_are_written_as_serde_writes_them() {
        let results = [
            CallToolResult::success(vec![Content::text("a \"quoted\"\n line")]),
            CallToolResult::error("bad"),
            CallToolResult::success(vec![Content::text("x"), Content::text("y")]),
            CallToolResult::success(vec![]),
            CallToolResult {
                content: vec![Content::text("{\"a\":1}")],
                structured_content: Some(json!({"a": 1, "b": [true, null]})),
                is_error: false,
            },
        ];
        for result in &results {
            for version in ProtocolVersion::ALL {
                let mut direct = Vec::new();
                write_call_result(&mut direct, result, version);
                let via_serde = serde_json::to_vec(&ShapedCallResult { result, version }).unwrap();
                assert_eq!(
                    String::from_utf8(direct).unwrap(),
                    String::from_utf8(via_serde).unwrap(),
                    "{version}"
                );
            }
        }
    }

    #[test]
    fn structured_output_is_written_as_its_result_would_be() {
        let json =
            serde_json::value::to_raw_value(&json!({"b": [1, 2.5, "x\"y"], "a": null})).unwrap();
        let outcome = Outcome::Structured(json.clone());
        let result = Outcome::Structured(json).into_result();
        assert_eq!(
            result.structured_content,
            Some(json!({"b": [1, 2.5, "x\"y"], "a": null}))
        );
        for version in ProtocolVersion::ALL {
            let mut direct = Vec::new();
            write_outcome(&mut direct, &outcome, version);
            let via_serde = serde_json::to_vec(&ShapedCallResult {
                result: &result,
                version,
            })
            .unwrap();
            assert_eq!(
                String::from_utf8(direct).unwrap(),
                String::from_utf8(via_serde).unwrap(),
                "{version}"
            );
        }
    }

    #[test]
    fn results_are_shaped_per_version() {
        let result = CallToolResult {
            content: vec![
                Content::audio(b"a", "audio/wav"),
                Content::resource_link("file:///x", "x"),
                Content::text("t")
                    .with_annotations(Annotations::new().last_modified("2025-01-01T00:00:00Z")),
            ],
            structured_content: Some(json!({"a": 1})),
            is_error: false,
        };
        let old = call_result_json(&result, ProtocolVersion::V2024_11_05);
        assert_eq!(old["content"][0]["type"], "text");
        assert_eq!(
            old["content"][1],
            json!({"type": "text", "text": "Resource: file:///x (x)"})
        );
        assert_eq!(old["content"][2], json!({"type": "text", "text": "t"}));
        assert!(old.get("structuredContent").is_none());
        let mid = call_result_json(&result, ProtocolVersion::V2025_03_26);
        assert_eq!(mid["content"][0]["type"], "audio");
        assert_eq!(mid["content"][1]["type"], "text");
        let new = call_result_json(&result, ProtocolVersion::V2025_06_18);
        assert_eq!(new["content"][1]["type"], "resource_link");
        assert_eq!(new["structuredContent"], json!({"a": 1}));
        assert_eq!(
            new["content"][2]["annotations"]["lastModified"],
            "2025-01-01T00:00:00Z"
        );
    }
}
