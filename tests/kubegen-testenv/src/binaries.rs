//! Where the control-plane binaries come from: `tests/control-plane/build.sh`
//! (which builds them once into `~/.cache/kubegen/control-plane/<versions>/`),
//! or a directory named by `KUBEGEN_CONTROL_PLANE_DIR`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use anyhow::{Context, Result, bail};

/// Environment variable naming a ready control-plane directory (with `bin/`
/// and `stages/`), which skips running the build script.
pub const CONTROL_PLANE_DIR_ENV: &str = "KUBEGEN_CONTROL_PLANE_DIR";

/// The built control plane: its binaries and kwok's stage configs.
#[derive(Debug, Clone)]
pub struct ControlPlaneDir {
    root: PathBuf,
}

impl ControlPlaneDir {
    /// Finds the control plane, building it first when it is missing.
    /// The result is cached for the life of the process.
    pub fn locate() -> Result<&'static ControlPlaneDir> {
        static DIR: OnceLock<ControlPlaneDir> = OnceLock::new();
        if let Some(dir) = DIR.get() {
            return Ok(dir);
        }
        let root = match std::env::var_os(CONTROL_PLANE_DIR_ENV) {
            Some(dir) => PathBuf::from(dir),
            None => run_build_script()?,
        };
        let dir = ControlPlaneDir { root };
        for name in [
            "etcd",
            "kube-apiserver",
            "kube-controller-manager",
            "kube-scheduler",
            "kubectl",
            "kwok",
        ] {
            let path = dir.bin(name);
            if !path.is_file() {
                bail!("control-plane binary {} is missing", path.display());
            }
        }
        Ok(DIR.get_or_init(|| dir))
    }

    /// Path of one binary, e.g. `bin("kube-apiserver")`.
    pub fn bin(&self, name: &str) -> PathBuf {
        self.root.join("bin").join(name)
    }

    /// The directory that holds the binaries.
    pub fn bin_dir(&self) -> PathBuf {
        self.root.join("bin")
    }

    /// The directory of kwok stage configs copied from the kwok module.
    pub fn stages_dir(&self) -> PathBuf {
        self.root.join("stages")
    }
}

/// Path of the build script in this repository.
pub fn build_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../control-plane/build.sh")
}

fn run_build_script() -> Result<PathBuf> {
    let script = build_script();
    let output = Command::new("bash")
        .arg(&script)
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .with_context(|| format!("running {}", script.display()))?;
    if !output.status.success() {
        bail!("{} failed with {}", script.display(), output.status);
    }
    let stdout = String::from_utf8(output.stdout)?;
    let last = stdout
        .lines()
        .last()
        .context("the build script printed no output directory")?;
    Ok(PathBuf::from(last.trim()))
}
