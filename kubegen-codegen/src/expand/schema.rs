//! `impl KubeSchema`: embeds the serialized type model and nested resolvers.

use proc_macro2::TokenStream;
use quote::quote;

use crate::attr::keys;
use crate::parse::{Container, ResolverKind};
use kubegen_core::model::{Field, Repr, Shape, Ty, VariantData};

/// Field names usable as list-map keys: scalar and required or defaulted.
fn key_fields(fields: &[Field]) -> Vec<&str> {
    fields
        .iter()
        .filter(|f| {
            !f.flatten && f.ty.is_scalar() && (f.required || f.constraints.default.is_some())
        })
        .map(|f| f.name.as_str())
        .collect()
}

/// Required or defaulted fields typed by another `KubeSchema` type (their
/// key eligibility depends on that type's `SCALAR`).
fn nested_key_fields<'a>(
    c: &'a Container,
    fields: &'a [Field],
) -> impl Iterator<Item = (&'a str, &'a syn::Type)> + 'a {
    fields.iter().filter_map(move |f| {
        if f.flatten || !(f.required || f.constraints.default.is_some()) {
            return None;
        }
        match &f.ty {
            Ty::Named { resolver, .. }
                if c.resolvers[*resolver].kind == ResolverKind::KubeSchema =>
            {
                Some((f.name.as_str(), &c.resolvers[*resolver].ty))
            }
            _ => None,
        }
    })
}

/// The `impl KubeSchema` for a parsed container.
pub fn impl_kube_schema(input: &syn::DeriveInput, c: &Container) -> TokenStream {
    let krate = super::krate(c);
    let ident = &input.ident;
    let (generics, type_params) = bounded_generics(input, &krate);
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let model_json = c.model.to_json();
    let resolvers = resolver_tokens(c, &krate);
    let FieldConsts {
        fields: fields_const,
        keys: keys_const,
        scalar: scalar_const,
        nested: nested_const,
    } = field_consts(c, &krate);
    let assertions = if type_params.is_empty() {
        let mut a = list_map_key_assertions(c, &krate);
        a.extend(serde_default_assertions(c, &krate));
        a
    } else {
        TokenStream::new()
    };
    let serde_default = has_serde_default(c);
    quote! {
        #[automatically_derived]
        impl #impl_generics #krate::KubeSchema for #ident #ty_generics #where_clause {
            const FIELDS: &'static [&'static str] = #fields_const;
            const KEY_FIELDS: &'static [&'static str] = #keys_const;
            const SCALAR: bool = #scalar_const;
            const NESTED_KEY_FIELDS: &'static [(&'static str, bool)] = #nested_const;
            const SERDE_DEFAULT: bool = #serde_default;
            fn kube_schema() -> ::core::result::Result<
                #krate::__private::serde_json::Value,
                #krate::__private::SchemaError,
            > {
                #krate::__private::schema_from_model(#model_json, &[#(#resolvers),*])
            }
        }
        #assertions
    }
}

/// The type's generics with every type parameter bound by `KubeSchema`,
/// and the type parameters' names.
fn bounded_generics(
    input: &syn::DeriveInput,
    krate: &syn::Path,
) -> (syn::Generics, Vec<syn::Ident>) {
    let mut generics = input.generics.clone();
    let type_params: Vec<syn::Ident> = generics.type_params().map(|p| p.ident.clone()).collect();
    let where_clause = generics.make_where_clause();
    for p in &type_params {
        where_clause
            .predicates
            .push(syn::parse_quote!(#p: #krate::KubeSchema));
    }
    (generics, type_params)
}

/// Each nested type's schema function, by the trait that supplies it.
fn resolver_tokens(c: &Container, krate: &syn::Path) -> Vec<TokenStream> {
    c.resolvers
        .iter()
        .map(|r| {
            let ty = &r.ty;
            match r.kind {
                ResolverKind::KubeSchema => quote! {
                    <#ty as #krate::KubeSchema>::kube_schema as #krate::__private::Resolver
                },
                ResolverKind::Schemars => quote! {
                    #krate::__private::schemars_schema::<#ty> as #krate::__private::Resolver
                },
            }
        })
        .collect()
}

/// The values of `FIELDS`, `KEY_FIELDS`, `SCALAR` and `NESTED_KEY_FIELDS`.
struct FieldConsts {
    fields: TokenStream,
    keys: TokenStream,
    scalar: TokenStream,
    nested: TokenStream,
}

/// What the type tells list-map key checks: its fields, those usable as
/// keys, whether it serializes as a scalar, and the nested types deciding
/// the rest; a transparent `KubeSchema` type passes its inner type's on.
fn field_consts(c: &Container, krate: &syn::Path) -> FieldConsts {
    let none = quote!(&[]);
    let opaque = |scalar: bool| FieldConsts {
        fields: none.clone(),
        keys: none.clone(),
        scalar: quote!(#scalar),
        nested: none.clone(),
    };
    match &c.model.shape {
        Shape::Struct { fields } => {
            let names = fields
                .iter()
                .filter(|f| !f.flatten)
                .map(|f| f.name.as_str());
            let keys = key_fields(fields);
            let nested = nested_key_fields(c, fields)
                .map(|(name, ty)| quote!((#name, <#ty as #krate::KubeSchema>::SCALAR)));
            FieldConsts {
                fields: quote!(&[#(#names),*]),
                keys: quote!(&[#(#keys),*]),
                scalar: quote!(false),
                nested: quote!(&[#(#nested),*]),
            }
        }
        Shape::Enum {
            repr: Repr::Internal { tag } | Repr::Adjacent { tag, .. },
            ..
        } => FieldConsts {
            fields: quote!(&[#tag]),
            keys: quote!(&[#tag]),
            scalar: quote!(false),
            nested: none.clone(),
        },
        Shape::Transparent { field } => match &field.ty {
            Ty::Named { resolver, .. }
                if c.resolvers[*resolver].kind == ResolverKind::KubeSchema =>
            {
                let ty = &c.resolvers[*resolver].ty;
                FieldConsts {
                    fields: quote!(<#ty as #krate::KubeSchema>::FIELDS),
                    keys: quote!(<#ty as #krate::KubeSchema>::KEY_FIELDS),
                    scalar: quote!(<#ty as #krate::KubeSchema>::SCALAR),
                    nested: quote!(<#ty as #krate::KubeSchema>::NESTED_KEY_FIELDS),
                }
            }
            ty => opaque(ty.is_scalar()),
        },
        // Unit-only externally tagged enums serialize as strings.
        Shape::Enum {
            repr: Repr::External,
            variants,
        } => opaque(variants.iter().all(|v| matches!(v.data, VariantData::Unit))),
        Shape::Enum { .. } => opaque(false),
    }
}

/// `SERDE_DEFAULT`: a unit-only externally tagged enum with a `#[default]`
/// variant.
fn has_serde_default(c: &Container) -> bool {
    matches!(
        &c.model.shape,
        Shape::Enum { repr: Repr::External, variants }
            if variants.iter().all(|v| matches!(v.data, VariantData::Unit))
                && variants.iter().any(|v| v.default)
    )
}

/// Compile-time checks that a `#[serde(default)]` field of a nested type can
/// take its schema default from that type.
fn serde_default_assertions(c: &Container, krate: &syn::Path) -> TokenStream {
    let mut out = TokenStream::new();
    for (f, site) in c.model.fields().into_iter().zip(&c.sites) {
        if !f.default_from_type {
            continue;
        }
        let Ty::Named { resolver, name } = f.ty.unwrap_option() else {
            continue;
        };
        let ty = &c.resolvers[*resolver].ty;
        let msg = format!(
            "`#[serde(default)]` takes this field's value from `{name}::default()`, which kubegen knows only for unit enums deriving `KubeSchema` with a `#[default]` variant; add `#[kubegen(default = ...)]` with the same value, or `#[kubegen(no_schema_default)]`"
        );
        out.extend(super::respan(
            quote! {
                const _: () = #krate::__private::assert_serde_default(
                    <#ty as #krate::KubeSchema>::SERDE_DEFAULT,
                    #msg,
                );
            },
            site.span,
        ));
    }
    out
}

/// Compile-time checks that `list_map_keys` name key fields of the item type.
fn list_map_key_assertions(c: &Container, krate: &syn::Path) -> TokenStream {
    let Shape::Struct { fields } = &c.model.shape else {
        return TokenStream::new();
    };
    let mut out = TokenStream::new();
    for (f, spans) in fields.iter().zip(&c.fields) {
        let Ty::List { item, .. } = f.ty.unwrap_option() else {
            continue;
        };
        let Ty::Named { resolver, name } = item.unwrap_option() else {
            continue;
        };
        let r = &c.resolvers[*resolver];
        if r.kind != ResolverKind::KubeSchema {
            continue;
        }
        let ty = &r.ty;
        let span = spans
            .keys
            .get(keys::LIST_MAP_KEYS)
            .copied()
            .unwrap_or(spans.span);
        for key in &f.constraints.list_map_keys {
            let msg = format!(
                "list_map_keys: `{key}` must be a required (or defaulted) scalar field of `{name}`"
            );
            out.extend(super::respan(
                quote! {
                    const _: () = #krate::__private::assert_key(
                        <#ty as #krate::KubeSchema>::KEY_FIELDS,
                        <#ty as #krate::KubeSchema>::NESTED_KEY_FIELDS,
                        #key,
                        #msg,
                    );
                },
                span,
            ));
        }
    }
    out
}
