//! A value less some of its paths (`TypedValue.RemoveItems`, without
//! extraction): a field or associative list item in the set goes, one
//! with paths under it is walked into. As in Go, a map or list left with
//! nothing becomes null (and stays in its parent), and a value whose
//! kind its type does not expect becomes null.

use serde_json::{Map as JsonMap, Value};

use super::list_item_path_element;
use crate::ssa::fieldset::FieldSet;
use crate::ssa::path::PathElement;
use crate::ssa::schema::{Deduced, Handled, Relationship, Schema, TypeRef, handled};

/// `v` of type `tr` without the paths of `to_remove`.
pub(crate) fn remove_items(sc: &Schema, tr: &TypeRef, v: &Value, to_remove: &FieldSet) -> Value {
    let Some(atom) = sc.resolve(tr) else {
        return Value::Null;
    };
    match handled(&atom, Deduced::of(&atom, Some(v))) {
        Handled::Scalar(_) => v.clone(),
        Handled::List(l) => {
            let Value::Array(items) = v else {
                return Value::Null;
            };
            if items.is_empty() || l.relationship == Relationship::Atomic {
                return Value::Null;
            }
            let mut out = Vec::new();
            for item in items {
                // An item whose path element cannot be made is matched as
                // Go's zero path element is: by nothing.
                let pe = list_item_path_element(sc, l, item).ok();
                let exact = pe.as_ref().is_some_and(|pe| to_remove.has_member(pe));
                if exact {
                    continue;
                }
                let sub = pe.as_ref().map(|pe| to_remove.with_prefix(pe));
                match sub {
                    Some(sub) if !sub.is_empty() => {
                        out.push(remove_items(sc, &l.element, item, &sub));
                    }
                    _ => out.push(item.clone()),
                }
            }
            if out.is_empty() {
                Value::Null
            } else {
                Value::Array(out)
            }
        }
        Handled::Map(m) => {
            let Value::Object(map) = v else {
                return Value::Null;
            };
            if map.is_empty() || m.is_atomic() {
                return Value::Null;
            }
            let mut out = JsonMap::new();
            for (k, val) in map {
                let pe = PathElement::Field(k.clone());
                if to_remove.has_member(&pe) {
                    continue;
                }
                let ty = m.field(k).map_or(&m.element, |f| &f.ty);
                let sub = to_remove.with_prefix(&pe);
                let val = if sub.is_empty() {
                    val.clone()
                } else {
                    remove_items(sc, ty, val, &sub)
                };
                out.insert(k.clone(), val);
            }
            if out.is_empty() {
                Value::Null
            } else {
                Value::Object(out)
            }
        }
        Handled::Invalid => Value::Null,
    }
}
