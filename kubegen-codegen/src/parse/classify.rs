//! Rust types → model types: primitives, containers, the k8s-openapi types
//! with a schema of their own (`IntOrString`, `Quantity`, `Time`,
//! `MicroTime`, `ObjectMeta`), and nested types whose schemas are resolved
//! later through a [`Resolver`]: `KubeSchema` types, which include every
//! other k8s-openapi type (its schema is upstream's, see
//! `kubegen_core::builtin`), so the compiler resolves a type through the
//! user's `use`s and aliases; or, for a field marked `#[kubegen(schemars)]`,
//! `schemars::JsonSchema` types.

use quote::ToTokens;

use super::{Resolver, ResolverKind};
use crate::ctxt::Ctxt;
use kubegen_core::model::Ty;

/// The model of a Rust integer type by name (`isize`/`usize` count as 64
/// bits).
fn int_ty(ident: &str) -> Option<Ty> {
    let (bits, signed) = match ident {
        "i8" => (8, true),
        "i16" => (16, true),
        "i32" => (32, true),
        "i64" | "isize" => (64, true),
        "u8" => (8, false),
        "u16" => (16, false),
        "u32" => (32, false),
        "u64" | "usize" => (64, false),
        _ => return None,
    };
    Some(Ty::Int { bits, signed })
}

pub(super) struct Classifier<'a> {
    pub(super) cx: &'a Ctxt,
    pub(super) self_name: String,
    pub(super) resolvers: Vec<Resolver>,
}

fn generic_types(seg: &syn::PathSegment) -> Vec<&syn::Type> {
    match &seg.arguments {
        syn::PathArguments::AngleBracketed(a) => a
            .args
            .iter()
            .filter_map(|g| match g {
                syn::GenericArgument::Type(t) => Some(t),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

impl Classifier<'_> {
    fn resolver(&mut self, ty: &syn::Type, kind: ResolverKind) -> Ty {
        let name = ty.to_token_stream().to_string().replace(' ', "");
        let resolver = match self.resolvers.iter().position(|r| {
            r.kind == kind && r.ty.to_token_stream().to_string().replace(' ', "") == name
        }) {
            Some(i) => i,
            None => {
                self.resolvers.push(Resolver {
                    ty: ty.clone(),
                    kind,
                });
                self.resolvers.len() - 1
            }
        };
        Ty::Named { name, resolver }
    }

    fn one_arg<'t>(&self, seg: &'t syn::PathSegment, ty: &syn::Type) -> Option<&'t syn::Type> {
        let args = generic_types(seg);
        match args.as_slice() {
            [one] => Some(one),
            _ => {
                self.cx
                    .error_spanned_by(ty, format!("expected `{}<T>`", seg.ident));
                None
            }
        }
    }

    pub(super) fn classify(&mut self, ty: &syn::Type, schemars: bool) -> Option<Ty> {
        if schemars {
            return self.classify_schemars(ty);
        }
        match ty {
            syn::Type::Reference(r) => self.classify(&r.elem, false),
            syn::Type::Paren(p) => self.classify(&p.elem, false),
            syn::Type::Group(g) => self.classify(&g.elem, false),
            syn::Type::Slice(s) => Some(Ty::List {
                item: Box::new(self.classify(&s.elem, false)?),
                set: false,
                len: None,
            }),
            syn::Type::Array(a) => {
                let len = match &a.len {
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Int(i),
                        ..
                    }) => i.base10_parse::<u64>().ok(),
                    _ => None,
                };
                Some(Ty::List {
                    item: Box::new(self.classify(&a.elem, false)?),
                    set: false,
                    len,
                })
            }
            syn::Type::Path(p) if p.qself.is_none() => self.classify_path(ty, &p.path),
            syn::Type::Tuple(t) if t.elems.is_empty() => {
                self.cx.error_spanned_by(
                    ty,
                    "`()` serializes as null, which a structural schema cannot describe",
                );
                None
            }
            syn::Type::Tuple(_) => {
                self.cx.error_spanned_by(ty, "tuples serialize as heterogeneous arrays, which a structural schema cannot describe; use a struct");
                None
            }
            _ => {
                self.cx
                    .error_spanned_by(ty, "unsupported type for a Kubernetes schema");
                None
            }
        }
    }

    /// A `#[kubegen(schemars)]` field's type: its schema is the
    /// `JsonSchema` one, but an `Option` around it is still an optional
    /// field (not required, `null` as serde writes `None`), as for any other
    /// field, and references and parentheses are seen through.
    fn classify_schemars(&mut self, ty: &syn::Type) -> Option<Ty> {
        match ty {
            syn::Type::Reference(r) => self.classify_schemars(&r.elem),
            syn::Type::Paren(p) => self.classify_schemars(&p.elem),
            syn::Type::Group(g) => self.classify_schemars(&g.elem),
            syn::Type::Path(p)
                if p.qself.is_none()
                    && p.path.segments.last().is_some_and(|s| s.ident == "Option") =>
            {
                let seg = p.path.segments.last()?;
                let inner = self.one_arg(seg, ty)?;
                Some(Ty::Option(Box::new(self.classify_schemars(inner)?)))
            }
            _ => Some(self.resolver(ty, ResolverKind::Schemars)),
        }
    }

    fn classify_path(&mut self, ty: &syn::Type, path: &syn::Path) -> Option<Ty> {
        let seg = path.segments.last()?;
        let names: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        let ident = seg.ident.to_string();
        let qualified_k8s = names
            .iter()
            .any(|n| n == "k8s_openapi" || n == "apimachinery");
        if let Some(int) = int_ty(&ident) {
            return Some(int);
        }
        match ident.as_str() {
            "bool" => Some(Ty::Bool),
            "i128" | "u128" => {
                self.cx
                    .error_spanned_by(ty, "128-bit integers do not fit the schema's int64 format");
                None
            }
            "f32" => Some(Ty::Float { bits: 32 }),
            "f64" => Some(Ty::Float { bits: 64 }),
            "String" | "str" => Some(Ty::String { char: false }),
            "char" => Some(Ty::String { char: true }),
            "Option" => Some(Ty::Option(Box::new(
                self.classify(self.one_arg(seg, ty)?, false)?,
            ))),
            "Box" | "Arc" | "Rc" => self.classify(self.one_arg(seg, ty)?, false),
            "Cow" => {
                let inner = generic_types(seg).into_iter().next_back()?;
                self.classify(inner, false)
            }
            "Vec" | "VecDeque" | "LinkedList" => Some(Ty::List {
                item: Box::new(self.classify(self.one_arg(seg, ty)?, false)?),
                set: false,
                len: None,
            }),
            "BTreeSet" | "HashSet" | "IndexSet" => {
                let item = generic_types(seg).into_iter().next()?;
                Some(Ty::List {
                    item: Box::new(self.classify(item, false)?),
                    set: true,
                    len: None,
                })
            }
            "BTreeMap" | "HashMap" | "IndexMap" => {
                let args = generic_types(seg);
                let (Some(k), Some(v)) = (args.first(), args.get(1)) else {
                    self.cx
                        .error_spanned_by(ty, format!("expected `{ident}<String, V>`"));
                    return None;
                };
                let Some(key) = self.classify_key(k) else {
                    self.cx.error_spanned_by(
                        k,
                        "map keys must be strings or integers (serde_json writes integer keys as decimal strings): JSON object keys are strings; for a newtype or enum key, describe the map with `#[kubegen(schema_json = r#\"{...}\"#)]` or `#[kubegen(schema_type = \"object\")]`, or key it by the inner `String`",
                    );
                    return None;
                };
                let value = Box::new(self.classify(v, false)?);
                Some(match key {
                    Ty::Int { bits, signed } => Ty::IntKeyMap {
                        bits,
                        signed,
                        value,
                    },
                    _ => Ty::Map(value),
                })
            }
            "Value" | "JsonValue"
                if names.len() == 1 || names.iter().any(|n| n == "serde_json") =>
            {
                Some(Ty::Json)
            }
            "Quantity" => Some(Ty::Quantity),
            "IntOrString" => Some(Ty::IntOrString),
            "Time" | "MicroTime" | "DateTime" | "Timestamp" => Some(Ty::DateTime),
            "Duration" if qualified_k8s => Some(Ty::Duration),
            "ByteString" => Some(Ty::Bytes),
            "ObjectMeta" => Some(Ty::ObjectMeta),
            _ if names.len() == 1 && ident == self.self_name => {
                self.cx.error_spanned_by(ty, "recursive types cannot be described by a structural schema (it has no references); mark the field `#[kubegen(schemaless)]`");
                None
            }
            _ => Some(self.resolver(ty, ResolverKind::KubeSchema)),
        }
    }

    fn classify_key(&self, ty: &syn::Type) -> Option<Ty> {
        match ty {
            syn::Type::Reference(r) => self.classify_key(&r.elem),
            syn::Type::Path(p) => {
                let ident = p.path.segments.last()?.ident.to_string();
                match ident.as_str() {
                    "String" | "str" | "Cow" => Some(Ty::String { char: false }),
                    other => int_ty(other),
                }
            }
            _ => None,
        }
    }
}
