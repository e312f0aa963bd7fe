//! The generated `SetObjectDefaults_*` functions' walk, over the type
//! table: every struct of the object, parent before children and fields
//! in Go order, gets its `SetDefaults_*` function (`rules`), then each
//! field its `+default=` marker where it is zero; every ResourceList its
//! rounding.

use serde_json::Value;

use super::codec::is_empty;
use super::rules;
use super::table::{Ty, Type, table, ty};

/// The named map type whose defaulting rounds its quantities.
const RESOURCE_LIST: &str = "io.k8s.api.core.v1.ResourceList";

/// Defaults the Go value `v` of type `expr` (a map of the named type
/// `named`, where it is one) in place.
pub(super) fn walk(expr: &str, v: &mut Value, named: &str) {
    match ty(expr) {
        Ty::Pointer(inner) => {
            if !v.is_null() {
                walk(inner, v, "");
            }
        }
        Ty::Slice(inner) => {
            if let Value::Array(items) = v {
                for item in items {
                    walk(inner, item, "");
                }
            }
        }
        Ty::Map(inner) => {
            if named == RESOURCE_LIST {
                rules::resource_list(v);
            }
            if let Value::Object(m) = v {
                for item in m.values_mut() {
                    walk(inner, item, "");
                }
            }
        }
        Ty::Named(name) => {
            let Some(Type::Struct(fields)) = table().types.get(name) else {
                return;
            };
            rules::set_defaults(name, v);
            let Value::Object(m) = v else {
                return;
            };
            for f in fields {
                let Some(x) = m.get_mut(&f.name) else {
                    continue;
                };
                if let Some(d) = &f.default {
                    let unset = match ty(&f.ty) {
                        Ty::Pointer(_) => x.is_null(),
                        _ => is_empty(&f.ty, x),
                    };
                    if unset {
                        *x = d.clone();
                    }
                }
                walk(&f.ty, x, &f.named);
            }
        }
        Ty::Bytes | Ty::Scalar(_) => {}
    }
}
