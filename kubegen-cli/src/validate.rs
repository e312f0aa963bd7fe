//! `kubegen validate`: custom resources (files, directories, standard
//! input) checked offline against the crate's CRDs (or `--crd` files) as
//! the apiserver checks them on create (`kubegen_core::validate`): every
//! error worded as the apiserver words it, unknown fields refused as
//! `kubectl --validate=strict` refuses them, CEL rules evaluated (those
//! using what kubegen does not evaluate yet named, never passed), the
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
    /// The apiserver's errors, then the unknown fields.
    pub errors: Vec<String>,
    /// CEL rules that apply but use what kubegen does not evaluate yet.
    pub rules_not_evaluated: Vec<String>,
    /// The object as it would be stored.
    pub stored: Value,
}

/// Validates every custom resource in `inputs` against `crds` (by name).
pub fn validate(
    crds: &BTreeMap<String, Value>,
    inputs: &[PathBuf],
) -> Result<Vec<Verdict>, Vec<Diagnostic>> {
    let docs = read::read_documents(inputs)?;
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
        let mut found = None;
        for crd in crds.values() {
            match validate::validate_create(crd, &doc) {
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
        let mut lines: Vec<String> = outcome.errors.iter().map(ToString::to_string).collect();
        lines.extend(
            outcome
                .unknown_fields
                .iter()
                .map(|f| format!("unknown field \"{f}\"")),
        );
        verdicts.push(Verdict {
            file,
            object: format!("{kind}/{name}"),
            errors: lines,
            rules_not_evaluated: outcome
                .rules_not_evaluated
                .iter()
                .map(|(path, rule)| format!("{path}: {rule}"))
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
        out.push_str(&format!("{}: {}: {state}\n", v.file.display(), v.object));
        for e in &v.errors {
            out.push_str(&format!("  {e}\n"));
        }
        unevaluated.extend(&v.rules_not_evaluated);
    }
    let invalid = verdicts.iter().filter(|v| !v.errors.is_empty()).count();
    if !unevaluated.is_empty() {
        unevaluated.sort();
        unevaluated.dedup();
        out.push_str(&format!(
            "note: {} x-kubernetes-validations rule{} not evaluated: {} what kubegen validate does not evaluate yet (the apiserver will):\n",
            unevaluated.len(),
            if unevaluated.len() == 1 { "" } else { "s" },
            if unevaluated.len() == 1 { "it uses" } else { "they use" },
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
                "errors": v.errors,
                "rulesNotEvaluated": v.rules_not_evaluated,
                "stored": v.stored,
            })
        })
        .collect();
    json!({"objects": objects})
}
