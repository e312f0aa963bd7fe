//! Whether a value fits its type (`TypedValue.Validate`): scalars of the
//! right kind, no field a struct does not declare, list items that have
//! their keys, and — unless duplicates are allowed, as they are for
//! objects already stored — no two items of an associative list alike.

use std::collections::BTreeSet;

use serde_json::Value;

use super::{Errors, invalid_atom, list_item_path_element, list_value, map_value, unresolved};
use crate::go::fmt::go_type;
use crate::ssa::path::PathElement;
use crate::ssa::schema::{Deduced, Handled, Relationship, Scalar, Schema, TypeRef, handled};

/// The errors of `v` against the type `tr`.
pub(crate) fn validate(sc: &Schema, tr: &TypeRef, v: &Value, allow_duplicates: bool) -> Errors {
    let Some(atom) = sc.resolve(tr) else {
        return unresolved(sc, tr);
    };
    match handled(&atom, Deduced::of(&atom, Some(v))) {
        Handled::Scalar(s) => validate_scalar(s, Some(v), ""),
        Handled::Map(m) => {
            let map = match map_value(v) {
                Ok(Some(map)) => map,
                Ok(None) => return Errors::default(),
                Err(e) => return Errors::one(e),
            };
            let mut errs = Errors::default();
            // Go visits a map's entries in its random order and stops at
            // the first undeclared field; this visits them sorted.
            for (key, val) in map {
                let pe = PathElement::Field(key.clone());
                let ty = match m.field(key) {
                    Some(f) => &f.ty,
                    None if m.element.is_empty() => {
                        errs.extend(
                            Errors::one("field not declared in schema")
                                .with_prefix(&pe.to_string()),
                        );
                        break;
                    }
                    None => &m.element,
                };
                errs.extend(validate(sc, ty, val, allow_duplicates).with_prefix(&pe.to_string()));
            }
            errs
        }
        Handled::List(l) => {
            let items = match list_value(v) {
                Ok(Some(items)) => items,
                Ok(None) => return Errors::default(),
                Err(e) => return Errors::one(e),
            };
            let mut errs = Errors::default();
            let mut seen = BTreeSet::new();
            for (i, item) in items.iter().enumerate() {
                let pe = if l.relationship != Relationship::Associative {
                    PathElement::Index(i as i64)
                } else {
                    match list_item_path_element(sc, l, item) {
                        Ok(pe) => pe,
                        Err(e) => {
                            errs.extend(Errors::one(format!("element {i}: {e}")));
                            return errs;
                        }
                    }
                };
                if !seen.insert(pe.clone()) && !allow_duplicates {
                    errs.extend(Errors::one(format!("duplicate entries for key {pe}")));
                }
                errs.extend(
                    validate(sc, &l.element, item, allow_duplicates).with_prefix(&pe.to_string()),
                );
            }
            errs
        }
        Handled::Invalid => invalid_atom(sc, tr),
    }
}

/// Whether a scalar is of the kind `t` (`validateScalar`); absent and null
/// values are.
pub(crate) fn validate_scalar(t: Scalar, v: Option<&Value>, prefix: &str) -> Errors {
    let Some(v) = v else {
        return Errors::default();
    };
    let bad = match t {
        _ if v.is_null() => None,
        Scalar::Numeric if !v.is_number() => Some(format!(
            "{prefix}expected numeric (int or float), got {}",
            go_type(v)
        )),
        Scalar::String if !v.is_string() => Some(format!(
            "{prefix}expected string, got {}",
            super::go_sharp_v(v)
        )),
        Scalar::Boolean if !v.is_boolean() => {
            Some(format!("{prefix}expected boolean, got {}", super::go_v(v)))
        }
        Scalar::Untyped if !crate::ssa::value::is_scalar(v) => Some(format!(
            "{prefix}expected any scalar, got {}",
            super::go_v(v)
        )),
        _ => None,
    };
    bad.map(Errors::one).unwrap_or_default()
}
