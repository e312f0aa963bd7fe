//! `kubegen new`: scaffolds a compiling operator crate — API, controller
//! stub, `main` with leader election (or, sharded, with every replica
//! reconciling its share of the objects) and a health/metrics server, an
//! e2e test, Makefile and README — and runs the generator on it
//! in-process, so the crate starts out generated and verified.
//!
//! Every input is checked first and every problem reported; nothing is
//! written unless all checks pass. The crate is assembled in a staging
//! directory next to the target and moved into place only once generation
//! and `--check` succeeded.

pub mod add;
pub mod edit;
pub mod names;
pub mod templates;
pub mod validate;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::files;
use crate::generate::{self, Api};
use crate::source::{CrateSource, Diagnostic};
use names::Names;

/// Template variables that come from the options rather than [`Names`].
const EXTRA_VARIABLES: [&str; 8] = [
    "runtime_dependency",
    "runtime_testing_dependency",
    "testenv_dependency",
    "kubegen_command",
    "kubegen_source",
    "command",
    "shard_set",
    "partitions",
];

/// The partition count of a sharded operator unless `--partitions` says
/// otherwise: the runtime's `kubegen::sharding::DEFAULT_PARTITIONS`.
pub const DEFAULT_PARTITIONS: u32 = 16;

/// The longest shard set name the runtime accepts (its Leases' names add
/// `-NNN` and `-member-` and a hash to it).
const MAX_SHARD_SET_LEN: usize = 40;

/// What `kubegen new` was asked to create.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// The directory to create; its last component names the package.
    pub dir: PathBuf,
    /// The API group, e.g. `stable.example.com`.
    pub group: String,
    /// The API version, e.g. `v1`.
    pub version: String,
    /// The kind, e.g. `MyApplication`.
    pub kind: String,
    /// A kubegen source tree to depend on by path (for developing kubegen
    /// itself); `None` to depend on the published crates at this CLI's
    /// version and run the installed `kubegen`.
    pub kubegen_path: Option<PathBuf>,
    /// Wire in the webhook server (`src/webhook.rs`, its flags, Service
    /// and certificate volume), for conversion and admission webhooks.
    pub webhook: bool,
}

/// How a sharded operator (`kubegen new --sharded`) splits its work: every
/// replica reconciles the objects of the partitions it holds through
/// `coordination.k8s.io` Leases (`kubegen::sharding`), instead of one
/// elected leader reconciling them all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sharding {
    /// How many partitions the objects are split into, 1 to 256; the same
    /// on every replica of the operator.
    pub partitions: u32,
}

impl Default for Sharding {
    fn default() -> Self {
        Sharding {
            partitions: DEFAULT_PARTITIONS,
        }
    }
}

/// A crate that was created.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Created {
    /// Its directory, as given.
    pub dir: PathBuf,
    /// Its package name.
    pub package: String,
    /// Every file written, relative to `dir`, sorted.
    pub files: Vec<PathBuf>,
}

impl Created {
    /// What to tell the user: the files and the next steps.
    pub fn summary(&self) -> String {
        let mut text = format!(
            "kubegen: created `{}` in {} ({} files, generated code up to date)\n",
            self.package,
            self.dir.display(),
            self.files.len()
        );
        for file in &self.files {
            let _ = writeln!(text, "  {}", file.display());
        }
        let _ = write!(
            text,
            "\nNext:\n  cd {}\n  make verify   # generated files match the sources\n  make test     # unit and e2e tests (starts a local control plane)\n",
            self.dir.display()
        );
        text
    }
}

/// How the new crate reaches kubegen: the published crates at the CLI's own
/// version (the default), or a source tree by path (`--kubegen-path`).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Source {
    /// `kubegen-runtime = "<version>"`, `kubegen` from `PATH`.
    Published,
    /// `path = "<tree>/kubegen-runtime"`, the CLI run from the tree.
    Tree(PathBuf),
}

impl Source {
    /// Values of [`EXTRA_VARIABLES`] except `command`, in that order.
    fn variables(&self) -> [String; 5] {
        match self {
            Source::Published => {
                let version = toml_string(env!("CARGO_PKG_VERSION"));
                [
                    version.clone(),
                    format!("{{ version = {version}, features = [\"testing\"] }}"),
                    version,
                    "kubegen".into(),
                    format!(
                        "the published crates at version {}; `KUBEGEN` is the `kubegen` on your `PATH` (`cargo install kubegen-cli --version {0}`)",
                        env!("CARGO_PKG_VERSION")
                    ),
                ]
            }
            Source::Tree(repo) => [
                format!(
                    "{{ path = {} }}",
                    toml_string(&repo.join("kubegen-runtime").display().to_string())
                ),
                format!(
                    "{{ path = {}, features = [\"testing\"] }}",
                    toml_string(&repo.join("kubegen-runtime").display().to_string())
                ),
                format!(
                    "{{ path = {} }}",
                    toml_string(&repo.join("tests/kubegen-testenv").display().to_string())
                ),
                format!(
                    "$(CARGO) run -q --manifest-path {} -p kubegen-cli --",
                    repo.join("Cargo.toml").display()
                ),
                format!(
                    "the kubegen source tree at `{}` by path; `KUBEGEN` runs the CLI from that tree",
                    repo.display()
                ),
            ],
        }
    }
}

/// Validates `options`, writes the crate, generates its CRD, RBAC and
/// client modules and checks them. On error nothing is left behind.
pub fn create(options: &Options) -> Result<Created, Vec<Diagnostic>> {
    create_with(options, None)
}

/// [`create`], for a sharded operator when `sharding` is given
/// (`kubegen new --sharded`): its `main` joins a shard set instead of
/// electing a leader and shards the controller, its Deployment runs three
/// replicas, and its role grants what the shard set's Leases need.
pub fn create_with(
    options: &Options,
    sharding: Option<Sharding>,
) -> Result<Created, Vec<Diagnostic>> {
    let (names, source) = check(options, sharding)?;
    let mut variables = names.variables();
    let [runtime, runtime_testing, testenv, kubegen, described] = source.variables();
    let extra = [
        runtime,
        runtime_testing,
        testenv,
        kubegen,
        described,
        command_line(options, sharding),
        shard_set(&names.chart),
        sharding.unwrap_or_default().partitions.to_string(),
    ];
    variables.extend(EXTRA_VARIABLES.into_iter().zip(extra));
    let mut rendered = templates::render_all(&variables, options.webhook, sharding.is_some());
    if options.webhook {
        for (path, text) in &mut rendered {
            if path.as_path() == Path::new("src/lib.rs") {
                *text = edit::add_mod(text, "webhook")
                    .map_err(|r| vec![Diagnostic::file(path, r.message)])?;
            }
        }
    }

    let dir = &options.dir;
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let io_error = |path: &Path, e: std::io::Error| vec![Diagnostic::file(path, e.to_string())];
    std::fs::create_dir_all(&parent).map_err(|e| io_error(&parent, e))?;
    let staging = parent.join(format!(
        ".{}.kubegen-new-{}",
        names.package,
        std::process::id()
    ));
    let result = stage(&staging, &rendered, &source).and_then(|files| {
        if dir.exists() {
            // Validated empty: make room for the staged tree.
            std::fs::remove_dir(dir).map_err(|e| io_error(dir, e))?;
        }
        std::fs::rename(&staging, dir).map_err(|e| io_error(dir, e))?;
        Ok(files)
    });
    match result {
        Ok(files) => Ok(Created {
            dir: dir.clone(),
            package: names.package,
            files,
        }),
        Err(diagnostics) => {
            let _ = std::fs::remove_dir_all(&staging);
            Err(diagnostics
                .into_iter()
                .map(|mut d| {
                    if let Ok(rel) = d.file.strip_prefix(&staging) {
                        d.file = dir.join(rel);
                    }
                    d
                })
                .collect())
        }
    }
}

/// Every input check, all reported together; the derived names and where
/// the crate gets kubegen from when they pass.
fn check(
    options: &Options,
    sharding: Option<Sharding>,
) -> Result<(Names, Source), Vec<Diagnostic>> {
    let mut errors = Vec::new();
    let mut flag = |name: &str, result: Result<(), String>| {
        if let Err(message) = result {
            errors.push(Diagnostic::file(Path::new(name), message));
        }
    };
    flag("--group", validate::group(&options.group));
    flag("--version", validate::version(&options.version));
    flag("--kind", validate::kind(&options.kind));
    if let Some(sharding) = sharding {
        flag("--partitions", validate::partitions(sharding.partitions));
    }
    let package = options
        .dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if let Err(message) = validate::package(&package) {
        errors.push(Diagnostic::file(&options.dir, message));
    }
    if let Err(message) = validate::target_dir(&options.dir) {
        errors.push(Diagnostic::file(&options.dir, message));
    }
    let source = match &options.kubegen_path {
        None => Source::Published,
        Some(repo) => {
            if let Err(message) = validate::kubegen_repo(repo) {
                errors.push(Diagnostic::file(Path::new("--kubegen-path"), message));
            }
            Source::Tree(repo.canonicalize().unwrap_or_else(|_| repo.clone()))
        }
    };
    if errors.is_empty() {
        let names = Names::new(&package, &options.group, &options.version, &options.kind);
        Ok((names, source))
    } else {
        Err(errors)
    }
}

/// Writes the rendered files under `staging`, seeds `Cargo.lock` from a
/// kubegen tree's (so the crate builds with the versions kubegen was
/// tested with), runs the generator and checks its output; the files
/// written, relative and sorted.
fn stage(
    staging: &Path,
    rendered: &[(PathBuf, String)],
    source: &Source,
) -> Result<Vec<PathBuf>, Vec<Diagnostic>> {
    let io_error = |path: &Path, e: std::io::Error| vec![Diagnostic::file(path, e.to_string())];
    for (path, text) in rendered {
        let full = staging.join(path);
        if let Some(parent) = full.parent() {
            std::fs::create_dir_all(parent).map_err(|e| io_error(parent, e))?;
        }
        std::fs::write(&full, text).map_err(|e| io_error(&full, e))?;
    }
    let mut written: Vec<PathBuf> = rendered.iter().map(|(p, _)| p.clone()).collect();
    if let Source::Tree(repo) = source
        && let lock = repo.join("Cargo.lock")
        && lock.is_file()
    {
        std::fs::copy(&lock, staging.join("Cargo.lock")).map_err(|e| io_error(&lock, e))?;
        written.push(PathBuf::from("Cargo.lock"));
    }

    let source = CrateSource::load(&staging.join("Cargo.toml"))?;
    let api = Api::load(&source, source.manifest.settings.clone())?;
    let set = generate::generate(&api)?;
    let file_error = |e: files::FileError| vec![Diagnostic::file(&e.path, e.message)];
    files::write(&api.root, &set).map_err(file_error)?;
    let drift = files::check(&api.root, &set).map_err(file_error)?;
    if !drift.is_empty() {
        return Err(drift
            .iter()
            .map(|d| Diagnostic::file(d.path(), "generated file does not verify"))
            .collect());
    }
    written.extend(set.files().map(|(p, _)| p.to_path_buf()));
    written.sort();
    Ok(written)
}

/// The name of a sharded operator's shard set: its chart's name (a DNS
/// label) cut to the length the runtime accepts.
fn shard_set(chart: &str) -> String {
    let cut: String = chart.chars().take(MAX_SHARD_SET_LEN).collect();
    cut.trim_end_matches('-').to_string()
}

/// The `kubegen new` command line that reproduces `options` and
/// `sharding`.
fn command_line(options: &Options, sharding: Option<Sharding>) -> String {
    let mut words = vec![
        "kubegen".to_string(),
        "new".into(),
        shell_word(&options.dir.display().to_string()),
        "--group".into(),
        shell_word(&options.group),
        "--version".into(),
        shell_word(&options.version),
        "--kind".into(),
        shell_word(&options.kind),
    ];
    if options.webhook {
        words.push("--webhook".into());
    }
    if let Some(sharding) = sharding {
        words.push("--sharded".into());
        if sharding.partitions != DEFAULT_PARTITIONS {
            words.push("--partitions".into());
            words.push(sharding.partitions.to_string());
        }
    }
    if let Some(path) = &options.kubegen_path {
        words.push("--kubegen-path".into());
        words.push(shell_word(&path.display().to_string()));
    }
    words.join(" ")
}

/// `word`, single-quoted for a POSIX shell when it needs to be.
fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=@+,".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// `text` as a TOML basic string.
pub(crate) fn toml_string(text: &str) -> String {
    toml::Value::String(text.to_string()).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(dir: &Path) -> Options {
        Options {
            dir: dir.to_path_buf(),
            group: "stable.example.com".into(),
            version: "v1".into(),
            kind: "MyApplication".into(),
            kubegen_path: None,
            webhook: false,
        }
    }

    #[test]
    fn command_lines_quote_what_needs_it() {
        let mut o = options(Path::new("ops/my op"));
        assert_eq!(
            command_line(&o, None),
            "kubegen new 'ops/my op' --group stable.example.com --version v1 --kind MyApplication"
        );
        o.kubegen_path = Some(PathBuf::from("/src/kube'gen"));
        assert!(command_line(&o, None).ends_with(r" --kubegen-path '/src/kube'\''gen'"));
        let sharded = command_line(&o, Some(Sharding::default()));
        assert!(
            sharded.contains(" --kind MyApplication --sharded --kubegen-path "),
            "{sharded}"
        );
        let sharded = command_line(&o, Some(Sharding { partitions: 64 }));
        assert!(
            sharded.contains(" --sharded --partitions 64 --kubegen-path "),
            "{sharded}"
        );
    }

    #[test]
    fn shard_set_names_are_dns_labels_the_runtime_accepts() {
        assert_eq!(shard_set("my-operator"), "my-operator");
        let long = format!("{}-x", "a".repeat(39));
        assert_eq!(shard_set(&long), "a".repeat(39));
        assert_eq!(shard_set(&"b".repeat(53)).len(), MAX_SHARD_SET_LEN);
    }

    /// The scaffold's default is the runtime's.
    #[test]
    fn the_default_partition_count_is_the_runtimes() {
        let config = include_str!("../../../kubegen-engine/src/sharding/config.rs");
        let line = format!("pub const DEFAULT_PARTITIONS: u32 = {DEFAULT_PARTITIONS};");
        assert!(config.contains(&line), "{line}");
    }

    #[test]
    fn toml_strings_round_trip() {
        for path in ["/a/b", "/a\"b", "C:\\x\\y", "/it's"] {
            let table: toml::Table = toml::from_str(&format!("p = {}", toml_string(path))).unwrap();
            assert_eq!(table["p"].as_str(), Some(path));
        }
    }

    #[test]
    fn every_error_is_reported_and_nothing_written() {
        let tmp =
            std::env::temp_dir().join(format!("kubegen-scaffold-unit-{}", std::process::id()));
        let target = tmp.join("1bad");
        let errors = create(&Options {
            dir: target.clone(),
            group: "nodot".into(),
            version: "1".into(),
            kind: "lower".into(),
            kubegen_path: Some(tmp.join("nowhere")),
            webhook: true,
        })
        .unwrap_err();
        let files: Vec<String> = errors
            .iter()
            .map(|d| d.file.display().to_string())
            .collect();
        assert_eq!(
            files,
            [
                "--group".to_string(),
                "--version".into(),
                "--kind".into(),
                target.display().to_string(),
                "--kubegen-path".into()
            ]
        );
        assert!(!tmp.exists());
    }

    #[test]
    fn creates_a_generated_and_verified_crate() {
        let tmp = std::env::temp_dir().join(format!("kubegen-scaffold-ok-{}", std::process::id()));
        let dir = tmp.join("my-operator");
        let created = create(&options(&dir)).unwrap_or_else(|e| panic!("{e:#?}"));
        for file in [
            "Cargo.toml",
            "src/main.rs",
            "src/generated/informers/stable_v1.rs",
            "config/crd/stable.example.com_myapplications.yaml",
            "config/rbac/role.yaml",
        ] {
            assert!(created.files.contains(&PathBuf::from(file)), "{file}");
            assert!(dir.join(file).is_file(), "{file}");
        }
        // By default the crate depends on the published crates at this
        // CLI's version and runs the installed CLI: nothing points back
        // into the tree the CLI was built from.
        let manifest: toml::Table =
            toml::from_str(&std::fs::read_to_string(dir.join("Cargo.toml")).unwrap()).unwrap();
        let version = env!("CARGO_PKG_VERSION");
        assert_eq!(
            manifest["dependencies"]["kubegen-runtime"].as_str(),
            Some(version)
        );
        assert_eq!(
            manifest["dev-dependencies"]["kubegen-testenv"].as_str(),
            Some(version)
        );
        let makefile = std::fs::read_to_string(dir.join("Makefile")).unwrap();
        assert!(makefile.contains("KUBEGEN ?= kubegen\n"), "{makefile}");
        let here = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        for file in &created.files {
            let text = std::fs::read_to_string(dir.join(file)).unwrap_or_default();
            assert!(
                !text.contains(&here.display().to_string()),
                "{}",
                file.display()
            );
        }
        assert!(!created.files.contains(&PathBuf::from("Cargo.lock")));
        let role = std::fs::read_to_string(dir.join("config/rbac/role.yaml")).unwrap();
        assert!(role.contains("myapplications/status"), "{role}");
        assert!(role.contains("my-operator-controller"), "{role}");
        // Only the crate is left in the parent: no staging directory.
        let entries: Vec<_> = std::fs::read_dir(&tmp).unwrap().collect();
        assert_eq!(entries.len(), 1);
        assert!(created.summary().contains("make verify"));
        std::fs::remove_dir_all(&tmp).unwrap();
    }
}
