//! Where kubegen may write and what it may remove: paths stay inside the
//! crate (unless the user opted in), no symlink is ever followed, and the
//! removable files are the ones this crate generated.

use std::io;
use std::path::{Component, Path, PathBuf};

use super::{FileError, FileSet, ownership};

/// Whether `path` (relative to the root) leaves the root: absolute, or
/// climbing with `..`.
fn leaves_root(path: &Path) -> bool {
    path.components().any(|c| {
        matches!(
            c,
            Component::ParentDir | Component::RootDir | Component::Prefix(_)
        )
    })
}

/// Checks that `relative` may be written or removed under `root`: inside
/// the root unless `set` allows otherwise, and no existing component below
/// the root a symlink. Returns the full path.
pub fn checked(root: &Path, relative: &Path, set: &FileSet) -> Result<PathBuf, FileError> {
    let full = root.join(relative);
    if leaves_root(relative) && !set.allows_outside_root() {
        return Err(FileError::new(
            &full,
            format!(
                "is outside the crate ({}); kubegen only writes inside the crate unless \
                 `allow-output-outside-crate = true` is set in [package.metadata.kubegen] \
                 (or `--allow-outside-crate` is given)",
                root.display()
            ),
        ));
    }
    // Components from the root (or, for an absolute path, from the file
    // system root) down to the file itself.
    let mut at = if relative.is_absolute() {
        PathBuf::new()
    } else {
        root.to_path_buf()
    };
    for component in relative.components() {
        at.push(component);
        if matches!(
            component,
            Component::RootDir | Component::Prefix(_) | Component::ParentDir
        ) {
            continue;
        }
        match std::fs::symlink_metadata(&at) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(FileError::new(
                    &at,
                    "is a symbolic link; kubegen never writes or removes through symlinks \
                     (replace it with a directory, or point the output setting at the real path)",
                ));
            }
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => break,
            Err(e) => return Err(FileError::io(&at, e)),
        }
    }
    Ok(full)
}

/// Files under the owned directories, relative to `root`, that this crate
/// generated (header and owner marker). Symlinks are neither followed nor
/// returned; unreadable files are not ours.
pub fn owned_files(root: &Path, set: &FileSet) -> Result<Vec<PathBuf>, FileError> {
    let mut out = Vec::new();
    for dir in set.owned_dirs() {
        let full = checked(root, dir, set)?;
        collect(root, &full, set.owner(), &mut out)?;
    }
    out.sort();
    out.dedup();
    Ok(out)
}

fn collect(root: &Path, dir: &Path, owner: &str, out: &mut Vec<PathBuf>) -> Result<(), FileError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
            ) =>
        {
            return Ok(());
        }
        Err(e) => return Err(FileError::io(dir, e)),
    };
    for entry in entries {
        let entry = entry.map_err(|e| FileError::io(dir, e))?;
        let path = entry.path();
        let kind = entry.file_type().map_err(|e| FileError::io(&path, e))?;
        if kind.is_dir() {
            collect(root, &path, owner, out)?;
        } else if kind.is_file()
            && std::fs::read_to_string(&path).is_ok_and(|t| ownership::is_owned_by(&t, owner))
        {
            let relative = path.strip_prefix(root).unwrap_or(&path).to_path_buf();
            out.push(relative);
        }
    }
    Ok(())
}
