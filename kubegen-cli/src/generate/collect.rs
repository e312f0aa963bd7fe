//! Finding the inputs in a crate's parsed files: types deriving
//! `CustomResource` or `KubeSchema`, and `#[rbac(...)]` attributes, in the
//! scanned modules; and what every module brings into scope (`use`s, type
//! aliases), which resolving a field's type may follow into any module.

use std::path::PathBuf;

use crate::source::{CrateSource, Scopes};
pub use kubegen_codegen::attr::{DeriveKind, derive_kind};

/// A type to analyze, with where it was found.
#[derive(Debug, Clone)]
pub struct Input {
    /// The file (relative to the crate root).
    pub file: PathBuf,
    /// Module path of the type, e.g. `["api", "v1"]`.
    pub module: Vec<String>,
    /// The type as a derive macro would see it.
    pub derive_input: syn::DeriveInput,
    /// Which derive.
    pub kind: DeriveKind,
}

/// One `#[rbac(...)]` attribute, with where it was found.
#[derive(Debug, Clone)]
pub struct RbacAttr {
    /// The file (relative to the crate root).
    pub file: PathBuf,
    /// Module path of the item carrying it.
    pub module: Vec<String>,
    /// The attribute.
    pub attr: syn::Attribute,
}

/// Everything the generator reads from a crate.
#[derive(Debug, Default)]
pub struct Inputs {
    /// Types deriving kubegen's derives, in file then source order.
    pub types: Vec<Input>,
    /// `#[rbac(...)]` attributes anywhere in the scanned files.
    pub rbac: Vec<RbacAttr>,
    /// What every module of the crate, scanned or not, brings into scope.
    pub scopes: Scopes,
}

/// Collects the inputs of every scanned file and the scopes of every file.
pub fn collect(source: &CrateSource) -> Inputs {
    let mut inputs = Inputs::default();
    let scanned: Vec<&PathBuf> = source.scanned_files().map(|f| &f.path).collect();
    for file in &source.files {
        let mut visitor = Visitor {
            file: &file.path,
            module: file.module.clone(),
            scanned: scanned.contains(&&file.path),
            inputs: &mut inputs,
        };
        visitor.items(&file.ast.items);
        visitor.attrs(&file.ast.attrs);
    }
    inputs
}

struct Visitor<'a> {
    file: &'a PathBuf,
    module: Vec<String>,
    /// Whether the file's inputs are wanted (its scope always is).
    scanned: bool,
    inputs: &'a mut Inputs,
}

impl Visitor<'_> {
    fn items(&mut self, items: &[syn::Item]) {
        self.inputs.scopes.declare(&self.module);
        for item in items {
            self.inputs.scopes.add_item(&self.module, item);
            match item {
                syn::Item::Struct(s) => {
                    self.attrs(&s.attrs);
                    self.typ(&s.attrs, || syn::DeriveInput::from(s.clone()));
                }
                syn::Item::Enum(e) => {
                    self.attrs(&e.attrs);
                    self.typ(&e.attrs, || syn::DeriveInput::from(e.clone()));
                }
                syn::Item::Fn(f) => self.attrs(&f.attrs),
                syn::Item::Impl(i) => {
                    self.attrs(&i.attrs);
                    for item in &i.items {
                        if let syn::ImplItem::Fn(f) = item {
                            self.attrs(&f.attrs);
                        }
                    }
                }
                syn::Item::Const(c) => self.attrs(&c.attrs),
                syn::Item::Static(s) => self.attrs(&s.attrs),
                syn::Item::Mod(m) => {
                    self.attrs(&m.attrs);
                    if let Some((_, inner)) = &m.content {
                        self.module.push(m.ident.to_string());
                        self.items(inner);
                        self.module.pop();
                    }
                }
                _ => {}
            }
        }
    }

    fn typ(&mut self, attrs: &[syn::Attribute], input: impl FnOnce() -> syn::DeriveInput) {
        if !self.scanned {
            return;
        }
        if let Some(kind) = derive_kind(attrs) {
            self.inputs.types.push(Input {
                file: self.file.clone(),
                module: self.module.clone(),
                derive_input: input(),
                kind,
            });
        }
    }

    fn attrs(&mut self, attrs: &[syn::Attribute]) {
        if !self.scanned {
            return;
        }
        for attr in attrs {
            let path = attr.path();
            let is_rbac = path.is_ident("rbac")
                || path
                    .segments
                    .last()
                    .is_some_and(|s| s.ident == "rbac" && path.segments.len() == 2);
            if is_rbac {
                self.inputs.rbac.push(RbacAttr {
                    file: self.file.clone(),
                    module: self.module.clone(),
                    attr: attr.clone(),
                });
            }
        }
    }
}
