//! The subset of `#[serde(...)]` that decides the JSON shape of a type.
//!
//! serde reports malformed serde attributes itself, so syntax problems here
//! are ignored rather than reported twice.

use syn::meta::ParseNestedMeta;

use super::value;
use kubegen_core::model::case::{RULE_NAMES, RenameRule};

/// serde attributes on a struct or enum.
#[derive(Default, Debug)]
pub struct SerdeContainer {
    /// `rename_all` (serialize side).
    pub rename_all: Option<RenameRule>,
    /// `rename_all_fields` (enums: fields of struct variants).
    pub rename_all_fields: Option<RenameRule>,
    /// `tag = "..."`.
    pub tag: Option<String>,
    /// `content = "..."`.
    pub content: Option<String>,
    /// `untagged`.
    pub untagged: bool,
    /// `transparent`.
    pub transparent: bool,
    /// `default` on the container: every field is optional.
    pub default: bool,
    /// `from`/`into`/`try_from`/`remote`: the JSON form is another type's.
    pub conversion: Option<(String, proc_macro2::Span)>,
    /// Unknown `rename_all` values, reported by the model builder.
    pub bad_rule: Option<(String, proc_macro2::Span)>,
}

/// serde attributes on a field.
#[derive(Default, Debug)]
pub struct SerdeField {
    /// `rename` (serialize side).
    pub rename: Option<String>,
    /// `skip` or `skip_serializing` + `skip_deserializing`.
    pub skip: bool,
    /// `skip_serializing_if`.
    pub skip_serializing_if: bool,
    /// `skip_serializing` or `skip_deserializing` alone.
    pub half_skip: bool,
    /// `default` or `default = "path"`.
    pub default: Option<SerdeDefault>,
    /// `flatten`.
    pub flatten: bool,
    /// `with`/`serialize_with`/`deserialize_with`: JSON form set by code
    /// (the key as written, and its span).
    pub with: Option<(String, proc_macro2::Span)>,
}

/// Where serde takes a missing field's value from.
#[derive(Debug, Clone, Copy)]
pub enum SerdeDefault {
    /// `#[serde(default)]`: `Default::default()` of the field's type.
    Trait,
    /// `#[serde(default = "path")]`: a function kubegen cannot evaluate.
    Function(proc_macro2::Span),
}

/// serde attributes on a variant.
#[derive(Default, Debug)]
pub struct SerdeVariant {
    /// `rename`.
    pub rename: Option<String>,
    /// `skip` (or `skip_deserializing`): not accepted as input.
    pub skip: bool,
    /// `rename_all` for a struct variant's fields.
    pub rename_all: Option<RenameRule>,
    /// `untagged` on one variant.
    pub untagged: bool,
    /// `other`.
    pub other: bool,
    /// `with`-style overrides.
    pub with: Option<proc_macro2::Span>,
}

fn serde_attrs(attrs: &[syn::Attribute]) -> impl Iterator<Item = &syn::Attribute> {
    attrs.iter().filter(|a| a.path().is_ident("serde"))
}

/// `rename = "x"` or `rename(serialize = "x", deserialize = "y")`: the serialize name.
fn renamed(meta: &ParseNestedMeta<'_>) -> syn::Result<Option<(String, proc_macro2::Span)>> {
    if meta.input.peek(syn::Token![=]) {
        let s: syn::LitStr = meta.value()?.parse()?;
        return Ok(Some((s.value(), s.span())));
    }
    let mut out = None;
    meta.parse_nested_meta(|inner| {
        if inner.path.is_ident("serialize") {
            let s: syn::LitStr = inner.value()?.parse()?;
            out = Some((s.value(), s.span()));
        } else {
            value::skip(&inner)?;
        }
        Ok(())
    })?;
    Ok(out)
}

fn rule(
    meta: &ParseNestedMeta<'_>,
    bad: &mut Option<(String, proc_macro2::Span)>,
) -> syn::Result<Option<RenameRule>> {
    Ok(renamed(meta)?.and_then(|(s, span)| {
        let r = RenameRule::parse(&s);
        if r.is_none() {
            *bad = Some((
                format!(
                    "unknown rename rule `{s}`; expected one of {}",
                    RULE_NAMES
                        .iter()
                        .map(|(n, _)| *n)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                span,
            ));
        }
        r
    }))
}

impl SerdeContainer {
    /// Reads container attributes.
    pub fn from_attrs(attrs: &[syn::Attribute]) -> Self {
        let mut c = SerdeContainer::default();
        for attr in serde_attrs(attrs) {
            let _ = attr.parse_nested_meta(|meta| {
                let name = super::path_name(&meta.path);
                match name.as_str() {
                    "rename_all" => c.rename_all = rule(&meta, &mut c.bad_rule)?,
                    "rename_all_fields" => c.rename_all_fields = rule(&meta, &mut c.bad_rule)?,
                    "tag" => c.tag = Some(meta.value()?.parse::<syn::LitStr>()?.value()),
                    "content" => c.content = Some(meta.value()?.parse::<syn::LitStr>()?.value()),
                    "untagged" => c.untagged = true,
                    "transparent" => c.transparent = true,
                    "default" => {
                        c.default = true;
                        value::skip(&meta)?;
                    }
                    "from" | "into" | "try_from" | "remote" => {
                        c.conversion = Some((name.clone(), meta.path.segments[0].ident.span()));
                        value::skip(&meta)?;
                    }
                    _ => value::skip(&meta)?,
                }
                Ok(())
            });
        }
        c
    }
}

impl SerdeField {
    /// Reads field attributes.
    pub fn from_attrs(attrs: &[syn::Attribute]) -> Self {
        let mut f = SerdeField::default();
        let (mut skip_ser, mut skip_de) = (false, false);
        for attr in serde_attrs(attrs) {
            let _ = attr.parse_nested_meta(|meta| {
                let name = super::path_name(&meta.path);
                match name.as_str() {
                    "rename" => f.rename = renamed(&meta)?.map(|(s, _)| s),
                    "skip" => f.skip = true,
                    "skip_serializing" => skip_ser = true,
                    "skip_deserializing" => skip_de = true,
                    "skip_serializing_if" => {
                        f.skip_serializing_if = true;
                        value::skip(&meta)?;
                    }
                    "default" => {
                        f.default = Some(if meta.input.peek(syn::Token![=]) {
                            SerdeDefault::Function(meta.path.segments[0].ident.span())
                        } else {
                            SerdeDefault::Trait
                        });
                        value::skip(&meta)?;
                    }
                    "flatten" => f.flatten = true,
                    "with" | "serialize_with" | "deserialize_with" => {
                        f.with = Some((name.clone(), meta.path.segments[0].ident.span()));
                        value::skip(&meta)?;
                    }
                    _ => value::skip(&meta)?,
                }
                Ok(())
            });
        }
        if skip_ser && skip_de {
            f.skip = true;
        } else if skip_ser || skip_de {
            f.half_skip = true;
        }
        f
    }
}

impl SerdeVariant {
    /// Reads variant attributes.
    pub fn from_attrs(attrs: &[syn::Attribute]) -> Self {
        let mut v = SerdeVariant::default();
        let mut bad = None;
        for attr in serde_attrs(attrs) {
            let _ = attr.parse_nested_meta(|meta| {
                let name = super::path_name(&meta.path);
                match name.as_str() {
                    "rename" => v.rename = renamed(&meta)?.map(|(s, _)| s),
                    "skip" | "skip_deserializing" => v.skip = true,
                    "rename_all" => v.rename_all = rule(&meta, &mut bad)?,
                    "untagged" => v.untagged = true,
                    "other" => v.other = true,
                    "with" | "serialize_with" | "deserialize_with" => {
                        v.with = Some(meta.path.segments[0].ident.span());
                        value::skip(&meta)?;
                    }
                    _ => value::skip(&meta)?,
                }
                Ok(())
            });
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn container() {
        let item: syn::DeriveInput = syn::parse_quote! {
            #[serde(rename_all = "camelCase", tag = "kind", deny_unknown_fields, bound(serialize = "T: X"))]
            struct A;
        };
        let c = SerdeContainer::from_attrs(&item.attrs);
        assert_eq!(c.rename_all, Some(RenameRule::Camel));
        assert_eq!(c.tag.as_deref(), Some("kind"));
    }

    #[test]
    fn field() {
        let f: syn::Field = syn::parse_quote! {
            #[serde(rename(serialize = "x", deserialize = "y"), default = "d", skip_serializing_if = "Option::is_none")]
            a: u8
        };
        let s = SerdeField::from_attrs(&f.attrs);
        assert_eq!(s.rename.as_deref(), Some("x"));
        assert!(
            matches!(s.default, Some(SerdeDefault::Function(_)))
                && s.skip_serializing_if
                && !s.skip
        );
        let f: syn::Field = syn::parse_quote! { #[serde(default)] a: u8 };
        assert!(matches!(
            SerdeField::from_attrs(&f.attrs).default,
            Some(SerdeDefault::Trait)
        ));
    }
}
