//! Schema nodes → Rust types with `#[kubegen(...)]` attributes.
//!
//! Every node of a version's schema sits in a *slot*: a struct field
//! (`…/properties/<name>`), list items (`…/items`) or map values
//! (`…/additionalProperties`). The planner picks the idiomatic Rust type
//! for the node — a struct, a unit enum, `Vec`, `BTreeMap`, a scalar,
//! `IntOrString`, `serde_json::Value` — and turns the node's remaining
//! keywords into attributes at the slot. A slot that cannot carry them
//! (items, map values) gets a newtype whose one field can. A node listed
//! in `explicit` is written as `schema_json` verbatim, as is every node
//! using a keyword kubegen has no attribute for; the verifier
//! (`super::verify`) adds to `explicit` every node whose regenerated
//! schema differs from the original.

use std::collections::{BTreeSet, HashMap};

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use serde_json::{Map, Value};

use super::attrs::{Key, attrs, canonical, doc, literal, number, schema_type, validation};
use super::names::{Namespace, field_ident, type_ident};
use kubegen_core::model::case::RenameRule;
use kubegen_core::vocabulary::{self, Key as VocabularyKey, Syntax, keywords};

/// The types planned for one version of one kind: one Rust module.
#[derive(Default)]
pub struct ModulePlan {
    /// The items, in planning order (spec struct first).
    pub items: Vec<TokenStream>,
    /// Every type name, with the schema pointers of the nodes it stands for.
    pub type_nodes: HashMap<String, Vec<String>>,
    /// `(type, field ident)` → the pointer of the field's node.
    pub field_nodes: HashMap<(String, String), String>,
    names: Option<Namespace>,
    by_key: HashMap<String, String>,
}

/// Which schema nodes a module's types and fields stand for (to blame a
/// node for an error at a line of the rendered module).
#[derive(Default, Debug)]
pub struct Locations {
    /// Every type name, with the schema pointers of the nodes it stands for.
    pub type_nodes: HashMap<String, Vec<String>>,
    /// `(type, field ident)` → the pointer of the field's node.
    pub field_nodes: HashMap<(String, String), String>,
}

/// Where a node sits.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Position {
    Field,
    Items,
    Value,
}

/// A node's Rust type plus what its slot must add.
struct Slot {
    ty: TokenStream,
    keys: Vec<Key>,
    description: Option<String>,
}

/// Keys `items(...)` accepts.
const ITEMS_KEYS: &[&str] = &[
    "schema_type",
    "minimum",
    "maximum",
    "exclusive_minimum",
    "exclusive_maximum",
    "multiple_of",
    "min_length",
    "max_length",
    "pattern",
    "format",
    "enum_values",
    "validation",
    "min_properties",
    "max_properties",
    "schema_json",
];

/// Keys a struct deriving `KubeSchema`/`CustomResource` accepts itself.
const TYPE_KEYS: &[&str] = &[
    "validation",
    "min_properties",
    "max_properties",
    "example_json",
    "title",
    "struct_type",
    "schema_json",
];

/// Derives on every planned type.
fn derives() -> TokenStream {
    quote!(#[derive(::kubegen::KubeSchema, ::serde::Serialize, ::serde::Deserialize, Clone, Debug, PartialEq)])
}

/// The pointer of a child node.
fn child(ptr: &str, segments: &[&str]) -> String {
    let mut out = ptr.to_owned();
    for s in segments {
        out.push('/');
        out.push_str(&s.replace('~', "~0").replace('/', "~1"));
    }
    out
}

/// Plans the types of one kind version.
pub struct Planner<'a> {
    /// Node pointers to write as `schema_json`.
    pub explicit: &'a BTreeSet<String>,
    /// The module being planned.
    pub module: ModulePlan,
}

/// Whether a Rust type (or the slot) or a `#[kubegen]` key accounts for
/// schema keyword `k` (the vocabulary says which); any other keyword makes
/// the node explicit.
fn accounted_for(k: &str) -> bool {
    keywords::keyword(k).is_some_and(|kw| kw.typed) || vocabulary::keys::imported_for(k).is_some()
}

/// The key `key` written with value `v`, by the key's syntax; `None` when
/// the value has no spelling in it.
fn key_tokens(key: &VocabularyKey, v: &Value) -> Option<TokenStream> {
    let ident = format_ident!("{}", key.name);
    Some(match (key.syntax, v) {
        (Syntax::Count, v) => {
            let n = proc_macro2::Literal::u64_unsuffixed(v.as_u64()?);
            quote!(#ident = #n)
        }
        (Syntax::Number, Value::Number(n)) => {
            let n = number(n)?;
            quote!(#ident = #n)
        }
        (Syntax::BoundOrFlag, Value::Bool(b)) => quote!(#ident = #b),
        (Syntax::Flag, Value::Bool(true)) => quote!(#ident),
        (Syntax::Text | Syntax::Choice(_), Value::String(s)) => quote!(#ident = #s),
        (Syntax::Texts, Value::Array(a)) => {
            let ks: Option<Vec<&str>> = a.iter().map(Value::as_str).collect();
            let ks = ks?;
            quote!(#ident = [#(#ks),*])
        }
        (Syntax::JsonText, v) => {
            let j = canonical(v);
            quote!(#ident = #j)
        }
        (Syntax::Literals, Value::Array(values)) => {
            let lits: Vec<TokenStream> = values.iter().map(literal).collect::<Option<_>>()?;
            if lits.is_empty() {
                return None;
            }
            quote!(#ident = [#(#lits),*])
        }
        _ => return None,
    })
}

impl<'a> Planner<'a> {
    /// A planner whose reserved names are `reserved`.
    pub fn new(explicit: &'a BTreeSet<String>, reserved: &[&str]) -> Self {
        let module = ModulePlan {
            names: Some(Namespace::with_reserved(reserved.iter().copied())),
            ..ModulePlan::default()
        };
        Planner { explicit, module }
    }

    fn claim(&mut self, wanted: &str) -> String {
        self.module
            .names
            .get_or_insert_with(Namespace::default)
            .claim(wanted)
    }

    /// Explicit pointers under `ptr`, relative to it (part of a type's
    /// identity: equal nodes planned differently are different types).
    fn explicit_under(&self, ptr: &str) -> Vec<String> {
        let prefix = format!("{ptr}/");
        self.explicit
            .range(prefix.clone()..)
            .take_while(|p| p.starts_with(&prefix))
            .map(|p| p[ptr.len()..].to_owned())
            .collect()
    }

    /// The root struct of a spec or status node: `name` with `extra`
    /// tokens (the resource attribute) before it. Keys the type cannot
    /// hold make the whole node explicit.
    pub fn root(&mut self, node: &Value, ptr: &str, name: &str, extra: TokenStream) {
        let m = node.as_object().cloned().unwrap_or_default();
        let derive = derives_for_root(&extra);
        let explicit = self.explicit.contains(ptr) || !self.is_plain_object(&m);
        self.module
            .type_nodes
            .entry(name.to_owned())
            .or_default()
            .push(ptr.to_owned());
        let ident = format_ident!("{}", name);
        let mut keys = Vec::new();
        let verbatim = explicit || {
            let leftover = self.node_keys(
                &m,
                &mut keys,
                &[
                    "description",
                    "type",
                    "properties",
                    "required",
                    "x-kubernetes-preserve-unknown-fields",
                ],
            );
            // Root keys only a field could hold.
            !leftover.is_empty() || keys.iter().any(|k| !TYPE_KEYS.contains(&k.name))
        };
        if verbatim {
            let json = canonical(node);
            self.module.items.push(quote! {
                #derive
                #extra
                #[kubegen(schema_json = #json)]
                pub struct #ident {
                    #[serde(flatten)]
                    pub fields: ::std::collections::BTreeMap<String, ::serde_json::Value>,
                }
            });
            return;
        }
        let description = m.get("description").and_then(Value::as_str);
        let body = self.fields(name, &m, ptr);
        let docs = doc(description);
        let a = attrs(&keys);
        self.module.items.push(quote! {
            #docs
            #derive
            #extra
            #a
            #[serde(rename_all = "camelCase")]
            pub struct #ident { #body }
        });
    }

    /// An object the struct planner can write: only properties-related
    /// keys besides value keywords, no junctors.
    fn is_plain_object(&self, m: &Map<String, Value>) -> bool {
        m.get("type").and_then(Value::as_str) == Some("object")
            && !m.contains_key("additionalProperties")
            && !m.contains_key("anyOf")
            && !m.contains_key("x-kubernetes-embedded-resource")
    }

    /// The fields of an object node.
    fn fields(&mut self, owner: &str, m: &Map<String, Value>, ptr: &str) -> TokenStream {
        let empty = Map::new();
        let props = m
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let required: BTreeSet<&str> = m
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let mut names = Namespace::default();
        let mut out = Vec::new();
        for (json_name, node) in props {
            let fptr = child(ptr, &["properties", json_name]);
            let slot = self.slot(node, &fptr, Position::Field, owner, json_name);
            let ident_text = names.claim(&field_ident(json_name));
            self.module
                .field_nodes
                .insert((owner.to_owned(), ident_text.clone()), fptr.clone());
            let ident: syn::Ident =
                syn::parse_str(&ident_text).unwrap_or_else(|_| format_ident!("field"));
            let unraw = ident_text.trim_start_matches("r#");
            let mut serde = Vec::new();
            if RenameRule::Camel.apply_to_field(unraw) != *json_name {
                serde.push(quote!(rename = #json_name));
            }
            let is_required = required.contains(json_name.as_str());
            let mut keys = slot.keys;
            let ty = slot.ty;
            let ty = if is_required {
                if node.get("default").is_some() {
                    keys.push(Key {
                        name: "required",
                        tokens: quote!(required),
                    });
                }
                ty
            } else {
                serde.push(quote!(default));
                serde.push(quote!(skip_serializing_if = "Option::is_none"));
                quote!(Option<#ty>)
            };
            let serde = if serde.is_empty() {
                TokenStream::new()
            } else {
                quote!(#[serde(#(#serde),*)])
            };
            let docs = doc(slot.description.as_deref());
            let a = attrs(&keys);
            out.push(quote! {
                #docs
                #a
                #serde
                pub #ident: #ty,
            });
        }
        if m.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true)) {
            let ident = format_ident!("{}", names.claim("other_fields").trim_start_matches("r#"));
            out.push(quote! {
                /// Fields the schema does not list, kept as they are.
                #[serde(flatten)]
                pub #ident: ::std::collections::BTreeMap<String, ::serde_json::Value>,
            });
        }
        quote!(#(#out)*)
    }

    /// Turns the value keywords of `m` into keys; returns the keywords no
    /// attribute covers. `skip` are keywords the caller handles.
    fn node_keys(&self, m: &Map<String, Value>, keys: &mut Vec<Key>, skip: &[&str]) -> Vec<String> {
        let mut leftover = Vec::new();
        for (k, v) in m {
            if skip.contains(&k.as_str()) {
                continue;
            }
            if let ("x-kubernetes-validations", Value::Array(rules)) = (k.as_str(), v) {
                let mut ok = true;
                for r in rules {
                    match validation(r) {
                        Some(t) => keys.push(Key {
                            name: "validation",
                            tokens: t,
                        }),
                        None => ok = false,
                    }
                }
                if !ok {
                    leftover.push(k.clone());
                }
                continue;
            }
            // controller-gen's `structType`: the map type of a struct.
            let writer = if k == "x-kubernetes-map-type" && m.contains_key("properties") {
                vocabulary::keys::find(vocabulary::keys::STRUCT_TYPE)
            } else {
                vocabulary::keys::imported_for(k)
            };
            let key = writer.and_then(|w| Some((w.name, key_tokens(w, v)?)));
            match key {
                Some((name, tokens)) => keys.push(Key { name, tokens }),
                None => leftover.push(k.clone()),
            }
        }
        leftover
    }

    /// Plans the node at `ptr` for a slot at `pos`; `owner`/`name` name
    /// new types. A node some keyword of which no Rust type or key writes
    /// is verbatim; else its `type` picks the Rust type.
    fn slot(&mut self, node: &Value, ptr: &str, pos: Position, owner: &str, name: &str) -> Slot {
        let Some(m) = node.as_object() else {
            return verbatim(node);
        };
        if self.explicit.contains(ptr) || m.keys().any(|k| !accounted_for(k)) {
            return verbatim(node);
        }
        let ty_name = m.get("type").and_then(Value::as_str);
        let preserve = m.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true));
        let int_or_string = m.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true));
        let wanted = format!(
            "{}{}",
            owner.strip_suffix("Spec").unwrap_or(owner),
            type_ident(name)
        );
        match ty_name {
            _ if int_or_string => self.int_or_string_slot(m, ty_name, node),
            _ if m.contains_key("anyOf") => verbatim(node),
            None if preserve && !m.contains_key("properties") && !m.contains_key("items") => self
                .finish(
                    m,
                    quote!(::serde_json::Value),
                    &["x-kubernetes-preserve-unknown-fields"],
                    node,
                ),
            Some("object") => self.object_slot(m, node, ptr, pos, &wanted, preserve),
            Some("array") => self.array_slot(m, node, ptr, owner, name, &wanted),
            Some("string") => match self.string_enum(m, &wanted) {
                Some(e) => {
                    let e = format_ident!("{}", e);
                    self.finish(m, quote!(#e), &["type", "enum"], node)
                }
                None => self.finish(m, quote!(String), &["type"], node),
            },
            Some("boolean") => self.finish(m, quote!(bool), &["type"], node),
            Some("integer") => self.integer_slot(m, node),
            Some("number") => self.number_slot(m, node),
            _ => verbatim(node),
        }
    }

    /// An object node: a map (`BTreeMap` of its values' type), an embedded
    /// resource (`serde_json::Value`), a built-in k8s-openapi type, or a
    /// struct of its own.
    fn object_slot(
        &mut self,
        m: &Map<String, Value>,
        node: &Value,
        ptr: &str,
        pos: Position,
        wanted: &str,
        preserve: bool,
    ) -> Slot {
        if m.contains_key("additionalProperties") {
            let Some(value) = m.get("additionalProperties").filter(|v| v.is_object()) else {
                return verbatim(node);
            };
            if m.contains_key("properties") || preserve {
                return verbatim(node);
            }
            let vptr = child(ptr, &["additionalProperties"]);
            let v = self.slot(value, &vptr, Position::Value, wanted, "value");
            let vt = self.place_value(v, wanted);
            return self.finish(
                m,
                quote!(::std::collections::BTreeMap<String, #vt>),
                &["type", "additionalProperties"],
                node,
            );
        }
        if m.contains_key("x-kubernetes-embedded-resource") {
            if !preserve || m.contains_key("properties") {
                return verbatim(node);
            }
            let handled = [
                "type",
                "x-kubernetes-preserve-unknown-fields",
                "x-kubernetes-embedded-resource",
            ];
            return self.finish(m, quote!(::serde_json::Value), &handled, node);
        }
        if let Some(path) = builtin(m) {
            let path: TokenStream = path.parse().unwrap_or_default();
            let handled: Vec<&str> = m
                .keys()
                .map(String::as_str)
                .filter(|k| *k != "description")
                .collect();
            return self.finish(m, quote!(::kubegen::k8s_openapi::#path), &handled, node);
        }
        self.struct_slot(m, node, ptr, pos, wanted)
    }

    /// An object node with a struct of its own; in items and map values the
    /// description goes on the type, unless the node is verbatim.
    fn struct_slot(
        &mut self,
        m: &Map<String, Value>,
        node: &Value,
        ptr: &str,
        pos: Position,
        wanted: &str,
    ) -> Slot {
        let described = pos != Position::Field;
        let description = m
            .get("description")
            .and_then(Value::as_str)
            .filter(|_| described);
        let t = self.object_type(m, ptr, wanted, description);
        let t = format_ident!("{}", t);
        let mut handled = vec![
            "type",
            "properties",
            "required",
            "x-kubernetes-preserve-unknown-fields",
        ];
        if described {
            handled.push("description");
        }
        let mut slot = self.finish(m, quote!(#t), &handled, node);
        if described && !slot.keys.iter().any(|k| k.name == "schema_json") {
            slot.description = None;
        }
        slot
    }

    /// An array node: `Vec` of its items' type, the items' keys as
    /// `items(...)` unless the node is verbatim.
    fn array_slot(
        &mut self,
        m: &Map<String, Value>,
        node: &Value,
        ptr: &str,
        owner: &str,
        name: &str,
        wanted: &str,
    ) -> Slot {
        let Some(items) = m.get("items").filter(|v| v.is_object()) else {
            return verbatim(node);
        };
        let iptr = child(ptr, &["items"]);
        let item = self.slot(items, &iptr, Position::Items, owner, name);
        let (it, item_keys) = self.place_items(item, wanted);
        let mut slot = self.finish(m, quote!(Vec<#it>), &["type", "items"], node);
        if !slot.keys.iter().any(|k| k.name == "schema_json") {
            slot.keys.extend(item_keys);
        }
        slot
    }

    /// An integer node: `i32`/`i64` by format; without one (Go's `int`),
    /// `i64` with `schema_type` writing the bare type.
    fn integer_slot(&self, m: &Map<String, Value>, node: &Value) -> Slot {
        match m.get("format").and_then(Value::as_str) {
            Some("int32") => self.finish(m, quote!(i32), &["type", "format"], node),
            Some("int64") => self.finish(m, quote!(i64), &["type", "format"], node),
            _ => {
                let mut slot = self.finish(m, quote!(i64), &["type"], node);
                if !slot.keys.iter().any(|k| k.name == "schema_json") {
                    slot.keys.insert(0, schema_type("integer"));
                }
                slot
            }
        }
    }

    /// A number node: `f64`/`f32` by format, `allow_float`; without one,
    /// `f64` with `schema_type` writing the bare type.
    fn number_slot(&self, m: &Map<String, Value>, node: &Value) -> Slot {
        let ty = match m.get("format").and_then(Value::as_str) {
            Some("double") => quote!(f64),
            Some("float") => quote!(f32),
            _ => {
                let mut slot = self.finish(m, quote!(f64), &["type"], node);
                if !slot.keys.iter().any(|k| k.name == "schema_json") {
                    slot.keys.insert(0, schema_type("number"));
                }
                return slot;
            }
        };
        let mut slot = self.finish(m, ty, &["type", "format"], node);
        slot.keys.push(Key {
            name: "allow_float",
            tokens: quote!(allow_float),
        });
        slot
    }

    /// An int-or-string node (`anyOf [integer, string]`, no type):
    /// `IntOrString`.
    fn int_or_string_slot(
        &self,
        m: &Map<String, Value>,
        ty_name: Option<&str>,
        node: &Value,
    ) -> Slot {
        let shape = serde_json::json!([{"type": "integer"}, {"type": "string"}]);
        if m.get("anyOf") != Some(&shape) || ty_name.is_some() {
            return verbatim(node);
        }
        self.finish(
            m,
            quote!(::kubegen::k8s_openapi::apimachinery::pkg::util::intstr::IntOrString),
            &["anyOf", "x-kubernetes-int-or-string"],
            node,
        )
    }

    /// The slot of a node whose Rust type is `ty` (writing `handled`): the
    /// other keywords become keys, or the node is explicit.
    fn finish(
        &self,
        m: &Map<String, Value>,
        ty: TokenStream,
        handled: &[&str],
        node: &Value,
    ) -> Slot {
        let mut skip = handled.to_vec();
        skip.push("description");
        let mut keys = Vec::new();
        let leftover = self.node_keys(m, &mut keys, &skip);
        if !leftover.is_empty() {
            return verbatim(node);
        }
        Slot {
            ty,
            keys,
            description: m
                .get("description")
                .and_then(Value::as_str)
                .map(str::to_owned),
        }
    }

    /// List items: the item type and the `items(...)` key, or a newtype.
    fn place_items(&mut self, item: Slot, wanted: &str) -> (TokenStream, Option<Key>) {
        if item.description.is_none() && item.keys.iter().all(|k| ITEMS_KEYS.contains(&k.name)) {
            if item.keys.is_empty() {
                return (item.ty, None);
            }
            let k = item.keys.iter().map(|k| &k.tokens);
            return (
                item.ty,
                Some(Key {
                    name: "items",
                    tokens: quote!(items(#(#k),*)),
                }),
            );
        }
        let t = self.newtype(item, &format!("{wanted}Item"));
        (quote!(#t), None)
    }

    /// Map values: the value type, or a newtype carrying its keys.
    fn place_value(&mut self, value: Slot, wanted: &str) -> TokenStream {
        if value.description.is_none() && value.keys.is_empty() {
            return value.ty;
        }
        let t = self.newtype(value, &format!("{wanted}Value"));
        quote!(#t)
    }

    /// A newtype whose one field carries the slot's keys.
    fn newtype(&mut self, slot: Slot, wanted: &str) -> syn::Ident {
        let ty = &slot.ty;
        let a = attrs(&slot.keys);
        let docs = doc(slot.description.as_deref());
        let key = format!("newtype:{}|{}|{:?}", ty, a, slot.description);
        if let Some(n) = self.module.by_key.get(&key) {
            return format_ident!("{}", n);
        }
        let n = self.claim(wanted);
        self.module.by_key.insert(key, n.clone());
        let ident = format_ident!("{}", n);
        let derive = derives();
        self.module.items.push(quote! {
            #derive
            pub struct #ident(#docs #a pub #ty);
        });
        ident
    }

    /// A struct for an object node (shared by equal nodes); items and map
    /// values carry their description on the type.
    fn object_type(
        &mut self,
        m: &Map<String, Value>,
        ptr: &str,
        wanted: &str,
        description: Option<&str>,
    ) -> String {
        let mut identity = Map::new();
        for k in [
            "properties",
            "required",
            "x-kubernetes-preserve-unknown-fields",
        ] {
            if let Some(v) = m.get(k) {
                identity.insert(k.to_owned(), v.clone());
            }
        }
        let key = format!(
            "struct:{}|{:?}|{description:?}",
            canonical(&Value::Object(identity)),
            self.explicit_under(ptr)
        );
        if let Some(n) = self.module.by_key.get(&key) {
            let n = n.clone();
            self.module
                .type_nodes
                .entry(n.clone())
                .or_default()
                .push(ptr.to_owned());
            return n;
        }
        let n = self.claim(wanted);
        self.module.by_key.insert(key, n.clone());
        self.module
            .type_nodes
            .entry(n.clone())
            .or_default()
            .push(ptr.to_owned());
        let body = self.fields(&n, m, ptr);
        let ident = format_ident!("{}", n);
        let derive = derives();
        let docs = doc(description);
        self.module.items.push(quote! {
            #docs
            #derive
            #[serde(rename_all = "camelCase")]
            pub struct #ident { #body }
        });
        n
    }

    /// A unit enum for a string node with an `enum` of distinct strings.
    fn string_enum(&mut self, m: &Map<String, Value>, wanted: &str) -> Option<String> {
        let values: Vec<&str> = m
            .get("enum")?
            .as_array()?
            .iter()
            .map(Value::as_str)
            .collect::<Option<_>>()?;
        let distinct: BTreeSet<&str> = values.iter().copied().collect();
        if values.is_empty() || distinct.len() != values.len() {
            return None;
        }
        let key = format!("enum:{values:?}");
        if let Some(n) = self.module.by_key.get(&key) {
            return Some(n.clone());
        }
        let n = self.claim(wanted);
        self.module.by_key.insert(key, n.clone());
        let mut variants = Namespace::default();
        let vs = values.iter().map(|v| {
            let ident = format_ident!(
                "{}",
                variants.claim(&type_ident(v)).trim_start_matches("r#")
            );
            quote!(#[serde(rename = #v)] #ident,)
        });
        let ident = format_ident!("{}", n);
        self.module.items.push(quote! {
            #[derive(::kubegen::KubeSchema, ::serde::Serialize, ::serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
            pub enum #ident { #(#vs)* }
        });
        Some(n)
    }
}

/// A node written verbatim: `serde_json::Value` with `schema_json`.
fn verbatim(node: &Value) -> Slot {
    let json = canonical(node);
    Slot {
        ty: quote!(::serde_json::Value),
        keys: vec![Key {
            name: "schema_json",
            tokens: quote!(schema_json = #json),
        }],
        description: None,
    }
}

fn derives_for_root(extra: &TokenStream) -> TokenStream {
    if extra.is_empty() {
        derives()
    } else {
        quote!(#[derive(::kubegen::CustomResource, ::serde::Serialize, ::serde::Deserialize, Clone, Debug, PartialEq)])
    }
}

/// The k8s-openapi type (path under `k8s_openapi::`) whose schema is
/// exactly `m` (its description aside): `PodTemplateSpec`, `Affinity`, …
/// Only object types with two or more properties are recognised, so a
/// plain string or a one-field object stays what it is.
fn builtin(m: &Map<String, Value>) -> Option<String> {
    static TABLE: std::sync::OnceLock<HashMap<String, String>> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut out = HashMap::new();
        for t in kubegen_core::builtin::types() {
            let Ok(Value::Object(mut s)) = t.schema() else {
                continue;
            };
            let fields = s
                .get("properties")
                .and_then(Value::as_object)
                .map_or(0, Map::len);
            if s.get("type") != Some(&Value::from("object")) || fields < 2 {
                continue;
            }
            s.remove("description");
            out.entry(identity(&s)).or_insert_with(|| t.path());
        }
        out
    });
    if !m.contains_key("properties") {
        return None;
    }
    let mut node = m.clone();
    node.remove("description");
    table.get(&identity(&node)).cloned()
}

fn identity(m: &Map<String, Value>) -> String {
    serde_json::to_string(&kubegen_core::output::canonical(&Value::Object(m.clone())))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_importers_key_sets_are_keys_of_the_vocabulary_in_their_scope() {
        use vocabulary::keys::{Scope, find};
        for (set, scope) in [(ITEMS_KEYS, Scope::Items), (TYPE_KEYS, Scope::Type)] {
            for name in set {
                let key = find(name).unwrap_or_else(|| panic!("`{name}` is not a key"));
                assert!(
                    key.scopes.contains(&scope),
                    "`{name}` is not valid in {scope:?}"
                );
            }
        }
    }

    #[test]
    fn every_keyword_a_key_writes_reads_back_as_that_key() {
        // The inverse of emission: each importable keyword becomes its key.
        let cases = [
            (serde_json::json!({"maxLength": 3}), "max_length = 3"),
            (
                serde_json::json!({"exclusiveMinimum": true}),
                "exclusive_minimum = true",
            ),
            (
                serde_json::json!({"enum": ["a", 1]}),
                "enum_values = [\"a\" , 1]",
            ),
            (
                serde_json::json!({"x-kubernetes-list-map-keys": ["k"]}),
                "list_map_keys = [\"k\"]",
            ),
            (serde_json::json!({"nullable": true}), "nullable"),
        ];
        let explicit = BTreeSet::new();
        let p = Planner::new(&explicit, &[]);
        for (node, want) in cases {
            let mut keys = Vec::new();
            let left = p.node_keys(node.as_object().unwrap(), &mut keys, &[]);
            assert!(left.is_empty(), "{node}: {left:?}");
            assert_eq!(keys[0].tokens.to_string(), want, "{node}");
        }
        let mut keys = Vec::new();
        let struct_map = serde_json::json!({"properties": {}, "x-kubernetes-map-type": "atomic"});
        p.node_keys(struct_map.as_object().unwrap(), &mut keys, &["properties"]);
        assert_eq!(keys[0].name, "struct_type");
        assert!(!accounted_for("uniqueItems") && !accounted_for("externalDocs"));
    }

    #[test]
    fn unknown_keywords_make_a_node_explicit() {
        let explicit = BTreeSet::new();
        let mut p = Planner::new(&explicit, &["W", "WSpec"]);
        let node = serde_json::json!({"type": "string", "x-kubernetes-unions": []});
        let slot = p.slot(&node, "/properties/x", Position::Field, "WSpec", "x");
        assert_eq!(slot.keys.len(), 1);
        assert_eq!(slot.keys[0].name, "schema_json");
        let node = serde_json::json!({"type": "string", "minLength": 1});
        let slot = p.slot(&node, "/properties/y", Position::Field, "WSpec", "y");
        assert_eq!(slot.ty.to_string(), "String");
        assert_eq!(slot.keys[0].tokens.to_string(), "min_length = 1");
    }

    #[test]
    fn built_in_schemas_become_k8s_openapi_types() {
        let explicit = BTreeSet::new();
        let mut p = Planner::new(&explicit, &["W", "WSpec"]);
        let mut node = kubegen_core::builtin::by_path("api::core::v1::PodTemplateSpec")
            .unwrap()
            .schema()
            .unwrap();
        node["description"] = "The pods to run.".into();
        let slot = p.slot(
            &node,
            "/properties/template",
            Position::Field,
            "WSpec",
            "template",
        );
        assert_eq!(
            slot.ty.to_string().replace(' ', ""),
            "::kubegen::k8s_openapi::api::core::v1::PodTemplateSpec"
        );
        assert_eq!(slot.description.as_deref(), Some("The pods to run."));
        assert!(p.module.items.is_empty());
    }

    #[test]
    fn equal_objects_share_one_type() {
        let explicit = BTreeSet::new();
        let mut p = Planner::new(&explicit, &["W", "WSpec"]);
        let node =
            serde_json::json!({"type": "object", "properties": {"name": {"type": "string"}}});
        let a = p.slot(&node, "/properties/a", Position::Field, "WSpec", "a");
        let b = p.slot(&node, "/properties/b", Position::Field, "WSpec", "b");
        assert_eq!(a.ty.to_string(), b.ty.to_string());
        assert_eq!(p.module.items.len(), 1);
    }
}
