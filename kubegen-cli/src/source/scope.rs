//! What each module of a crate brings into scope, so the CLI finds the type
//! a field names as rustc would: the `use` declarations (renames, groups,
//! `self`, globs), the type aliases, and the names of the types defined
//! there. Read from the parsed files, `cfg` already applied.

use std::collections::{BTreeMap, BTreeSet};

/// A path as written in a `use`, one string per segment. A leading `::`
/// is dropped: since Rust 2018 it names an external crate, and so does a
/// first segment that is no name of the crate.
pub type UsePath = Vec<String>;

/// What one module brings into scope.
#[derive(Debug, Clone, Default)]
pub struct ModuleScope {
    /// Names bound by `use`: `use a::b::C;` binds `C` to `a::b::C`,
    /// `use a::b::C as D;` binds `D`, `use a::b::{self};` binds `b`.
    pub imports: BTreeMap<String, UsePath>,
    /// Modules whose items `use a::b::*;` brings in.
    pub globs: Vec<UsePath>,
    /// Non-generic type aliases, `type Name = Type;`.
    pub aliases: BTreeMap<String, syn::Type>,
    /// Structs, enums and unions defined in the module.
    pub defined: BTreeSet<String>,
}

/// Every module's scope, by module path (`["api", "v1"]`; the crate root
/// is `[]`).
#[derive(Debug, Clone, Default)]
pub struct Scopes {
    modules: BTreeMap<Vec<String>, ModuleScope>,
}

impl Scopes {
    /// Records that `module` exists (a file's or an inline `mod`'s).
    pub fn declare(&mut self, module: &[String]) {
        self.modules.entry(module.to_vec()).or_default();
    }

    /// Records what `item` of `module` brings into scope (inline modules'
    /// items are recorded under their own module by the caller).
    pub fn add_item(&mut self, module: &[String], item: &syn::Item) {
        let scope = self.modules.entry(module.to_vec()).or_default();
        match item {
            syn::Item::Use(u) => use_tree(&mut Vec::new(), &u.tree, scope),
            syn::Item::Type(t) if t.generics.params.is_empty() => {
                scope.aliases.insert(t.ident.to_string(), (*t.ty).clone());
            }
            syn::Item::Struct(s) => {
                scope.defined.insert(s.ident.to_string());
            }
            syn::Item::Enum(e) => {
                scope.defined.insert(e.ident.to_string());
            }
            syn::Item::Union(u) => {
                scope.defined.insert(u.ident.to_string());
            }
            _ => {}
        }
    }

    /// The scope of `module`, if the crate has that module.
    pub fn module(&self, module: &[String]) -> Option<&ModuleScope> {
        self.modules.get(module)
    }
}

/// Flattens one `use` tree below `prefix` into `scope`.
fn use_tree(prefix: &mut Vec<String>, tree: &syn::UseTree, scope: &mut ModuleScope) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            use_tree(prefix, &p.tree, scope);
            prefix.pop();
        }
        syn::UseTree::Name(n) => bind(prefix, &n.ident, &n.ident, scope),
        syn::UseTree::Rename(r) if r.rename != "_" => bind(prefix, &r.ident, &r.rename, scope),
        syn::UseTree::Rename(_) => {}
        syn::UseTree::Glob(_) => scope.globs.push(prefix.clone()),
        syn::UseTree::Group(g) => {
            for t in &g.items {
                use_tree(prefix, t, scope);
            }
        }
    }
}

/// `use prefix::ident as name;` (`self` names the prefix itself).
fn bind(prefix: &[String], ident: &syn::Ident, name: &syn::Ident, scope: &mut ModuleScope) {
    let mut path = prefix.to_vec();
    let name = if ident == "self" {
        match (name == ident, prefix.last()) {
            (true, Some(last)) => last.clone(),
            (true, None) => return,
            (false, _) => name.to_string(),
        }
    } else {
        path.push(ident.to_string());
        name.to_string()
    };
    scope.imports.insert(name, path);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scope_of(src: &str) -> ModuleScope {
        let file = syn::parse_file(src).unwrap();
        let mut scopes = Scopes::default();
        for item in &file.items {
            scopes.add_item(&[], item);
        }
        scopes.module(&[]).cloned().unwrap_or_default()
    }

    fn p(s: &str) -> UsePath {
        s.split("::").map(str::to_string).collect()
    }

    #[test]
    fn use_trees_flatten_to_names_and_globs() {
        let s = scope_of(
            "use k8s_openapi::api::batch::v1::JobTemplateSpec;
             use k8s_openapi::api::core::v1::PodTemplateSpec as Template;
             use ::k8s_openapi::api::core::v1::{Container, Volume as Vol, self};
             use k8s_openapi::api::apps::v1::{self as apps, *};
             use super::shared::*;
             use std::fmt::Write as _;
             type Alias = crate::api::Thing;
             type Generic<T> = Vec<T>;
             struct Local;
             enum Choice { A }",
        );
        let imports: Vec<(&str, String)> = s
            .imports
            .iter()
            .map(|(k, v)| (k.as_str(), v.join("::")))
            .collect();
        assert_eq!(
            imports,
            [
                ("Container", "k8s_openapi::api::core::v1::Container"),
                (
                    "JobTemplateSpec",
                    "k8s_openapi::api::batch::v1::JobTemplateSpec"
                ),
                ("Template", "k8s_openapi::api::core::v1::PodTemplateSpec"),
                ("Vol", "k8s_openapi::api::core::v1::Volume"),
                ("apps", "k8s_openapi::api::apps::v1"),
                ("v1", "k8s_openapi::api::core::v1"),
            ]
            .map(|(k, v)| (k, v.to_string()))
        );
        assert_eq!(
            s.globs,
            vec![p("k8s_openapi::api::apps::v1"), p("super::shared")]
        );
        assert_eq!(s.aliases.keys().collect::<Vec<_>>(), ["Alias"]);
        assert_eq!(s.defined, BTreeSet::from(["Choice".into(), "Local".into()]));
    }
}
