//! Go tools and modules the tests need beside the plane, fetched from the
//! Go module proxy: any tool built once into `~/.cache/kubegen/go-tools/`
//! ([`go_install`]), and at the versions `tests/control-plane/versions.env`
//! pins, the `helm` binary and cert-manager's module, whose CRDs the tests
//! install.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

/// The value `versions.env` gives `key` (read from this repository, as
/// the control-plane build script is).
fn pinned(key: &str) -> Result<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../control-plane/versions.env");
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    text.lines()
        .find_map(|line| line.strip_prefix(key)?.strip_prefix('='))
        .map(|v| v.trim().to_string())
        .with_context(|| format!("tests/control-plane/versions.env pins no {key}"))
}

fn cache_dir() -> Result<PathBuf> {
    match std::env::var_os("KUBEGEN_CACHE_DIR") {
        Some(dir) => Ok(PathBuf::from(dir)),
        None => Ok(
            PathBuf::from(std::env::var_os("HOME").context("HOME is not set")?)
                .join(".cache/kubegen"),
        ),
    }
}

/// `go` with the environment every tool build uses: the local toolchain,
/// no workspace, no cgo, modules resolved from the proxy.
fn go() -> Command {
    let mut cmd = Command::new("go");
    cmd.env("GOTOOLCHAIN", "local")
        .env("GOWORK", "off")
        .env("CGO_ENABLED", "0")
        .env("GOFLAGS", "-mod=mod");
    cmd
}

fn run(cmd: &mut Command) -> Result<String> {
    let out = cmd.output().with_context(|| format!("running {cmd:?}"))?;
    if !out.status.success() {
        bail!(
            "{cmd:?} failed ({}):\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The Go command `package` (`module/cmd/x@version`), built on first use
/// into `dir` under `~/.cache/kubegen/go-tools/` (`$KUBEGEN_CACHE_DIR`);
/// the path of its `binary`. Concurrent callers each build into a
/// directory of their own and the first rename wins, so none sees a
/// half-written binary.
pub fn go_install(dir: &Path, package: &str, binary: &str) -> Result<PathBuf> {
    let dir = cache_dir()?.join("go-tools").join(dir);
    let bin = dir.join(binary);
    if bin.is_file() {
        return Ok(bin);
    }
    let staging = dir.with_extension(format!("tmp-{}", std::process::id()));
    eprintln!("building {package} into {}", dir.display());
    run(go().env("GOBIN", &staging).args(["install", package]))?;
    std::fs::create_dir_all(&dir)?;
    if std::fs::rename(staging.join(binary), &bin).is_err() && !bin.is_file() {
        bail!("could not move {binary} into {}", dir.display());
    }
    let _ = std::fs::remove_dir_all(&staging);
    Ok(bin)
}

/// The pinned `helm`, built on first use (a few minutes cold).
pub fn helm() -> Result<PathBuf> {
    let version = pinned("HELM_VERSION")?;
    go_install(
        Path::new(&format!("helm-v{version}")),
        &format!("helm.sh/helm/v4/cmd/helm@v{version}"),
        "helm",
    )
}

/// The directory of the pinned cert-manager module (downloaded on first
/// use), whose `deploy/crds` holds its CRDs.
pub fn cert_manager_module() -> Result<PathBuf> {
    let version = pinned("CERT_MANAGER_VERSION")?;
    let json = run(go().args([
        "mod",
        "download",
        "-json",
        &format!("github.com/cert-manager/cert-manager@v{version}"),
    ]))?;
    let value: serde_json::Value = serde_json::from_str(&json).context("go mod download -json")?;
    let dir = value["Dir"]
        .as_str()
        .context("go mod download printed no Dir")?;
    Ok(Path::new(dir).to_path_buf())
}
