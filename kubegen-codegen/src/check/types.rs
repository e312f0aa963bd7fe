//! The rules of a type's own keys (on a struct or enum).

use super::node::{self, Node};
use super::overrides::check_overrides;
use crate::attr::{KeySpans, keys};
use crate::ctxt::Ctxt;
use kubegen_core::model::{Field, Shape, Ty, TypeModel};

/// The JSON a type serializes as, for the checks of its type-level keys.
fn type_ty(model: &TypeModel) -> Ty {
    if let Some(t) = crate::parse::overridden_ty(&model.constraints) {
        return t;
    }
    match &model.shape {
        Shape::Struct { .. } => Ty::Map(Box::new(Ty::Json)),
        Shape::Transparent { field } if field.constraints.int_or_string => Ty::IntOrString,
        Shape::Transparent { field } => field.ty.clone(),
        Shape::Enum {
            repr: kubegen_core::model::Repr::External,
            variants,
        } if variants
            .iter()
            .all(|v| matches!(v.data, kubegen_core::model::VariantData::Unit)) =>
        {
            Ty::String { char: false }
        }
        Shape::Enum { .. } => Ty::Json,
    }
}

/// Type-level rules: the `*_one_of` rule, the override rules and the node
/// rules on the type's own keys.
pub(super) fn check_type(cx: &Ctxt, model: &TypeModel, type_keys: &KeySpans, ident: &syn::Ident) {
    one_of_names_optional_fields(cx, model, type_keys, ident);
    check_overrides(cx, &model.constraints, type_keys, ident.span(), "type");
    node::node(&Node {
        cx,
        ty: &type_ty(model),
        c: &model.constraints,
        keys: type_keys,
        span: ident.span(),
        place: "type",
    });
}

/// Rule: `exactly_one_of`, `at_most_one_of` and `at_least_one_of` are on a
/// struct and name its optional serialized fields.
fn one_of_names_optional_fields(
    cx: &Ctxt,
    model: &TypeModel,
    type_keys: &KeySpans,
    ident: &syn::Ident,
) {
    let c = &model.constraints;
    let fields: &[Field] = match &model.shape {
        Shape::Struct { fields } => fields,
        _ => &[],
    };
    for one in &c.one_of {
        let key = match one.kind {
            kubegen_core::model::OneOfKind::ExactlyOne => keys::EXACTLY_ONE_OF,
            kubegen_core::model::OneOfKind::AtMostOne => keys::AT_MOST_ONE_OF,
            kubegen_core::model::OneOfKind::AtLeastOne => keys::AT_LEAST_ONE_OF,
        };
        let span = type_keys.get(key).copied().unwrap_or_else(|| ident.span());
        if !matches!(model.shape, Shape::Struct { .. }) {
            cx.error_at(
                span,
                format!("`{key}` applies to structs with named fields"),
            );
            continue;
        }
        for name in &one.fields {
            match fields.iter().find(|f| &f.name == name) {
                None => {
                    let hint = kubegen_core::suggest::suggest(
                        name,
                        fields.iter().map(|f| f.name.as_str()),
                    )
                    .map(|s| format!("; did you mean `{s}`?"))
                    .unwrap_or_default();
                    cx.error_at(
                        span,
                        format!("`{key}` names `{name}`, which is not a serialized field{hint}"),
                    );
                }
                Some(f) if f.required => {
                    cx.error_at(span, format!("`{key}` member `{name}` must be optional"))
                }
                Some(_) => {}
            }
        }
    }
}
