//! `kubegen import`: CRD YAML → annotated Rust types in a crate, such that
//! `kubegen generate` on that crate reproduces the CRD node for node.
//!
//! `read` finds the CRDs; `resource` and `plan` turn each version
//! into a module of Rust types with `#[kubegen(...)]` attributes (`attrs`
//! writes them, `names` gives the types idiomatic names); `verify` proves each CRD by regenerating
//! it in process and comparing (`diff`) — writing a node verbatim where
//! attributes cannot reproduce it — and `layout` puts the modules into
//! the crate (creating a minimal one when there is none). Nothing is
//! written unless every input was read; refused CRDs are reported, not
//! written.

mod attrs;
mod diff;
mod layout;
mod names;
mod plan;
pub(crate) mod read;
mod resource;
mod verify;

use std::path::{Path, PathBuf};

pub use diff::{Difference, compare};
pub use verify::Verdict;

use crate::files::FileSet;
use crate::source::Diagnostic;

/// What to import, and where.
#[derive(Debug, Clone)]
pub struct Options {
    /// CRD files, directories or `-` (standard input).
    pub inputs: Vec<PathBuf>,
    /// The crate to write into (created when it has no `Cargo.toml`).
    pub crate_dir: PathBuf,
    /// The module (under `src/`) that holds the imported APIs.
    pub module: String,
    /// A kubegen source tree for a created crate's dependencies (else the
    /// published crates at this CLI's version).
    pub kubegen_path: Option<PathBuf>,
    /// Refuse (rather than warn about) input documents that are not
    /// `apiextensions.k8s.io/v1` CustomResourceDefinitions.
    pub strict: bool,
}

/// One imported CRD's outcome.
#[derive(Debug, Clone)]
pub struct Report {
    /// `metadata.name`.
    pub name: String,
    /// The file it was read from.
    pub file: PathBuf,
    /// Identical, differing (with each difference) or refused (with why).
    pub verdict: Verdict,
    /// Schema nodes written verbatim with `schema_json`.
    pub explicit_nodes: usize,
}

/// The files to write and the per-CRD reports.
pub struct Imported {
    /// The crate's new and changed files.
    pub files: FileSet,
    /// One report per CRD read.
    pub reports: Vec<Report>,
    /// Input documents that are not `apiextensions.k8s.io/v1` CRDs, each
    /// named: skipped (an error under [`Options::strict`]).
    pub warnings: Vec<Diagnostic>,
}

/// Reads, plans and verifies every CRD; returns the files to write. Fails
/// (writing nothing) when an input cannot be read, holds no CRD or (with
/// [`Options::strict`]) holds other documents, or the crate cannot take
/// the modules.
pub fn import(options: &Options) -> Result<Imported, Vec<Diagnostic>> {
    let read::Input { crds, skipped } = read::read(&options.inputs)?;
    let mut warnings: Vec<Diagnostic> = skipped
        .into_iter()
        .map(|s| Diagnostic::file(&s.file, s.message))
        .collect();
    if options.strict && !warnings.is_empty() {
        for w in &mut warnings {
            w.message.push_str(
                " (`--strict` refuses every input document that is not one; leave it out to skip them with a warning)",
            );
        }
        return Err(warnings);
    }
    if crds.is_empty() {
        warnings.push(Diagnostic::file(
            Path::new(
                options
                    .inputs
                    .first()
                    .map_or(Path::new("-"), |p| p.as_path()),
            ),
            "no apiextensions.k8s.io/v1 CustomResourceDefinition found in the input",
        ));
        return Err(warnings);
    }
    let mut reports = Vec::new();
    let mut accepted = Vec::new();
    for (source, imported) in crds.iter().zip(prove_all(&crds)) {
        // `prove_all` proves the first CRD of each name only.
        let Some(imported) = imported else {
            reports.push(Report {
                name: source.name().to_owned(),
                file: source.file.clone(),
                verdict: Verdict::Refused(
                    "a CRD of this name was already imported from an earlier input".into(),
                ),
                explicit_nodes: 0,
            });
            continue;
        };
        reports.push(Report {
            name: source.name().to_owned(),
            file: source.file.clone(),
            verdict: imported.verdict.clone(),
            explicit_nodes: imported.explicit_nodes,
        });
        if !matches!(imported.verdict, Verdict::Refused(_)) {
            accepted.push(imported.modules);
        }
    }
    if accepted.is_empty() {
        return Err(reports
            .iter()
            .map(|r| match &r.verdict {
                Verdict::Refused(why) => {
                    Diagnostic::file(&r.file, format!("{} cannot be imported: {why}", r.name))
                }
                _ => Diagnostic::file(&r.file, format!("{} cannot be imported", r.name)),
            })
            .collect());
    }
    let files = layout::files(options, accepted)?;
    Ok(Imported {
        files,
        reports,
        warnings,
    })
}

/// [`verify::import`] for every CRD (each proof is independent), on as
/// many threads as the machine has cores; the first CRD of each name only.
fn prove_all(crds: &[read::SourceCrd]) -> Vec<Option<verify::Imported>> {
    let mut seen = std::collections::BTreeSet::new();
    let todo: Vec<bool> = crds.iter().map(|c| seen.insert(c.name())).collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let workers = std::thread::available_parallelism().map_or(1, usize::from);
    let mut out: Vec<Option<verify::Imported>> = (0..crds.len()).map(|_| None).collect();
    let done: Vec<(usize, verify::Imported)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers.min(crds.len()))
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(source) = crds.get(i) else { break };
                        if todo[i] {
                            mine.push((i, verify::import(&source.crd)));
                        }
                    }
                    mine
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    });
    for (i, imported) in done {
        out[i] = Some(imported);
    }
    out
}
