//! The generated table `types.json` (`hack/builtin-defaults`): every Go
//! type reachable from the kinds in scope, with each struct's JSON fields
//! in Go order, their Go type, `omitempty`/`omitzero` options, named map
//! type and `+default=` marker, and the types that write themselves.

use std::collections::HashMap;
use std::sync::OnceLock;

use serde_json::Value;

/// The generated table.
const TABLE: &str = include_str!("types.json");

/// One JSON field of a struct.
#[derive(Debug)]
pub(super) struct Field {
    pub(super) name: String,
    /// The Go type expression: `*T`, `[]T`, `map[K]V`, a definition name
    /// or a reflect kind (`string`, `int32`, …).
    pub(super) ty: String,
    pub(super) omitempty: bool,
    pub(super) omitzero: bool,
    /// The named map type (`io.k8s.api.core.v1.ResourceList`), or `""`.
    pub(super) named: String,
    /// The `+default=` marker's value.
    pub(super) default: Option<Value>,
}

/// A Go named type.
#[derive(Debug)]
pub(super) enum Type {
    /// A struct, by its JSON fields.
    Struct(Vec<Field>),
    /// A `json.Marshaler` (`Time`, `Quantity`, …), by its Go name.
    Marshaler(String),
}

/// The parsed table.
#[derive(Debug, Default)]
pub(super) struct Table {
    /// `apiVersion` → kind → definition name.
    pub(super) kinds: HashMap<String, HashMap<String, String>>,
    /// Definition name → type.
    pub(super) types: HashMap<String, Type>,
}

/// The table, parsed once (a corrupt table, which the staleness test rules
/// out, reads as empty).
pub(super) fn table() -> &'static Table {
    static PARSED: OnceLock<Table> = OnceLock::new();
    PARSED.get_or_init(|| parse(TABLE).unwrap_or_default())
}

fn parse(text: &str) -> Option<Table> {
    let root: Value = serde_json::from_str(text).ok()?;
    let mut kinds = HashMap::new();
    for (gv, by_kind) in root.get("kinds")?.as_object()? {
        let mut m = HashMap::new();
        for (kind, name) in by_kind.as_object()? {
            m.insert(kind.clone(), name.as_str()?.to_string());
        }
        kinds.insert(gv.clone(), m);
    }
    let mut types = HashMap::new();
    for (name, meta) in root.get("types")?.as_object()? {
        let go = meta.get("go")?.as_str()?.to_string();
        if meta.get("marshaler").and_then(Value::as_bool) == Some(true) {
            types.insert(name.clone(), Type::Marshaler(go));
            continue;
        }
        let mut fields = Vec::new();
        for f in meta.get("fields")?.as_array()? {
            let f = f.as_array()?;
            fields.push(Field {
                name: f.first()?.as_str()?.to_string(),
                ty: f.get(1)?.as_str()?.to_string(),
                omitempty: f.get(2)?.as_bool()?,
                omitzero: f.get(3)?.as_bool()?,
                named: f.get(4)?.as_str()?.to_string(),
                default: f.get(5).filter(|v| !v.is_null()).cloned(),
            });
        }
        types.insert(name.clone(), Type::Struct(fields));
    }
    Some(Table { kinds, types })
}

/// A Go type expression, split once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ty<'a> {
    /// `*T`.
    Pointer(&'a str),
    /// `[]uint8`, which Go writes as base64 text.
    Bytes,
    /// `[]T`.
    Slice(&'a str),
    /// `map[K]V`, by `V`.
    Map(&'a str),
    /// A named struct or marshaler.
    Named(&'a str),
    /// A reflect kind: `string`, `bool`, `int32`, …
    Scalar(&'a str),
}

/// Splits a type expression.
pub(super) fn ty(expr: &str) -> Ty<'_> {
    if let Some(inner) = expr.strip_prefix('*') {
        Ty::Pointer(inner)
    } else if expr == "[]uint8" {
        Ty::Bytes
    } else if let Some(inner) = expr.strip_prefix("[]") {
        Ty::Slice(inner)
    } else if let Some(rest) = expr.strip_prefix("map[") {
        // Keys are strings: the value starts after the first `]`.
        Ty::Map(rest.split_once(']').map_or("", |(_, v)| v))
    } else if expr.contains('.') {
        Ty::Named(expr)
    } else {
        Ty::Scalar(expr)
    }
}
