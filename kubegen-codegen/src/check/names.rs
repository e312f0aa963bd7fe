//! Rule: no two fields of one object serialize under the same name.

use crate::ctxt::Ctxt;
use crate::parse::{Container, FieldSpans};
use kubegen_core::model::{Field, Shape};

/// Two fields of one object serializing under the same name: serde would
/// write both keys and read only one.
pub(super) fn check_unique_names(cx: &Ctxt, c: &Container) {
    use kubegen_core::model::VariantData;
    // Sites follow the model's field order (see `TypeModel::fields`).
    let mut sites = c.sites.iter();
    let object = |fields: &[Field], sites: &mut std::slice::Iter<'_, FieldSpans>| {
        let mut seen: Vec<&str> = Vec::new();
        for field in fields {
            let Some(site) = sites.next() else { return };
            if field.flatten {
                continue;
            }
            if seen.contains(&field.name.as_str()) {
                cx.error_at(
                    site.span,
                    format!(
                        "another field already serializes as `{}`: serde would write the key twice; rename one of them",
                        field.name
                    ),
                );
            }
            seen.push(&field.name);
        }
    };
    match &c.model.shape {
        Shape::Struct { fields } => object(fields, &mut sites),
        Shape::Transparent { .. } => {}
        Shape::Enum { variants, .. } => {
            for v in variants {
                match &v.data {
                    VariantData::Unit => {}
                    VariantData::Newtype(_) => {
                        sites.next();
                    }
                    VariantData::Struct(fields) => object(fields, &mut sites),
                }
            }
        }
    }
}
