//! The search index of progressive discovery: BM25 over a few fields of
//! every tool, small and deterministic (no stemming, no stop words, no
//! language detection), built once per snapshot when first searched.
//!
//! Each tool is a document with five fields, each weighted: its name
//! (split on `_ - . /` and camelCase, weight 3), its tags (whole tags,
//! weight 3), its title (2), its description (1), and the names and
//! descriptions of its top-level arguments (0.5). Words are lowercased
//! (ASCII), split on anything that is not a letter or digit, and a word
//! longer than 3 letters loses a trailing `s`. Every field is scored with
//! BM25 (k1 1.2, b 0.75) and the fields' scores are summed; a query word
//! of 3 or more letters also matches the words it begins (not tags) at
//! half weight. Equal scores are ordered by name.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::Value;

use crate::tools::def::Tool;

const K1: f64 = 1.2;
const B: f64 = 0.75;
/// A query word at least this long also matches as a prefix.
const PREFIX_MIN: usize = 3;

/// Which part of a tool a field indexes, and its weight.
#[derive(Clone, Copy)]
enum Kind {
    Name,
    Tags,
    Title,
    Description,
    Arguments,
}

impl Kind {
    const ALL: [Kind; 5] = [
        Kind::Name,
        Kind::Tags,
        Kind::Title,
        Kind::Description,
        Kind::Arguments,
    ];

    fn weight(self) -> f64 {
        match self {
            Kind::Name | Kind::Tags => 3.0,
            Kind::Title => 2.0,
            Kind::Description => 1.0,
            Kind::Arguments => 0.5,
        }
    }

    /// Whether a query word matches the words it begins (tags match whole).
    fn prefixes(self) -> bool {
        !matches!(self, Kind::Tags)
    }

    /// The words of `tool` in this field.
    fn words(self, tool: &Tool) -> Vec<String> {
        match self {
            Kind::Name => words(tool.name()),
            Kind::Tags => tool.tags().iter().map(|tag| normalize(tag)).collect(),
            Kind::Title => tool.title().map(words).unwrap_or_default(),
            Kind::Description => words(tool.description()),
            Kind::Arguments => argument_words(tool),
        }
    }
}

/// One field of every document: its words' postings and lengths.
struct Field {
    kind: Kind,
    /// Word → (document, occurrences), documents ascending.
    postings: BTreeMap<String, Vec<(usize, u32)>>,
    lengths: Vec<u32>,
    average: f64,
}

impl Field {
    fn new(kind: Kind, tools: &[Arc<Tool>]) -> Field {
        let mut postings: BTreeMap<String, Vec<(usize, u32)>> = BTreeMap::new();
        let mut lengths = Vec::with_capacity(tools.len());
        for (doc, tool) in tools.iter().enumerate() {
            let words = kind.words(tool);
            lengths.push(u32::try_from(words.len()).unwrap_or(u32::MAX));
            let mut counts: BTreeMap<String, u32> = BTreeMap::new();
            for word in words {
                *counts.entry(word).or_default() += 1;
            }
            for (word, count) in counts {
                postings.entry(word).or_default().push((doc, count));
            }
        }
        let total: f64 = lengths.iter().map(|&l| f64::from(l)).sum();
        let average = if tools.is_empty() {
            0.0
        } else {
            total / tools.len() as f64
        };
        Field {
            kind,
            postings,
            lengths,
            average,
        }
    }

    /// Adds this field's score for `word` to `scores`.
    fn score(&self, word: &str, scores: &mut [f64]) {
        let weight = self.kind.weight();
        if let Some(exact) = self.postings.get(word) {
            self.add(exact.iter().copied(), weight, scores);
        }
        if self.kind.prefixes() && word.len() >= PREFIX_MIN {
            // Every longer word this one begins, counted per document.
            let mut longer: BTreeMap<usize, u32> = BTreeMap::new();
            let range = self
                .postings
                .range::<str, _>((std::ops::Bound::Excluded(word), std::ops::Bound::Unbounded));
            for (_, docs) in range.take_while(|(other, _)| other.starts_with(word)) {
                for &(doc, count) in docs {
                    *longer.entry(doc).or_default() += count;
                }
            }
            self.add(longer.into_iter(), weight / 2.0, scores);
        }
    }

    /// BM25 of the documents in `postings` (each with its count), times
    /// `weight`, added to `scores`.
    fn add(
        &self,
        postings: impl ExactSizeIterator<Item = (usize, u32)>,
        weight: f64,
        scores: &mut [f64],
    ) {
        let n = self.lengths.len() as f64;
        let df = postings.len() as f64;
        if df == 0.0 {
            return;
        }
        let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
        for (doc, count) in postings {
            let tf = f64::from(count);
            let length = f64::from(self.lengths[doc]);
            let norm = if self.average > 0.0 {
                1.0 - B + B * length / self.average
            } else {
                1.0
            };
            scores[doc] += weight * idf * tf * (K1 + 1.0) / (tf + K1 * norm);
        }
    }
}

/// The index of a set of tools.
pub(crate) struct Index {
    /// Sorted by name (the registry's order), so that ties go by name.
    tools: Vec<Arc<Tool>>,
    fields: Vec<Field>,
}

impl Index {
    /// The index of `tools`, which must be sorted by name.
    pub(crate) fn new(tools: Vec<Arc<Tool>>) -> Index {
        let fields = Kind::ALL
            .iter()
            .map(|&kind| Field::new(kind, &tools))
            .collect();
        Index { tools, fields }
    }

    /// The tools that match `query` and have every one of `tags` (exact)
    /// and that `keep` keeps, best first, equal scores by name. An empty
    /// query (no words) matches every tool, by name.
    pub(crate) fn search(
        &self,
        query: &str,
        tags: &[String],
        keep: impl Fn(&Tool) -> bool,
    ) -> Vec<&Arc<Tool>> {
        let mut query_words = words(query);
        query_words.sort_unstable();
        query_words.dedup();
        let mut scores = vec![0.0; self.tools.len()];
        for word in &query_words {
            for field in &self.fields {
                field.score(word, &mut scores);
            }
        }
        let mut found: Vec<(f64, &Arc<Tool>)> = self
            .tools
            .iter()
            .zip(scores)
            .filter(|(_, score)| query_words.is_empty() || *score > 0.0)
            .filter(|(tool, _)| tags.iter().all(|tag| tool.tags().contains(tag)))
            .filter(|(tool, _)| keep(tool))
            .map(|(tool, score)| (score, tool))
            .collect();
        // Stable: equal scores keep the registry's order, by name.
        found.sort_by(|a, b| b.0.total_cmp(&a.0));
        found.into_iter().map(|(_, tool)| tool).collect()
    }
}

/// The words of `text`: split on anything but ASCII letters and digits
/// and between a lowercase letter (or digit) and an uppercase one
/// (`getHTTPStatus` → get, http, status), lowercased and normalized.
pub(crate) fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut word = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            flush(&mut word, &mut out);
            continue;
        }
        if c.is_uppercase() && i > 0 {
            let previous = chars[i - 1];
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            // `aB` starts a word, and so does the `S` of `HTTPStatus`.
            if previous.is_lowercase()
                || previous.is_ascii_digit()
                || (previous.is_uppercase() && next_lower)
            {
                flush(&mut word, &mut out);
            }
        }
        word.push(c);
    }
    flush(&mut word, &mut out);
    out
}

fn flush(word: &mut String, out: &mut Vec<String>) {
    if !word.is_empty() {
        out.push(normalize(word));
        word.clear();
    }
}

/// Lowercased, a trailing `s` dropped from a word longer than 3 letters
/// (`issues` and `issue` meet; `bus` and `gas` stay).
fn normalize(word: &str) -> String {
    let mut word = word.to_lowercase();
    if word.chars().count() > 3 && word.ends_with('s') {
        word.pop();
    }
    word
}

/// The words of a tool's top-level argument names and descriptions.
fn argument_words(tool: &Tool) -> Vec<String> {
    let Some(Value::Object(properties)) = tool.input_schema().get("properties") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (name, schema) in properties {
        out.extend(words(name));
        if let Some(description) = schema.get("description").and_then(Value::as_str) {
            out.extend(words(description));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::tools::build::build_dynamic;
    use crate::tools::dynamic::DynamicTool;

    fn tool(name: &str, description: &str) -> DynamicTool {
        DynamicTool::new(name, description, json!({"type": "object"}), |_, _| async {
            "ok"
        })
    }

    fn index(tools: Vec<DynamicTool>) -> Index {
        let mut built: Vec<Arc<Tool>> = tools
            .iter()
            .map(|t| Arc::new(build_dynamic(t).unwrap()))
            .collect();
        built.sort_by(|a, b| a.name().cmp(b.name()));
        Index::new(built)
    }

    fn names(index: &Index, query: &str, tags: &[&str]) -> Vec<String> {
        let tags: Vec<String> = tags.iter().map(|t| (*t).to_owned()).collect();
        index
            .search(query, &tags, |_| true)
            .into_iter()
            .map(|t| t.name().to_owned())
            .collect()
    }

    #[test]
    fn names_split_on_separators_and_camel_case() {
        assert_eq!(
            words("repos_get-branch.v2/list"),
            ["repo", "get", "branch", "v2", "list"]
        );
        assert_eq!(words("getHTTPStatus"), ["get", "http", "statu"]);
        assert_eq!(words("listPullRequests"), ["list", "pull", "request"]);
        assert_eq!(words("issues/create"), ["issue", "create"]);
        // Short words keep their `s`.
        assert_eq!(words("Gas bus ids"), ["gas", "bus", "ids"]);
        assert_eq!(words("  "), Vec::<String>::new());
    }

    #[test]
    fn a_query_word_matches_a_longer_word_as_a_prefix_at_half_weight() {
        let index = index(vec![
            tool("repository_get", "Reads one."),
            tool("repo_get", "Reads one."),
            tool("weather", "Forecasts."),
        ]);
        // `repo` is the whole word of one name and begins the other.
        assert_eq!(names(&index, "repo", &[]), ["repo_get", "repository_get"]);
        // Two letters are too short to match as a prefix.
        assert_eq!(names(&index, "re", &[]), Vec::<String>::new());
        assert_eq!(names(&index, "weath", &[]), ["weather"]);
    }

    #[test]
    fn a_name_weighs_more_than_a_description_and_arguments_least() {
        let with_argument = DynamicTool::new(
            "c_tool",
            "Does c.",
            json!({"type": "object", "properties": {"forecast": {"type": "string"}}}),
            |_, _| async { "ok" },
        );
        let index = index(vec![
            tool("b_tool", "Gives a forecast."),
            tool("forecast", "Does a."),
            with_argument,
            tool("d_tool", "Nothing here.").title("Forecast"),
        ]);
        assert_eq!(
            names(&index, "forecast", &[]),
            ["forecast", "d_tool", "b_tool", "c_tool"]
        );
    }

    #[test]
    fn tags_match_whole_and_filter_exactly() {
        let index = index(vec![
            tool("a", "One.").tags(["pets"]),
            tool("b", "Two.").tags(["pets", "store"]),
            tool("c", "Pet food.").tags(["petstore"]),
        ]);
        // A tag matches as a whole word, never as a prefix.
        assert_eq!(names(&index, "pet", &[]), ["a", "b", "c"]);
        assert_eq!(names(&index, "petst", &[]), Vec::<String>::new());
        // The filter needs every tag, as written; an empty query lists by name.
        assert_eq!(names(&index, "", &["pets"]), ["a", "b"]);
        assert_eq!(names(&index, "", &["pets", "store"]), ["b"]);
        assert_eq!(names(&index, "", &["Pets"]), Vec::<String>::new());
        assert_eq!(names(&index, "food", &["pets"]), Vec::<String>::new());
    }

    #[test]
    fn equal_scores_go_by_name_and_results_never_vary() {
        let tools = || {
            vec![
                tool("zeta", "Sends mail."),
                tool("alpha", "Sends mail."),
                tool("mid", "Sends mail."),
            ]
        };
        let first = names(&index(tools()), "mail", &[]);
        assert_eq!(first, ["alpha", "mid", "zeta"]);
        for _ in 0..5 {
            let mut reversed = tools();
            reversed.reverse();
            assert_eq!(names(&index(reversed), "mail", &[]), first);
        }
    }

    #[test]
    fn keep_drops_tools_and_an_empty_query_lists_all() {
        let index = index(vec![tool("b", "Two."), tool("a", "One.")]);
        assert_eq!(names(&index, "", &[]), ["a", "b"]);
        let kept: Vec<&str> = index
            .search("", &[], |tool| tool.name() != "a")
            .into_iter()
            .map(|t| t.name())
            .collect();
        assert_eq!(kept, ["b"]);
    }
}
