//! JSON patch (`application/json-patch+json`, RFC 6902) as the apiserver
//! applies it: gopkg.in/evanphx/json-patch.v4 (v4.13.0, what kube-apiserver
//! 1.36 pins) with its defaults (`SupportNegativeIndices`) and the copy
//! limit the apiserver sets (`AccumulatedCopySizeLimit`, 3 MiB), behind
//! patch.go's strict decoding and its 10,000-operation limit.
//!
//! The library's quirks, kept: `replace` of a missing object member adds
//! it; `add` at index `-n` counts from one past the end (`-1` appends);
//! negative indices elsewhere count from the end; a path without a leading
//! `/` drops its first segment; `copy` from a missing member copies
//! `null`; `test` compares scalars by their JSON text (`1` is not `1.0`,
//! and a patch's `"<"` is not the stored `"\u003c"`); `test` of a missing
//! member passes against `null` or no value; comparing arrays holding
//! `null`, or `test` of the root without a value, panics in Go (the
//! apiserver answers 500). Every failure of an operation is the
//! apiserver's one `422 Invalid` message, which names no operation.

use std::collections::BTreeMap;

use serde_json::Value;

use super::go_json::{self, Json};
use super::{FieldValidation, PatchError, Patched};

/// The most operations the apiserver applies from one patch.
pub const MAX_OPERATIONS: usize = 10_000;

/// The apiserver's `--max-request-bytes` default, which it sets as
/// json-patch's `AccumulatedCopySizeLimit`.
pub const COPY_SIZE_LIMIT: usize = 3 * 1024 * 1024;

/// Applies the JSON patch `body` to `current` as the apiserver does.
pub fn apply(
    current: &Value,
    body: &[u8],
    validation: FieldValidation,
) -> Result<Patched, PatchError> {
    super::check_current(current)?;
    let parsed = go_json::parse(body);
    let mut strict_errors = Vec::new();
    if validation != FieldValidation::Ignore {
        let patch = parsed
            .as_ref()
            .map_err(|e| PatchError::bad_request(format!("error decoding patch: {e}")))?;
        strict_errors = strict_decode(patch)
            .map_err(|e| PatchError::bad_request(format!("error decoding patch: {e}")))?
            .into_iter()
            .map(|e| format!("json patch {e}"))
            .collect();
    }
    let patch = parsed.map_err(PatchError::bad_request)?;
    let ops = decode_patch(patch).map_err(PatchError::bad_request)?;
    if ops.len() > MAX_OPERATIONS {
        return Err(PatchError::too_large(format!(
            "The allowed maximum operations in a JSON patch is {MAX_OPERATIONS}, got {}",
            ops.len()
        )));
    }
    let Some(Node::Doc(doc)) = node(go_json::from_value(current)) else {
        return Err(PatchError::internal(
            "the object is not a JSON object".into(),
        ));
    };
    let mut doc = Container::Doc(doc);
    let mut copied = 0;
    for op in &ops {
        match apply_op(&mut doc, op, &mut copied) {
            Ok(()) => {}
            Err(Failure::Failed) => return Err(PatchError::json_patch_failed()),
            Err(Failure::Panic) => return Err(PatchError::panic()),
        }
    }
    let root = match doc {
        Container::Doc(d) => Node::Doc(d),
        Container::Ary(a) => Node::Ary(a),
        Container::NilMap => Node::NullDoc(Which::Doc),
    };
    Ok(Patched {
        object: to_value(Some(&root)).map_err(PatchError::unrepresentable)?,
        strict_errors,
    })
}

/// sigs.k8s.io/json's strict decoding of the body into patch.go's
/// `[]jsonPatchOp`: the first decoding error, else the strict errors
/// (unknown and duplicate fields).
fn strict_decode(patch: &Json) -> Result<Vec<String>, String> {
    let mut strict = Vec::new();
    let ops = match patch {
        Json::Null => return Ok(strict),
        Json::Array(ops) => ops,
        other => {
            return Err(format!(
                "json: cannot unmarshal {} into Go value of type []handlers.jsonPatchOp",
                other.type_name()
            ));
        }
    };
    let mut first_error = None;
    for (i, op) in ops.iter().enumerate() {
        let members = match op {
            Json::Null => continue,
            Json::Object(members) => members,
            other => {
                first_error.get_or_insert(format!(
                    "json: cannot unmarshal {} into Go value of type handlers.jsonPatchOp",
                    other.type_name()
                ));
                continue;
            }
        };
        let mut seen = Vec::new();
        for (k, v) in members {
            let path = format!("[{i}].{k}");
            if !["op", "path", "from", "value"].contains(&k.as_str()) {
                push_once(
                    &mut strict,
                    format!("unknown field {}", go_json_quote(&path)),
                );
                continue;
            }
            if seen.contains(&k) {
                push_once(
                    &mut strict,
                    format!("duplicate field {}", go_json_quote(&path)),
                );
            }
            seen.push(k);
            if k == "value" {
                if let Some(e) = v.first_bad_number() {
                    first_error.get_or_insert(e.replace(
                        "into Go value of type",
                        "into Go struct field jsonPatchOp.value of type",
                    ));
                }
                let mut dups = Vec::new();
                v.duplicates(&path, &mut dups);
                for d in dups {
                    push_once(&mut strict, d);
                }
            } else if !matches!(v, Json::String { .. } | Json::Null) {
                first_error.get_or_insert(format!(
                    "json: cannot unmarshal {} into Go struct field jsonPatchOp.{k} of type string",
                    v.type_name()
                ));
            }
        }
    }
    match first_error {
        Some(e) => Err(e),
        None => Ok(strict),
    }
}

fn push_once(errors: &mut Vec<String>, e: String) {
    if !errors.contains(&e) && errors.len() < 100 {
        errors.push(e);
    }
}

fn go_json_quote(s: &str) -> String {
    crate::go::fmt::go_quote(s)
}

/// One operation as json-patch holds it: `map[string]*json.RawMessage`,
/// a `null` member a nil pointer.
type Operation = BTreeMap<String, Option<Json>>;

/// `jsonpatch.DecodePatch`: Go's `encoding/json` into `[]Operation`.
fn decode_patch(patch: Json) -> Result<Vec<Operation>, String> {
    let ops = match patch {
        Json::Null => return Ok(Vec::new()),
        Json::Array(ops) => ops,
        other => {
            return Err(format!(
                "json: cannot unmarshal {} into Go value of type jsonpatch.Patch",
                other.type_name()
            ));
        }
    };
    let mut out = Vec::with_capacity(ops.len());
    let mut first_error = None;
    for op in ops {
        match op {
            Json::Null => out.push(Operation::new()),
            Json::Object(members) => out.push(
                members
                    .into_iter()
                    .map(|(k, v)| (k, (v != Json::Null).then_some(v)))
                    .collect(),
            ),
            other => {
                first_error.get_or_insert(format!(
                    "json: cannot unmarshal {} into Go value of type jsonpatch.Operation",
                    other.type_name()
                ));
            }
        }
    }
    match first_error {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

/// Which form a raw `null` node has been read as (json-patch converts a
/// node in place when it reads it as an object or array).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Which {
    Raw,
    Doc,
    Ary,
}

/// json-patch's `lazyNode`, eagerly parsed; `Option<Node>` is a
/// `*lazyNode`, `None` the nil pointer a `null` member decodes to.
#[derive(Debug, Clone)]
enum Node {
    /// A number, string or boolean: its JSON text.
    Scalar(String),
    /// A node without raw text: an operation's `"value": null`.
    Nil,
    /// A node whose raw text is `null` (a deep copy of [`Node::Nil`]): it
    /// reads as an object with a nil map, or an empty array.
    NullDoc(Which),
    /// An object.
    Doc(BTreeMap<String, Option<Node>>),
    /// An array.
    Ary(Vec<Option<Node>>),
}

/// A JSON value as a node tree (`null` is the nil pointer).
fn node(j: Json) -> Option<Node> {
    Some(match j {
        Json::Null => return None,
        Json::Array(items) => Node::Ary(items.into_iter().map(node).collect()),
        Json::Object(members) => {
            Node::Doc(members.into_iter().map(|(k, v)| (k, node(v))).collect())
        }
        Json::Number(text) | Json::String { raw: text, .. } => Node::Scalar(text),
        Json::Bool(b) => Node::Scalar(b.to_string()),
    })
}

/// Go's `json.Marshal` of a node: the copied text and its length.
fn marshal(n: Option<&Node>, out: &mut String) {
    match n {
        None | Some(Node::Nil | Node::NullDoc(_)) => out.push_str("null"),
        Some(Node::Scalar(text)) => {
            for c in text.chars() {
                match c {
                    '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                        out.push_str(&format!("\\u{:04x}", c as u32))
                    }
                    c => out.push(c),
                }
            }
        }
        Some(Node::Doc(d)) => {
            out.push('{');
            for (i, (k, v)) in d.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&crate::go::fmt::go_json(&Value::String(k.clone())));
                out.push(':');
                marshal(v.as_ref(), out);
            }
            out.push('}');
        }
        Some(Node::Ary(a)) => {
            out.push('[');
            for (i, v) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                marshal(v.as_ref(), out);
            }
            out.push(']');
        }
    }
}

/// The patched document as the apiserver decodes it.
fn to_value(n: Option<&Node>) -> Result<Value, String> {
    Ok(match n {
        None | Some(Node::Nil | Node::NullDoc(_)) => Value::Null,
        Some(Node::Scalar(text)) => go_json::parse(text.as_bytes())?.to_value()?,
        Some(Node::Doc(d)) => Value::Object(
            d.iter()
                .map(|(k, v)| Ok((k.clone(), to_value(v.as_ref())?)))
                .collect::<Result<_, String>>()?,
        ),
        Some(Node::Ary(a)) => Value::Array(
            a.iter()
                .map(|v| to_value(v.as_ref()))
                .collect::<Result<_, _>>()?,
        ),
    })
}

/// How an operation fails: an error (the apiserver's 422) or a Go panic.
enum Failure {
    Failed,
    Panic,
}

type Step<T> = Result<T, Failure>;

/// A container json-patch operates in: an object, an array, or the nil
/// map a `null` node reads as (writing into it panics).
enum Container {
    Doc(BTreeMap<String, Option<Node>>),
    Ary(Vec<Option<Node>>),
    NilMap,
}

/// A borrowed container inside the document.
enum Con<'a> {
    Doc(&'a mut BTreeMap<String, Option<Node>>),
    Ary(&'a mut Vec<Option<Node>>),
    NilMap,
}

/// `strconv.Atoi`.
fn atoi(key: &str) -> Step<i64> {
    key.parse::<i64>().map_err(|_| Failure::Failed)
}

/// An array index for get, set and remove: negative counts from the end.
fn index(key: &str, len: usize) -> Step<usize> {
    let idx = atoi(key)?;
    let len = len as i64;
    let idx = if idx < 0 {
        if idx < -len {
            return Err(Failure::Failed);
        }
        idx + len
    } else {
        idx
    };
    if idx >= len {
        return Err(Failure::Failed);
    }
    Ok(idx as usize)
}

impl Con<'_> {
    /// `get`: the member or element (`None` for a missing member).
    fn get(&self, key: &str) -> Step<Option<&Node>> {
        match self {
            Con::Doc(d) => Ok(d.get(key).and_then(Option::as_ref)),
            Con::Ary(a) => Ok(a[index(key, a.len())?].as_ref()),
            Con::NilMap => Ok(None),
        }
    }

    fn add(&mut self, key: &str, val: Option<Node>) -> Step<()> {
        match self {
            Con::Doc(d) => {
                d.insert(key.to_string(), val);
                Ok(())
            }
            Con::NilMap => Err(Failure::Panic),
            Con::Ary(a) => {
                if key == "-" {
                    a.push(val);
                    return Ok(());
                }
                let idx = atoi(key)?;
                let size = a.len() as i64 + 1;
                if idx >= size {
                    return Err(Failure::Failed);
                }
                let idx = if idx < 0 {
                    if idx < -size {
                        return Err(Failure::Failed);
                    }
                    idx + size
                } else {
                    idx
                };
                a.insert(idx as usize, val);
                Ok(())
            }
        }
    }

    /// `set`, for `replace` after a successful `get`.
    fn set(&mut self, key: &str, val: Option<Node>) -> Step<()> {
        match self {
            Con::Doc(d) => {
                d.insert(key.to_string(), val);
                Ok(())
            }
            Con::NilMap => Err(Failure::Panic),
            Con::Ary(a) => {
                let i = index(key, a.len())?;
                a[i] = val;
                Ok(())
            }
        }
    }

    fn remove(&mut self, key: &str) -> Step<Option<Node>> {
        match self {
            Con::Doc(d) => d.remove(key).ok_or(Failure::Failed),
            Con::NilMap => Err(Failure::Failed),
            Con::Ary(a) => {
                let i = index(key, a.len())?;
                Ok(a.remove(i))
            }
        }
    }
}

/// RFC 6901's unescaping: `~1` to `/`, then `~0` to `~` (one pass).
fn decode_key(k: &str) -> String {
    let mut out = String::with_capacity(k.len());
    let mut rest = k;
    while let Some(i) = rest.find('~') {
        out.push_str(&rest[..i]);
        match rest.as_bytes().get(i + 1) {
            Some(b'1') => {
                out.push('/');
                rest = &rest[i + 2..];
            }
            Some(b'0') => {
                out.push('~');
                rest = &rest[i + 2..];
            }
            _ => {
                out.push('~');
                rest = &rest[i + 1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// `findObject`: the container a path's last segment is in, and that
/// segment unescaped.
fn find_object<'a>(doc: &'a mut Container, path: &str) -> Option<(Con<'a>, String)> {
    let split: Vec<&str> = path.split('/').collect();
    if split.len() < 2 {
        return None;
    }
    let mut con = match doc {
        Container::Doc(d) => Con::Doc(d),
        Container::Ary(a) => Con::Ary(a),
        Container::NilMap => Con::NilMap,
    };
    for part in &split[1..split.len() - 1] {
        let key = decode_key(part);
        let next: &'a mut Node = match con {
            Con::Doc(d) => d.get_mut(&key)?.as_mut()?,
            Con::Ary(a) => {
                let i = index(&key, a.len()).ok()?;
                a[i].as_mut()?
            }
            Con::NilMap => return None,
        };
        con = match next {
            Node::Nil | Node::Scalar(_) => return None,
            Node::Doc(d) => Con::Doc(d),
            Node::Ary(a) => Con::Ary(a),
            Node::NullDoc(which) => {
                *which = Which::Doc;
                Con::NilMap
            }
        };
    }
    Some((con, decode_key(split[split.len() - 1])))
}

/// An operation's string member (`Path`, `From`); a failure when it is
/// missing, `null` or no string.
fn string_member(op: &Operation, name: &str) -> Step<String> {
    match op.get(name) {
        Some(Some(Json::String { value, .. })) => Ok(value.clone()),
        _ => Err(Failure::Failed),
    }
}

/// `op.value()`: no node without a `value` member, [`Node::Nil`] for
/// `"value": null`.
fn op_value(op: &Operation) -> Option<Node> {
    match op.get("value")? {
        None => Some(Node::Nil),
        Some(v) => node(v.clone()),
    }
}

fn apply_op(doc: &mut Container, op: &Operation, copied: &mut usize) -> Step<()> {
    let kind = match op.get("op") {
        Some(Some(Json::String { value, .. })) => value.as_str(),
        _ => "unknown",
    };
    match kind {
        "add" => {
            let path = string_member(op, "path")?;
            let (mut con, key) = find_object(doc, &path).ok_or(Failure::Failed)?;
            con.add(&key, op_value(op))
        }
        "remove" => {
            let path = string_member(op, "path")?;
            let (mut con, key) = find_object(doc, &path).ok_or(Failure::Failed)?;
            con.remove(&key).map(drop)
        }
        "replace" => {
            let path = string_member(op, "path")?;
            if path.is_empty() {
                *doc = match op.get("value") {
                    None => return Err(Failure::Panic),
                    Some(Some(Json::Object(_) | Json::Array(_))) => match op_value(op) {
                        Some(Node::Doc(d)) => Container::Doc(d),
                        Some(Node::Ary(a)) => Container::Ary(a),
                        _ => return Err(Failure::Failed),
                    },
                    Some(_) => return Err(Failure::Failed),
                };
                return Ok(());
            }
            let (mut con, key) = find_object(doc, &path).ok_or(Failure::Failed)?;
            con.get(&key)?;
            con.set(&key, op_value(op))
        }
        "move" => {
            let from = string_member(op, "from")?;
            let (mut con, key) = find_object(doc, &from).ok_or(Failure::Failed)?;
            con.get(&key)?;
            let val = con.remove(&key)?;
            let path = string_member(op, "path")?;
            let (mut con, key) = find_object(doc, &path).ok_or(Failure::Failed)?;
            con.add(&key, val)
        }
        "test" => test(doc, op),
        "copy" => {
            let from = string_member(op, "from")?;
            let (con, key) = find_object(doc, &from).ok_or(Failure::Failed)?;
            let val = con.get(&key)?.cloned();
            let path = string_member(op, "path")?;
            let (mut con, key) = find_object(doc, &path).ok_or(Failure::Failed)?;
            let copy = match val {
                None => None,
                Some(v) => {
                    let mut text = String::new();
                    marshal(Some(&v), &mut text);
                    *copied += text.len();
                    // The copy is read back from that text: a `null`
                    // becomes a raw `null` node, nested ones nil pointers.
                    match v {
                        Node::Nil | Node::NullDoc(_) => Some(Node::NullDoc(Which::Raw)),
                        _ => node(go_json::parse(text.as_bytes()).map_err(|_| Failure::Failed)?),
                    }
                }
            };
            if *copied > COPY_SIZE_LIMIT {
                return Err(Failure::Failed);
            }
            con.add(&key, copy)
        }
        _ => Err(Failure::Failed),
    }
}

fn test(doc: &mut Container, op: &Operation) -> Step<()> {
    let path = string_member(op, "path")?;
    let value = op_value(op);
    if path.is_empty() {
        let mut me = match doc {
            Container::Doc(d) => Node::Doc(std::mem::take(d)),
            Container::Ary(a) => Node::Ary(std::mem::take(a)),
            Container::NilMap => Node::NullDoc(Which::Doc),
        };
        let Some(mut value) = value else {
            return Err(Failure::Panic);
        };
        let same = equal(&mut me, &mut value);
        *doc = match me {
            Node::Doc(d) => Container::Doc(d),
            Node::Ary(a) => Container::Ary(a),
            _ => Container::NilMap,
        };
        return if same? { Ok(()) } else { Err(Failure::Failed) };
    }
    let (con, key) = find_object(doc, &path).ok_or(Failure::Failed)?;
    let val = match con {
        Con::Doc(d) => d.get_mut(&key).and_then(Option::as_mut),
        Con::Ary(a) => {
            let i = index(&key, a.len())?;
            a[i].as_mut()
        }
        Con::NilMap => None,
    };
    match (val, value) {
        (None, None | Some(Node::Nil)) => Ok(()),
        (None, Some(_)) | (Some(_), None) => Err(Failure::Failed),
        (Some(v), Some(mut o)) => {
            if equal(v, &mut o)? {
                Ok(())
            } else {
                Err(Failure::Failed)
            }
        }
    }
}

/// `lazyNode.equal`, conversions of raw `null` nodes included.
fn equal(n: &mut Node, o: &mut Node) -> Step<bool> {
    // A raw node reads as an object if it can.
    if let Node::NullDoc(w @ Which::Raw) = n {
        *w = Which::Doc;
    }
    match n {
        Node::Scalar(_) | Node::Nil => Ok(match (&*n, &*o) {
            (Node::Scalar(a), Node::Scalar(b)) => a == b,
            (Node::Nil, Node::Nil) => true,
            _ => false,
        }),
        Node::Doc(_) | Node::NullDoc(Which::Doc) => {
            let other_is_doc = match o {
                Node::Doc(_) => true,
                Node::NullDoc(w) => {
                    if *w == Which::Raw {
                        *w = Which::Doc;
                    }
                    *w == Which::Doc
                }
                _ => false,
            };
            if !other_is_doc {
                return Ok(false);
            }
            let (a, b) = match (&mut *n, &mut *o) {
                (Node::Doc(a), Node::Doc(b)) => (a, b),
                (Node::Doc(a), _) => return Ok(a.is_empty()),
                (_, Node::Doc(b)) => return Ok(b.is_empty()),
                _ => return Ok(true),
            };
            if a.len() != b.len() {
                return Ok(false);
            }
            for (k, v) in a.iter_mut() {
                let Some(ov) = b.get_mut(k) else {
                    return Ok(false);
                };
                match (v, ov) {
                    (None, None) => {}
                    (Some(v), Some(ov)) => {
                        if !equal(v, ov)? {
                            return Ok(false);
                        }
                    }
                    _ => return Ok(false),
                }
            }
            Ok(true)
        }
        Node::Ary(_) | Node::NullDoc(_) => {
            let other_is_ary = match o {
                Node::Ary(_) => true,
                Node::NullDoc(w) => {
                    *w = Which::Ary;
                    true
                }
                _ => false,
            };
            if !other_is_ary {
                return Ok(false);
            }
            let (a, b) = match (&mut *n, &mut *o) {
                (Node::Ary(a), Node::Ary(b)) => (a, b),
                (Node::Ary(a), _) => return Ok(a.is_empty()),
                (_, Node::Ary(b)) => return Ok(b.is_empty()),
                _ => return Ok(true),
            };
            if a.len() != b.len() {
                return Ok(false);
            }
            for (v, ov) in a.iter_mut().zip(b.iter_mut()) {
                match (v, ov) {
                    (Some(v), Some(ov)) => {
                        if !equal(v, ov)? {
                            return Ok(false);
                        }
                    }
                    // A nil element dereferenced.
                    _ => return Err(Failure::Panic),
                }
            }
            Ok(true)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn patch(current: Value, ops: &str) -> Result<Value, PatchError> {
        apply(&current, ops.as_bytes(), FieldValidation::Warn).map(|p| p.object)
    }

    #[test]
    fn operations_apply_with_json_patchs_quirks() {
        let cur = json!({"a": [1, 2, 3], "b": {"c": "x"}});
        assert_eq!(
            patch(
                cur.clone(),
                r#"[{"op": "add", "path": "/a/-1", "value": 4}]"#
            )
            .unwrap(),
            json!({"a": [1, 2, 3, 4], "b": {"c": "x"}})
        );
        assert_eq!(
            patch(cur.clone(), r#"[{"op": "remove", "path": "/a/-1"}]"#).unwrap(),
            json!({"a": [1, 2], "b": {"c": "x"}})
        );
        assert_eq!(
            patch(
                cur.clone(),
                r#"[{"op": "replace", "path": "/b/d", "value": 1}]"#
            )
            .unwrap(),
            json!({"a": [1, 2, 3], "b": {"c": "x", "d": 1}})
        );
        assert_eq!(
            patch(
                cur.clone(),
                r#"[{"op": "copy", "from": "/b/z", "path": "/e"}]"#
            )
            .unwrap(),
            json!({"a": [1, 2, 3], "b": {"c": "x"}, "e": null})
        );
        assert_eq!(
            patch(cur.clone(), r#"[{"op": "test", "path": "/b/z"}]"#).unwrap(),
            cur
        );
        for failing in [
            r#"[{"op": "test", "path": "/a/0", "value": 1.0}]"#,
            r#"[{"op": "add", "path": "/a/4", "value": 1}]"#,
            r#"[{"op": "remove", "path": "/b/z"}]"#,
            r#"[{"op": "move", "from": "/b", "path": "/b/c"}]"#,
            r#"[{"op": "nope", "path": "/b"}]"#,
        ] {
            let e = patch(cur.clone(), failing).unwrap_err();
            assert_eq!((e.code, e.reason), (422, "Invalid"), "{failing}");
        }
        let e = patch(cur.clone(), r#"[{"op": "test", "path": ""}]"#).unwrap_err();
        assert_eq!(e.code, 500);
    }

    #[test]
    fn the_body_is_decoded_as_patch_go_decodes_it() {
        let e = patch(json!({}), "{}").unwrap_err();
        assert_eq!(
            e.message,
            "error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp"
        );
        let e = apply(&json!({}), b"{}", FieldValidation::Ignore).unwrap_err();
        assert_eq!(
            e.message,
            "json: cannot unmarshal object into Go value of type jsonpatch.Patch"
        );
        let p = apply(
            &json!({}),
            br#"[{"op": "add", "path": "/a", "value": 1, "x": 2}]"#,
            FieldValidation::Warn,
        )
        .unwrap();
        assert_eq!(p.strict_errors, ["json patch unknown field \"[0].x\""]);
    }
}
