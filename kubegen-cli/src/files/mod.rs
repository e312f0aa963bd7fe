//! Generated files and how they reach the disk: written only when their
//! content changes, stale generated files removed, and a `--check` mode that
//! writes nothing and reports every difference.

mod diff;
mod ownership;
mod scan;
mod write;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

pub use diff::unified_diff;
pub use write::write;

/// First line of every generated Rust file.
pub use kubegen_core::output::RUST_HEADER;

/// The complete output of one generator run for one crate: file contents by
/// path relative to the crate root, plus the directories whose generated
/// files the generator owns (a file there that this crate generated and no
/// longer produces is removed). Every file is stamped with the crate's name
/// after its `@generated` header, which is what makes it removable later.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct FileSet {
    owner: String,
    files: BTreeMap<PathBuf, String>,
    owned_dirs: BTreeSet<PathBuf>,
    outside_root: bool,
}

impl FileSet {
    /// An empty set for the crate (package) `owner`.
    pub fn new(owner: &str) -> Self {
        FileSet {
            owner: owner.to_string(),
            ..FileSet::default()
        }
    }

    /// Adds (or replaces) a file, stamped with the owner.
    pub fn insert(&mut self, path: impl Into<PathBuf>, contents: impl Into<String>) {
        let contents = ownership::stamp(contents.into(), &self.owner);
        self.files.insert(path.into(), contents);
    }

    /// Declares `dir` (relative to the root) as owned by the generator.
    pub fn own_dir(&mut self, dir: impl Into<PathBuf>) {
        self.owned_dirs.insert(dir.into());
    }

    /// Lets paths leave the root (absolute or `..`): an explicit opt-in,
    /// for output shared between crates. Files are still only removed when
    /// this crate generated them.
    pub fn allow_outside_root(&mut self) {
        self.outside_root = true;
    }

    /// Whether paths may leave the root.
    pub fn allows_outside_root(&self) -> bool {
        self.outside_root
    }

    /// The crate the files are generated for.
    pub fn owner(&self) -> &str {
        &self.owner
    }

    /// The owned directories.
    pub fn owned_dirs(&self) -> impl Iterator<Item = &Path> {
        self.owned_dirs.iter().map(PathBuf::as_path)
    }

    /// The files, sorted by path.
    pub fn files(&self) -> impl Iterator<Item = (&Path, &str)> {
        self.files.iter().map(|(p, c)| (p.as_path(), c.as_str()))
    }

    /// The contents of one file, if produced.
    pub fn get(&self, path: &Path) -> Option<&str> {
        self.files.get(path).map(String::as_str)
    }

    /// Number of files.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether no file was produced.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

/// A file operation that failed or was refused, with the path concerned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileError {
    /// The file or directory concerned.
    pub path: PathBuf,
    /// What went wrong, and what to do about it.
    pub message: String,
    /// False only when a failed write could not be undone completely.
    pub restored: bool,
}

impl FileError {
    fn new(path: &Path, message: impl Into<String>) -> Self {
        FileError {
            path: path.to_path_buf(),
            message: message.into(),
            restored: true,
        }
    }

    fn io(path: &Path, error: io::Error) -> Self {
        FileError::new(path, error.to_string())
    }

    fn with_note(mut self, note: &str) -> Self {
        self.message = format!("{} ({note})", self.message);
        self
    }
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.message)
    }
}

impl std::error::Error for FileError {}

/// What [`write()`] did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct WriteReport {
    /// Files created or rewritten because their content changed.
    pub written: Vec<PathBuf>,
    /// Files whose content was already up to date (left untouched).
    pub unchanged: Vec<PathBuf>,
    /// Generated files removed because they are no longer produced.
    pub removed: Vec<PathBuf>,
}

/// One difference between the generated output and the disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Drift {
    /// The file would be created.
    Missing(PathBuf),
    /// The file exists with other content; carries a unified diff from the
    /// disk to the generated content.
    Stale(PathBuf, String),
    /// A generated file on disk that would be removed.
    Extra(PathBuf),
}

impl Drift {
    /// The path concerned.
    pub fn path(&self) -> &Path {
        match self {
            Drift::Missing(p) | Drift::Stale(p, _) | Drift::Extra(p) => p,
        }
    }
}

/// Compares `set` with the files under `root` without writing anything.
/// Returns every difference, sorted by path.
pub fn check(root: &Path, set: &FileSet) -> Result<Vec<Drift>, FileError> {
    let mut drift = Vec::new();
    for (path, contents) in set.files() {
        let full = scan::checked(root, path, set)?;
        match std::fs::read_to_string(&full) {
            Ok(old) if old == contents => {}
            Ok(old) => {
                let name = path.display().to_string();
                drift.push(Drift::Stale(
                    path.to_path_buf(),
                    unified_diff(&old, contents, &name),
                ));
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                drift.push(Drift::Missing(path.to_path_buf()))
            }
            Err(e) => return Err(FileError::io(&full, e)),
        }
    }
    for path in scan::owned_files(root, set)? {
        if set.get(&path).is_none() {
            drift.push(Drift::Extra(path));
        }
    }
    drift.sort_by(|a, b| a.path().cmp(b.path()));
    Ok(drift)
}

#[cfg(test)]
mod tests {
    use super::*;
    use kubegen_core::output::YAML_HEADER;

    fn set() -> FileSet {
        let mut set = FileSet::new("shop");
        set.own_dir("config/crd");
        set.insert("config/crd/a.yaml", format!("{YAML_HEADER}a: 1\n"));
        set.insert(
            "src/generated/mod.rs",
            format!("{RUST_HEADER}\npub mod x;\n"),
        );
        set
    }

    #[test]
    fn writes_only_changed_files_and_removes_stale_generated_ones() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let first = write(root, &set()).unwrap();
        assert_eq!(first.written.len(), 2);
        assert!(first.unchanged.is_empty());

        let mtime = |p: &str| std::fs::metadata(root.join(p)).unwrap().modified().unwrap();
        let before = mtime("config/crd/a.yaml");
        std::thread::sleep(std::time::Duration::from_millis(20));
        let second = write(root, &set()).unwrap();
        assert!(second.written.is_empty(), "{second:?}");
        assert_eq!(second.unchanged.len(), 2);
        assert_eq!(
            before,
            mtime("config/crd/a.yaml"),
            "unchanged file rewritten"
        );

        // A generated file no longer produced is removed; a hand-written
        // file in the same directory is kept.
        // A file this crate generated and no longer produces is removed; a
        // hand-written file, another crate's generated file and a file with
        // the header but no owner in the same directory are kept.
        std::fs::write(
            root.join("config/crd/old.yaml"),
            format!("{YAML_HEADER}# kubegen:crate=shop\n"),
        )
        .unwrap();
        std::fs::write(root.join("config/crd/mine.yaml"), "kind: Mine\n").unwrap();
        std::fs::write(
            root.join("config/crd/theirs.yaml"),
            format!("{YAML_HEADER}# kubegen:crate=other\n"),
        )
        .unwrap();
        std::fs::write(root.join("config/crd/anon.yaml"), YAML_HEADER).unwrap();
        let third = write(root, &set()).unwrap();
        assert_eq!(third.removed, vec![PathBuf::from("config/crd/old.yaml")]);
        assert!(root.join("config/crd/mine.yaml").exists());
        assert!(root.join("config/crd/theirs.yaml").exists());
        assert!(root.join("config/crd/anon.yaml").exists());
        assert!(!root.join("config/crd/old.yaml").exists());
    }

    #[test]
    fn check_reports_missing_stale_and_extra_without_writing() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let drift = check(root, &set()).unwrap();
        assert_eq!(
            drift,
            vec![
                Drift::Missing("config/crd/a.yaml".into()),
                Drift::Missing("src/generated/mod.rs".into()),
            ]
        );
        assert!(!root.join("config").exists(), "check must not write");

        write(root, &set()).unwrap();
        assert!(check(root, &set()).unwrap().is_empty());

        std::fs::write(
            root.join("config/crd/a.yaml"),
            format!("{YAML_HEADER}# kubegen:crate=shop\na: 2\n"),
        )
        .unwrap();
        std::fs::write(
            root.join("config/crd/z.yaml"),
            format!("{YAML_HEADER}# kubegen:crate=shop\n"),
        )
        .unwrap();
        let drift = check(root, &set()).unwrap();
        assert_eq!(drift.len(), 2, "{drift:?}");
        match &drift[0] {
            Drift::Stale(path, diff) => {
                assert_eq!(path, Path::new("config/crd/a.yaml"));
                assert!(diff.contains("-a: 2\n+a: 1"), "{diff}");
            }
            other => panic!("expected stale, got {other:?}"),
        }
        assert_eq!(drift[1], Drift::Extra("config/crd/z.yaml".into()));
        assert!(
            root.join("config/crd/z.yaml").exists(),
            "check must not delete"
        );
    }
}
