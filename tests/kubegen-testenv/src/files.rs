//! Files the plane's processes and a test's clients read while the test
//! may write them again: each is replaced whole, never rewritten in place.

use std::io::Write as _;
use std::path::Path;

/// Replaces the file at `path` with `contents` all at once: written to a
/// temporary file beside it and renamed over it. A kubeconfig is rewritten
/// for each process a test starts as the same ServiceAccount (two operator
/// replicas, one after the other), and a certificate each time one is
/// issued for the same name, while a process started earlier may still be
/// reading the file; written in place, that reader could find it
/// truncated.
pub(crate) fn replace(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    let mut file = tempfile::NamedTempFile::new_in(dir)?;
    file.write_all(contents)?;
    file.persist(path).map_err(|e| e.error)?;
    Ok(())
}
