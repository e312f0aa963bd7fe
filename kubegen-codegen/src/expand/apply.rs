//! `#[kubegen(apply)]`: a type's apply configuration derived from its Rust
//! fields, for crates that do not run `kubegen generate` (which writes
//! apply configurations from the CRD's schema instead, with built-in types
//! field by field).
//!
//! A struct `Foo` gets `FooApply`: each serialized field an `Option` of the
//! field type's `kubegen::apply::Applicable` apply
//! configuration under the same JSON name (a flattened field flattened),
//! with `with_<field>` builders (lists append, maps insert, as the
//! generated ones do), and `impl Applicable for Foo`. Enums, newtypes and
//! types whose schema a key replaces are applied whole. A resource gets
//! `<Kind>Apply` as well: `apiVersion`, `kind`, `metadata`
//! (`ObjectMetaApply`), the spec's and status's apply configurations, and
//! the root items every generated root has (`new`, `extract`,
//! `extract_status`, the metadata builders, `ApplyConfiguration`), written
//! by the same code as `kubegen generate`'s.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};

use crate::apply_root::{METADATA_BUILDERS, SchemaSource, Top, path_text, root};
use crate::parse::{Container, FieldSpans, ResolverKind};
use kubegen_core::model::{Field, ResourceModel, Shape, Ty};

/// `impl Applicable` for the input, with `<Type>Apply` for a struct;
/// nothing without `apply`.
pub fn impl_applicable(input: &syn::DeriveInput, c: &Container) -> TokenStream {
    if c.apply.is_none() {
        return TokenStream::new();
    }
    if let Some(error) = refuse_generics(input) {
        return error;
    }
    let krate = super::krate(c);
    let ident = &input.ident;
    let fields = match &c.model.shape {
        Shape::Struct { fields } if !c.model.constraints.overrides_schema() => fields,
        _ => {
            return quote! {
                impl #krate::apply::Applicable for #ident {
                    type Apply = #ident;
                }
            };
        }
    };
    let apply_ident = format_ident!("{ident}Apply");
    let vis = &input.vis;
    let doc = format!(
        " The apply configuration of [`{ident}`]: every field optional, serialized with exactly the fields set (derived by `#[kubegen(apply)]`)."
    );
    let parts: Vec<_> = fields
        .iter()
        .zip(&c.fields)
        .map(|(f, s)| field_part(f, s, c, vis))
        .collect();
    let decls = parts.iter().map(|p| &p.decl);
    let builders = parts.iter().map(|p| &p.builder);
    let derives = derives();
    quote! {
        #[doc = #doc]
        #derives
        #vis struct #apply_ident {
            #(#decls)*
        }
        impl #apply_ident {
            #(#builders)*
        }
        impl #krate::apply::Applicable for #ident {
            type Apply = #apply_ident;
        }
    }
}

/// `<Kind>Apply` for a resource with `apply`; nothing without.
pub fn root_apply(input: &syn::DeriveInput, c: &Container, res: &ResourceModel) -> TokenStream {
    if c.apply.is_none() || !input.generics.params.is_empty() {
        return TokenStream::new();
    }
    let krate = super::krate(c);
    let kind = crate::names::kind_type(&res.kind);
    let name = format!("{kind}Apply");
    let apply_ident = format_ident!("{name}");
    let vis = &input.vis;
    let spec = &input.ident;
    let spec_apply = quote!(<#spec as #krate::apply::Applicable>::Apply);
    let (spec_field, spec_set) = if res.flatten_spec {
        (
            quote! {
                /// The object's own fields (at the top level, next to `metadata`).
                #[serde(flatten)]
                #vis spec: #spec_apply,
            },
            quote!(self.spec = value;),
        )
    } else {
        (
            quote! {
                /// The desired state.
                #[serde(skip_serializing_if = "::std::option::Option::is_none")]
                #vis spec: ::std::option::Option<#spec_apply>,
            },
            quote!(self.spec = ::std::option::Option::Some(value);),
        )
    };
    let status = c.resource.status.as_ref().map(|s| {
        let status_apply = quote!(<#s as #krate::apply::Applicable>::Apply);
        (
            quote! {
                /// The observed state (applied through the status subresource).
                #[serde(skip_serializing_if = "::std::option::Option::is_none")]
                #vis status: ::std::option::Option<#status_apply>,
            },
            quote! {
                /// Sets `status`.
                #vis fn with_status(mut self, value: #status_apply) -> Self {
                    self.status = ::std::option::Option::Some(value);
                    self
                }
            },
        )
    });
    let (status_field, status_builder) = status.unzip();
    let api_version = crate::names::api_version(&res.group, &res.version);
    let top = Top {
        kind: res.kind.clone(),
        api_version: api_version.clone(),
        namespaced: res.namespaced,
        status: res.has_status,
        resource: kind.clone(),
        schema: SchemaSource::Crd {
            version: res.version.clone(),
        },
    };
    let items: TokenStream = root(&path_text(&krate), &name, &METADATA_BUILDERS, &top)
        .parse()
        .expect("apply_root! invocations are valid tokens");
    let doc = format!(
        " The apply configuration of [`{kind}`] (`{api_version}`): every field optional, serialized with exactly the fields set (derived by `#[kubegen(apply)]`)."
    );
    let derives = derives();
    quote! {
        #[doc = #doc]
        #derives
        #vis struct #apply_ident {
            /// `apiVersion`.
            #[serde(rename = "apiVersion", skip_serializing_if = "::std::option::Option::is_none")]
            #vis api_version: ::std::option::Option<::std::string::String>,
            /// `kind`.
            #[serde(skip_serializing_if = "::std::option::Option::is_none")]
            #vis kind: ::std::option::Option<::std::string::String>,
            /// Standard object metadata.
            #[serde(skip_serializing_if = "::std::option::Option::is_none")]
            #vis metadata: ::std::option::Option<#krate::apply::ObjectMetaApply>,
            #spec_field
            #status_field
        }
        impl #apply_ident {
            /// Sets `metadata`.
            #vis fn with_metadata(mut self, value: #krate::apply::ObjectMetaApply) -> Self {
                self.metadata = ::std::option::Option::Some(value);
                self
            }
            /// Sets the spec.
            #vis fn with_spec(mut self, value: #spec_apply) -> Self {
                #spec_set
                self
            }
            #status_builder
        }
        #items
    }
}

/// The derives and serde attributes of every apply configuration struct
/// (as `apply_structs!` gives the generated ones): deserialized with every
/// field optional (`default`).
fn derives() -> TokenStream {
    quote! {
        #[derive(Clone, Debug, Default, PartialEq, ::kubegen::__private::serde::Serialize, ::kubegen::__private::serde::Deserialize)]
        #[serde(crate = "::kubegen::__private::serde", default)]
    }
}

/// A compile error when the input has generic parameters: the apply
/// configuration would need bounds the derive cannot choose.
fn refuse_generics(input: &syn::DeriveInput) -> Option<TokenStream> {
    if input.generics.params.is_empty() {
        return None;
    }
    Some(syn::Error::new_spanned(
        &input.generics,
        "`apply` is not derived for generic types: remove `apply`, or implement `kubegen::apply::Applicable` for the type by hand",
    ).to_compile_error())
}

/// One field's declaration and builder.
struct FieldPart {
    decl: TokenStream,
    builder: TokenStream,
}

fn field_part(f: &Field, s: &FieldSpans, c: &Container, vis: &syn::Visibility) -> FieldPart {
    let krate = super::krate(c);
    let Some(ident) = &s.ident else {
        return FieldPart {
            decl: TokenStream::new(),
            builder: TokenStream::new(),
        };
    };
    let base = crate::parse::unraw(ident);
    let method = format_ident!("with_{base}");
    let json = &f.name;
    let rust = &s.ty;
    // Fields whose values hold no derived type are applied as they are
    // written (without `Option`): the same types `Applicable` would give,
    // and the only ones for a type a key's schema replaces, one with its
    // schema from schemars, or a time type of another crate.
    let derived = holds_derived(&f.ty, c) && !f.constraints.overrides_schema();
    // Spanned at the field's type, so that a type without an apply
    // configuration is reported there.
    let apply_ty = if derived {
        quote_spanned!(s.ty_span=> <#rust as #krate::apply::Applicable>::Apply)
    } else {
        let plain = without_option(rust);
        quote!(#plain)
    };
    let doc = f
        .description
        .as_deref()
        .map(|d| d.lines().map(|l| format!(" {l}")).collect::<Vec<_>>())
        .unwrap_or_else(|| vec![format!(" `{json}`")]);
    if f.flatten {
        return FieldPart {
            decl: quote! {
                #(#[doc = #doc])*
                #[serde(flatten)]
                #vis #ident: #apply_ty,
            },
            builder: quote! {
                /// Sets the flattened fields.
                #vis fn #method(mut self, value: #apply_ty) -> Self {
                    self.#ident = value;
                    self
                }
            },
        };
    }
    let collection = matches!(
        f.ty.unwrap_option(),
        Ty::List { .. } | Ty::Map(_) | Ty::IntKeyMap { .. }
    );
    let builder = if collection && !f.constraints.overrides_schema() {
        let what = if matches!(f.ty.unwrap_option(), Ty::List { .. }) {
            format!(" Appends to `{json}`.")
        } else {
            format!(" Adds entries to `{json}` (a key given again replaces the value).")
        };
        quote! {
            #[doc = #what]
            #vis fn #method(mut self, values: impl ::std::iter::IntoIterator<Item = <#apply_ty as ::std::iter::IntoIterator>::Item>) -> Self {
                ::std::iter::Extend::extend(self.#ident.get_or_insert_with(::std::default::Default::default), values);
                self
            }
        }
    } else {
        let what = format!(" Sets `{json}`.");
        quote! {
            #[doc = #what]
            #vis fn #method(mut self, value: impl ::std::convert::Into<#apply_ty>) -> Self {
                self.#ident = ::std::option::Option::Some(value.into());
                self
            }
        }
    };
    let field_ty = quote_spanned!(s.ty_span=> ::std::option::Option<#apply_ty>);
    FieldPart {
        decl: quote! {
            #(#[doc = #doc])*
            #[serde(rename = #json, skip_serializing_if = "::std::option::Option::is_none")]
            #vis #ident: #field_ty,
        },
        builder,
    }
}

/// Whether a value of `ty` holds a type whose schema (and so apply
/// configuration) comes from its `KubeSchema` impl.
fn holds_derived(ty: &Ty, c: &Container) -> bool {
    match ty {
        Ty::Named { resolver, .. } => c
            .resolvers
            .get(*resolver)
            .is_some_and(|r| r.kind == ResolverKind::KubeSchema),
        Ty::Option(inner) | Ty::Map(inner) => holds_derived(inner, c),
        Ty::List { item, .. } => holds_derived(item, c),
        Ty::IntKeyMap { value, .. } => holds_derived(value, c),
        _ => false,
    }
}

/// `ty` without the `Option`s around it.
fn without_option(ty: &syn::Type) -> &syn::Type {
    if let syn::Type::Path(p) = ty
        && p.qself.is_none()
        && let Some(last) = p.path.segments.last()
        && last.ident == "Option"
        && let syn::PathArguments::AngleBracketed(args) = &last.arguments
        && let Some(syn::GenericArgument::Type(inner)) = args.args.first()
    {
        return without_option(inner);
    }
    ty
}
