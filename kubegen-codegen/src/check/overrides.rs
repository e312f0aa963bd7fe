//! The override rules: `schema_json` is the whole schema of its node, so
//! no other schema keyword may shape it; `schema_type` contradicts the keys
//! that give a schema of their own.

use proc_macro2::Span;

use crate::attr::{KeySpans, keys};
use crate::ctxt::Ctxt;
use kubegen_core::model::Constraints;

/// Keys that do not shape the schema of the node they are written on, and
/// so may accompany `schema_json`.
const BESIDE_SCHEMA_JSON: &[&str] = &[
    keys::SCHEMA_JSON,
    keys::DESCRIPTION,
    keys::REQUIRED,
    keys::OPTIONAL,
    keys::NO_SCHEMA_DEFAULT,
    keys::ALLOW_FLOAT,
    keys::CRATE,
];

/// Keys whose schema `schema_type` would contradict.
const BESIDE_SCHEMA_TYPE: &[&str] = &[
    keys::SCHEMA_JSON,
    keys::SCHEMALESS,
    keys::INT_OR_STRING,
    keys::SCHEMARS,
];

/// `schema_json` and `schema_type` against the other keys of one node
/// (`place` names it in messages): `schema_json` is the whole schema, so
/// no other schema keyword may shape the node; `schema_type` contradicts
/// the keys that give a schema of their own.
pub(super) fn check_overrides(
    cx: &Ctxt,
    c: &Constraints,
    keys: &KeySpans,
    span: Span,
    place: &str,
) {
    let at = |k: &str| keys.get(k).copied().unwrap_or(span);
    let written: Vec<&'static str> = keys.keys().copied().collect();
    if c.schema_json.is_some() {
        for k in written.iter().filter(|k| !BESIDE_SCHEMA_JSON.contains(k)) {
            if keys::find(k).is_some_and(|key| key.is_schema_key()) {
                cx.error_at(
                    at(k),
                    format!(
                        "`{k}` cannot be combined with `schema_json` on the same {place}: the JSON is the whole schema of the {place}; write the keyword into the JSON"
                    ),
                );
            }
        }
    } else if c.schema_type.is_some() {
        for k in written.iter().filter(|k| BESIDE_SCHEMA_TYPE.contains(k)) {
            cx.error_at(
                at(k),
                format!(
                    "`{k}` cannot be combined with `schema_type` on the same {place}: both say what the schema is; keep one"
                ),
            );
        }
    }
}
