//! The `kubegen` command line: argument parsing, the subcommands, and the
//! one place errors become exit codes (0 ok, 1 a check failed: drift, a
//! breaking change, an invalid object; 2 bad input or failure).

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{Args, CommandFactory, Parser, Subcommand};

use crate::explain;
use crate::files::{self, Drift};
use crate::generate::{self, Api};
use crate::import;
use crate::scaffold;
use crate::source::{CrateSource, Diagnostic, FeatureSelection, Settings};

/// Exit code: success.
pub const EXIT_OK: i32 = 0;
/// Exit code: a check failed — `generate --check` or `docs --check` found
/// stale, missing or extra files, `check` a breaking change, `validate` an
/// invalid object.
pub const EXIT_DRIFT: i32 = 1;
/// Exit code: invalid input (any diagnostic) or an I/O failure.
pub const EXIT_ERROR: i32 = 2;

/// Kubernetes code generation for Rust: CRDs, RBAC and typed clients,
/// listers and informers from annotated Rust types.
#[derive(Debug, Parser)]
#[command(name = "kubegen", version, about, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Generate CRD YAML, RBAC YAML, Rust client modules and (when configured) a Helm chart for a
    /// crate.
    Generate(GenerateArgs),
    /// Compare the crate's CRDs with an earlier release and classify every
    /// change as breaking or safe; exit 1 on a breaking change no
    /// `allow_breaking` attribute accepts.
    Check(CheckArgs),
    /// Validate custom resources offline as the apiserver validates them on
    /// create (or, with `--old`, on update): exit 1 when any is invalid.
    Validate(ValidateArgs),
    /// Write the API reference (a Markdown page per group/version) and a
    /// JSON Schema per kind and version for editors, from the crate's CRDs.
    Docs(DocsArgs),
    /// Print one kind's CRD (all versions) as YAML, for `kubectl apply -f -`.
    Crd {
        /// The kind, e.g. `MyApplication`.
        kind: String,
        #[command(flatten)]
        input: InputArgs,
    },
    /// Show a field's type, constraints and documentation, like `kubectl
    /// explain`; or, with `--keys`, every `#[kubegen(...)]` key.
    Explain {
        /// `Kind` or `Kind.field.path`, e.g. `MyApplication.spec.replicas`.
        #[arg(required_unless_present = "keys")]
        target: Option<String>,
        /// Every `#[kubegen(...)]` key: where it goes, its value, an example.
        #[arg(long, conflicts_with = "target")]
        keys: bool,
        #[command(flatten)]
        input: InputArgs,
    },
    /// Create a new operator crate: API, controller, main, tests, and its
    /// generated CRD, RBAC and clients.
    #[command(disable_version_flag = true)]
    New(NewArgs),
    /// Grow a crate made by `kubegen new`: another kind (with its
    /// controller), another version of a kind (with conversion), admission
    /// webhooks for a kind. Edits only what it can
    /// place with certainty, and writes nothing unless the grown crate
    /// generates and verifies.
    Add(AddArgs),
    /// Write Rust types for existing CRDs into a crate, proven to
    /// regenerate the same CRDs, then generate their typed clients.
    Import(ImportArgs),
    /// Print a shell completion script.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
}

#[derive(Debug, Args)]
struct InputArgs {
    /// The crate's Cargo.toml.
    #[arg(long, value_name = "PATH", default_value = "Cargo.toml")]
    manifest_path: PathBuf,
    /// Read the crate with these features enabled (as `cargo build
    /// --features`); `cfg(feature = ...)` follows them.
    #[arg(long, short = 'F', value_name = "FEATURES")]
    features: Vec<String>,
    /// Read the crate with every feature enabled.
    #[arg(long)]
    all_features: bool,
    /// Read the crate without its `default` feature.
    #[arg(long)]
    no_default_features: bool,
}

impl InputArgs {
    fn features(&self) -> FeatureSelection {
        FeatureSelection {
            features: self.features.clone(),
            all_features: self.all_features,
            no_default_features: self.no_default_features,
        }
    }
}

#[derive(Debug, Args)]
struct GenerateArgs {
    #[command(flatten)]
    input: InputArgs,
    /// Write nothing; exit 1 listing every stale, missing or extra file.
    #[arg(long)]
    check: bool,
    /// Write outputs under this directory instead of the crate root.
    #[arg(long, value_name = "DIR")]
    out_dir: Option<PathBuf>,
    /// CRD directory (overrides `crd-dir`).
    #[arg(long, value_name = "DIR")]
    crd_dir: Option<PathBuf>,
    /// RBAC directory (overrides `rbac-dir`).
    #[arg(long, value_name = "DIR")]
    rbac_dir: Option<PathBuf>,
    /// Rust module directory (overrides `rust-out`).
    #[arg(long, value_name = "DIR")]
    rust_out: Option<PathBuf>,
    /// Cap on schema descriptions (overrides `max-description-len`).
    #[arg(long, value_name = "N")]
    max_description_len: Option<usize>,
    /// Allow output directories outside the crate (absolute or `..`); only
    /// files generated for this crate are ever removed there.
    #[arg(long)]
    allow_outside_crate: bool,
    /// Print nothing on success.
    #[arg(long, short)]
    quiet: bool,
}

#[derive(Debug, Args)]
struct ValidateArgs {
    #[command(flatten)]
    input: InputArgs,
    /// Custom resources: YAML/JSON files, directories of them, or `-`.
    #[arg(required = true, value_name = "FILE|DIR|-")]
    objects: Vec<PathBuf>,
    /// Validate against these CRD files (files or directories) instead of
    /// the crate's CRDs.
    #[arg(long, value_name = "FILE|DIR")]
    crd: Vec<PathBuf>,
    /// The objects as stored now (`kubectl get -o yaml`): an object with
    /// one of the same kind, namespace and name is validated as an update
    /// of it (ratcheting, transition rules); any other as a create.
    #[arg(long, value_name = "FILE|DIR")]
    old: Vec<PathBuf>,
    /// Print the verdicts, and each object as it would be stored, as JSON.
    #[arg(long, value_name = "FORMAT", default_value = "text", value_parser = ["text", "json"])]
    output: String,
}

#[derive(Debug, Args)]
struct DocsArgs {
    #[command(flatten)]
    input: InputArgs,
    /// The directory to write into (default: `docs-dir`, else `docs/api`),
    /// relative to the crate.
    #[arg(long, value_name = "DIR")]
    out_dir: Option<PathBuf>,
    /// Write nothing; exit 1 listing every stale, missing or extra file.
    #[arg(long)]
    check: bool,
    /// Print nothing on success.
    #[arg(long, short)]
    quiet: bool,
}

#[derive(Debug, Args)]
struct CheckArgs {
    #[command(flatten)]
    input: InputArgs,
    /// The earlier release: a git ref (tag, branch, commit) whose CRD files
    /// (the crate's `crd-dir`, or the `--crd` paths) are compared, or a
    /// directory or file of CRDs.
    #[arg(long, value_name = "REF|DIR", required_unless_present = "cluster")]
    against: Option<String>,
    /// Compare with the CRDs the cluster of the current kubeconfig context
    /// serves, their stored versions included.
    #[arg(long, conflicts_with = "against")]
    cluster: bool,
    /// Compare these CRD files (files or directories, relative to the
    /// current directory) instead of the crate's generated CRDs.
    #[arg(long, value_name = "FILE|DIR")]
    crd: Vec<PathBuf>,
    /// Print the changes as JSON.
    #[arg(long, value_name = "FORMAT", default_value = "text", value_parser = ["text", "json"])]
    output: String,
}

#[derive(Debug, Args)]
struct ImportArgs {
    /// CRD YAML/JSON files, directories of them, or `-` for standard input.
    #[arg(required = true, value_name = "FILE|DIR|-")]
    inputs: Vec<PathBuf>,
    /// The crate to write into; a minimal crate is created when the
    /// directory has no `Cargo.toml`.
    #[arg(long = "crate", value_name = "DIR")]
    crate_dir: PathBuf,
    /// The module under `src/` that holds the imported APIs.
    #[arg(long, default_value = "apis")]
    module: String,
    /// Write the CRDs that round-trip and report the others (by default
    /// any CRD that is refused or regenerates differently is an error and
    /// nothing is written).
    #[arg(long)]
    allow_partial: bool,
    /// Depend on a kubegen source tree by path in a created crate.
    #[arg(long, value_name = "PATH")]
    kubegen_path: Option<PathBuf>,
    /// Refuse input documents that are not apiextensions.k8s.io/v1
    /// CustomResourceDefinitions (by default each is skipped with a
    /// warning naming it).
    #[arg(long)]
    strict: bool,
}

#[derive(Debug, Args)]
struct NewArgs {
    /// The directory to create (must not exist or be empty); its name is
    /// the package name.
    dir: PathBuf,
    /// The API group, a DNS subdomain with a dot, e.g. `stable.example.com`.
    #[arg(long)]
    group: String,
    /// The API version, e.g. `v1`, `v1beta1` or `v2alpha1`.
    #[arg(long)]
    version: String,
    /// The kind, in PascalCase, e.g. `MyApplication`.
    #[arg(long)]
    kind: String,
    /// Depend on a kubegen source tree by path and run its CLI (for
    /// developing kubegen); by default the crate depends on the published
    /// crates at this CLI's version and runs the installed `kubegen`.
    #[arg(long, value_name = "PATH")]
    kubegen_path: Option<PathBuf>,
    /// Wire in the webhook server (its flags, `src/webhook.rs`, the
    /// Service and the certificate volume), for `kubegen add version` and
    /// `kubegen add webhook`.
    #[arg(long)]
    webhook: bool,
    /// Scaffold a sharded operator: every replica reconciles the objects
    /// of the partitions it holds through Leases, no leader is elected,
    /// and the Deployment runs three replicas.
    #[arg(long)]
    sharded: bool,
    /// The sharded operator's partition count, 1 to 256, the same on
    /// every replica [default: 16].
    #[arg(long, value_name = "N", requires = "sharded")]
    partitions: Option<u32>,
}

#[derive(Debug, Args)]
struct AddArgs {
    /// What to add.
    #[command(subcommand)]
    what: AddCommand,
    /// The crate's directory.
    #[arg(long, global = true, default_value = ".", value_name = "DIR")]
    dir: PathBuf,
}

#[derive(Debug, Subcommand)]
enum AddCommand {
    /// Another kind, as kubebuilder's `create api`: `src/api/<kind>.rs`
    /// (spec and status like the first kind's), a controller stub in
    /// `src/controller/<kind>.rs` registered in `src/main.rs`, its CRD in
    /// `config/crd`, and `tests/<kind>_e2e.rs`, which has the controller
    /// write an object's status on a real control plane.
    #[command(disable_version_flag = true)]
    Kind {
        /// The new kind, in PascalCase, e.g. `Backup`.
        kind: String,
        /// Its API group [default: the crate's kinds' group].
        #[arg(long)]
        group: Option<String>,
        /// Its API version [default: the storage version of the crate's
        /// kinds in the group].
        #[arg(long)]
        version: Option<String>,
    },
    /// Another version of a kind: a module copying the storage version's
    /// spec with conversion stubs to and from it (the storage version stays
    /// the storage version and the hub), `conversion(...)` on the hub, the
    /// webhook server wired in; `make test` runs the round-trip test.
    #[command(disable_version_flag = true)]
    Version {
        /// The new version, e.g. `v2` or `v1beta1`.
        version: String,
        /// The kind (required when the crate has several).
        #[arg(long)]
        kind: Option<String>,
    },
    /// Validating and/or defaulting admission webhooks for a kind:
    /// `admission(...)` on it, stubs in `src/webhook/<kind>_<version>.rs`,
    /// the webhook server and `config/webhook` wired in, and an e2e test.
    #[command(disable_version_flag = true)]
    Webhook {
        /// The kind (required when the crate has several).
        #[arg(long)]
        kind: Option<String>,
        /// The version [default: the kind's storage version].
        #[arg(long)]
        version: Option<String>,
        /// Add a validating webhook.
        #[arg(long)]
        validating: bool,
        /// Add a defaulting (mutating) webhook.
        #[arg(long)]
        defaulting: bool,
    },
}

/// Runs the CLI with `args` (including the program name), writing to the
/// given streams; returns the exit code.
pub fn run(
    args: impl IntoIterator<Item = OsString>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { EXIT_ERROR } else { EXIT_OK };
            let text = e.render().to_string();
            let _ = if e.use_stderr() {
                write!(err, "{text}")
            } else {
                write!(out, "{text}")
            };
            return code;
        }
    };
    let writes = match &cli.command {
        Command::Generate(args) => !args.check,
        Command::New(_) | Command::Import(_) | Command::Add(_) => true,
        _ => false,
    };
    // Commands that read a crate report its files relative to it.
    let crate_dir = match &cli.command {
        Command::Generate(GenerateArgs { input, .. })
        | Command::Check(CheckArgs { input, .. })
        | Command::Docs(DocsArgs { input, .. })
        | Command::Validate(ValidateArgs { input, .. })
        | Command::Crd { input, .. }
        | Command::Explain { input, .. } => Some(crate_dir(&input.manifest_path)),
        Command::Add(args) => Some(args.dir.clone()),
        Command::New(_) | Command::Import(_) | Command::Completions { .. } => None,
    };
    match execute(cli.command, out, err) {
        Ok(code) => code,
        Err(failure) => {
            let Failure {
                diagnostics,
                partly_written,
            } = match &crate_dir {
                Some(dir) => failure.rebased(dir),
                None => failure,
            };
            for d in &diagnostics {
                let _ = writeln!(err, "{d}");
            }
            let n = diagnostics.len();
            let outcome = match (writes, partly_written) {
                (false, _) => "",
                (true, false) => "; nothing was written",
                (true, true) => "; some files could not be restored (listed above)",
            };
            let _ = writeln!(
                err,
                "kubegen: {n} error{}{outcome}",
                if n == 1 { "" } else { "s" }
            );
            EXIT_ERROR
        }
    }
}

/// Why a command failed, and whether the tree was left partly written
/// (only when undoing a failed write failed too).
struct Failure {
    diagnostics: Vec<Diagnostic>,
    partly_written: bool,
}

impl Failure {
    /// Diagnostics name files relative to the crate; show them relative to
    /// the current directory (as the shell and editors resolve them), or
    /// absolute when the crate is elsewhere. Those naming an argument
    /// (`--flag`, `<ARG>`) stay as they are.
    fn rebased(mut self, crate_dir: &Path) -> Failure {
        let cwd = std::env::current_dir().unwrap_or_default();
        for d in &mut self.diagnostics {
            if d.file.to_string_lossy().starts_with(['-', '<']) {
                continue;
            }
            let full = if d.file.is_absolute() {
                d.file.clone()
            } else {
                crate_dir.join(&d.file)
            };
            let full = if full.is_absolute() {
                full
            } else {
                cwd.join(full)
            };
            d.file = full
                .strip_prefix(&cwd)
                .map(Path::to_path_buf)
                .unwrap_or(full);
        }
        self
    }
}

/// The directory of a crate's manifest, as given on the command line.
fn crate_dir(manifest_path: &Path) -> PathBuf {
    manifest_path
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

impl From<Vec<Diagnostic>> for Failure {
    fn from(diagnostics: Vec<Diagnostic>) -> Self {
        Failure {
            diagnostics,
            partly_written: false,
        }
    }
}

impl From<files::FileError> for Failure {
    fn from(e: files::FileError) -> Self {
        // The path is already where the file is; `rebased` shows it
        // relative to the current directory.
        let path = std::path::absolute(&e.path).unwrap_or(e.path);
        Failure {
            partly_written: !e.restored,
            diagnostics: vec![Diagnostic::file(&path, e.message)],
        }
    }
}

fn execute(command: Command, out: &mut dyn Write, err: &mut dyn Write) -> Result<i32, Failure> {
    match command {
        Command::Generate(args) => generate_command(args, out, err),
        Command::Check(args) => check_command(args, out),
        Command::Docs(args) => docs_command(args, out, err),
        Command::Validate(args) => validate_command(args, out),
        Command::Crd { kind, input } => {
            let api = load(&input, |_| {})?;
            let yaml = crd_for_kind(&api, &kind)?;
            write_out(out, &yaml)?;
            Ok(EXIT_OK)
        }
        Command::Explain {
            target: None,
            keys: true,
            ..
        } => {
            write_out(out, &explain::keys())?;
            Ok(EXIT_OK)
        }
        Command::Explain { target, input, .. } => {
            let api = load(&input, |_| {})?;
            write_out(
                out,
                &explain::explain(&api, target.as_deref().unwrap_or_default())?,
            )?;
            Ok(EXIT_OK)
        }
        Command::New(args) => {
            let sharding = args.sharded.then(|| scaffold::Sharding {
                partitions: args.partitions.unwrap_or(scaffold::DEFAULT_PARTITIONS),
            });
            let options = scaffold::Options {
                dir: args.dir,
                group: args.group,
                version: args.version,
                kind: args.kind,
                kubegen_path: args.kubegen_path,
                webhook: args.webhook,
            };
            let created = scaffold::create_with(&options, sharding)?;
            write_out(out, &created.summary())?;
            Ok(EXIT_OK)
        }
        Command::Add(args) => {
            let added = match args.what {
                AddCommand::Kind {
                    kind,
                    group,
                    version,
                } => scaffold::add::kind::add(&scaffold::add::kind::Options {
                    dir: args.dir,
                    kind,
                    group,
                    version,
                })?,
                AddCommand::Version { version, kind } => {
                    scaffold::add::version::add(&scaffold::add::version::Options {
                        dir: args.dir,
                        kind,
                        version,
                    })?
                }
                AddCommand::Webhook {
                    kind,
                    version,
                    validating,
                    defaulting,
                } => scaffold::add::webhook::add(&scaffold::add::webhook::Options {
                    dir: args.dir,
                    kind,
                    version,
                    validating,
                    defaulting,
                })?,
            };
            write_out(out, &added.summary())?;
            Ok(EXIT_OK)
        }
        Command::Import(args) => import_command(args, out, err),
        Command::Completions { shell } => {
            let mut command = Cli::command();
            clap_complete::generate(shell, &mut command, "kubegen", out);
            Ok(EXIT_OK)
        }
    }
}

fn write_out(out: &mut dyn Write, text: &str) -> Result<(), Vec<Diagnostic>> {
    out.write_all(text.as_bytes())
        .map_err(|e| vec![Diagnostic::file(Path::new("<stdout>"), e.to_string())])
}

fn load(input: &InputArgs, adjust: impl FnOnce(&mut Settings)) -> Result<Api, Vec<Diagnostic>> {
    let source = CrateSource::load_with(&input.manifest_path, &input.features())?;
    let mut settings = source.manifest.settings.clone();
    adjust(&mut settings);
    Api::load(&source, settings)
}

fn check_command(args: CheckArgs, out: &mut dyn Write) -> Result<i32, Failure> {
    let (current, allowances, crd_dir) = if args.crd.is_empty() {
        let api = load(&args.input, |_| {})?;
        let current: std::collections::BTreeMap<String, serde_json::Value> =
            crate::check::by_name(api.crds()?.into_values());
        let mut allowances: std::collections::BTreeMap<String, Vec<String>> = Default::default();
        for (_, model) in api.resources() {
            allowances
                .entry(format!("{}.{}", model.plural, model.group))
                .or_default()
                .extend(model.allow_breaking.iter().cloned());
        }
        (
            current,
            allowances,
            vec![api.root.join(&api.settings.crd_dir)],
        )
    } else {
        let input = import::read::read(&args.crd)?;
        let current = crate::check::by_name(input.crds.into_iter().map(|c| c.crd));
        (current, Default::default(), args.crd.clone())
    };
    let against_name = args.against.clone().unwrap_or_default();
    let (earlier, label) = if args.cluster {
        let (crds, server) = crate::check::cluster::crds(current.keys())?;
        (crds, format!("the cluster at {server}"))
    } else {
        let against = against(&args, &against_name, &crd_dir)?;
        (crate::check::earlier(&against)?, against_name)
    };
    let report = crate::check::check(&current, &earlier, &allowances, &args.input.manifest_path)?;
    let text = if args.output == "json" {
        format!("{:#}\n", report.json())
    } else {
        report.text(&label)
    };
    write_out(out, &text)?;
    Ok(if report.refused() > 0 {
        EXIT_DRIFT
    } else {
        EXIT_OK
    })
}

/// The earlier release `--against` names: a path, else a git ref.
fn against(
    args: &CheckArgs,
    name: &str,
    crd_dir: &[PathBuf],
) -> Result<crate::check::Against, Failure> {
    Ok(if Path::new(name).exists() {
        crate::check::Against::Files(PathBuf::from(name))
    } else {
        let repo = crate_dir(&args.input.manifest_path);
        let repo = if repo.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            repo
        };
        let toplevel = git_toplevel(&repo)?;
        let cwd = std::env::current_dir().unwrap_or_default();
        let paths = crd_dir
            .iter()
            .map(|p| {
                let full = std::path::absolute(cwd.join(p)).unwrap_or_else(|_| p.clone());
                let full = full.canonicalize().unwrap_or(full);
                full.strip_prefix(&toplevel)
                    .map(Path::to_path_buf)
                    .unwrap_or(full)
            })
            .collect();
        crate::check::Against::Git {
            repo: toplevel,
            reference: name.to_string(),
            paths,
        }
    })
}

/// The top directory of the git repository `dir` is in.
fn git_toplevel(dir: &Path) -> Result<PathBuf, Failure> {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["rev-parse", "--show-toplevel"])
        .output()
        .map_err(|e| Failure::from(vec![Diagnostic::file(dir, format!("cannot run git: {e}"))]))?;
    if !out.status.success() {
        return Err(Failure::from(vec![Diagnostic::file(
            dir,
            "--against names no directory, and this is not a git repository to read a ref from",
        )]));
    }
    let top = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    Ok(top.canonicalize().unwrap_or(top))
}

fn generate_command(
    args: GenerateArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<i32, Failure> {
    let api = load(&args.input, |s| {
        if let Some(d) = &args.crd_dir {
            s.crd_dir.clone_from(d);
        }
        if let Some(d) = &args.rbac_dir {
            s.rbac_dir.clone_from(d);
        }
        if let Some(d) = &args.rust_out {
            s.rust_out.clone_from(d);
        }
        if args.max_description_len.is_some() {
            s.max_description_len = args.max_description_len;
        }
        if args.allow_outside_crate {
            s.allow_output_outside_crate = true;
        }
    })?;
    let set = generate::generate(&api)?;
    // Only manifests go through `kubectl apply`; Rust modules may be larger.
    let manifests = set
        .files()
        .filter(|(path, _)| path.extension().is_some_and(|e| e == "yaml"));
    for (path, contents) in manifests {
        if let kubegen_core::output::SizeCheck::Warn(bytes) =
            kubegen_core::output::check_size(contents)
        {
            let _ = writeln!(
                err,
                "warning: {} is {bytes} bytes, over the {} bytes client-side `kubectl apply` can store \
                 in its annotation; apply it server-side (`kubectl apply --server-side`) or cap \
                 descriptions with `max-description-len`",
                path.display(),
                kubegen_core::output::WARN_BYTES
            );
        }
    }
    let root = args.out_dir.clone().unwrap_or_else(|| api.root.clone());
    let outcome = write_or_check(&root, &set, args.check, args.quiet, out, err)?;
    if outcome == EXIT_DRIFT {
        let _ = writeln!(
            err,
            "run `kubegen generate --manifest-path {}`",
            args.input.manifest_path.display()
        );
    }
    if outcome == EXIT_OK
        && !args.check
        && !args.quiet
        && let Some(hint) = generate::module_hint(&api)
    {
        let _ = writeln!(out, "\n{hint}");
    }
    Ok(outcome)
}

/// Writes `set` under `root` (only what changed), or with `check` compares
/// it and lists every stale, missing or extra file (exit 1).
fn write_or_check(
    root: &Path,
    set: &files::FileSet,
    check: bool,
    quiet: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<i32, Failure> {
    if check {
        let drift = files::check(root, set)?;
        if drift.is_empty() {
            if !quiet {
                let _ = writeln!(out, "kubegen: {} generated files are up to date", set.len());
            }
            return Ok(EXIT_OK);
        }
        for d in &drift {
            match d {
                Drift::Missing(p) => {
                    let _ = writeln!(err, "missing: {}", p.display());
                }
                Drift::Extra(p) => {
                    let _ = writeln!(err, "extra (no longer generated): {}", p.display());
                }
                Drift::Stale(p, diff) => {
                    let _ = writeln!(err, "stale: {}\n{diff}", p.display());
                }
            }
        }
        let _ = write!(
            err,
            "kubegen: {} generated file{} out of date; ",
            drift.len(),
            if drift.len() == 1 { " is" } else { "s are" },
        );
        return Ok(EXIT_DRIFT);
    }
    let report = files::write(root, set)?;
    if !quiet {
        let _ = writeln!(
            out,
            "kubegen: {} written, {} unchanged, {} removed",
            report.written.len(),
            report.unchanged.len(),
            report.removed.len()
        );
    }
    Ok(EXIT_OK)
}

fn validate_command(args: ValidateArgs, out: &mut dyn Write) -> Result<i32, Failure> {
    let crds = if args.crd.is_empty() {
        let api = load(&args.input, |_| {})?;
        crate::check::by_name(api.crds()?.into_values())
    } else {
        let input = import::read::read(&args.crd)?;
        crate::check::by_name(input.crds.into_iter().map(|c| c.crd))
    };
    let verdicts = crate::validate::validate(&crds, &args.objects, &args.old)?;
    let text = if args.output == "json" {
        format!("{:#}\n", crate::validate::json(&verdicts))
    } else {
        crate::validate::text(&verdicts)
    };
    write_out(out, &text)?;
    let invalid = verdicts.iter().any(|v| !v.errors.is_empty());
    Ok(if invalid { EXIT_DRIFT } else { EXIT_OK })
}

fn docs_command(args: DocsArgs, out: &mut dyn Write, err: &mut dyn Write) -> Result<i32, Failure> {
    let api = load(&args.input, |_| {})?;
    let dir = args
        .out_dir
        .clone()
        .or_else(|| api.settings.docs_dir.clone())
        .unwrap_or_else(|| PathBuf::from("docs/api"));
    let mut set = files::FileSet::new(&api.package);
    set.own_dir(&dir);
    for (path, contents) in crate::docs::files(api.crds()?.values()) {
        set.insert(dir.join(path), contents);
    }
    let outcome = write_or_check(&api.root, &set, args.check, args.quiet, out, err)?;
    if outcome == EXIT_DRIFT {
        let _ = writeln!(
            err,
            "run `kubegen docs --manifest-path {}`",
            args.input.manifest_path.display()
        );
    }
    Ok(outcome)
}

fn import_command(
    args: ImportArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<i32, Failure> {
    let imported = import::import(&import::Options {
        inputs: args.inputs,
        crate_dir: args.crate_dir.clone(),
        module: args.module,
        kubegen_path: args.kubegen_path,
        strict: args.strict,
    })?;
    for w in &imported.warnings {
        let _ = writeln!(
            err,
            "{}: warning: {} (skipped; `--strict` refuses it)",
            w.file.display(),
            w.message
        );
    }
    let mut table = String::new();
    let mut problems = Vec::new();
    for r in &imported.reports {
        let verdict = match &r.verdict {
            import::Verdict::Identical => "identical".to_owned(),
            import::Verdict::Differing(d) => {
                problems.push(Diagnostic::file(
                    &r.file,
                    format!(
                        "{} regenerates with {} difference(s): {}",
                        r.name,
                        d.len(),
                        d.iter()
                            .take(5)
                            .map(ToString::to_string)
                            .collect::<Vec<_>>()
                            .join("; ")
                    ),
                ));
                format!("differing ({})", d.len())
            }
            import::Verdict::Refused(why) => {
                problems.push(Diagnostic::file(
                    &r.file,
                    format!("{} refused: {why}", r.name),
                ));
                "refused".to_owned()
            }
        };
        table.push_str(&format!(
            "{:<60} {verdict} ({} verbatim nodes)\n",
            r.name, r.explicit_nodes
        ));
    }
    if !problems.is_empty() && !args.allow_partial {
        problems.push(Diagnostic::file(
            Path::new("--allow-partial"),
            "write the CRDs that round-trip anyway with `--allow-partial`",
        ));
        return Err(problems.into());
    }
    let report = files::write(&args.crate_dir, &imported.files)?;
    write_out(out, &table)?;
    write_out(
        out,
        &format!(
            "kubegen import: {} written, {} unchanged\n",
            report.written.len(),
            report.unchanged.len()
        ),
    )?;
    let manifest_path = args.crate_dir.join("Cargo.toml");
    let api = load(
        &InputArgs {
            manifest_path: manifest_path.clone(),
            features: Vec::new(),
            all_features: false,
            no_default_features: false,
        },
        |_| {},
    )?;
    let set = generate::generate(&api)?;
    let report = files::write(&api.root, &set)?;
    write_out(
        out,
        &format!(
            "kubegen generate: {} written, {} unchanged, {} removed\n",
            report.written.len(),
            report.unchanged.len(),
            report.removed.len()
        ),
    )?;
    if let Some(hint) = generate::module_hint(&api) {
        write_out(out, &format!("\n{hint}\n"))?;
    }
    Ok(EXIT_OK)
}

fn crd_for_kind(api: &Api, kind: &str) -> Result<String, Vec<Diagnostic>> {
    let crds = api.crds()?;
    crds.values()
        .find(|crd| crd["spec"]["names"]["kind"] == kind)
        .map(generate::crd_yaml)
        .ok_or_else(|| vec![explain::unknown_kind(api, kind)])
}
