//! Enums → the model's enum shape in each serde representation, refusing
//! the representations a structural schema cannot describe.

use super::fields::Builder;
use super::unraw;
use crate::attr;
use crate::attr::serde_attr::{SerdeContainer, SerdeVariant};
use crate::ctxt::Ctxt;
use kubegen_core::model::{Repr, Shape, Ty, Variant, VariantData};

/// An enum's shape: its serde representation and its variants, refused
/// when a structural schema cannot describe them.
pub(super) fn enum_shape(
    b: &mut Builder<'_>,
    input: &syn::DeriveInput,
    e: &syn::DataEnum,
    serde: &SerdeContainer,
) -> Option<Shape> {
    let cx = b.cx;
    let repr = representation(b.cx, input, serde)?;
    let mut variants = Vec::new();
    for v in &e.variants {
        if let Some(variant) = variant(b, v, serde)? {
            variants.push(variant);
        }
    }
    if variants.is_empty() && !cx.has_errors() {
        cx.error_spanned_by(
            &input.ident,
            "an enum needs at least one (non-skipped) variant to have a schema",
        );
        return None;
    }
    if variants.is_empty() || !representable(b.cx, input, &repr, &variants) {
        return None;
    }
    Some(Shape::Enum { repr, variants })
}

/// The serde representation `tag`, `content` and `untagged` select;
/// refused for combinations serde does not have.
fn representation(cx: &Ctxt, input: &syn::DeriveInput, serde: &SerdeContainer) -> Option<Repr> {
    Some(match (&serde.tag, &serde.content, serde.untagged) {
        (None, None, false) => Repr::External,
        (Some(tag), None, false) => Repr::Internal { tag: tag.clone() },
        (Some(tag), Some(content), false) => Repr::Adjacent {
            tag: tag.clone(),
            content: content.clone(),
        },
        (None, None, true) => Repr::Untagged,
        _ => {
            cx.error_spanned_by(&input.ident, "invalid serde enum representation: `content` needs `tag`, and `untagged` excludes both");
            return None;
        }
    })
}

/// One variant in the model: `Some(None)` when it is skipped or refused
/// (the others are still read), `None` when its newtype field has no model
/// (the enum then has no shape).
fn variant(
    b: &mut Builder<'_>,
    v: &syn::Variant,
    serde: &SerdeContainer,
) -> Option<Option<Variant>> {
    let cx = b.cx;
    let sv = SerdeVariant::from_attrs(&v.attrs);
    if sv.skip || !variant_attrs_supported(cx, v, &sv) {
        return Some(None);
    }
    let name = sv.rename.clone().unwrap_or_else(|| {
        let raw = unraw(&v.ident);
        serde
            .rename_all
            .map_or(raw.clone(), |r| r.apply_to_variant(&raw))
    });
    let data = match &v.fields {
        syn::Fields::Unit => VariantData::Unit,
        syn::Fields::Unnamed(u) if u.unnamed.len() == 1 => {
            VariantData::Newtype(Box::new(b.newtype(u.unnamed.first()?)?))
        }
        syn::Fields::Unnamed(_) => {
            cx.error_spanned_by(&v.ident, "tuple variants with several fields serialize as heterogeneous arrays, which a structural schema cannot describe; use a struct variant");
            return Some(None);
        }
        syn::Fields::Named(named) => {
            let rule = sv.rename_all.or(serde.rename_all_fields);
            VariantData::Struct(b.fields(named, rule).0)
        }
    };
    let is_default = v.attrs.iter().any(|a| a.path().is_ident("default"));
    Some(Some(Variant {
        default: is_default && matches!(data, VariantData::Unit),
        name,
        description: attr::doc_comment(&v.attrs),
        data,
    }))
}

/// Refuses kubegen attributes on a variant (reported, the variant still
/// read) and serde's `untagged` and `with` on one (the variant left out).
/// Returns whether the variant is read.
fn variant_attrs_supported(cx: &Ctxt, v: &syn::Variant, sv: &SerdeVariant) -> bool {
    for a in v.attrs.iter().filter(|a| a.path().is_ident(attr::KUBEGEN)) {
        cx.error_spanned_by(a, "kubegen attributes are not supported on enum variants; put them on the variant's fields or on the enum");
    }
    if sv.untagged {
        cx.error_spanned_by(&v.ident, "`#[serde(untagged)]` on a single variant is not supported; use `#[serde(untagged)]` on the enum");
        return false;
    }
    if sv.with.is_some() {
        cx.error_spanned_by(
            &v.ident,
            "`#[serde(with = ...)]` on a variant hides its JSON form from kubegen",
        );
        return false;
    }
    true
}

/// Whether the variants serialize, in this representation, as something a
/// structural schema describes: not a mix of strings and objects
/// (external), not `null` (untagged units), not a tagged non-object
/// (internal).
fn representable(cx: &Ctxt, input: &syn::DeriveInput, repr: &Repr, variants: &[Variant]) -> bool {
    let units = variants
        .iter()
        .filter(|v| matches!(v.data, VariantData::Unit))
        .count();
    match repr {
        Repr::External if units != 0 && units != variants.len() => {
            cx.error_spanned_by(&input.ident, "an externally tagged enum mixing unit and data variants serializes as either a string or an object, which a structural schema cannot describe; use `#[serde(tag = \"...\")]`");
            return false;
        }
        Repr::Untagged if units != 0 => {
            cx.error_spanned_by(&input.ident, "unit variants of an untagged enum serialize as null, which a structural schema cannot describe");
            return false;
        }
        Repr::Internal { .. } => {
            for v in variants {
                if let VariantData::Newtype(f) = &v.data
                    && !matches!(
                        f.ty.unwrap_option(),
                        Ty::Named { .. }
                            | Ty::Map(_)
                            | Ty::IntKeyMap { .. }
                            | Ty::Json
                            | Ty::ObjectMeta
                    )
                {
                    cx.error_spanned_by(&input.ident, format!("variant `{}` of an internally tagged enum holds a {}; serde can only tag objects", v.name, f.ty.json_kind()));
                    return false;
                }
            }
        }
        _ => {}
    }
    true
}
