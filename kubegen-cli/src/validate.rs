//! `kubegen validate`: custom resources (files, directories, standard
//! input) checked offline against the crate's CRDs (or `--crd` files) as
//! the apiserver checks them on create (`kubegen_core::validate`), or on
//! update of the object of the same kind, namespace and name in `--old`:
//! every error worded as the apiserver words it, unknown fields refused
//! as `kubectl --validate=strict` refuses them, CEL rules evaluated
//! (those kubegen cannot evaluate exactly named with the reason, never
//! passed), what an update ratchets shown as the apiserver's warnings, the
//! object as it would be stored (pruned and defaulted) with `--output
//! json`.

use std::collections::BTreeMap;
use std::path::PathBuf;

use kubegen_core::validate::{self, Mismatch};
use serde_json::{Value, json};

use crate::import::read;
use crate::source::Diagnostic;

/// One object's verdict.
pub struct Verdict {
    /// The file it was read from.
    pub file: PathBuf,
    /// `Kind/name`.
    pub object: String,
    /// Whether it is an update of an object in `--old`.
    pub update: bool,
    /// The apiserver's errors, then the unknown fields.
    pub errors: Vec<String>,
    /// What the apiserver returns as warnings: failed rules an update
    /// ratchets.
    pub warnings: Vec<String>,
    /// CEL rules that apply but kubegen cannot evaluate exactly, with why.
    pub rules_not_evaluated: Vec<String>,
    /// The object as it would be stored.
    pub stored: Value,
}

/// An object's identity for pairing it with its old version: API group,
/// kind, namespace and name.
fn identity(doc: &Value) -> (String, String, String, String) {
    let text = |p: &str| {
        doc.pointer(p)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let api_version = text("/apiVersion");
    let group = api_version
        .rsplit_once('/')
        .map_or(String::new(), |(g, _)| g.to_string());
    (
        group,
        text("/kind"),
        text("/metadata/namespace"),
        text("/metadata/name"),
    )
}

/// Validates every custom resource in `inputs` against `crds` (by name):
/// as an update of the object of `olds` with its identity, else as a
/// create.
pub fn validate(
    crds: &BTreeMap<String, Value>,
    inputs: &[PathBuf],
    olds: &[PathBuf],
) -> Result<Vec<Verdict>, Vec<Diagnostic>> {
    let docs = read::read_documents(inputs)?;
    let mut old_by_identity = BTreeMap::new();
    if !olds.is_empty() {
        for (_, doc) in read::read_documents(olds)? {
            old_by_identity.insert(identity(&doc), doc);
        }
    }
    let mut verdicts = Vec::new();
    let mut errors = Vec::new();
    for (file, doc) in docs {
        let kind = doc
            .get("kind")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let name = doc
            .pointer("/metadata/name")
            .or_else(|| doc.pointer("/metadata/generateName"))
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let api_version = doc.get("apiVersion").and_then(Value::as_str).unwrap_or("");
        let old = old_by_identity.get(&identity(&doc));
        let mut found = None;
        for crd in crds.values() {
            let outcome = match old {
                Some(old) => validate::validate_update(crd, &doc, old),
                None => validate::validate_create(crd, &doc),
            };
            match outcome {
                Ok(outcome) => {
                    found = Some(outcome);
                    break;
                }
                Err(Mismatch::NoVersion(v)) => {
                    errors.push(Diagnostic::file(
                        &file,
                        format!("{kind} {name}: the CRD serves no version {v} (apiVersion {api_version})"),
                    ));
                    found = None;
                    break;
                }
                Err(Mismatch::OtherKind) => {}
            }
        }
        let Some(outcome) = found else {
            if !errors
                .iter()
                .any(|e| e.file == file && e.message.contains(&name))
            {
                errors.push(Diagnostic::file(
                    &file,
                    format!("{kind} {name}: no CRD for {api_version} {kind}"),
                ));
            }
            continue;
        };
        // A request the apiserver cannot decode is refused with 400 and
        // one of these messages, before any other check.
        let mut lines: Vec<String> = outcome
            .undecodable
            .iter()
            .map(|m| format!("bad request: {m}"))
            .collect();
        lines.extend(outcome.errors.iter().map(ToString::to_string));
        lines.extend(
            outcome
                .unknown_fields
                .iter()
                .map(|f| format!("unknown field \"{f}\"")),
        );
        verdicts.push(Verdict {
            file,
            object: format!("{kind}/{name}"),
            update: old.is_some(),
            errors: lines,
            warnings: outcome.warnings.iter().map(ToString::to_string).collect(),
            rules_not_evaluated: outcome
                .rules_not_evaluated
                .iter()
                .map(|u| format!("{}: {} ({})", u.at, u.rule, u.why))
                .collect(),
            stored: outcome.object,
        });
    }
    if errors.is_empty() {
        Ok(verdicts)
    } else {
        Err(errors)
    }
}

/// The verdicts as text, and a summary.
pub fn text(verdicts: &[Verdict]) -> String {
    let mut out = String::new();
    let mut unevaluated: Vec<&String> = Vec::new();
    for v in verdicts {
        let state = if v.errors.is_empty() {
            "valid"
        } else {
            "invalid"
        };
        let update = if v.update { " (update)" } else { "" };
        out.push_str(&format!(
            "{}: {}{update}: {state}\n",
            v.file.display(),
            v.object
        ));
        for e in &v.errors {
            out.push_str(&format!("  {e}\n"));
        }
        for w in &v.warnings {
            out.push_str(&format!("  warning: {w}\n"));
        }
        unevaluated.extend(&v.rules_not_evaluated);
    }
    let invalid = verdicts.iter().filter(|v| !v.errors.is_empty()).count();
    if !unevaluated.is_empty() {
        unevaluated.sort();
        unevaluated.dedup();
        out.push_str(&format!(
            "note: {} x-kubernetes-validations rule{} not evaluated (the apiserver will evaluate {}):\n",
            unevaluated.len(),
            if unevaluated.len() == 1 { "" } else { "s" },
            if unevaluated.len() == 1 { "it" } else { "them" },
        ));
        for r in unevaluated {
            out.push_str(&format!("  {r}\n"));
        }
    }
    out.push_str(&format!(
        "kubegen validate: {} object{}, {invalid} invalid\n",
        verdicts.len(),
        if verdicts.len() == 1 { "" } else { "s" }
    ));
    out
}

/// The verdicts as JSON.
pub fn json(verdicts: &[Verdict]) -> Value {
    let objects: Vec<Value> = verdicts
        .iter()
        .map(|v| {
            json!({
                "file": v.file.display().to_string(),
                "object": v.object,
                "valid": v.errors.is_empty(),
                "update": v.update,
                "errors": v.errors,
                "warnings": v.warnings,
                "rulesNotEvaluated": v.rules_not_evaluated,
                "stored": v.stored,
            })
        })
        .collect();
    json!({"objects": objects})
}
