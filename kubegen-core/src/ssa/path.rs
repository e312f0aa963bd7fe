//! Field paths (structured-merge-diff's `fieldpath.PathElement` and
//! `Path`): a field name, the keys of a `map` list's item, the value of a
//! `set` list's item, or an index, ordered and printed as Go orders and
//! prints them (`.spec.ports[name="http",protocol="TCP"].port`).

use std::cmp::Ordering;
use std::fmt;

use serde_json::Value;

use super::value::{compare, to_string};

/// One step of a field path.
#[derive(Clone, Debug)]
pub enum PathElement {
    /// A field of a struct or a key of a map (`f:` in fieldsV1).
    Field(String),
    /// The item of a `map` list with these key fields, sorted by name
    /// (`k:`).
    Key(Vec<(String, Value)>),
    /// The item of a `set` list with this value (`v:`).
    Value(Value),
    /// The item at this index of a list that is neither (`i:`).
    Index(i64),
}

impl PathElement {
    fn rank(&self) -> u8 {
        match self {
            PathElement::Field(_) => 0,
            PathElement::Key(_) => 1,
            PathElement::Value(_) => 2,
            PathElement::Index(_) => 3,
        }
    }

    /// The field name, for a field.
    pub fn field_name(&self) -> Option<&str> {
        match self {
            PathElement::Field(name) => Some(name),
            _ => None,
        }
    }

    /// The key element for these key fields, sorted by name as
    /// `FieldList.Sort` sorts them (stably).
    pub fn key(mut fields: Vec<(String, Value)>) -> Self {
        fields.sort_by(|a, b| a.0.cmp(&b.0));
        PathElement::Key(fields)
    }
}

fn compare_keys(a: &[(String, Value)], b: &[(String, Value)]) -> Ordering {
    for (l, r) in a.iter().zip(b) {
        let c = l.0.cmp(&r.0).then_with(|| compare(&l.1, &r.1));
        if c != Ordering::Equal {
            return c;
        }
    }
    a.len().cmp(&b.len())
}

impl Ord for PathElement {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self, other) {
            (PathElement::Field(a), PathElement::Field(b)) => a.cmp(b),
            (PathElement::Key(a), PathElement::Key(b)) => compare_keys(a, b),
            (PathElement::Value(a), PathElement::Value(b)) => compare(a, b),
            (PathElement::Index(a), PathElement::Index(b)) => a.cmp(b),
            _ => self.rank().cmp(&other.rank()),
        }
    }
}

impl PartialOrd for PathElement {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for PathElement {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for PathElement {}

impl fmt::Display for PathElement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PathElement::Field(name) => write!(f, ".{name}"),
            PathElement::Key(fields) => {
                let parts: Vec<String> = fields
                    .iter()
                    .map(|(k, v)| format!("{k}={}", to_string(v)))
                    .collect();
                write!(f, "[{}]", parts.join(","))
            }
            PathElement::Value(v) => write!(f, "[={}]", to_string(v)),
            PathElement::Index(i) => write!(f, "[{i}]"),
        }
    }
}

/// A path from the root of an object.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Path(pub Vec<PathElement>);

impl Path {
    /// The path of one field below the root.
    pub fn field(name: &str) -> Self {
        Path(vec![PathElement::Field(name.into())])
    }

    /// This path with one more element.
    pub fn child(&self, pe: PathElement) -> Self {
        let mut p = self.0.clone();
        p.push(pe);
        Path(p)
    }
}

impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for pe in &self.0 {
            write!(f, "{pe}")?;
        }
        Ok(())
    }
}
