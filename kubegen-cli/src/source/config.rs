//! Generator settings: `[package.metadata.kubegen]` in the crate's
//! Cargo.toml, overridden by command-line flags.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::Diagnostic;

/// Where and how `kubegen generate` writes, read from
/// `[package.metadata.kubegen]`:
///
/// ```toml
/// [package.metadata.kubegen]
/// modules = ["api", "controller"]   # modules to scan (default: the whole crate)
/// crd-dir = "config/crd"
/// rbac-dir = "config/rbac"
/// webhook-dir = "config/webhook"   # admission webhook configurations
/// rust-out = "src/generated"
/// docs-dir = "docs/api"             # API reference and editor schemas
/// header-file = "hack/header.txt"   # text put under the @generated line
/// max-description-len = 200         # cap on schema descriptions
/// role-name = "my-operator"         # name of the generated (Cluster)Role
/// builtins = ["apps/v1/Deployment", "v1/Service"]  # typed access to built-in kinds
/// allow-output-outside-crate = false  # opt in to output dirs outside the crate
///
/// [package.metadata.kubegen.helm]   # a Helm chart, when present
/// dir = "charts/my-operator"        # where the chart is written
/// name = "my-operator"              # the chart's name (default: the package's)
/// version = "0.1.0"                 # chart version (default: the package's)
/// image = "ghcr.io/me/my-operator"  # default image repository (default: the package's name)
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields, default)]
pub struct Settings {
    /// Module paths (relative to the crate root module, `::`-separated) whose
    /// files are scanned; empty means the whole crate.
    pub modules: Vec<String>,
    /// Directory of the CRD YAML files.
    pub crd_dir: PathBuf,
    /// Directory of the RBAC YAML file.
    pub rbac_dir: PathBuf,
    /// Directory of the admission webhook configurations.
    pub webhook_dir: PathBuf,
    /// Directory of the generated Rust modules.
    pub rust_out: PathBuf,
    /// Directory of the API reference (Markdown) and editor JSON Schemas;
    /// unset, `generate` writes none (`kubegen docs` still can).
    pub docs_dir: Option<PathBuf>,
    /// A file whose text is put, as comments, under the `@generated` line
    /// of every generated file (e.g. a licence header).
    pub header_file: Option<PathBuf>,
    /// Descriptions longer than this are cut (controller-gen's maxDescLen)
    /// in resources that set no `max_description_len` of their own.
    pub max_description_len: Option<usize>,
    /// Name of the generated ClusterRole/Role (default `<package>-manager`).
    pub role_name: Option<String>,
    /// Built-in kinds to generate clients, listers and informers for, as
    /// `group/version/Kind` (`v1/Service` for the core group).
    pub builtins: Vec<String>,
    /// Output directories may lie outside the crate (absolute or `..`),
    /// e.g. one folder of CRDs shared by several crates. Off by default;
    /// even when on, only files generated for this crate are removed.
    pub allow_output_outside_crate: bool,
    /// A Helm chart to write (`[package.metadata.kubegen.helm]`); none when
    /// absent.
    pub helm: Option<HelmSettings>,
}

/// `[package.metadata.kubegen.helm]`: where and under which name
/// `kubegen generate` writes the operator's Helm chart.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct HelmSettings {
    /// The chart's directory (e.g. `charts/my-operator`); kubegen owns it.
    pub dir: PathBuf,
    /// The chart's name; the package's name when unset.
    pub name: Option<String>,
    /// The chart's version (SemVer 2); the package's version when unset.
    pub version: Option<String>,
    /// The image repository `values.yaml` names; the package's name when
    /// unset. The tag defaults to the chart's `appVersion`.
    pub image: Option<String>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            modules: Vec::new(),
            crd_dir: PathBuf::from("config/crd"),
            rbac_dir: PathBuf::from("config/rbac"),
            webhook_dir: PathBuf::from("config/webhook"),
            rust_out: PathBuf::from("src/generated"),
            docs_dir: None,
            header_file: None,
            max_description_len: None,
            role_name: None,
            builtins: Vec::new(),
            allow_output_outside_crate: false,
            helm: None,
        }
    }
}

/// What the generator needs from a crate's Cargo.toml.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Manifest {
    /// The crate's package name.
    pub package: String,
    /// The package's version, read through `version.workspace = true`
    /// (`0.0.0`, Cargo's default, when absent).
    pub version: String,
    /// The crate's root source file (library first, then binary).
    pub root_file: PathBuf,
    /// `[package.metadata.kubegen]`, or defaults.
    pub settings: Settings,
    /// `[features]`: each feature and what it enables.
    pub features: BTreeMap<String, Vec<String>>,
    /// Optional dependencies: each is also a feature unless a feature
    /// names it as `dep:name`.
    pub optional_dependencies: BTreeSet<String>,
}

/// Which features the crate is read with: cargo's `--features`,
/// `--all-features` and `--no-default-features`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FeatureSelection {
    /// Features asked for by name.
    pub features: Vec<String>,
    /// Every feature.
    pub all_features: bool,
    /// Leave out the `default` feature.
    pub no_default_features: bool,
}

impl Manifest {
    /// The features enabled by `selection`, closed over what each enables,
    /// as cargo computes them for this package.
    pub fn enabled_features(
        &self,
        selection: &FeatureSelection,
        manifest_path: &Path,
    ) -> Result<BTreeSet<String>, Diagnostic> {
        let explicit_deps: BTreeSet<&str> = self
            .features
            .values()
            .flatten()
            .filter_map(|e| e.strip_prefix("dep:"))
            .collect();
        let implicit: BTreeSet<&String> = self
            .optional_dependencies
            .iter()
            .filter(|d| !explicit_deps.contains(d.as_str()))
            .collect();
        let is_feature =
            |name: &str| self.features.contains_key(name) || implicit.iter().any(|d| *d == name);
        let mut wanted: Vec<String> = Vec::new();
        if selection.all_features {
            wanted.extend(self.features.keys().cloned());
            wanted.extend(implicit.iter().map(|d| d.to_string()));
        }
        if !selection.no_default_features && self.features.contains_key("default") {
            wanted.push("default".into());
        }
        for name in selection.features.iter().flat_map(|f| f.split([',', ' '])) {
            if name.is_empty() {
                continue;
            }
            if !is_feature(name) {
                return Err(Diagnostic::file(
                    manifest_path,
                    format!("the package `{}` has no feature `{name}`", self.package),
                ));
            }
            wanted.push(name.to_string());
        }
        let mut enabled = BTreeSet::new();
        while let Some(name) = wanted.pop() {
            if !enabled.insert(name.clone()) {
                continue;
            }
            for entry in self.features.get(&name).into_iter().flatten() {
                if entry.starts_with("dep:") {
                    continue;
                }
                // `dep/feature` enables `dep` (a feature when optional);
                // `dep?/feature` does not.
                let head = match entry.split_once('/') {
                    Some((dep, _)) if dep.ends_with('?') => continue,
                    Some((dep, _)) => dep,
                    None => entry.as_str(),
                };
                if is_feature(head) {
                    wanted.push(head.to_string());
                }
            }
        }
        Ok(enabled)
    }
}

#[derive(Deserialize)]
struct RawManifest {
    package: Option<RawPackage>,
    lib: Option<RawTarget>,
    #[serde(default)]
    features: BTreeMap<String, Vec<String>>,
    #[serde(default)]
    dependencies: BTreeMap<String, toml::Value>,
}

#[derive(Deserialize)]
struct RawPackage {
    name: String,
    #[serde(default)]
    version: Option<toml::Value>,
    #[serde(default)]
    metadata: Option<RawMetadata>,
}

#[derive(Deserialize)]
struct RawMetadata {
    kubegen: Option<toml::Value>,
}

#[derive(Deserialize)]
struct RawTarget {
    path: Option<PathBuf>,
}

impl Manifest {
    /// Reads `manifest_path` (a Cargo.toml). Paths in the result are
    /// relative to the manifest's directory.
    /// Diagnostics name the manifest relative to the crate root, like every
    /// other file of the crate.
    pub fn read(manifest_path: &Path) -> Result<Manifest, Diagnostic> {
        let shown = Path::new(manifest_path.file_name().unwrap_or("Cargo.toml".as_ref()));
        let text = std::fs::read_to_string(manifest_path)
            .map_err(|e| Diagnostic::file(shown, format!("cannot read: {e}")))?;
        let raw: RawManifest = toml::from_str(&text)
            .map_err(|e| Diagnostic::file(shown, format!("invalid Cargo.toml: {e}")))?;
        let package = raw.package.ok_or_else(|| {
            Diagnostic::file(
                shown,
                "no [package] section: point --manifest-path at a crate, not a workspace",
            )
        })?;
        let settings = match package.metadata.and_then(|m| m.kubegen) {
            Some(value) => value.try_into::<Settings>().map_err(|e| {
                Diagnostic::file(shown, format!("invalid [package.metadata.kubegen]: {e}"))
            })?,
            None => Settings::default(),
        };
        let dir = manifest_path.parent().unwrap_or(Path::new("."));
        let root_file = match raw.lib.and_then(|l| l.path) {
            Some(path) => path,
            None if dir.join("src/lib.rs").exists() => PathBuf::from("src/lib.rs"),
            None if dir.join("src/main.rs").exists() => PathBuf::from("src/main.rs"),
            None => {
                return Err(Diagnostic::file(
                    shown,
                    "the crate has neither src/lib.rs nor src/main.rs",
                ));
            }
        };
        let optional_dependencies = raw
            .dependencies
            .iter()
            .filter(|(_, spec)| spec.get("optional").and_then(toml::Value::as_bool) == Some(true))
            .map(|(name, _)| name.clone())
            .collect();
        let version = match &package.version {
            None => "0.0.0".to_string(),
            Some(toml::Value::String(v)) => v.clone(),
            Some(v) if v.get("workspace").and_then(toml::Value::as_bool) == Some(true) => {
                workspace_version(dir).ok_or_else(|| {
                    Diagnostic::file(
                        shown,
                        "`version.workspace = true`, but no enclosing workspace sets `[workspace.package] version`",
                    )
                })?
            }
            Some(_) => {
                return Err(Diagnostic::file(
                    shown,
                    "invalid Cargo.toml: `package.version` is neither a string nor `{ workspace = true }`",
                ));
            }
        };
        Ok(Manifest {
            package: package.name,
            version,
            root_file,
            settings,
            features: raw.features,
            optional_dependencies,
        })
    }
}

/// `[workspace.package] version` of the nearest enclosing workspace
/// manifest above `dir`, as Cargo resolves `version.workspace = true`.
fn workspace_version(dir: &Path) -> Option<String> {
    let start = dir.canonicalize().ok()?;
    for ancestor in start.ancestors().skip(1) {
        let Ok(text) = std::fs::read_to_string(ancestor.join("Cargo.toml")) else {
            continue;
        };
        let table: toml::Table = toml::from_str(&text).ok()?;
        if let Some(workspace) = table.get("workspace") {
            return workspace
                .get("package")?
                .get("version")?
                .as_str()
                .map(str::to_string);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest(dir: &Path, extra: &str) -> PathBuf {
        std::fs::create_dir_all(dir.join("src")).unwrap();
        std::fs::write(dir.join("src/lib.rs"), "").unwrap();
        let path = dir.join("Cargo.toml");
        std::fs::write(
            &path,
            format!("[package]\nname = \"demo\"\nversion = \"0.1.0\"\n{extra}"),
        )
        .unwrap();
        path
    }

    #[test]
    fn defaults_without_metadata() {
        let dir = tempfile::tempdir().unwrap();
        let m = Manifest::read(&manifest(dir.path(), "")).unwrap();
        assert_eq!(m.package, "demo");
        assert_eq!(m.root_file, PathBuf::from("src/lib.rs"));
        assert_eq!(m.settings, Settings::default());
    }

    #[test]
    fn reads_metadata() {
        let dir = tempfile::tempdir().unwrap();
        let path = manifest(
            dir.path(),
            "[package.metadata.kubegen]\nmodules = [\"api\"]\ncrd-dir = \"deploy/crds\"\nmax-description-len = 80\n",
        );
        let m = Manifest::read(&path).unwrap();
        assert_eq!(m.settings.modules, vec!["api".to_string()]);
        assert_eq!(m.settings.crd_dir, PathBuf::from("deploy/crds"));
        assert_eq!(m.settings.rust_out, PathBuf::from("src/generated"));
        assert_eq!(m.settings.max_description_len, Some(80));
    }

    #[test]
    fn versions_are_read_through_the_workspace() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("Cargo.toml"),
            "[workspace]\nmembers = [\"op\"]\n[workspace.package]\nversion = \"1.2.3\"\n",
        )
        .unwrap();
        let op = dir.path().join("op");
        std::fs::create_dir_all(op.join("src")).unwrap();
        std::fs::write(op.join("src/lib.rs"), "").unwrap();
        let path = op.join("Cargo.toml");
        std::fs::write(
            &path,
            "[package]\nname = \"op\"\nversion.workspace = true\n",
        )
        .unwrap();
        assert_eq!(Manifest::read(&path).unwrap().version, "1.2.3");
        std::fs::write(dir.path().join("Cargo.toml"), "[workspace]\n").unwrap();
        let err = Manifest::read(&path).unwrap_err().to_string();
        assert!(err.contains("[workspace.package] version"), "{err}");
        std::fs::write(&path, "[package]\nname = \"op\"\n").unwrap();
        assert_eq!(Manifest::read(&path).unwrap().version, "0.0.0");
        let own = manifest(
            dir.path(),
            "[package.metadata.kubegen.helm]\ndir = \"charts/demo\"\n",
        );
        let m = Manifest::read(&own).unwrap();
        assert_eq!(m.version, "0.1.0");
        assert_eq!(m.settings.helm.unwrap().dir, PathBuf::from("charts/demo"));
    }

    #[test]
    fn unknown_settings_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let path = manifest(dir.path(), "[package.metadata.kubegen]\ncrd-dirs = \"x\"\n");
        let err = Manifest::read(&path).unwrap_err().to_string();
        assert!(err.contains("unknown field `crd-dirs`"), "{err}");
    }

    #[test]
    fn workspace_manifest_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("Cargo.toml");
        std::fs::write(&path, "[workspace]\nmembers = []\n").unwrap();
        let err = Manifest::read(&path).unwrap_err().to_string();
        assert!(err.contains("no [package] section"), "{err}");
    }

    #[test]
    fn features_close_over_what_they_enable() {
        let dir = tempfile::tempdir().unwrap();
        let path = manifest(
            dir.path(),
            "[features]\ndefault = [\"a\"]\na = [\"b\", \"serde_json?/std\"]\nb = []\nc = [\"dep:x\"]\nd = [\"y/std\"]\n\
             [dependencies]\nx = { version = \"1\", optional = true }\ny = { version = \"1\", optional = true }\n",
        );
        let m = Manifest::read(&path).unwrap();
        let on = |sel: FeatureSelection| -> Vec<String> {
            m.enabled_features(&sel, &path)
                .unwrap()
                .into_iter()
                .collect()
        };
        assert_eq!(on(FeatureSelection::default()), ["a", "b", "default"]);
        let none = FeatureSelection {
            no_default_features: true,
            ..Default::default()
        };
        assert!(on(none).is_empty());
        let d = FeatureSelection {
            features: vec!["d".into()],
            no_default_features: true,
            ..Default::default()
        };
        assert_eq!(
            on(d),
            ["d", "y"],
            "`y/std` enables the optional dependency y"
        );
        let all = FeatureSelection {
            all_features: true,
            ..Default::default()
        };
        assert_eq!(
            on(all),
            ["a", "b", "c", "d", "default", "y"],
            "x is `dep:`-only"
        );
        let bad = FeatureSelection {
            features: vec!["nope".into()],
            ..Default::default()
        };
        assert!(
            m.enabled_features(&bad, &path)
                .unwrap_err()
                .to_string()
                .contains("has no feature `nope`")
        );
    }
}
