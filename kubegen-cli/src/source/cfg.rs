//! `#[cfg]` and `#[cfg_attr]` evaluated as rustc evaluates them before a
//! derive macro sees its input, for the crate's enabled features and the
//! host target — so the CLI reads the same structs the derive does.
//!
//! What can be decided: `feature = "…"`, the host's `unix`, `windows`,
//! `target_os`, `target_family`, `target_arch`, `target_pointer_width`,
//! `target_endian`, `target_env`, `target_vendor`; `test`, `doc`, `doctest`
//! and `miri` are false (generated output is for normal builds); `all`,
//! `any`, `not`. Anything else (`debug_assertions`, `panic`, custom cfgs)
//! is undecidable: an error where it changes what kubegen reads, ignored
//! where it cannot.

use std::collections::BTreeSet;

use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Attribute, Meta, Token};

/// The configuration a crate is read for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cfg {
    features: BTreeSet<String>,
}

/// Attribute names whose presence inside a `cfg_attr` matters to kubegen.
const RELEVANT: &[&str] = &[
    "kubegen", "serde", "derive", "rbac", "path", "schemars", "cfg",
];

impl Cfg {
    /// A configuration with these features enabled.
    pub fn new(features: BTreeSet<String>) -> Cfg {
        Cfg { features }
    }

    /// The enabled features.
    pub fn features(&self) -> &BTreeSet<String> {
        &self.features
    }

    /// Evaluates one predicate, or says why it cannot.
    pub fn eval(&self, pred: &Meta) -> Result<bool, CfgError> {
        match pred {
            Meta::Path(path) => {
                let name = ident(path)?;
                match name.as_str() {
                    "unix" => Ok(cfg!(unix)),
                    "windows" => Ok(cfg!(windows)),
                    "test" | "doc" | "doctest" | "miri" => Ok(false),
                    _ => Err(undecidable(pred)),
                }
            }
            Meta::NameValue(nv) => {
                let name = ident(&nv.path)?;
                let value = match &nv.value {
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Str(s),
                        ..
                    }) => s.value(),
                    other => {
                        return Err(CfgError::Malformed(syn::Error::new(
                            other.span(),
                            "a cfg value must be a string literal",
                        )));
                    }
                };
                match name.as_str() {
                    "feature" => Ok(self.features.contains(&value)),
                    _ => host(&name)
                        .map(|host| host == value)
                        .ok_or_else(|| undecidable(pred)),
                }
            }
            Meta::List(list) => {
                let name = ident(&list.path)?;
                let args = list
                    .parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
                    .map_err(CfgError::Malformed)?;
                match name.as_str() {
                    "all" => {
                        for arg in &args {
                            if !self.eval(arg)? {
                                return Ok(false);
                            }
                        }
                        Ok(true)
                    }
                    "any" => {
                        for arg in &args {
                            if self.eval(arg)? {
                                return Ok(true);
                            }
                        }
                        Ok(false)
                    }
                    "not" if args.len() == 1 => Ok(!self.eval(&args[0])?),
                    _ => Err(CfgError::Malformed(syn::Error::new(
                        list.span(),
                        format!("`{name}(...)` is not a cfg predicate"),
                    ))),
                }
            }
        }
    }

    /// Whether the `#[cfg(...)]` attributes allow the item.
    fn enabled(&self, attrs: &[Attribute]) -> Result<bool, CfgError> {
        for attr in attrs.iter().filter(|a| a.path().is_ident("cfg")) {
            let pred: Meta = attr.parse_args().map_err(CfgError::Malformed)?;
            if !self.eval(&pred)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Replaces every `#[cfg_attr(pred, attrs…)]` by its attributes when
    /// `pred` holds and drops it otherwise. An undecidable predicate is an
    /// error when the attributes matter to kubegen, and dropped when not.
    fn expand(&self, attrs: &mut Vec<Attribute>, errors: &mut Vec<syn::Error>) {
        let mut out = Vec::with_capacity(attrs.len());
        for attr in attrs.drain(..) {
            if !attr.path().is_ident("cfg_attr") {
                out.push(attr);
                continue;
            }
            let parsed = attr.parse_args_with(|input: syn::parse::ParseStream<'_>| {
                let pred: Meta = input.parse()?;
                input.parse::<Token![,]>()?;
                let metas = Punctuated::<Meta, Token![,]>::parse_terminated(input)?;
                Ok((pred, metas))
            });
            let (pred, metas) = match parsed {
                Ok(p) => p,
                Err(e) => {
                    errors.push(e);
                    continue;
                }
            };
            let mut expanded: Vec<Attribute> = metas
                .into_iter()
                .map(|meta| Attribute {
                    pound_token: attr.pound_token,
                    style: attr.style,
                    bracket_token: attr.bracket_token,
                    meta,
                })
                .collect();
            match self.eval(&pred) {
                Ok(true) => {
                    self.expand(&mut expanded, errors);
                    out.extend(expanded);
                }
                Ok(false) => {}
                Err(CfgError::Undecidable(e)) => {
                    if expanded.iter().any(matters) {
                        errors.push(e);
                    }
                }
                Err(CfgError::Malformed(e)) => errors.push(e),
            }
        }
        *attrs = out;
    }

    /// Applies the configuration to a parsed file: items, fields and
    /// variants that are configured out are removed and `cfg_attr`s
    /// expanded. Returns the errors for undecidable predicates on what
    /// kubegen reads (annotated types, their fields and variants,
    /// `#[rbac]` functions) and the undecidable ones guarding modules,
    /// which the loader reports only if the module holds kubegen input.
    pub fn apply(&self, items: &mut Vec<syn::Item>) -> Applied {
        let mut applied = Applied::default();
        self.items(items, &mut applied);
        applied
    }

    fn items(&self, items: &mut Vec<syn::Item>, applied: &mut Applied) {
        let mut kept = Vec::with_capacity(items.len());
        for mut item in items.drain(..) {
            let Some(attrs) = item_attrs(&mut item) else {
                kept.push(item);
                continue;
            };
            self.expand(attrs, &mut applied.errors);
            let relevant = is_input(attrs);
            match self.enabled(attrs) {
                Err(CfgError::Malformed(e)) => {
                    applied.errors.push(e);
                    continue;
                }
                Ok(false) => continue,
                Ok(true) => attrs.retain(|a| !a.path().is_ident("cfg")),
                Err(CfgError::Undecidable(undecided)) => match &item {
                    syn::Item::Mod(m) => {
                        applied
                            .uncertain_mods
                            .push((m.ident.to_string(), undecided));
                    }
                    _ if relevant => applied.errors.push(undecided),
                    _ => {}
                },
            }
            match &mut item {
                syn::Item::Struct(s) if relevant => self.fields(&mut s.fields, &mut applied.errors),
                syn::Item::Enum(e) if relevant => {
                    let mut variants = Punctuated::new();
                    for mut v in std::mem::take(&mut e.variants) {
                        self.expand(&mut v.attrs, &mut applied.errors);
                        if self.keep(&mut v.attrs, &mut applied.errors) {
                            self.fields(&mut v.fields, &mut applied.errors);
                            variants.push(v);
                        }
                    }
                    e.variants = variants;
                }
                syn::Item::Impl(i) => {
                    let mut kept_items = Vec::new();
                    for mut inner in std::mem::take(&mut i.items) {
                        if let syn::ImplItem::Fn(f) = &mut inner {
                            self.expand(&mut f.attrs, &mut applied.errors);
                            if !self.keep(&mut f.attrs, &mut applied.errors) {
                                continue;
                            }
                        }
                        kept_items.push(inner);
                    }
                    i.items = kept_items;
                }
                syn::Item::Mod(m) => {
                    if let Some((_, inner)) = &mut m.content {
                        let mut nested = Applied::default();
                        self.items(inner, &mut nested);
                        applied.errors.extend(nested.errors);
                        for (name, e) in nested.uncertain_mods {
                            applied
                                .uncertain_mods
                                .push((format!("{}::{name}", m.ident), e));
                        }
                    }
                }
                _ => {}
            }
            kept.push(item);
        }
        *items = kept;
    }

    /// Whether something kubegen reads is configured in (its `cfg`
    /// attributes then removed, as rustc does); undecidable is an error.
    fn keep(&self, attrs: &mut Vec<Attribute>, errors: &mut Vec<syn::Error>) -> bool {
        match self.enabled(attrs) {
            Ok(keep) => {
                attrs.retain(|a| !a.path().is_ident("cfg"));
                keep
            }
            Err(CfgError::Undecidable(e) | CfgError::Malformed(e)) => {
                errors.push(e);
                false
            }
        }
    }

    fn fields(&self, fields: &mut syn::Fields, errors: &mut Vec<syn::Error>) {
        let list = match fields {
            syn::Fields::Named(named) => &mut named.named,
            syn::Fields::Unnamed(unnamed) => &mut unnamed.unnamed,
            syn::Fields::Unit => return,
        };
        let mut kept = Punctuated::new();
        for mut field in std::mem::take(list) {
            self.expand(&mut field.attrs, errors);
            if self.keep(&mut field.attrs, errors) {
                kept.push(field);
            }
        }
        *list = kept;
    }
}

/// What applying a configuration to a file found.
#[derive(Default)]
pub struct Applied {
    /// Undecidable predicates on what kubegen reads, and malformed ones.
    pub errors: Vec<syn::Error>,
    /// `mod` items (by path within the file) whose cfg is undecidable.
    pub uncertain_mods: Vec<(String, syn::Error)>,
}

/// The attributes of the items the pass looks at.
fn item_attrs(item: &mut syn::Item) -> Option<&mut Vec<Attribute>> {
    match item {
        syn::Item::Struct(i) => Some(&mut i.attrs),
        syn::Item::Enum(i) => Some(&mut i.attrs),
        syn::Item::Mod(i) => Some(&mut i.attrs),
        syn::Item::Fn(i) => Some(&mut i.attrs),
        syn::Item::Impl(i) => Some(&mut i.attrs),
        syn::Item::Const(i) => Some(&mut i.attrs),
        syn::Item::Static(i) => Some(&mut i.attrs),
        syn::Item::Type(i) => Some(&mut i.attrs),
        syn::Item::Use(i) => Some(&mut i.attrs),
        _ => None,
    }
}

/// Whether the attributes make the item kubegen input: a kubegen derive,
/// or an `#[rbac]` attribute.
fn is_input(attrs: &[Attribute]) -> bool {
    kubegen_codegen::attr::derive_kind(attrs).is_some()
        || attrs
            .iter()
            .any(|a| a.path().segments.last().is_some_and(|s| s.ident == "rbac"))
}

fn matters(attr: &Attribute) -> bool {
    let path = attr.path();
    RELEVANT.iter().any(|name| path.is_ident(name))
        || path.segments.last().is_some_and(|s| s.ident == "rbac")
        || (path.is_ident("doc") && matches!(attr.meta, Meta::NameValue(_)))
}

/// Why a predicate has no value.
#[derive(Debug)]
pub enum CfgError {
    /// Valid, but not decidable without compiling (`debug_assertions`, a
    /// custom cfg): an error only where it changes kubegen input.
    Undecidable(syn::Error),
    /// Not a cfg predicate: always an error.
    Malformed(syn::Error),
}

fn ident(path: &syn::Path) -> Result<String, CfgError> {
    path.get_ident().map(ToString::to_string).ok_or_else(|| {
        CfgError::Malformed(syn::Error::new(
            path.span(),
            "a cfg name must be a single identifier",
        ))
    })
}

fn undecidable(pred: &Meta) -> CfgError {
    let text = quote::ToTokens::to_token_stream(pred)
        .to_string()
        .replace(" = ", "=")
        .replace(" (", "(");
    CfgError::Undecidable(syn::Error::new(
        pred.span(),
        format!(
            "kubegen cannot decide `cfg({text})` without compiling: it evaluates features (`--features`, \
             `--no-default-features`, `--all-features`) and host target cfgs only; gate kubegen \
             types and their fields with a feature instead"
        ),
    ))
}

/// The host's value of a target cfg that has one.
fn host(name: &str) -> Option<String> {
    let value = match name {
        "target_os" => std::env::consts::OS,
        "target_family" => std::env::consts::FAMILY,
        "target_arch" => std::env::consts::ARCH,
        "target_pointer_width" => {
            if cfg!(target_pointer_width = "64") {
                "64"
            } else if cfg!(target_pointer_width = "32") {
                "32"
            } else {
                "16"
            }
        }
        "target_endian" => {
            if cfg!(target_endian = "little") {
                "little"
            } else {
                "big"
            }
        }
        "target_env" => {
            if cfg!(target_env = "gnu") {
                "gnu"
            } else if cfg!(target_env = "musl") {
                "musl"
            } else if cfg!(target_env = "msvc") {
                "msvc"
            } else {
                ""
            }
        }
        "target_vendor" => {
            if cfg!(target_vendor = "apple") {
                "apple"
            } else if cfg!(target_vendor = "pc") {
                "pc"
            } else {
                "unknown"
            }
        }
        _ => return None,
    };
    Some(value.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(features: &[&str]) -> Cfg {
        Cfg::new(features.iter().map(|f| f.to_string()).collect())
    }

    fn eval(c: &Cfg, pred: &str) -> Result<bool, CfgError> {
        c.eval(&syn::parse_str(pred).unwrap())
    }

    #[test]
    fn predicates() {
        let c = cfg(&["a"]);
        for (pred, want) in [
            ("feature = \"a\"", true),
            ("feature = \"b\"", false),
            ("all()", true),
            ("any()", false),
            ("not(any())", true),
            ("all(feature = \"a\", not(feature = \"b\"))", true),
            ("any(feature = \"b\", unix)", cfg!(unix)),
            ("test", false),
            ("doc", false),
            ("target_os = \"linux\"", cfg!(target_os = "linux")),
            (
                "target_pointer_width = \"64\"",
                cfg!(target_pointer_width = "64"),
            ),
            // Short-circuits like rustc: the undecidable part is not needed.
            ("any(all(), debug_assertions)", true),
        ] {
            assert_eq!(eval(&c, pred).unwrap(), want, "{pred}");
        }
        for pred in [
            "debug_assertions",
            "tokio_unstable",
            "panic = \"abort\"",
            "all(all(), debug_assertions)",
        ] {
            let e = eval(&c, pred).unwrap_err();
            assert!(matches!(e, CfgError::Undecidable(_)), "{pred}: {e:?}");
        }
    }

    #[test]
    fn fields_variants_and_cfg_attr_follow_the_configuration() {
        let mut file: syn::File = syn::parse_quote! {
            #[derive(KubeSchema)]
            struct S {
                #[cfg(feature = "a")] on: u8,
                #[cfg(feature = "b")] off: u8,
                #[cfg_attr(feature = "a", kubegen(minimum = 1))]
                #[cfg_attr(feature = "b", kubegen(maximum = 1))]
                #[cfg_attr(docsrs, doc(cfg(feature = "x")))]
                n: u8,
            }
            #[cfg_attr(feature = "a", derive(KubeSchema))]
            enum E { #[cfg(any())] Gone, Here }
            #[cfg(feature = "b")]
            #[derive(KubeSchema)]
            struct Off;
            #[cfg(debug_assertions)]
            struct NotInput;
            #[cfg(debug_assertions)]
            mod maybe;
        };
        let applied = cfg(&["a"]).apply(&mut file.items);
        assert!(
            applied.errors.is_empty(),
            "{:?}",
            applied
                .errors
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
        );
        assert_eq!(applied.uncertain_mods.len(), 1);
        let expected: syn::File = syn::parse_quote! {
            #[derive(KubeSchema)]
            struct S {
                on: u8,
                #[kubegen(minimum = 1)]
                n: u8
            }
            #[derive(KubeSchema)]
            enum E { Here }
            #[cfg(debug_assertions)]
            struct NotInput;
            #[cfg(debug_assertions)]
            mod maybe;
        };
        let tokens = |f: &syn::File| quote::ToTokens::to_token_stream(f).to_string();
        assert_eq!(tokens(&file), tokens(&expected));
    }

    #[test]
    fn undecidable_predicates_on_input_are_errors() {
        let mut file: syn::File = syn::parse_quote! {
            #[derive(KubeSchema)]
            struct S {
                #[cfg(debug_assertions)] a: u8,
                #[cfg_attr(tokio_unstable, kubegen(minimum = 1))] b: u8,
            }
        };
        let applied = cfg(&[]).apply(&mut file.items);
        let errors: Vec<String> = applied.errors.iter().map(ToString::to_string).collect();
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert!(errors[0].contains("cfg(debug_assertions)"), "{errors:?}");
        assert!(errors[1].contains("cfg(tokio_unstable)"), "{errors:?}");
    }
}
