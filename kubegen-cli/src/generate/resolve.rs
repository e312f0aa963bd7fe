//! Schema evaluation for the CLI: the same `schema_for` the derive runs,
//! with each nested type found as rustc would find it, without compiling:
//! through the `use` declarations (renames, groups, globs), type aliases and
//! modules of the module the type is written in ([`Scopes`]), among the
//! crate's analyzed types and the k8s-openapi types of kubegen's built-in
//! table ([`k8s_types`]). A name nothing brings into scope falls back to the
//! one analyzed type of that name, then to the one k8s-openapi type of that
//! name.
//!
//! Each type's schema is evaluated once per resolver and reused wherever the
//! type is referenced again (a 50-kind API references its shared types
//! hundreds of times); the reuse keeps the derive's nesting limit exact.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;

use serde_json::Value;
use syn::spanned::Spanned;

use super::Analyzed;
use super::k8s_types;
use crate::source::{Diagnostic, Scopes};
use kubegen_codegen::parse::ResolverKind;
use kubegen_core::builtin::BuiltinType;
use kubegen_core::schema::{self, SchemaError};

/// How many `use`s, aliases and globs one lookup may pass through; more
/// means a cycle.
const MAX_HOPS: u32 = 32;

/// Looks types up among the analyzed types of one crate.
pub struct Resolver<'a> {
    types: &'a [Analyzed],
    /// The types by identifier (a crate may hold tens of thousands).
    by_name: HashMap<String, Vec<&'a Analyzed>>,
    scopes: &'a Scopes,
    /// Nesting depth of the schema being evaluated (1 = a resource's own).
    depth: Cell<u32>,
    /// The deepest nesting level reached so far by the current evaluation.
    deepest: Cell<u32>,
    /// Evaluated schemas by type (its address in `types`), with how many
    /// levels nest below the type: a reuse at depth `d` is exact only if
    /// `d + levels` stays within the derive's limit, as a fresh evaluation
    /// would.
    memo: RefCell<HashMap<*const Analyzed, (Value, u32)>>,
    /// Built-in types' schemas (inlined from the upstream definitions).
    builtin_memo: RefCell<HashMap<BuiltinType, Value>>,
}

/// Where a nested type's schema comes from.
#[derive(Clone, Copy)]
enum Target<'a> {
    Local(&'a Analyzed),
    K8s(BuiltinType),
}

impl Target<'_> {
    fn same(&self, other: &Target<'_>) -> bool {
        match (self, other) {
            (Target::Local(a), Target::Local(b)) => std::ptr::eq(*a, *b),
            (Target::K8s(a), Target::K8s(b)) => a == b,
            _ => false,
        }
    }
}

impl<'a> Resolver<'a> {
    /// A resolver over `types`, following the `use`s and aliases of `scopes`.
    pub fn new(types: &'a [Analyzed], scopes: &'a Scopes) -> Self {
        let mut by_name: HashMap<String, Vec<&'a Analyzed>> = HashMap::new();
        for t in types {
            by_name
                .entry(t.input.derive_input.ident.to_string())
                .or_default()
                .push(t);
        }
        Resolver {
            types,
            by_name,
            scopes,
            depth: Cell::new(0),
            deepest: Cell::new(0),
            memo: RefCell::new(HashMap::new()),
            builtin_memo: RefCell::new(HashMap::new()),
        }
    }

    /// One diagnostic per nested type that cannot be resolved, located at
    /// the type as written.
    pub fn unresolved(&self) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        for t in self.types {
            for r in &t.analysis.container.resolvers {
                if let Err(message) = self.target(t, &r.ty, r.kind) {
                    let start = r.ty.span().start();
                    out.push(Diagnostic {
                        file: t.input.file.clone(),
                        line: start.line,
                        column: start.column + 1,
                        message,
                    });
                }
            }
        }
        out
    }

    /// The structural schema of an analyzed type.
    pub fn schema(&self, t: &Analyzed) -> Result<Value, SchemaError> {
        let model = &t.analysis.container.model;
        let depth = self.depth.get() + 1;
        if let Some((value, below)) = self.memo.borrow().get(&(t as *const Analyzed))
            && depth + below <= kubegen_core::rt::MAX_DEPTH
        {
            self.deepest.set(self.deepest.get().max(depth + below));
            return Ok(value.clone());
        }
        if depth > kubegen_core::rt::MAX_DEPTH {
            return Err(SchemaError {
                path: model.name.clone(),
                message: "types nest more than 64 levels deep".into(),
            });
        }
        self.depth.set(depth);
        let outer_deepest = self.deepest.replace(depth);
        let result = schema::schema_for(model, &|i| {
            let r = t
                .analysis
                .container
                .resolvers
                .get(i)
                .ok_or_else(|| SchemaError {
                    path: model.name.clone(),
                    message: format!("no resolver {i}"),
                })?;
            match self.target(t, &r.ty, r.kind) {
                Ok(Target::Local(nested)) => self.schema(nested),
                Ok(Target::K8s(k8s)) => self.builtin_schema(k8s),
                Err(message) => Err(SchemaError {
                    path: model.name.clone(),
                    message,
                }),
            }
        });
        self.depth.set(depth - 1);
        let deepest = self.deepest.get();
        self.deepest.set(outer_deepest.max(deepest));
        if let Ok(value) = &result {
            self.memo
                .borrow_mut()
                .insert(t as *const Analyzed, (value.clone(), deepest - depth));
        }
        result
    }

    /// A built-in type's schema, evaluated once per resolver.
    fn builtin_schema(&self, k8s: BuiltinType) -> Result<Value, SchemaError> {
        if let Some(value) = self.builtin_memo.borrow().get(&k8s) {
            return Ok(value.clone());
        }
        let value = k8s.schema()?;
        self.builtin_memo.borrow_mut().insert(k8s, value.clone());
        Ok(value)
    }

    /// The analyzed status type named by a resource's `status = "..."`.
    pub fn status_type(&self, resource: &Analyzed, ty: &syn::Type) -> Result<&'a Analyzed, String> {
        match self.target(resource, ty, ResolverKind::KubeSchema)? {
            Target::Local(t) => Ok(t),
            Target::K8s(_) => Err("a status type must derive `KubeSchema`".into()),
        }
    }

    fn target(
        &self,
        from: &Analyzed,
        ty: &syn::Type,
        kind: ResolverKind,
    ) -> Result<Target<'a>, String> {
        let written = quote::ToTokens::to_token_stream(ty)
            .to_string()
            .replace(' ', "");
        if kind == ResolverKind::Schemars {
            return Err(format!(
                "`{written}` is marked `#[kubegen(schemars)]`: its schema comes from \
                 `schemars::JsonSchema`, which the kubegen CLI cannot evaluate without \
                 compiling your crate; derive `KubeSchema` on it instead (k8s-openapi types \
                 need no mark: they implement `KubeSchema` with their upstream schema)"
            ));
        }
        let syn::Type::Path(path) = ty else {
            return Err(format!(
                "cannot resolve type `{written}`: only named types are supported"
            ));
        };
        let segments: Vec<String> = path
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        match self.path(&from.input.module, &segments, 0)? {
            Some(t) => Ok(t),
            None => self.fallback(&segments, &written),
        }
    }

    /// A path written in `module`: `None` when nothing in the crate's
    /// scopes binds it (an unimported name, another crate's path).
    fn path(
        &self,
        module: &[String],
        segments: &[String],
        hops: u32,
    ) -> Result<Option<Target<'a>>, String> {
        if hops > MAX_HOPS {
            return Err(format!(
                "`{}`: more than {MAX_HOPS} `use`s and type aliases lead to it (a cycle?)",
                segments.join("::")
            ));
        }
        let Some((first, rest)) = segments.split_first() else {
            return Ok(None);
        };
        match first.as_str() {
            "crate" => return self.in_module(Vec::new(), rest, hops).map(Some),
            "self" => return self.in_module(module.to_vec(), rest, hops).map(Some),
            "super" => {
                let parent = module.split_last().map_or(module, |(_, p)| p);
                return self.in_module(parent.to_vec(), rest, hops).map(Some);
            }
            _ => {}
        }
        if rest.is_empty() {
            return self.name(module, first, hops);
        }
        let scope = self.scopes.module(module);
        if let Some(bound) = scope.and_then(|s| s.imports.get(first)) {
            let full: Vec<String> = bound.iter().chain(rest).cloned().collect();
            return match self.path(module, &full, hops + 1)? {
                Some(t) => Ok(Some(t)),
                None => Err(outside(&segments.join("::"), &full)),
            };
        }
        if let Some(rest) = k8s_types::under_k8s_openapi(segments) {
            return k8s_types::by_path(rest).map(|t| Some(Target::K8s(t)));
        }
        let child: Vec<String> = module.iter().chain([first]).cloned().collect();
        if self.scopes.module(&child).is_some() {
            return self.in_module(child, rest, hops).map(Some);
        }
        Ok(None)
    }

    /// `segments` inside `module` (which the path named explicitly): the
    /// type must be there.
    fn in_module(
        &self,
        mut module: Vec<String>,
        segments: &[String],
        hops: u32,
    ) -> Result<Target<'a>, String> {
        let full = || format!("crate::{}", module_path(&module, segments));
        let Some((last, dirs)) = segments.split_last() else {
            return Err(format!("`{}` is a module, not a type", full()));
        };
        for (i, dir) in dirs.iter().enumerate() {
            match dir.as_str() {
                "super" => {
                    module.pop();
                }
                "self" => {}
                _ => {
                    let child: Vec<String> = module.iter().chain([dir]).cloned().collect();
                    if self.scopes.module(&child).is_some() {
                        module = child;
                        continue;
                    }
                    // Not a module of the crate: a name `module` imports.
                    return self
                        .path(&module, &segments[i..], hops + 1)?
                        .ok_or_else(|| not_in_crate(&module, &segments[i..]));
                }
            }
        }
        self.name(&module, last, hops)?
            .ok_or_else(|| not_in_crate(&module, std::slice::from_ref(last)))
    }

    /// A single name in `module`'s scope: a type analyzed there, an alias,
    /// a `use`, then the modules of its glob imports.
    fn name(&self, module: &[String], name: &str, hops: u32) -> Result<Option<Target<'a>>, String> {
        if let Some(t) = self.named(name).find(|t| t.input.module == module) {
            return Ok(Some(Target::Local(t)));
        }
        let Some(scope) = self.scopes.module(module) else {
            return Ok(None);
        };
        if scope.defined.contains(name) {
            return Err(format!(
                "`{name}` (in `crate::{}`) does not derive `KubeSchema`; add \
                 `#[derive(KubeSchema)]` to it (or add its module to `modules` in \
                 [package.metadata.kubegen])",
                module.join("::")
            ));
        }
        if let Some(aliased) = scope.aliases.get(name) {
            return self.alias(module, name, aliased, hops).map(Some);
        }
        if let Some(bound) = scope.imports.get(name) {
            return match self.path(module, bound, hops + 1)? {
                Some(t) => Ok(Some(t)),
                None => Err(outside(name, bound)),
            };
        }
        let mut found: Vec<Target<'a>> = Vec::new();
        for glob in &scope.globs {
            let hit = match k8s_types::under_k8s_openapi(glob) {
                Some(k8s_module) => k8s_types::in_module(k8s_module, name).map(Target::K8s),
                None => match self.glob_module(module, glob) {
                    Some(m) if m != module => self.name(&m, name, hops + 1)?,
                    _ => None,
                },
            };
            if let Some(t) = hit
                && !found.iter().any(|f| f.same(&t))
            {
                found.push(t);
            }
        }
        match found.as_slice() {
            [] => Ok(None),
            [one] => Ok(Some(*one)),
            _ => Err(format!(
                "`{name}` is ambiguous: several glob imports of `crate::{}` bring it in; \
                 import it by name",
                module.join("::")
            )),
        }
    }

    /// The types called `name`, in any module.
    fn named<'s>(&'s self, name: &str) -> impl Iterator<Item = &'a Analyzed> + 's {
        self.by_name.get(name).into_iter().flatten().copied()
    }

    /// The crate module a glob import of `module` names, if it is one.
    fn glob_module(&self, module: &[String], glob: &[String]) -> Option<Vec<String>> {
        let (first, rest) = glob.split_first()?;
        let mut m = match first.as_str() {
            "crate" => Vec::new(),
            "self" => module.to_vec(),
            "super" => module.split_last().map_or(Vec::new(), |(_, p)| p.to_vec()),
            _ => module.iter().chain([first]).cloned().collect(),
        };
        for s in rest {
            if s == "super" {
                m.pop();
            } else if s != "self" {
                m.push(s.clone());
            }
        }
        self.scopes.module(&m).is_some().then_some(m)
    }

    /// `type name = aliased;` in `module`: the type it stands for, which
    /// must be a named local or k8s-openapi type.
    fn alias(
        &self,
        module: &[String],
        name: &str,
        aliased: &syn::Type,
        hops: u32,
    ) -> Result<Target<'a>, String> {
        let written = quote::ToTokens::to_token_stream(aliased)
            .to_string()
            .replace(' ', "");
        let unsupported = || {
            format!(
                "`{name}` is an alias of `{written}`, which the kubegen CLI (like the derive) \
                 cannot see through: only aliases of types deriving `KubeSchema` and of \
                 k8s-openapi types are resolved; write `{written}` in the field instead, or \
                 make `{name}` a newtype deriving `KubeSchema`"
            )
        };
        let syn::Type::Path(p) = aliased else {
            return Err(unsupported());
        };
        if p.qself.is_some()
            || p.path
                .segments
                .iter()
                .any(|s| !matches!(s.arguments, syn::PathArguments::None))
        {
            return Err(unsupported());
        }
        let segments: Vec<String> = p
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        self.path(module, &segments, hops + 1)?
            .ok_or_else(unsupported)
    }

    /// A name nothing in the scanned scopes binds: the one analyzed type of
    /// that name, else the one k8s-openapi type of that name.
    fn fallback(&self, segments: &[String], written: &str) -> Result<Target<'a>, String> {
        let name = segments.last().map(String::as_str).unwrap_or_default();
        let candidates: Vec<&'a Analyzed> = self.named(name).collect();
        match candidates.as_slice() {
            [one] => return Ok(Target::Local(one)),
            [] => {}
            many => {
                return Err(format!(
                    "type `{written}` is ambiguous: it is defined in modules {}; write its path \
                     (`crate::module::{name}`) or import it with `use`",
                    many.iter()
                        .map(|t| format!("`crate::{}`", t.input.module.join("::")))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
        }
        if segments.len() == 1 {
            return k8s_types::by_name(name).map(Target::K8s);
        }
        Err(format!(
            "cannot resolve type `{written}`: no type of that name derives `KubeSchema` \
             in the scanned modules, and it is no k8s-openapi type; add \
             `#[derive(KubeSchema)]` to it (or add its module to `modules` in \
             [package.metadata.kubegen])"
        ))
    }
}

/// `crate::a::b` for module `a` and segments `b`.
fn module_path(module: &[String], segments: &[String]) -> String {
    module
        .iter()
        .chain(segments)
        .cloned()
        .collect::<Vec<_>>()
        .join("::")
}

fn not_in_crate(module: &[String], segments: &[String]) -> String {
    format!(
        "`crate::{}` names no type deriving `KubeSchema` in the scanned modules",
        module_path(module, segments)
    )
}

/// A name imported from outside the crate and k8s-openapi.
fn outside(name: &str, path: &[String]) -> String {
    format!(
        "`{name}` is imported from `{}`, which kubegen cannot read: it reads this crate's \
         sources and knows k8s-openapi's types; derive `KubeSchema` on a type of this crate",
        path.join("::")
    )
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use crate::generate::Api;
    use crate::source::{CrateSource, Diagnostic};
    use kubegen_core::builtin;

    /// Loads a crate of `files` (under `src/`) the way `kubegen generate` does.
    fn load(files: &[(&str, &str)]) -> Result<Api, Vec<Diagnostic>> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("Cargo.toml"),
            "[package]\nname = \"demo\"\nversion = \"0.1.0\"\n",
        )
        .unwrap();
        for (path, text) in files {
            let full = dir.path().join("src").join(path);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(full, text).unwrap();
        }
        let source = CrateSource::load(&dir.path().join("Cargo.toml"))?;
        Api::load(&source, source.manifest.settings.clone())
    }

    /// The schema of each property of type `name`.
    fn properties(api: &Api, name: &str) -> serde_json::Map<String, Value> {
        let t = api
            .types
            .iter()
            .find(|t| t.input.derive_input.ident == name)
            .unwrap();
        let schema = super::Resolver::new(&api.types, &api.scopes)
            .schema(t)
            .unwrap();
        schema["properties"].as_object().unwrap().clone()
    }

    fn upstream(definition: &str) -> Value {
        builtin::schema(definition).unwrap().unwrap()
    }

    fn errors(files: &[(&str, &str)]) -> String {
        let errors = match load(files) {
            Ok(_) => panic!("loaded"),
            Err(e) => e,
        };
        errors
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// A reused schema is exact: a type whose schema was evaluated shallow
    /// is still refused where the same type nests past the derive's limit
    /// (64 levels), and reuse returns what a fresh evaluation returns.
    #[test]
    fn reused_schemas_keep_the_nesting_limit() {
        // Shallow: S (1) -> L1 (2) ... L63 (64), exactly at the limit.
        // Deep: D (1) -> Wrap (2) -> L1 (3) ... L63 (65), one past it.
        let mut src = String::from(
            "#[derive(KubeSchema)] pub struct S { pub l: L1 }\n\
             #[derive(KubeSchema)] pub struct D { pub w: Wrap }\n\
             #[derive(KubeSchema)] pub struct Wrap { pub l: L1 }\n",
        );
        for i in 1..63 {
            src.push_str(&format!(
                "#[derive(KubeSchema)] pub struct L{i} {{ pub next: L{} }}\n",
                i + 1
            ));
        }
        src.push_str("#[derive(KubeSchema)] pub struct L63 { pub leaf: String }\n");
        let api = load(&[("lib.rs", &src)]).unwrap_or_else(|e| panic!("{e:#?}"));
        let named = |name: &str| {
            api.types
                .iter()
                .find(|t| t.input.derive_input.ident == name)
                .unwrap()
        };
        let fresh = |name: &str| super::Resolver::new(&api.types, &api.scopes).schema(named(name));

        let shared = super::Resolver::new(&api.types, &api.scopes);
        let shallow = shared.schema(named("S")).expect("64 levels are allowed");
        assert_eq!(Ok(shallow), fresh("S"));
        let deep = shared.schema(named("D")).unwrap_err();
        assert!(deep.message.contains("64 levels"), "{deep}");
        assert_eq!(Err(deep), fresh("D"));
        // Reuse below the limit: Wrap is L1 one level down.
        assert_eq!(shared.schema(named("Wrap")), fresh("Wrap"));
        assert_eq!(shared.schema(named("S")), fresh("S"));
    }

    #[test]
    fn follows_uses_renames_groups_globs_and_aliases() {
        let api = load(&[
            ("lib.rs", "mod shared;\nmod jobs;\n"),
            (
                "shared.rs",
                "pub type Template = k8s_openapi::api::core::v1::PodTemplateSpec;\n",
            ),
            (
                "jobs.rs",
                "use k8s_openapi::api::batch::v1::JobTemplateSpec;
                 use k8s_openapi::api::batch::v1::JobTemplateSpec as Renamed;
                 use ::k8s_openapi::api::core::v1::{Container, Toleration as Tol};
                 use kubegen::k8s_openapi::api::core::v1 as corev1;
                 use k8s_openapi::api::storage::v1::*;
                 type Alias = k8s_openapi::api::batch::v1::JobTemplateSpec;
                 #[derive(KubeSchema)]
                 pub struct S {
                     pub by_use: JobTemplateSpec,
                     pub renamed: Renamed,
                     pub grouped: Container,
                     pub tol: Option<Tol>,
                     pub module: corev1::Affinity,
                     pub glob: VolumeAttachmentSource,
                     pub alias: Alias,
                     pub other_alias: crate::shared::Template,
                     pub path: k8s_openapi::api::core::v1::Volume,
                     pub runtime: kubegen::k8s_openapi::api::core::v1::ObjectReference,
                     pub bare: RawExtension,
                 }",
            ),
        ])
        .unwrap_or_else(|e| panic!("{e:#?}"));
        let props = properties(&api, "S");
        for (field, definition) in [
            ("by_use", "io.k8s.api.batch.v1.JobTemplateSpec"),
            ("renamed", "io.k8s.api.batch.v1.JobTemplateSpec"),
            ("grouped", "io.k8s.api.core.v1.Container"),
            ("tol", "io.k8s.api.core.v1.Toleration"),
            ("module", "io.k8s.api.core.v1.Affinity"),
            ("glob", "io.k8s.api.storage.v1.VolumeAttachmentSource"),
            ("alias", "io.k8s.api.batch.v1.JobTemplateSpec"),
            ("other_alias", "io.k8s.api.core.v1.PodTemplateSpec"),
            ("path", "io.k8s.api.core.v1.Volume"),
            ("runtime", "io.k8s.api.core.v1.ObjectReference"),
            ("bare", "io.k8s.apimachinery.pkg.runtime.RawExtension"),
        ] {
            assert_eq!(props[field], upstream(definition), "{field}");
        }
    }

    #[test]
    fn local_types_win_over_k8s_types_of_the_same_name() {
        let api = load(&[
            ("lib.rs", "pub mod mine;\npub mod api;\n"),
            (
                "mine.rs",
                "#[derive(KubeSchema)] pub struct Container { pub size: u8 }\n",
            ),
            (
                "api/mod.rs",
                "use crate::mine::Container;
                 pub mod v1;
                 #[derive(KubeSchema)] pub struct A { pub c: Container }",
            ),
            (
                "api/v1.rs",
                "use super::*;
                 #[derive(KubeSchema)] pub struct B { pub c: Container, pub a: super::A, pub s: self::inner::C }
                 mod inner { #[derive(KubeSchema)] pub struct C { pub x: bool } }",
            ),
        ])
        .unwrap_or_else(|e| panic!("{e:#?}"));
        let local =
            serde_json::json!({"type": "integer", "format": "int32", "minimum": 0, "maximum": 255});
        let a = properties(&api, "A");
        assert_eq!(a["c"]["properties"]["size"], local);
        let b = properties(&api, "B");
        assert_eq!(b["c"]["properties"]["size"], local);
        assert_eq!(b["a"]["properties"]["c"]["properties"]["size"], local);
        assert_eq!(b["s"]["properties"]["x"]["type"], "boolean");
    }

    #[test]
    fn an_upstream_schema_a_crd_cannot_hold_is_refused_until_marked_schemaless() {
        let api = load(&[(
            "lib.rs",
            "use k8s_openapi::api::core::v1::ServiceAccount;
             #[derive(KubeSchema)] pub struct S { pub sa: ServiceAccount }
             #[derive(KubeSchema)] pub struct T { #[kubegen(schemaless)] pub sa: ServiceAccount }",
        )])
        .unwrap_or_else(|e| panic!("{e:#?}"));
        let resolver = super::Resolver::new(&api.types, &api.scopes);
        let e = resolver.schema(&api.types[0]).unwrap_err();
        assert!(
            e.message
                .contains("list map key `name` must be required or have a default")
                && e.message.contains("`#[kubegen(schemaless)]`"),
            "{e}"
        );
        let t = resolver.schema(&api.types[1]).unwrap();
        assert_eq!(
            t["properties"]["sa"]["x-kubernetes-preserve-unknown-fields"],
            true
        );
    }

    #[test]
    fn what_cannot_be_resolved_is_an_error_with_a_remedy() {
        let e = errors(&[(
            "lib.rs",
            "pub type Port = u16;\n#[derive(KubeSchema)] pub struct S { pub p: Port }\n",
        )]);
        assert!(
            e.contains("`Port` is an alias of `u16`") && e.contains("write `u16` in the field"),
            "{e}"
        );
        let e = errors(&[(
            "lib.rs",
            "pub struct Plain;\n#[derive(KubeSchema)] pub struct S { pub p: Plain }\n",
        )]);
        assert!(
            e.contains("`Plain` (in `crate::`) does not derive `KubeSchema`"),
            "{e}"
        );
        let e = errors(&[(
            "lib.rs",
            "#[derive(KubeSchema)] pub struct S { pub r: ServiceReference }\n",
        )]);
        assert!(
            e.contains("is ambiguous") && e.contains("import the one you mean"),
            "{e}"
        );
        let e = errors(&[(
            "lib.rs",
            "use other::Thing;\n#[derive(KubeSchema)] pub struct S { pub t: Thing }\n",
        )]);
        assert!(e.contains("`Thing` is imported from `other::Thing`"), "{e}");
        let e = errors(&[(
            "lib.rs",
            "#[derive(KubeSchema)] pub struct S { pub p: k8s_openapi::api::core::v1::PodList }\n",
        )]);
        assert!(e.contains("has no schema in kubegen's table"), "{e}");
        let e = errors(&[(
            "lib.rs",
            "use self::B as A;\nuse self::A as B;\n#[derive(KubeSchema)] pub struct S { pub a: A }\n",
        )]);
        assert!(e.contains("a cycle?"), "{e}");
        let e = errors(&[(
            "lib.rs",
            "#[derive(KubeSchema)] pub struct S { #[kubegen(schemars)] pub a: k8s_openapi::api::core::v1::Pod }\n",
        )]);
        assert!(e.contains("k8s-openapi types need no mark"), "{e}");
    }
}
