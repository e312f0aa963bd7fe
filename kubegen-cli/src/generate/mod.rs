//! `kubegen generate`: the crate's sources → the same model the derive
//! builds → CRD YAML, RBAC YAML and typed Rust client modules, as a pure
//! [`FileSet`] that the caller writes or checks.

mod collect;
mod k8s_types;
mod kinds;
mod resolve;
mod rules;

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

pub use collect::{DeriveKind, Input};
pub use resolve::Resolver;

use crate::chart;
use crate::files::FileSet;
use crate::source::{CrateSource, Diagnostic, Scopes, Settings};
use kubegen_codegen::rbac::{self, RbacRule};
use kubegen_codegen::{Analysis, analyze, emit};
use kubegen_core::admission;
use kubegen_core::crd::{self, CrdError};
use kubegen_core::model::ResourceModel;
use kubegen_core::output;

/// One analyzed input type.
pub struct Analyzed {
    /// Where it came from.
    pub input: Input,
    /// The validated model.
    pub analysis: Analysis,
}

/// A crate's whole API as the generator sees it.
pub struct Api {
    /// The crate's package name.
    pub package: String,
    /// The crate's version.
    pub version: String,
    /// The effective settings.
    pub settings: Settings,
    /// Every type deriving `CustomResource` or `KubeSchema`.
    pub types: Vec<Analyzed>,
    /// Every `#[rbac(...)]` rule.
    pub rbac: Vec<RbacRule>,
    /// The crate root (the manifest's directory).
    pub root: std::path::PathBuf,
    /// The crate's root source file, relative to `root`.
    pub root_file: std::path::PathBuf,
    /// The modules the root file declares (`mod name;` or inline).
    pub root_modules: Vec<String>,
    /// What each module brings into scope, to resolve nested types by.
    pub scopes: Scopes,
}

impl Api {
    /// Reads and validates the crate: every error in every file is
    /// returned, each with its `file:line:col`.
    pub fn load(source: &CrateSource, settings: Settings) -> Result<Api, Vec<Diagnostic>> {
        let inputs = collect::collect(source);
        let mut errors = Vec::new();
        // Input in a module kubegen cannot tell is compiled in: refuse to
        // guess.
        let modules = inputs
            .types
            .iter()
            .map(|t| &t.module)
            .chain(inputs.rbac.iter().map(|r| &r.module));
        for module in modules {
            if let Some(reason) = source.uncertainty(module) {
                errors.push(reason.clone());
            }
        }
        let mut types = Vec::new();
        for input in inputs.types {
            let resource = input.kind == DeriveKind::CustomResource;
            match analyze(&input.derive_input, resource) {
                Ok(analysis) => types.push(Analyzed { input, analysis }),
                Err(e) => errors.extend(Diagnostic::from_syn(&input.file, &e)),
            }
        }
        let mut rules = Vec::new();
        for attr in &inputs.rbac {
            match rbac::parse_attribute(&attr.attr) {
                Ok(rule) => rules.push(rule),
                Err(e) => errors.extend(Diagnostic::from_syn(&attr.file, &e)),
            }
        }
        let resolver = Resolver::new(&types, &inputs.scopes);
        errors.extend(resolver.unresolved());
        errors.extend(status_types_unresolved(&types, &resolver));
        if !errors.is_empty() {
            errors.sort();
            errors.dedup();
            return Err(errors);
        }
        Ok(Api {
            package: source.manifest.package.clone(),
            version: source.manifest.version.clone(),
            settings,
            types,
            rbac: rules,
            root: source.root.clone(),
            root_file: source.manifest.root_file.clone(),
            root_modules: source
                .files
                .iter()
                .filter(|f| f.module.is_empty())
                .flat_map(|f| &f.ast.items)
                .filter_map(|item| match item {
                    syn::Item::Mod(m) => Some(m.ident.to_string()),
                    _ => None,
                })
                .collect(),
            scopes: inputs.scopes,
        })
    }

    /// The resources (types deriving `CustomResource`) with their models.
    pub fn resources(&self) -> impl Iterator<Item = (&Analyzed, &ResourceModel)> {
        self.types
            .iter()
            .filter_map(|t| t.analysis.resource.as_ref().map(|r| (t, r)))
    }

    /// The resource model as the CRD sees it (the settings' description cap
    /// applies to resources that set none).
    fn effective_model(&self, model: &ResourceModel) -> ResourceModel {
        let mut model = model.clone();
        if model.max_description_len.is_none() {
            model.max_description_len = self.settings.max_description_len;
        }
        model
    }

    /// The CRD JSON of one resource version — the value the derive's
    /// `crd_json()` returns for the same type.
    pub fn crd_json(&self, t: &Analyzed, model: &ResourceModel) -> Result<Value, CrdError> {
        self.crd_json_with(&Resolver::new(&self.types, &self.scopes), t, model)
    }

    fn crd_json_with(
        &self,
        resolver: &Resolver<'_>,
        t: &Analyzed,
        model: &ResourceModel,
    ) -> Result<Value, CrdError> {
        let spec = resolver.schema(t)?;
        let status = match &t.analysis.container.resource.status {
            Some(ty) => {
                let nested = resolver
                    .status_type(t, ty)
                    .map_err(|message| CrdError::Decode(format!("status type: {message}")))?;
                Some(resolver.schema(nested)?)
            }
            None => None,
        };
        crd::crd_json(&self.effective_model(model), spec, status)
    }

    /// One CRD per (group, kind) with all its versions merged, keyed by the
    /// file name `<group>_<plural>.yaml`.
    pub fn crds(&self) -> Result<BTreeMap<String, Value>, Vec<Diagnostic>> {
        let mut by_kind: BTreeMap<(String, String), Vec<Value>> = BTreeMap::new();
        let mut lossy: std::collections::BTreeSet<(String, String)> = Default::default();
        let mut errors = Vec::new();
        let resolver = Resolver::new(&self.types, &self.scopes);
        for (t, model) in self.resources() {
            if model.allow_lossy_versions {
                lossy.insert((model.group.clone(), model.plural.clone()));
            }
            match self.crd_json_with(&resolver, t, model) {
                Ok(crd) => {
                    errors.extend(rules::check(&self.types, t, &crd));
                    by_kind
                        .entry((model.group.clone(), model.plural.clone()))
                        .or_default()
                        .push(crd);
                }
                Err(e) => errors.push(crd_error(t, &e)),
            }
        }
        let mut crds = BTreeMap::new();
        for ((group, plural), versions) in by_kind {
            let merged = if versions.len() == 1 {
                versions.into_iter().next().map(Ok)
            } else if lossy.contains(&(group.clone(), plural.clone())) {
                Some(crd::merge_crds_allowing_lossy_versions(&versions))
            } else {
                Some(crd::merge_crds(&versions))
            };
            match merged {
                Some(Ok(crd)) => {
                    crds.insert(format!("{group}_{plural}.yaml"), crd);
                }
                Some(Err(e)) => {
                    let first = self
                        .resources()
                        .find(|(_, m)| m.group == group && m.plural == plural);
                    if let Some((t, _)) = first {
                        errors.push(type_error(t, e.to_string()));
                    }
                }
                None => {}
            }
        }
        if errors.is_empty() {
            Ok(crds)
        } else {
            Err(errors)
        }
    }
}

fn status_types_unresolved(types: &[Analyzed], resolver: &Resolver<'_>) -> Vec<Diagnostic> {
    types
        .iter()
        .filter_map(|t| {
            let ty = t.analysis.container.resource.status.as_ref()?;
            match resolver.status_type(t, ty) {
                Ok(_) => None,
                Err(_) => {
                    let start = syn::spanned::Spanned::span(ty).start();
                    Some(Diagnostic {
                        file: t.input.file.clone(),
                        line: start.line,
                        column: start.column + 1,
                        message: format!(
                            "cannot resolve status type `{}`: derive `KubeSchema` on it in the scanned modules",
                            quote::ToTokens::to_token_stream(ty).to_string().replace(' ', "")
                        ),
                    })
                }
            }
        })
        .collect()
}

/// A CRD error located at the attribute it comes from when there is one (a
/// printer column's or selectable field's JSON path), else at the type.
fn crd_error(t: &Analyzed, e: &CrdError) -> Diagnostic {
    let CrdError::JsonPath { path, .. } = e else {
        return type_error(t, e.to_string());
    };
    let resource = &t.analysis.container.resource;
    let span = resource
        .printer_columns
        .iter()
        .find(|(c, _)| &c.json_path == path)
        .map(|(_, span)| *span)
        .or_else(|| {
            resource
                .selectable_fields
                .iter()
                .find(|(p, _)| p == path)
                .map(|(_, span)| *span)
        });
    match span {
        Some(span) => {
            let start = span.start();
            Diagnostic {
                file: t.input.file.clone(),
                line: start.line,
                column: start.column + 1,
                message: e.to_string(),
            }
        }
        None => type_error(t, e.to_string()),
    }
}

fn type_error(t: &Analyzed, message: String) -> Diagnostic {
    let start = t.input.derive_input.ident.span().start();
    Diagnostic {
        file: t.input.file.clone(),
        line: start.line,
        column: start.column + 1,
        message,
    }
}

/// How to use the generated modules, when the crate does not declare them
/// yet: `None` when its root file already has the `mod` item.
pub fn module_hint(api: &Api) -> Option<String> {
    let out = &api.settings.rust_out;
    let name = out.file_name()?.to_str()?;
    let beside_root = out.parent() == api.root_file.parent();
    if beside_root && api.root_modules.iter().any(|m| m == name) {
        return None;
    }
    let place = if beside_root {
        api.root_file.display().to_string()
    } else {
        format!("the module that owns {}", out.display())
    };
    Some(format!(
        "note: the typed clients, listers and informers are in {}; use them by adding to {place}:\n\n    #[rustfmt::skip] // generated code is formatted by kubegen\n    pub mod {name};\n",
        out.display()
    ))
}

/// Renders a CRD as the YAML kubegen writes (also what `kubegen crd` prints).
pub fn crd_yaml(crd: &Value) -> String {
    output::to_yaml(crd)
}

/// Everything `kubegen generate` writes for `api`, as a pure function of its
/// input.
pub fn generate(api: &Api) -> Result<FileSet, Vec<Diagnostic>> {
    let settings = &api.settings;
    let mut files = FileSet::new(&api.package);
    if settings.allow_output_outside_crate {
        files.allow_outside_root();
    }
    files.own_dir(&settings.crd_dir);
    files.own_dir(&settings.rbac_dir);
    files.own_dir(&settings.webhook_dir);
    files.own_dir(&settings.rust_out);
    let crds = api.crds()?;
    if let Some(docs) = &settings.docs_dir {
        files.own_dir(docs);
        for (path, contents) in crate::docs::files(crds.values()) {
            files.insert(docs.join(path), contents);
        }
    }
    for (name, crd) in &crds {
        files.insert(settings.crd_dir.join(name), crd_yaml(crd));
    }
    let roles = rbac::roles(&api.rbac, &role_name(api));
    if !roles.is_empty() {
        files.insert(
            settings.rbac_dir.join("role.yaml"),
            output::to_yaml_documents(&roles),
        );
    }
    let webhook_configurations: Vec<Value> =
        admission::configurations(&api.package, api.resources().map(|(_, m)| m))
            .into_iter()
            .flatten()
            .collect();
    if let Some(helm) = &settings.helm {
        files.own_dir(&helm.dir);
        let operator = chart::Operator {
            package: &api.package,
            version: &api.version,
            models: api.resources().map(|(_, m)| m).collect(),
        };
        for (path, contents) in
            chart::files(&operator, helm, &crds, &roles, &webhook_configurations)?
        {
            files.insert(helm.dir.join(path), contents);
        }
    }
    if !webhook_configurations.is_empty() {
        files.insert(
            settings.webhook_dir.join("manifests.yaml"),
            output::to_yaml_documents(&webhook_configurations),
        );
    }
    let header = header_text(&api.root, settings).map_err(|d| vec![d])?;
    let conversions = kinds::conversions(api)?;
    let modules =
        emit::modules(kinds::kinds(api)?, &conversions, header.as_deref()).map_err(|errors| {
            errors
                .into_iter()
                .map(|e| Diagnostic::file(Path::new("Cargo.toml"), e))
                .collect::<Vec<_>>()
        })?;
    for (path, contents) in modules {
        files.insert(settings.rust_out.join(path), contents);
    }
    Ok(files)
}

fn role_name(api: &Api) -> String {
    api.settings
        .role_name
        .clone()
        .unwrap_or_else(|| format!("{}-manager", api.package))
}

fn header_text(root: &Path, settings: &Settings) -> Result<Option<String>, Diagnostic> {
    let Some(path) = &settings.header_file else {
        return Ok(None);
    };
    std::fs::read_to_string(root.join(path))
        .map(Some)
        .map_err(|e| Diagnostic::file(Path::new(path), format!("cannot read header file: {e}")))
}
