//! Reading the CRDs to import: YAML or JSON files, directories of them
//! (recursively, `.yaml`/`.yml`/`.json`, in path order) or standard input;
//! multi-document files split; documents that are not
//! `apiextensions.k8s.io/v1` CustomResourceDefinitions skipped, each named
//! (the caller warns, or refuses under `--strict`).

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

/// A document of the input that is not an `apiextensions.k8s.io/v1`
/// CustomResourceDefinition.
#[derive(Debug, Clone)]
pub struct Skipped {
    /// Where it was read.
    pub file: PathBuf,
    /// Why it is not imported, naming the document.
    pub message: String,
}

/// What the input holds: the CRDs and the documents skipped.
pub struct Input {
    /// The `apiextensions.k8s.io/v1` CRDs, in input order.
    pub crds: Vec<SourceCrd>,
    /// Every other document.
    pub skipped: Vec<Skipped>,
}

/// Reads every CRD in `inputs` (`-` is standard input). Files that cannot
/// be read or parsed are errors; other kinds of documents are skipped and
/// named in [`Input::skipped`].
pub fn read(inputs: &[PathBuf]) -> Result<Input, Vec<Diagnostic>> {
    let mut crds = Vec::new();
    let mut skipped = Vec::new();
    for (file, doc) in read_documents(inputs)? {
        match not_imported(&doc) {
            None => crds.push(SourceCrd { file, crd: doc }),
            Some(message) => skipped.push(Skipped { file, message }),
        }
    }
    Ok(Input { crds, skipped })
}

/// Every document in `inputs` (`-` is standard input), with its file, in
/// input order. Files that cannot be read or parsed are errors.
pub fn read_documents(inputs: &[PathBuf]) -> Result<Vec<(PathBuf, Value)>, Vec<Diagnostic>> {
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
    let mut docs = Vec::new();
    for (file, text) in files {
        match documents(&text) {
            Ok(parsed) => docs.extend(parsed.into_iter().map(|d| (file.clone(), d))),
            Err(message) => errors.push(Diagnostic::file(&file, message)),
        }
    }
    if errors.is_empty() {
        Ok(docs)
    } else {
        Err(errors)
    }
}

/// Why `doc` is not imported (naming it), or `None` for an
/// `apiextensions.k8s.io/v1` CustomResourceDefinition.
pub(crate) fn not_imported(doc: &Value) -> Option<String> {
    let field = |k: &str| doc.get(k).and_then(Value::as_str).unwrap_or("");
    let (api_version, kind) = (field("apiVersion"), field("kind"));
    let name = doc
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or("(no name)");
    match (api_version, kind) {
        ("apiextensions.k8s.io/v1", "CustomResourceDefinition") => None,
        ("apiextensions.k8s.io/v1beta1", "CustomResourceDefinition") => Some(format!(
            "{name} is an apiextensions.k8s.io/v1beta1 CustomResourceDefinition, which kubegen \
             does not import (apiservers stopped serving v1beta1 in Kubernetes 1.22): convert it \
             to apiextensions.k8s.io/v1 (one `schema` per version) and import that"
        )),
        _ if !doc.is_object() => {
            Some("a document that is not an object is not a CustomResourceDefinition".into())
        }
        _ => Some(format!(
            "{name} (apiVersion `{api_version}`, kind `{kind}`) is not a CustomResourceDefinition"
        )),
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
pub(crate) fn documents(text: &str) -> Result<Vec<Value>, String> {
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
            .filter(|d| not_imported(d).is_none())
            .collect();
        assert_eq!(docs.len(), 1);
        assert_eq!(docs[0]["metadata"]["name"], "widgets.example.com");
        assert!(documents("a: [").unwrap_err().contains("invalid YAML"));
    }
}
