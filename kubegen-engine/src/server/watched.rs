//! [`Watched`]: a value read from files and read again when they change —
//! the served certificate (`tls`) and the trusted client CAs
//! (`client_ca`), which cert-manager and Secret volumes rotate in place.
//! The files are checked at most once a second; a change that cannot be
//! read (a half-written file) keeps the previous value in service and is
//! logged, and is tried again at the next check.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

/// How often, at most, the files are checked for a change.
pub(super) const RECHECK: Duration = Duration::from_secs(1);

/// What identifies one version of the files: each one's modification time
/// and length (following symlinks, as a Secret volume's `..data` swap
/// needs).
type Stamp = Vec<Option<(SystemTime, u64)>>;

fn stamp(paths: &[PathBuf]) -> Stamp {
    paths
        .iter()
        .map(|path| {
            let meta = std::fs::metadata(path).ok()?;
            Some((meta.modified().ok()?, meta.len()))
        })
        .collect()
}

/// A value read from `paths` by `read`.
pub(super) struct Watched<T> {
    /// What the value is, for the log (`serving certificate`).
    what: &'static str,
    paths: Vec<PathBuf>,
    read: fn(&[PathBuf]) -> std::io::Result<T>,
    loaded: parking_lot::Mutex<Loaded<T>>,
}

struct Loaded<T> {
    current: Arc<T>,
    stamp: Stamp,
    checked: Instant,
}

impl<T> std::fmt::Debug for Watched<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Watched")
            .field("what", &self.what)
            .field("paths", &self.paths)
            .finish_non_exhaustive()
    }
}

impl<T> Watched<T> {
    /// Reads the value; files that cannot be read fail here.
    pub(super) fn load(
        what: &'static str,
        paths: &[&Path],
        read: fn(&[PathBuf]) -> std::io::Result<T>,
    ) -> std::io::Result<Self> {
        let paths: Vec<PathBuf> = paths.iter().map(|p| p.to_path_buf()).collect();
        let stamp = stamp(&paths);
        let current = Arc::new(read(&paths)?);
        Ok(Watched {
            what,
            paths,
            read,
            loaded: parking_lot::Mutex::new(Loaded {
                current,
                stamp,
                checked: Instant::now(),
            }),
        })
    }

    /// The value, read again first when the files changed since the last
    /// check (at most one check per [`RECHECK`]).
    pub(super) fn current(&self) -> Arc<T> {
        let mut loaded = self.loaded.lock();
        if loaded.checked.elapsed() >= RECHECK {
            loaded.checked = Instant::now();
            let stamp = stamp(&self.paths);
            if stamp != loaded.stamp {
                match (self.read)(&self.paths) {
                    Ok(value) => {
                        loaded.current = Arc::new(value);
                        loaded.stamp = stamp;
                        tracing::info!(file = %self.paths[0].display(), "{} reloaded", self.what);
                    }
                    Err(error) => tracing::warn!(
                        file = %self.paths[0].display(),
                        %error,
                        "the changed {} cannot be used; keeping the previous one",
                        self.what
                    ),
                }
            }
        }
        loaded.current.clone()
    }

    /// Makes the next [`Watched::current`] check the files (`due`) or not.
    #[cfg(test)]
    pub(super) fn check_next(&self, due: bool) {
        self.loaded.lock().checked = if due {
            Instant::now() - RECHECK
        } else {
            Instant::now()
        };
    }
}
