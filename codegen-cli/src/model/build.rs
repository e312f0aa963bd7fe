//! Building the type model from a `syn::DeriveInput` (the parse phase).

use proc_macro2::Span;
use quote::ToTokens;
use syn::spanned::Spanned;

use super::case::RenameRule;
use super::{Constraints, Field, Repr, Shape, Ty, TypeModel, Variant, VariantData};
use crate::attr::constraints::{Extras, parse_key};
use crate::attr::resource::ResourceAttrs;
use crate::attr::serde_attr::{SerdeContainer, SerdeField, SerdeVariant};
use crate::attr::{self, KeySpans, Scope, keys};
use crate::ctxt::Ctxt;

/// How generated code obtains a nested type's schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResolverKind {
    /// `<T as ::kubegen::KubeSchema>::kube_schema`.
    KubeSchema,
    /// `schemars::JsonSchema`, converted to a structural schema.
    Schemars,
}

/// A nested type whose schema is looked up at schema-evaluation time.
#[derive(Debug, Clone)]
pub struct Resolver {
    /// The type as written.
    pub ty: syn::Type,
    /// Which trait supplies its schema.
    pub kind: ResolverKind,
}

/// Spans of one field, for cross-field diagnostics.
#[derive(Debug, Clone)]
pub struct FieldSpans {
    /// The serialized name.
    pub json_name: String,
    /// The field's own span.
    pub span: Span,
    /// Spans of its kubegen keys.
    pub keys: KeySpans,
}

/// A parsed derive input: the model plus what code generation needs.
pub struct Container {
    /// The serializable model.
    pub model: TypeModel,
    /// Nested types, indexed by `Ty::Named::resolver`.
    pub resolvers: Vec<Resolver>,
    /// Spans of type-level keys.
    pub type_keys: KeySpans,
    /// Spans of the fields of a struct.
    pub fields: Vec<FieldSpans>,
    /// `crate = "..."` override.
    pub crate_path: Option<syn::Path>,
    /// Resource keys when parsed for `CustomResource`.
    pub resource: ResourceAttrs,
}

/// Type names from k8s-openapi whose schemas come from its `schemars` support.
pub const K8S_OPENAPI_TYPES: &[&str] = &[
    "Affinity",
    "Condition",
    "ConfigMapKeySelector",
    "Container",
    "ContainerPort",
    "EnvFromSource",
    "EnvVar",
    "EnvVarSource",
    "LabelSelector",
    "LabelSelectorRequirement",
    "LocalObjectReference",
    "NodeSelector",
    "ObjectReference",
    "OwnerReference",
    "PersistentVolumeClaimSpec",
    "PodSecurityContext",
    "PodSpec",
    "PodTemplateSpec",
    "Probe",
    "ResourceRequirements",
    "SecretKeySelector",
    "SecurityContext",
    "ServicePort",
    "Toleration",
    "TopologySpreadConstraint",
    "TypedLocalObjectReference",
    "Volume",
    "VolumeMount",
];

struct Classifier<'a> {
    cx: &'a Ctxt,
    self_name: String,
    resolvers: Vec<Resolver>,
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
        let resolver = match self
            .resolvers
            .iter()
            .position(|r| r.kind == kind && r.ty == *ty)
        {
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

    fn classify(&mut self, ty: &syn::Type, schemars: bool) -> Option<Ty> {
        if schemars {
            return Some(self.resolver(ty, ResolverKind::Schemars));
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

    fn classify_path(&mut self, ty: &syn::Type, path: &syn::Path) -> Option<Ty> {
        let seg = path.segments.last()?;
        let names: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        let ident = seg.ident.to_string();
        let qualified_k8s = names
            .iter()
            .any(|n| n == "k8s_openapi" || n == "apimachinery");
        let int = |bits: u8, signed: bool| Some(Ty::Int { bits, signed });
        match ident.as_str() {
            "bool" => Some(Ty::Bool),
            "i8" => int(8, true),
            "i16" => int(16, true),
            "i32" => int(32, true),
            "i64" | "isize" => int(64, true),
            "u8" => int(8, false),
            "u16" => int(16, false),
            "u32" => int(32, false),
            "u64" | "usize" => int(64, false),
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
                let key_ok = matches!(self.classify_key(k), Some(Ty::String { .. }));
                if !key_ok {
                    self.cx.error_spanned_by(
                        k,
                        "map keys must be strings: JSON object keys are strings",
                    );
                    return None;
                }
                Some(Ty::Map(Box::new(self.classify(v, false)?)))
            }
            "Value" | "JsonValue"
                if names.len() == 1 || names.iter().any(|n| n == "serde_json") =>
            {
                Some(Ty::Json)
            }
            "Quantity" | "IntOrString" => Some(Ty::IntOrString),
            "Time" | "MicroTime" | "DateTime" | "Timestamp" => Some(Ty::DateTime),
            "Duration" if qualified_k8s => Some(Ty::Duration),
            "ObjectMeta" => Some(Ty::ObjectMeta),
            _ if names.len() == 1 && ident == self.self_name => {
                self.cx.error_spanned_by(ty, "recursive types cannot be described by a structural schema (it has no references); mark the field `#[kubegen(schemaless)]`");
                None
            }
            _ if qualified_k8s || K8S_OPENAPI_TYPES.contains(&ident.as_str()) => {
                Some(self.resolver(ty, ResolverKind::Schemars))
            }
            _ => Some(self.resolver(ty, ResolverKind::KubeSchema)),
        }
    }

    fn classify_key(&self, ty: &syn::Type) -> Option<Ty> {
        match ty {
            syn::Type::Reference(r) => self.classify_key(&r.elem),
            syn::Type::Path(p) => {
                let ident = p.path.segments.last()?.ident.to_string();
                matches!(ident.as_str(), "String" | "str" | "Cow")
                    .then_some(Ty::String { char: false })
            }
            _ => None,
        }
    }
}

fn unraw(ident: &syn::Ident) -> String {
    let s = ident.to_string();
    s.strip_prefix("r#").map(str::to_owned).unwrap_or(s)
}

struct Builder<'a> {
    cx: &'a Ctxt,
    classifier: Classifier<'a>,
    container_default: bool,
}

impl Builder<'_> {
    /// Builds the model of named fields, returning spans too.
    fn fields(
        &mut self,
        fields: &syn::FieldsNamed,
        rename_all: Option<RenameRule>,
    ) -> (Vec<Field>, Vec<FieldSpans>) {
        let mut out = Vec::new();
        let mut spans = Vec::new();
        for field in &fields.named {
            let Some(ident) = &field.ident else { continue };
            let serde = SerdeField::from_attrs(&field.attrs);
            if serde.skip {
                continue;
            }
            let name = serde.rename.clone().unwrap_or_else(|| {
                let raw = unraw(ident);
                rename_all.map_or(raw.clone(), |r| r.apply_to_field(&raw))
            });
            if let Some((f, s)) = self.field(field, &serde, name, ident.span()) {
                out.push(f);
                spans.push(s);
            }
        }
        (out, spans)
    }

    fn field(
        &mut self,
        field: &syn::Field,
        serde: &SerdeField,
        name: String,
        span: Span,
    ) -> Option<(Field, FieldSpans)> {
        let cx = self.cx;
        let mut c = Constraints::default();
        let mut extras = Extras::default();
        let keys = attr::for_each_key(cx, &field.attrs, &[Scope::Field], |key, meta| {
            parse_key(cx, key, meta, &mut c, &mut extras)
        });
        let opaque = c.schemaless || c.preserve_unknown_fields || c.int_or_string;
        if let Some(with_span) = serde.with
            && !opaque
            && !extras.schemars
        {
            cx.error_at(with_span, "`#[serde(with = ...)]` changes the JSON form, so kubegen cannot infer a schema; add `#[kubegen(schemaless)]`, `#[kubegen(int_or_string)]` or `#[kubegen(preserve_unknown_fields)]`");
        }
        let ty = if c.schemaless {
            // The Rust type is irrelevant; only optionality matters.
            match &field.ty {
                syn::Type::Path(p)
                    if p.path.segments.last().is_some_and(|s| s.ident == "Option") =>
                {
                    Ty::Option(Box::new(Ty::Json))
                }
                _ => Ty::Json,
            }
        } else {
            self.classifier.classify(&field.ty, extras.schemars)?
        };
        if extras.required && extras.optional {
            cx.error_at(
                keys.get(keys::REQUIRED).copied().unwrap_or(span),
                "a field cannot be both `required` and `optional`",
            );
        }
        if extras.required && c.default.is_some() {
            cx.error_at(
                keys.get(keys::REQUIRED).copied().unwrap_or(span),
                "a `required` field cannot have a `default`: the apiserver fills defaults before checking `required`",
            );
        }
        if extras.required && (serde.default || serde.skip_serializing_if) {
            cx.error_at(
                keys.get(keys::REQUIRED).copied().unwrap_or(span),
                "a `required` field cannot use `#[serde(default)]` or `skip_serializing_if`: serde would omit or not need it",
            );
        }
        let implied_optional = ty.is_option()
            || serde.default
            || self.container_default
            || serde.skip_serializing_if
            || serde.half_skip
            || serde.flatten
            || c.default.is_some();
        let required = !extras.optional && (extras.required || !implied_optional);
        let description = extras
            .description
            .or_else(|| attr::doc_comment(&field.attrs));
        let model = Field {
            name: name.clone(),
            description,
            ty,
            required,
            flatten: serde.flatten,
            constraints: c,
        };
        crate::check::check_field(cx, &model, &keys, field.ty.span());
        let spans = FieldSpans {
            json_name: name,
            span,
            keys,
        };
        Some((model, spans))
    }

    fn newtype(&mut self, field: &syn::Field) -> Option<Field> {
        let serde = SerdeField::from_attrs(&field.attrs);
        self.field(field, &serde, String::new(), field.span())
            .map(|(f, _)| f)
    }
}

/// Parses a derive input into a [`Container`].
///
/// With `resource`, resource-level keys are accepted on the type as well.
pub fn build(cx: &Ctxt, input: &syn::DeriveInput, resource: bool) -> Option<Container> {
    let serde = SerdeContainer::from_attrs(&input.attrs);
    if let Some((msg, span)) = &serde.bad_rule {
        cx.error_at(*span, msg);
    }
    if let Some((name, span)) = &serde.conversion {
        cx.error_at(*span, format!("`#[serde({name} = ...)]` makes the JSON form another type's; derive the schema on that type instead"));
    }
    let mut type_c = Constraints::default();
    let mut extras = Extras::default();
    let mut res = ResourceAttrs::default();
    let scopes: &[Scope] = if resource {
        &[Scope::Resource, Scope::Type]
    } else {
        &[Scope::Type]
    };
    let type_keys = attr::for_each_key(cx, &input.attrs, scopes, |key, meta| {
        if keys::scopes_of(key).is_some_and(|s| s.contains(&Scope::Resource)) && key != keys::CRATE
        {
            res.parse_key(cx, key, meta)
        } else {
            parse_key(cx, key, meta, &mut type_c, &mut extras)
        }
    });
    let mut b = Builder {
        cx,
        classifier: Classifier {
            cx,
            self_name: input.ident.to_string(),
            resolvers: Vec::new(),
        },
        container_default: serde.default,
    };
    let mut field_spans = Vec::new();
    let shape = match &input.data {
        syn::Data::Struct(s) => match &s.fields {
            syn::Fields::Named(named) => {
                let (fields, spans) = b.fields(named, serde.rename_all);
                field_spans = spans;
                if serde.transparent {
                    if fields.len() != 1 {
                        cx.error_spanned_by(
                            &input.ident,
                            "`#[serde(transparent)]` needs exactly one serialized field",
                        );
                        return None;
                    }
                    let mut field = fields.into_iter().next()?;
                    field.name = String::new();
                    Shape::Transparent {
                        field: Box::new(field),
                    }
                } else {
                    Shape::Struct { fields }
                }
            }
            syn::Fields::Unnamed(unnamed) if unnamed.unnamed.len() == 1 => {
                let field = b.newtype(unnamed.unnamed.first()?)?;
                Shape::Transparent {
                    field: Box::new(field),
                }
            }
            syn::Fields::Unnamed(_) => {
                cx.error_spanned_by(&input.ident, "tuple structs serialize as heterogeneous arrays, which a structural schema cannot describe; use named fields");
                return None;
            }
            syn::Fields::Unit => {
                cx.error_spanned_by(
                    &input.ident,
                    "unit structs serialize as null, which a structural schema cannot describe",
                );
                return None;
            }
        },
        syn::Data::Enum(e) => enum_shape(&mut b, input, e, &serde)?,
        syn::Data::Union(_) => {
            cx.error_spanned_by(&input.ident, "unions are not supported");
            return None;
        }
    };
    let description = extras
        .description
        .clone()
        .or_else(|| attr::doc_comment(&input.attrs));
    let model = TypeModel {
        name: input.ident.to_string(),
        description,
        shape,
        constraints: type_c,
    };
    crate::check::check_type(cx, &model, &type_keys, &input.ident);
    Some(Container {
        model,
        resolvers: b.classifier.resolvers,
        type_keys,
        fields: field_spans,
        crate_path: extras.crate_path,
        resource: res,
    })
}

fn enum_shape(
    b: &mut Builder<'_>,
    input: &syn::DeriveInput,
    e: &syn::DataEnum,
    serde: &SerdeContainer,
) -> Option<Shape> {
    let cx = b.cx;
    let repr = match (&serde.tag, &serde.content, serde.untagged) {
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
    };
    let mut variants = Vec::new();
    for v in &e.variants {
        let sv = SerdeVariant::from_attrs(&v.attrs);
        if sv.skip {
            continue;
        }
        for a in v.attrs.iter().filter(|a| a.path().is_ident(attr::KUBEGEN)) {
            cx.error_spanned_by(a, "kubegen attributes are not supported on enum variants; put them on the variant's fields or on the enum");
        }
        if sv.untagged {
            cx.error_spanned_by(&v.ident, "`#[serde(untagged)]` on a single variant is not supported; use `#[serde(untagged)]` on the enum");
            continue;
        }
        if sv.with.is_some() {
            cx.error_spanned_by(
                &v.ident,
                "`#[serde(with = ...)]` on a variant hides its JSON form from kubegen",
            );
            continue;
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
                continue;
            }
            syn::Fields::Named(named) => {
                let rule = sv.rename_all.or(serde.rename_all_fields);
                VariantData::Struct(b.fields(named, rule).0)
            }
        };
        variants.push(Variant {
            name,
            description: attr::doc_comment(&v.attrs),
            data,
        });
    }
    if variants.is_empty() && !cx.has_errors() {
        cx.error_spanned_by(
            &input.ident,
            "an enum needs at least one (non-skipped) variant to have a schema",
        );
        return None;
    }
    if variants.is_empty() {
        return None;
    }
    let units = variants
        .iter()
        .filter(|v| matches!(v.data, VariantData::Unit))
        .count();
    match &repr {
        Repr::External if units != 0 && units != variants.len() => {
            cx.error_spanned_by(&input.ident, "an externally tagged enum mixing unit and data variants serializes as either a string or an object, which a structural schema cannot describe; use `#[serde(tag = \"...\")]`");
            return None;
        }
        Repr::Untagged if units != 0 => {
            cx.error_spanned_by(&input.ident, "unit variants of an untagged enum serialize as null, which a structural schema cannot describe");
            return None;
        }
        Repr::Internal { .. } => {
            for v in &variants {
                if let VariantData::Newtype(f) = &v.data
                    && !matches!(
                        f.ty.unwrap_option(),
                        Ty::Named { .. } | Ty::Map(_) | Ty::Json | Ty::ObjectMeta
                    )
                {
                    cx.error_spanned_by(&input.ident, format!("variant `{}` of an internally tagged enum holds a {}; serde can only tag objects", v.name, f.ty.json_kind()));
                    return None;
                }
            }
        }
        _ => {}
    }
    Some(Shape::Enum { repr, variants })
}
