//! Proving an import: the rendered modules are analyzed exactly as
//! `kubegen generate` analyzes a crate (same parse, checks and schema
//! builder, in process), the CRD is regenerated and compared with the
//! original node for node. A node the attributes could not reproduce —
//! an attribute the checks refuse, or a schema that comes out different —
//! is written verbatim (`schema_json`) on the next round, until the CRD
//! regenerates exactly or nothing more can be made explicit.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use serde_json::Value;
use syn::spanned::Spanned;

use super::diff::{self, Difference};
use super::resource::{self, VersionModule};
use crate::generate::{Analyzed, Api, DeriveKind, Input};
use crate::source::Settings;
use kubegen_codegen::analyze;
use kubegen_codegen::attr::derive_kind;

/// How a CRD came through the import.
#[derive(Debug, Clone)]
pub enum Verdict {
    /// `kubegen generate` reproduces it node for node.
    Identical,
    /// It regenerates, with these differences.
    Differing(Vec<Difference>),
    /// It cannot be written as kubegen types.
    Refused(String),
}

/// The result of importing one CRD.
pub struct Imported {
    /// The modules to write (empty when refused).
    pub modules: Vec<VersionModule>,
    /// How it came through.
    pub verdict: Verdict,
    /// Nodes written verbatim (`schema_json` attributes), over all versions.
    pub explicit_nodes: usize,
}

/// At most this many rounds of making nodes explicit.
const MAX_ROUNDS: usize = 12;

/// Imports one CRD, making nodes explicit until it regenerates exactly.
pub fn import(crd: &Value) -> Imported {
    if let Some(reason) = resource::refusal(crd) {
        return Imported {
            modules: Vec::new(),
            verdict: Verdict::Refused(reason),
            explicit_nodes: 0,
        };
    }
    let mut explicit: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut rounds = 0;
    loop {
        rounds += 1;
        let modules = resource::render(crd, &explicit);
        let outcome = check(crd, &modules);
        let count = modules
            .iter()
            .map(|m| m.source.matches("schema_json = ").count())
            .sum();
        let more = match &outcome {
            Outcome::Regenerated(differences) if differences.is_empty() => {
                return Imported {
                    modules,
                    verdict: Verdict::Identical,
                    explicit_nodes: count,
                };
            }
            Outcome::Regenerated(differences) => differences
                .iter()
                .filter_map(|d| Some((d.version.clone()?, diff::slot_of(&d.pointer)?)))
                .filter(|(_, slot)| {
                    ![
                        "/properties/apiVersion",
                        "/properties/kind",
                        "/properties/metadata",
                    ]
                    .iter()
                    .any(|p| slot == p || slot.starts_with(&format!("{p}/")))
                })
                .collect::<Vec<_>>(),
            Outcome::Failed { nodes, .. } => nodes.clone(),
        };
        let mut added = false;
        for (version, ptr) in more {
            added |= explicit.entry(version).or_default().insert(ptr);
        }
        if !added || rounds >= MAX_ROUNDS {
            let verdict = match outcome {
                Outcome::Regenerated(d) => Verdict::Differing(d),
                Outcome::Failed { message, .. } => Verdict::Refused(message),
            };
            return Imported {
                modules,
                verdict,
                explicit_nodes: count,
            };
        }
    }
}

enum Outcome {
    /// The CRD came out (with these differences).
    Regenerated(Vec<Difference>),
    /// Analysis or generation failed; `nodes` are the slots to blame.
    Failed {
        message: String,
        nodes: Vec<(String, String)>,
    },
}

/// The (version, pointer) of the slot holding line `line` of a module.
fn blame(m: &VersionModule, file: &syn::File, line: usize) -> Vec<(String, String)> {
    for item in &file.items {
        let (ident, fields) = match item {
            syn::Item::Struct(s) => (&s.ident, Some(&s.fields)),
            syn::Item::Enum(e) => (&e.ident, None),
            _ => continue,
        };
        let span = item.span();
        if line < span.start().line || line > span.end().line {
            continue;
        }
        let name = ident.to_string();
        for f in fields.into_iter().flatten() {
            let s = f.span();
            let from = f
                .attrs
                .first()
                .map(|a| a.span().start().line)
                .unwrap_or(s.start().line);
            if line >= from && line <= s.end().line {
                let field = f.ident.as_ref().map(|i| i.to_string()).unwrap_or_default();
                if let Some(ptr) = m.plan.field_nodes.get(&(name.clone(), field)) {
                    return vec![(m.version.clone(), ptr.clone())];
                }
            }
        }
        return m
            .plan
            .type_nodes
            .get(&name)
            .into_iter()
            .flatten()
            .map(|p| (m.version.clone(), p.clone()))
            .collect();
    }
    Vec::new()
}

fn check(crd: &Value, modules: &[VersionModule]) -> Outcome {
    let mut types = Vec::new();
    let mut failures = Vec::new();
    let mut nodes = Vec::new();
    for m in modules {
        let file = match syn::parse_file(&m.source) {
            Ok(f) => f,
            Err(e) => {
                return Outcome::Failed {
                    message: format!("generated source does not parse: {e}"),
                    nodes: Vec::new(),
                };
            }
        };
        let module = vec![
            m.group_module.clone(),
            m.version.clone(),
            m.kind_module.clone(),
        ];
        for item in &file.items {
            let input: syn::DeriveInput = match item {
                syn::Item::Struct(s) => s.clone().into(),
                syn::Item::Enum(e) => e.clone().into(),
                _ => continue,
            };
            let Some(kind) = derive_kind(&input.attrs) else {
                continue;
            };
            match analyze(&input, kind == DeriveKind::CustomResource) {
                Ok(analysis) => types.push(Analyzed {
                    input: Input {
                        file: PathBuf::from(format!("{}.rs", module.join("/"))),
                        module: module.clone(),
                        derive_input: input,
                        kind,
                    },
                    analysis,
                }),
                Err(e) => {
                    for e in e {
                        let line = e.span().start().line;
                        failures.push(format!("{}: line {line}: {e}", m.version));
                        nodes.extend(blame(m, &file, line));
                    }
                }
            }
        }
    }
    if !failures.is_empty() {
        return Outcome::Failed {
            message: failures.join("; "),
            nodes,
        };
    }
    let api = Api {
        package: "import".into(),
        version: "0.0.0".into(),
        settings: Settings::default(),
        types,
        rbac: Vec::new(),
        root: PathBuf::new(),
        root_file: PathBuf::from("src/lib.rs"),
        root_modules: Vec::new(),
        scopes: Default::default(),
    };
    let resolver = crate::generate::Resolver::new(&api.types, &api.scopes);
    let unresolved = resolver.unresolved();
    if !unresolved.is_empty() {
        return Outcome::Failed {
            message: unresolved
                .iter()
                .map(|d| d.message.clone())
                .collect::<Vec<_>>()
                .join("; "),
            nodes: Vec::new(),
        };
    }
    match api.crds() {
        Ok(crds) => match crds.into_values().next() {
            Some(out) => Outcome::Regenerated(diff::compare(crd, &out)),
            None => Outcome::Failed {
                message: "no CRD was generated".into(),
                nodes: Vec::new(),
            },
        },
        Err(errors) => {
            let mut nodes = Vec::new();
            for e in &errors {
                nodes.extend(schema_error_nodes(modules, &e.message));
            }
            Outcome::Failed {
                message: errors
                    .iter()
                    .map(|d| d.message.clone())
                    .collect::<Vec<_>>()
                    .join("; "),
                nodes,
            }
        }
    }
}

/// Slots named by a schema error's path (`Type.field.sub: message`).
fn schema_error_nodes(modules: &[VersionModule], message: &str) -> Vec<(String, String)> {
    let path = message
        .split_whitespace()
        .find(|w| w.contains('.') && w.ends_with(':'))
        .map(|w| w.trim_end_matches(':'))
        .or_else(|| message.split(": ").nth(1));
    let Some(path) = path else {
        return Vec::new();
    };
    let mut segments = path.split('.');
    let Some(ty) = segments.next() else {
        return Vec::new();
    };
    let field = segments.next().unwrap_or_default();
    let mut out = Vec::new();
    for m in modules {
        let found = m
            .plan
            .field_nodes
            .iter()
            .find(|((t, _), p)| t == ty && p.rsplit('/').next() == Some(field));
        if let Some((_, p)) = found {
            out.push((m.version.clone(), p.clone()));
        } else if let Some(ps) = m.plan.type_nodes.get(ty) {
            out.extend(ps.iter().map(|p| (m.version.clone(), p.clone())));
        }
    }
    out
}
