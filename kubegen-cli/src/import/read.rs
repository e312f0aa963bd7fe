//! Reading the CRDs to import: YAML or JSON files, directories of them
//! (recursively, `.yaml`/`.yml`/`.json`, in path order) or standard input;
//! multi-document files split; documents that are not
//! `apiextensions.k8s.io/v1` CustomResourceDefinitions skipped.

use std::io::Read;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::source::Diagnostic;

/// One CRD read from the input.
#[derive(Debug, Clone)]
pub struct SourceCrd {
    /// Where it was read (`-` for standard input).
    pub file: PathBuf,
    /// The CRD as JSON.
    pub crd: Value,
}

impl SourceCrd {
    /// `metadata.name`.
    pub fn name(&self) -> &str {
        self.crd
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or("")
    }
}

/// Reads every CRD in `inputs` (`-` is standard input). Files that cannot
/// be read or parsed are errors; other kinds of documents are skipped.
pub fn read(inputs: &[PathBuf]) -> Result<Vec<SourceCrd>, Vec<Diagnostic>> {
    let mut files = Vec::new();
    let mut errors = Vec::new();
    for input in inputs {
        if input.as_os_str() == "-" {
            let mut text = String::new();
            match std::io::stdin().read_to_string(&mut text) {
                Ok(_) => files.push((input.clone(), text)),
                Err(e) => errors.push(Diagnostic::file(input, format!("cannot read: {e}"))),
            }
        } else if input.is_dir() {
            match files_under(input) {
                Ok(paths) => {
                    for p in paths {
                        match std::fs::read_to_string(&p) {
                            Ok(text) => files.push((p, text)),
                            Err(e) => {
                                errors.push(Diagnostic::file(&p, format!("cannot read: {e}")))
                            }
                        }
                    }
                }
                Err(e) => errors.push(Diagnostic::file(input, format!("cannot list: {e}"))),
            }
        } else {
            match std::fs::read_to_string(input) {
                Ok(text) => files.push((input.clone(), text)),
                Err(e) => errors.push(Diagnostic::file(input, format!("cannot read: {e}"))),
            }
        }
    }
    let mut crds = Vec::new();
    for (file, text) in files {
        match documents(&text) {
            Ok(docs) => crds.extend(docs.into_iter().filter(is_crd).map(|crd| SourceCrd {
                file: file.clone(),
                crd,
            })),
            Err(message) => errors.push(Diagnostic::file(&file, message)),
        }
    }
    if errors.is_empty() {
        Ok(crds)
    } else {
        Err(errors)
    }
}

/// `.yaml`, `.yml` and `.json` files under `dir`, recursively, sorted;
/// symbolic links are not followed.
fn files_under(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d)? {
            let entry = entry?;
            let kind = entry.file_type()?;
            let path = entry.path();
            if kind.is_dir() {
                stack.push(path);
            } else if kind.is_file()
                && path
                    .extension()
                    .and_then(|e| e.to_str())
                    .is_some_and(|e| matches!(e, "yaml" | "yml" | "json"))
            {
                out.push(path);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// The documents of a YAML (or JSON) stream, as JSON values.
fn documents(text: &str) -> Result<Vec<Value>, String> {
    let mut out = Vec::new();
    for doc in serde_yaml::Deserializer::from_str(text) {
        let value: serde_yaml::Value =
            serde::Deserialize::deserialize(doc).map_err(|e| format!("invalid YAML: {e}"))?;
        if value.is_null() {
            continue;
        }
        let json = serde_json::to_value(&value)
            .map_err(|e| format!("a document cannot be read as JSON: {e}"))?;
        out.push(json);
    }
    Ok(out)
}

fn is_crd(doc: &Value) -> bool {
    doc.get("apiVersion").and_then(Value::as_str) == Some("apiextensions.k8s.io/v1")
        && doc.get("kind").and_then(Value::as_str) == Some("CustomResourceDefinition")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_documents_and_keeps_only_crds() {
        let text = "apiVersion: v1\nkind: Namespace\nmetadata: {name: x}\n---\n\
                    apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n\
                    metadata: {name: widgets.example.com}\n---\n";
        let docs: Vec<Value> = documents(text)
            .unwrap()
            .into_iter()
            .filter(is_crd)
            .collect();
        assert_eq!(docs.len(), 1);
        assert_eq!(docs[0]["metadata"]["name"], "widgets.example.com");
        assert!(documents("a: [").unwrap_err().contains("invalid YAML"));
    }
}
