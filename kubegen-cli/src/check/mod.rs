//! `kubegen check`: the crate's CRDs (or CRD files) against an earlier
//! release — a git ref whose CRD files it reads with `git show`, a
//! directory, or what a cluster serves ([`cluster`]) — every difference
//! classified by [`compare`] as breaking or safe, breaking changes
//! accepted only where an `allow_breaking` attribute names them and says
//! why.

pub mod cluster;
pub mod compare;
pub mod schema;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use crate::import::read;
use crate::source::Diagnostic;
pub use compare::Change;

/// The rules `kubegen check` applies, by the name its changes carry.
pub const RULES: &[&str] = &[
    "crd-removed",
    "crd-added",
    "scope-changed",
    "name-changed",
    "name-removed",
    "stored-version-removed",
    "served-version-removed",
    "storage-version-changed",
    "subresource-removed",
    "subresource-changed",
    "type-changed",
    "format-changed",
    "nullable-removed",
    "preserve-unknown-fields-removed",
    "default-changed",
    "enum-added",
    "enum-removed",
    "enum-value-removed",
    "enum-value-added",
    "bound-tightened",
    "bound-loosened",
    "pattern-changed",
    "pattern-removed",
    "list-or-map-type-changed",
    "rule-added",
    "rule-removed",
    "required-added",
    "required-removed",
    "field-removed",
    "field-added",
];

/// The earlier release.
#[derive(Clone, Debug)]
pub enum Against {
    /// CRD files in a directory (or one file).
    Files(PathBuf),
    /// The CRD files at `paths` (relative to the repository) in a git ref.
    Git {
        /// The repository (any directory in it).
        repo: PathBuf,
        /// The ref (tag, branch, commit).
        reference: String,
        /// Files or directories in the repository, relative to `repo`.
        paths: Vec<PathBuf>,
    },
}

/// A change found, and whether an allowance covers it.
#[derive(Clone, Debug)]
pub struct Finding {
    /// The CRD's name.
    pub crd: String,
    /// The change.
    pub change: Change,
    /// The reason an `allow_breaking` gives, when one names it.
    pub allowed: Option<String>,
}

/// The outcome.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Every change, CRD by CRD.
    pub findings: Vec<Finding>,
    /// Allowances that name no breaking change found.
    pub unused_allowances: Vec<String>,
}

impl Report {
    /// Breaking changes no allowance covers.
    pub fn refused(&self) -> usize {
        self.findings
            .iter()
            .filter(|f| f.change.breaking && f.allowed.is_none())
            .count()
    }

    /// The report as text: one line per change, then a summary.
    pub fn text(&self, against: &str) -> String {
        let mut out = String::new();
        let mut last = "";
        for f in &self.findings {
            if f.crd != last {
                out.push_str(&format!("{}\n", f.crd));
                last = &f.crd;
            }
            let verdict = match (&f.allowed, f.change.breaking) {
                (Some(_), _) => "allowed ",
                (None, true) => "BREAKING",
                (None, false) => "safe    ",
            };
            out.push_str(&format!(
                "  {verdict} {}: {}",
                f.change.id(),
                f.change.detail
            ));
            if let Some(why) = &f.allowed {
                out.push_str(&format!(" (allowed: {why})"));
            }
            out.push('\n');
        }
        for a in &self.unused_allowances {
            out.push_str(&format!(
                "warning: allow_breaking \"{a}\" names no breaking change against {against}\n"
            ));
        }
        let allowed = self.findings.iter().filter(|f| f.allowed.is_some()).count();
        let safe = self.findings.iter().filter(|f| !f.change.breaking).count();
        let refused = self.refused();
        out.push_str(&format!(
            "kubegen check: {refused} breaking change{} against {against} ({allowed} allowed, {safe} safe)\n",
            if refused == 1 { "" } else { "s" }
        ));
        out
    }

    /// The report as JSON: every change with its verdict.
    pub fn json(&self) -> Value {
        let changes: Vec<Value> = self
            .findings
            .iter()
            .map(|f| {
                json!({
                    "crd": f.crd,
                    "id": f.change.id(),
                    "rule": f.change.rule,
                    "version": f.change.version,
                    "path": f.change.path,
                    "breaking": f.change.breaking,
                    "allowed": f.allowed,
                    "detail": f.change.detail,
                })
            })
            .collect();
        json!({"changes": changes, "unusedAllowances": self.unused_allowances, "refused": self.refused()})
    }
}

/// Compares `current` (CRDs by name) with the earlier release's, applying
/// `allowances` (`"<change id>: <why>"`, by CRD name; an allowance naming
/// no rule is an error reported at `origin`).
pub fn check(
    current: &BTreeMap<String, Value>,
    earlier: &BTreeMap<String, Value>,
    allowances: &BTreeMap<String, Vec<String>>,
    origin: &Path,
) -> Result<Report, Vec<Diagnostic>> {
    let mut errors = Vec::new();
    let mut parsed: BTreeMap<&str, Vec<(String, String)>> = BTreeMap::new();
    for (crd, list) in allowances {
        for a in list {
            let Some((id, why)) = a.split_once(": ") else {
                continue;
            };
            let rule = id.split_whitespace().next().unwrap_or("");
            if !RULES.contains(&rule) {
                let hint = kubegen_core::suggest::suggest(rule, RULES.iter().copied())
                    .map(|s| format!("; did you mean {s}?"))
                    .unwrap_or_default();
                errors.push(Diagnostic::file(
                    origin,
                    format!(
                        "allow_breaking \"{a}\" of {crd}: no rule {rule}{hint} (rules: {})",
                        RULES.join(", ")
                    ),
                ));
            }
            parsed
                .entry(crd.as_str())
                .or_default()
                .push((id.trim().to_string(), why.trim().to_string()));
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let mut report = Report::default();
    let mut used = Vec::new();
    let names: std::collections::BTreeSet<&String> = current.keys().chain(earlier.keys()).collect();
    for name in names {
        let changes = match (earlier.get(name), current.get(name)) {
            (Some(old), Some(new)) => compare::compare(old, new),
            (Some(_), None) => vec![Change {
                rule: "crd-removed",
                version: None,
                path: name.clone(),
                breaking: true,
                detail: format!("the CRD {name} is gone: its objects and clients with it"),
            }],
            (None, Some(_)) => vec![Change {
                rule: "crd-added",
                version: None,
                path: name.clone(),
                breaking: false,
                detail: format!("the CRD {name} is new"),
            }],
            (None, None) => Vec::new(),
        };
        let mine = parsed.get(name.as_str()).cloned().unwrap_or_default();
        for change in changes {
            let allowed = change
                .breaking
                .then(|| mine.iter().find(|(id, _)| *id == change.id()))
                .flatten()
                .map(|(id, why)| {
                    used.push((name.clone(), id.clone()));
                    why.clone()
                });
            report.findings.push(Finding {
                crd: name.clone(),
                change,
                allowed,
            });
        }
    }
    for (crd, list) in &parsed {
        for (id, why) in list {
            if !used.iter().any(|(c, i)| c == crd && i == id) {
                report.unused_allowances.push(format!("{id}: {why}"));
            }
        }
    }
    Ok(report)
}

/// The CRDs of the earlier release, by name.
pub fn earlier(against: &Against) -> Result<BTreeMap<String, Value>, Vec<Diagnostic>> {
    match against {
        Against::Files(path) => {
            let input = read::read(std::slice::from_ref(path))?;
            Ok(by_name(input.crds.into_iter().map(|c| c.crd)))
        }
        Against::Git {
            repo,
            reference,
            paths,
        } => {
            let git = |args: &[&str]| -> Result<String, Vec<Diagnostic>> {
                let out = Command::new("git")
                    .arg("-C")
                    .arg(repo)
                    .args(args)
                    .output()
                    .map_err(|e| vec![Diagnostic::file(repo, format!("cannot run git: {e}"))])?;
                if !out.status.success() {
                    return Err(vec![Diagnostic::file(
                        repo,
                        format!(
                            "git {}: {}",
                            args.join(" "),
                            String::from_utf8_lossy(&out.stderr).trim()
                        ),
                    )]);
                }
                Ok(String::from_utf8_lossy(&out.stdout).into_owned())
            };
            let commit = format!("{reference}^{{commit}}");
            git(&["rev-parse", "--verify", "--quiet", &commit]).map_err(|_| {
                vec![Diagnostic::file(repo, format!(
                    "--against {reference}: neither a directory nor a git ref of the repository at {}",
                    repo.display()
                ))]
            })?;
            let mut args = vec![
                "ls-tree",
                "-r",
                "--name-only",
                "--full-tree",
                reference.as_str(),
                "--",
            ];
            let rel: Vec<String> = paths
                .iter()
                .map(|p| p.to_string_lossy().into_owned())
                .collect();
            args.extend(rel.iter().map(String::as_str));
            let listed = git(&args)?;
            let mut docs = Vec::new();
            for file in listed.lines().filter(|f| {
                Path::new(f)
                    .extension()
                    .and_then(|e| e.to_str())
                    .is_some_and(|e| matches!(e, "yaml" | "yml" | "json"))
            }) {
                let text = git(&["show", &format!("{reference}:{file}")])?;
                let parsed = read::documents(&text).map_err(|m| {
                    vec![Diagnostic::file(repo, format!("{reference}:{file}: {m}"))]
                })?;
                docs.extend(
                    parsed
                        .into_iter()
                        .filter(|d| read::not_imported(d).is_none()),
                );
            }
            Ok(by_name(docs))
        }
    }
}

/// CRDs keyed by `metadata.name`.
pub fn by_name(crds: impl IntoIterator<Item = Value>) -> BTreeMap<String, Value> {
    crds.into_iter()
        .map(|c| {
            let name = c
                .pointer("/metadata/name")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            (name, c)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crd(name: &str, props: Value) -> Value {
        json!({"metadata": {"name": name}, "spec": {"scope": "Namespaced", "names": {"kind": "W"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "properties": props}}}]}})
    }

    #[test]
    fn allowances_accept_what_they_name_and_unused_ones_are_reported() {
        let old = by_name([crd(
            "w.x",
            json!({"a": {"type": "string"}, "b": {"type": "string"}}),
        )]);
        let new = by_name([
            crd("w.x", json!({"b": {"type": "integer"}})),
            crd("n.x", json!({})),
        ]);
        let allow = BTreeMap::from([(
            "w.x".to_string(),
            vec![
                "field-removed v1 .a: moved to .spec.a in v0.4".to_string(),
                "field-removed v1 .c: never existed".to_string(),
            ],
        )]);
        let here = Path::new("Cargo.toml");
        let report = check(&new, &old, &allow, here).unwrap();
        assert_eq!(report.refused(), 1, "{}", report.text("v0.3"));
        let text = report.text("v0.3");
        assert!(text.contains("  allowed  field-removed v1 .a:"), "{text}");
        assert!(text.contains("  BREAKING type-changed v1 .b:"), "{text}");
        assert!(text.contains("  safe     crd-added n.x:"), "{text}");
        assert_eq!(
            report.unused_allowances,
            ["field-removed v1 .c: never existed"]
        );
        let bad = BTreeMap::from([(
            "w.x".to_string(),
            vec!["field-remove v1 .a: typo".to_string()],
        )]);
        let e = check(&new, &old, &bad, here).unwrap_err();
        assert!(
            e[0].message.contains("did you mean field-removed?"),
            "{e:?}"
        );
    }
}
