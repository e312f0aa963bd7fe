//! The `FieldsV1` encoding of a [`FieldSet`] (structured-merge-diff's
//! `serialize.go` and `serialize-pe.go`): a JSON object whose keys are
//! path elements — `f:<name>`, `k:<keys as JSON>`, `v:<value as JSON>`,
//! `i:<index>` — each holding the paths under it, `.` marking a node that
//! is itself a member.

use serde_json::{Map, Value};

use super::fieldset::FieldSet;
use super::path::PathElement;
use crate::go::fmt::go_json;

/// Why a fieldsV1 value does not decode.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldsV1Error(pub String);

impl std::fmt::Display for FieldsV1Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for FieldsV1Error {}

/// A path element's fieldsV1 key (`SerializePathElement`): values and
/// keys as Go's `encoding/json` writes them (keys sorted, `<>&`
/// escaped).
pub fn serialize_path_element(pe: &PathElement) -> String {
    match pe {
        PathElement::Field(name) => format!("f:{name}"),
        PathElement::Key(fields) => {
            let parts: Vec<String> = fields
                .iter()
                .map(|(k, v)| format!("{}:{}", go_json(&Value::String(k.clone())), go_json(v)))
                .collect();
            format!("k:{{{}}}", parts.join(","))
        }
        PathElement::Value(v) => format!("v:{}", go_json(v)),
        PathElement::Index(i) => format!("i:{i}"),
    }
}

/// What a fieldsV1 key is (`DeserializePathElement`): `Ok(None)` for a
/// key of a kind Go skips (an unknown letter before the colon).
pub fn deserialize_path_element(s: &str) -> Result<Option<PathElement>, FieldsV1Error> {
    let b = s.as_bytes();
    if b.len() < 2 {
        return Err(FieldsV1Error("key must be 2 characters long:".into()));
    }
    if b[1] != b':' {
        return Err(FieldsV1Error(format!("missing colon: {s}")));
    }
    let rest = &s[2..];
    match b[0] {
        b'f' => Ok(Some(PathElement::Field(rest.into()))),
        b'v' => serde_json::from_str(rest)
            .map(|v| Some(PathElement::Value(v)))
            .map_err(|e| FieldsV1Error(e.to_string())),
        b'k' => match serde_json::from_str::<Map<String, Value>>(rest) {
            Ok(m) => Ok(Some(PathElement::key(m.into_iter().collect()))),
            Err(e) => Err(FieldsV1Error(e.to_string())),
        },
        b'i' => rest
            .parse::<i64>()
            .map(|i| Some(PathElement::Index(i)))
            .map_err(|_| {
                FieldsV1Error(format!(
                    "strconv.Atoi: parsing {}: invalid syntax",
                    crate::go::fmt::go_quote(rest)
                ))
            }),
        _ => Ok(None),
    }
}

impl FieldSet {
    /// Decodes a fieldsV1 value (`FieldsToSet`).
    pub fn from_fields_v1(v: &Value) -> Result<FieldSet, FieldsV1Error> {
        let Value::Object(m) = v else {
            return Err(FieldsV1Error(format!(
                "ReadMapCB: expect {{ or n, but found {}",
                go_json(v).chars().next().unwrap_or(' ')
            )));
        };
        Ok(read_node(m)?.0.unwrap_or_default())
    }

    /// The fieldsV1 value of this set, as a JSON object.
    pub fn to_fields_v1(&self) -> Value {
        Value::Object(self.emit(false))
    }

    /// The fieldsV1 text byte for byte as the apiserver writes it
    /// (`Set.ToJSON`): entries in path-element order, `.` first.
    pub fn to_json(&self) -> String {
        let mut out = String::from("{");
        self.emit_text(false, &mut out);
        out.push('}');
        out
    }

    fn emit(&self, include_self: bool) -> Map<String, Value> {
        let mut out = Map::new();
        if include_self && !(self.members.is_empty() && self.children.is_empty()) {
            out.insert(".".into(), Value::Object(Map::new()));
        }
        for m in &self.members {
            out.insert(serialize_path_element(m), Value::Object(Map::new()));
        }
        for (pe, c) in &self.children {
            let member = self.has_member(pe);
            out.insert(serialize_path_element(pe), Value::Object(c.emit(member)));
        }
        out
    }

    fn emit_text(&self, include_self: bool, out: &mut String) {
        let mut first = true;
        let mut sep = |out: &mut String| {
            if !std::mem::take(&mut first) {
                out.push(',');
            }
        };
        if include_self && !(self.members.is_empty() && self.children.is_empty()) {
            sep(out);
            out.push_str("\".\":{}");
        }
        let (mut mi, mut ci) = (0, 0);
        let key = |pe: &PathElement| go_json(&Value::String(serialize_path_element(pe)));
        while mi < self.members.len() || ci < self.children.len() {
            let m = self.members.get(mi);
            let c = self.children.get(ci);
            let ord = match (m, c) {
                (Some(m), Some((pe, _))) => m.cmp(pe),
                (Some(_), None) => std::cmp::Ordering::Less,
                _ => std::cmp::Ordering::Greater,
            };
            sep(out);
            match (ord, m, c) {
                (std::cmp::Ordering::Less, Some(m), _) => {
                    out.push_str(&key(m));
                    out.push_str(":{}");
                    mi += 1;
                }
                (ord, _, Some((pe, set))) => {
                    out.push_str(&key(pe));
                    out.push_str(":{");
                    let member = ord == std::cmp::Ordering::Equal;
                    set.emit_text(member, out);
                    out.push('}');
                    if member {
                        mi += 1;
                    }
                    ci += 1;
                }
                _ => break,
            }
        }
    }
}

/// One node of fieldsV1 (`readIterV1`): the set under it (`None` when it
/// holds nothing) and whether it is a member itself.
fn read_node(m: &Map<String, Value>) -> Result<(Option<FieldSet>, bool), FieldsV1Error> {
    let mut children: Option<FieldSet> = None;
    let mut is_member = false;
    for (k, v) in m {
        if k == "." {
            is_member = true;
            continue;
        }
        let Some(pe) = deserialize_path_element(k)? else {
            continue;
        };
        let Value::Object(sub) = v else {
            return Err(FieldsV1Error(format!(
                "ReadMapCB: expect {{ or n, but found {}",
                go_json(v).chars().next().unwrap_or(' ')
            )));
        };
        let (grand, child_member) = read_node(sub)?;
        if child_member {
            children
                .get_or_insert_with(FieldSet::new)
                .insert(std::slice::from_ref(&pe));
        }
        if let Some(g) = grand {
            let set = children.get_or_insert_with(FieldSet::new);
            let node = set.descend(&pe);
            *node = node.union(&g);
        }
    }
    if children.is_none() {
        is_member = true;
    }
    Ok((children, is_member))
}
