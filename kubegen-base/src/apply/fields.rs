//! `managedFields[].fieldsV1` read as structured-merge-diff reads it: a
//! trie of path elements (`f:<field>`, `k:<key fields as JSON>`,
//! `v:<set item as JSON>`, `i:<index>`), where `.` (or an empty entry)
//! marks the node itself as owned. [`FieldSet`] holds the members and
//! children of one node, with the operations extraction needs: `Leaves`,
//! member and prefix lookups, and insertion.

use serde_json::{Map, Value};

use super::json::same_value;

/// One step of a field path.
#[derive(Clone, Debug)]
pub enum PathElement {
    /// A field of an object (`f:name`).
    Field(String),
    /// A list-map item, by its key fields sorted by name (`k:{"name":"a"}`).
    Key(Vec<(String, Value)>),
    /// A set item, by value (`v:"a"`).
    Value(Value),
    /// A list item by position (`i:0`).
    Index(i64),
}

impl PartialEq for PathElement {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (PathElement::Field(a), PathElement::Field(b)) => a == b,
            (PathElement::Key(a), PathElement::Key(b)) => {
                a.len() == b.len()
                    && a.iter()
                        .zip(b)
                        .all(|((an, av), (bn, bv))| an == bn && same_value(av, bv))
            }
            (PathElement::Value(a), PathElement::Value(b)) => same_value(a, b),
            (PathElement::Index(a), PathElement::Index(b)) => a == b,
            _ => false,
        }
    }
}

impl PathElement {
    /// Reads one key of `fieldsV1` (`f:…`, `k:…`, `v:…`, `i:…`).
    pub fn parse(key: &str) -> Result<PathElement, String> {
        let (prefix, rest) = key
            .split_once(':')
            .ok_or_else(|| format!("`{key}` is not a path element"))?;
        let json =
            |text: &str| serde_json::from_str::<Value>(text).map_err(|e| format!("`{key}`: {e}"));
        match prefix {
            "f" => Ok(PathElement::Field(rest.to_string())),
            "k" => match json(rest)? {
                Value::Object(fields) => Ok(PathElement::key(fields)),
                _ => Err(format!("`{key}`: a key is a JSON object")),
            },
            "v" => Ok(PathElement::Value(json(rest)?)),
            "i" => rest
                .parse()
                .map(PathElement::Index)
                .map_err(|e| format!("`{key}`: {e}")),
            _ => Err(format!("`{key}`: unknown path element kind `{prefix}`")),
        }
    }

    /// A key element from its fields (sorted by name, as SMD keeps them).
    pub fn key(fields: Map<String, Value>) -> PathElement {
        let mut pairs: Vec<(String, Value)> = fields.into_iter().collect();
        kubegen_core::sorting::sort_by(&mut pairs, |a, b| a.0.cmp(&b.0));
        PathElement::Key(pairs)
    }
}

/// A set of field paths, as a trie: the elements owned at this node
/// (`members`) and the sets below each element (`children`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FieldSet {
    members: Vec<PathElement>,
    children: Vec<(PathElement, FieldSet)>,
}

impl FieldSet {
    /// Reads a `fieldsV1` value.
    pub fn from_fields_v1(value: &Value) -> Result<FieldSet, String> {
        let (set, _) = read_node(value)?;
        Ok(set.unwrap_or_default())
    }

    /// Whether nothing is in the set.
    pub fn is_empty(&self) -> bool {
        self.members.is_empty() && self.children.iter().all(|(_, c)| c.is_empty())
    }

    /// Whether the one-element path `element` is a member.
    pub fn has(&self, element: &PathElement) -> bool {
        self.members.contains(element)
    }

    /// The set below `element` (empty when there is none).
    pub fn with_prefix(&self, element: &PathElement) -> Option<&FieldSet> {
        self.children
            .iter()
            .find(|(e, _)| e == element)
            .map(|(_, c)| c)
            .filter(|c| !c.is_empty())
    }

    /// The members that are not also children, at every level
    /// (structured-merge-diff's `Set.Leaves`).
    pub fn leaves(&self) -> FieldSet {
        FieldSet {
            members: self
                .members
                .iter()
                .filter(|m| !self.children.iter().any(|(c, _)| c == *m))
                .cloned()
                .collect(),
            children: self
                .children
                .iter()
                .map(|(e, c)| (e.clone(), c.leaves()))
                .collect(),
        }
    }

    /// Adds `path` as a member.
    pub fn insert(&mut self, path: &[PathElement]) {
        match path {
            [] => {}
            [last] => {
                if !self.has(last) {
                    self.members.push(last.clone());
                }
            }
            [first, rest @ ..] => {
                let index = match self.children.iter().position(|(e, _)| e == first) {
                    Some(index) => index,
                    None => {
                        self.children.push((first.clone(), FieldSet::default()));
                        self.children.len() - 1
                    }
                };
                self.children[index].1.insert(rest);
            }
        }
    }

    /// Every member path, depth first.
    pub fn paths(&self) -> Vec<Vec<PathElement>> {
        let mut out: Vec<Vec<PathElement>> = self.members.iter().map(|m| vec![m.clone()]).collect();
        for (element, child) in &self.children {
            for mut path in child.paths() {
                path.insert(0, element.clone());
                out.push(path);
            }
        }
        out
    }
}

/// One node of `fieldsV1`: its children (None when it has none) and
/// whether it is itself a member (it has `.`, or nothing at all).
fn read_node(value: &Value) -> Result<(Option<FieldSet>, bool), String> {
    let Value::Object(entries) = value else {
        return Err("a fieldsV1 node is a JSON object".into());
    };
    let mut children: Option<FieldSet> = None;
    let mut member = false;
    for (key, child) in entries {
        if key == "." {
            member = true;
            continue;
        }
        let element = PathElement::parse(key)?;
        let (grandchildren, child_member) = read_node(child)?;
        let set = children.get_or_insert_with(FieldSet::default);
        if child_member {
            set.members.push(element.clone());
        }
        if let Some(grandchildren) = grandchildren {
            set.children.push((element, grandchildren));
        }
    }
    if children.is_none() {
        member = true;
    }
    Ok((children, member))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn f(name: &str) -> PathElement {
        PathElement::Field(name.into())
    }

    #[test]
    fn reads_members_children_and_leaves() {
        let set = FieldSet::from_fields_v1(&json!({
            "f:metadata": {"f:labels": {".": {}, "f:app": {}}},
            "f:spec": {"f:ports": {"k:{\"protocol\":\"TCP\",\"port\":80}": {".": {}, "f:port": {}}}},
        }))
        .unwrap();
        let metadata = set.with_prefix(&f("metadata")).unwrap();
        assert!(metadata.has(&f("labels")), "`.` makes labels a member");
        assert!(metadata.with_prefix(&f("labels")).unwrap().has(&f("app")));
        let leaves = set.leaves();
        let labels = leaves.with_prefix(&f("metadata")).unwrap();
        assert!(
            !labels.has(&f("labels")),
            "a member with children is no leaf"
        );
        let key = PathElement::parse("k:{\"port\":80,\"protocol\":\"TCP\"}").unwrap();
        let ports = set
            .with_prefix(&f("spec"))
            .unwrap()
            .with_prefix(&f("ports"))
            .unwrap();
        assert!(
            ports.has(&key),
            "keys compare whatever their order in the JSON"
        );
        assert_eq!(leaves.paths().len(), 2, "{:?}", leaves.paths());
    }

    #[test]
    fn keys_compare_numbers_by_value_and_bad_elements_are_errors() {
        let a = PathElement::parse("k:{\"port\":80}").unwrap();
        let b = PathElement::parse("k:{\"port\":80.0}").unwrap();
        assert_eq!(a, b);
        assert_ne!(a, PathElement::parse("k:{\"port\":81}").unwrap());
        assert_eq!(PathElement::parse("i:3").unwrap(), PathElement::Index(3));
        assert!(PathElement::parse("x:1").unwrap_err().contains("unknown"));
        assert!(PathElement::parse("k:[1]").is_err());
        assert!(FieldSet::from_fields_v1(&json!([])).is_err());
    }

    #[test]
    fn insert_adds_paths_below_existing_ones() {
        let mut set = FieldSet::default();
        set.insert(&[f("spec"), f("replicas")]);
        set.insert(&[f("spec"), f("paused")]);
        assert_eq!(set.paths().len(), 2);
        assert!(set.with_prefix(&f("spec")).unwrap().has(&f("paused")));
    }
}
