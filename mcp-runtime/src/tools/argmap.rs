//! How the arguments a client sends to a transformed tool become the
//! tool's own: renamed ones renamed back, hidden ones dropped, fixed ones
//! inserted. Built by `derived` as it applies each argument change.

use serde_json::{Map, Value};

/// How the arguments a client sends become the tool's own.
#[derive(Debug, Default)]
pub(crate) struct ArgMap {
    /// Served name → the tool's own name.
    renamed: Vec<(String, String)>,
    /// The tool's own names that are not served as such (renamed or
    /// hidden): a client's value under one is dropped.
    unserved: Vec<String>,
    /// The fixed values, by the tool's own names.
    fixed: Vec<(String, Value)>,
}

impl ArgMap {
    /// The tool's own name of the argument served as `name`.
    fn original<'a>(&'a self, name: &'a str) -> &'a str {
        self.renamed
            .iter()
            .find(|(served, _)| served == name)
            .map_or(name, |(_, own)| own)
    }

    /// The argument served as `from` is served as `to`.
    pub(crate) fn rename(&mut self, from: &str, to: &str) {
        let own = self.original(from).to_owned();
        self.unserve(from);
        if own == to {
            self.unserved.retain(|n| n != to);
        } else {
            self.renamed.push((to.to_owned(), own));
        }
    }

    /// `name` (as served so far) is served no more, nor its own name.
    fn unserve(&mut self, name: &str) {
        let own = self.original(name).to_owned();
        self.renamed.retain(|(served, _)| served != name);
        for gone in [own.as_str(), name] {
            if !self.unserved.iter().any(|n| n == gone) {
                self.unserved.push(gone.to_owned());
            }
        }
    }

    /// The argument served as `name` is hidden, and always `value`.
    pub(crate) fn fix(&mut self, name: &str, value: &Value) {
        let own = self.original(name).to_owned();
        self.hide(name);
        self.fixed.push((own, value.clone()));
    }

    /// The argument served as `name` is hidden, and never sent.
    pub(crate) fn hide(&mut self, name: &str) {
        self.unserve(name);
    }

    /// The arguments with the tool's own names, hidden ones dropped and
    /// fixed ones inserted.
    pub(crate) fn map(&self, arguments: Value) -> Value {
        let Value::Object(sent) = arguments else {
            return arguments;
        };
        let mut own = Map::new();
        for (name, value) in sent {
            if let Some((_, original)) = self.renamed.iter().find(|(served, _)| *served == name) {
                own.insert(original.clone(), value);
            } else if !self.unserved.contains(&name) {
                own.insert(name, value);
            }
        }
        for (name, value) in &self.fixed {
            own.insert(name.clone(), value.clone());
        }
        Value::Object(own)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn arguments_map_back_to_the_tools_own_names() {
        let mut map = ArgMap::default();
        map.rename("message", "text");
        map.fix("b", &json!(1));
        map.hide("page");
        assert_eq!(
            map.map(json!({"text": "hi", "b": 99, "page": 3, "message": "sneaky", "x": true})),
            json!({"message": "hi", "x": true, "b": 1})
        );
    }

    #[test]
    fn chained_and_swapped_renames_reach_the_first_name() {
        let mut map = ArgMap::default();
        map.rename("a", "x");
        map.rename("x", "y");
        assert_eq!(map.map(json!({"y": 1, "a": 2, "x": 3})), json!({"a": 1}));

        let mut map = ArgMap::default();
        map.rename("a", "tmp");
        map.rename("b", "a");
        map.rename("tmp", "b");
        assert_eq!(map.map(json!({"a": 1, "b": 2})), json!({"b": 1, "a": 2}));

        let mut map = ArgMap::default();
        map.rename("a", "x");
        map.rename("x", "a");
        assert_eq!(map.map(json!({"a": 1})), json!({"a": 1}));
    }

    #[test]
    fn a_renamed_then_fixed_argument_is_fixed_under_its_own_name() {
        let mut map = ArgMap::default();
        map.rename("b", "second");
        map.fix("second", &json!(5));
        assert_eq!(map.map(json!({"second": 7, "b": 8})), json!({"b": 5}));
    }
}
