//! The fields a value sets (`TypedValue.ToFieldSet`): every scalar, every
//! atomic list or map, every item of an associative list, and — of maps —
//! entries that are null, empty maps, or not declared fields. A granular
//! struct or non-empty list is only there through what it holds.

use std::collections::BTreeSet;

use serde_json::Value;

use super::{list_item_path_element, list_value, map_value};
use crate::ssa::fieldset::FieldSet;
use crate::ssa::path::PathElement;
use crate::ssa::schema::{Deduced, Handled, Relationship, Schema, TypeRef, handled};

/// The field set of `v` of type `tr`.
pub(crate) fn to_field_set(sc: &Schema, tr: &TypeRef, v: &Value) -> FieldSet {
    let mut set = FieldSet::new();
    walk(sc, tr, v, &mut Vec::new(), &mut set);
    set
}

fn walk(sc: &Schema, tr: &TypeRef, v: &Value, path: &mut Vec<PathElement>, set: &mut FieldSet) {
    let Some(atom) = sc.resolve(tr) else {
        return;
    };
    match handled(&atom, Deduced::of(&atom, Some(v))) {
        Handled::Scalar(_) => set.insert(path),
        Handled::List(l) => {
            let items = list_value(v).ok().flatten();
            if l.relationship == Relationship::Atomic {
                set.insert(path);
                return;
            }
            let Some(items) = items else {
                return;
            };
            let pes: Vec<Option<PathElement>> = items
                .iter()
                .map(|item| list_item_path_element(sc, l, item).ok())
                .collect();
            let mut seen = BTreeSet::new();
            let mut duplicates = BTreeSet::new();
            for pe in pes.iter().flatten() {
                if !seen.insert(pe.clone()) && duplicates.insert(pe.clone()) {
                    path.push(pe.clone());
                    set.insert(path);
                    path.pop();
                }
            }
            for (item, pe) in items.iter().zip(&pes) {
                let Some(pe) = pe else {
                    continue;
                };
                if duplicates.contains(pe) {
                    continue;
                }
                path.push(pe.clone());
                walk(sc, &l.element, item, path, set);
                set.insert(path);
                path.pop();
            }
        }
        Handled::Map(m) => {
            let map = map_value(v).ok().flatten();
            if m.is_atomic() {
                set.insert(path);
                return;
            }
            let Some(map) = map else {
                return;
            };
            for (key, val) in map {
                let field = m.field(key);
                let ty = field.map_or(&m.element, |f| &f.ty);
                path.push(PathElement::Field(key.clone()));
                walk(sc, ty, val, path, set);
                let empty_map = matches!(val, Value::Object(o) if o.is_empty());
                if val.is_null() || empty_map || field.is_none() {
                    set.insert(path);
                }
                path.pop();
            }
        }
        Handled::Invalid => {}
    }
}
