//! kubegen's CRDs against controller-gen's, node for node (issue 34).
//!
//! The same API is written twice: as Rust for `kubegen generate` and as Go
//! for controller-gen (`tests/controller-gen-diff`): the example's
//! MyApplication (v1 and v2; the Rust side is the example crate itself),
//! hand-written field shapes and attributes (compared once more with
//! descriptions cut to 30 characters), one field per type of kubegen's
//! built-in table, and seeded generated cases. Every difference between
//! the two CRDs must be explained by an entry of
//! `tests/controller-gen-diff/DIFFERENCES.toml`, and every entry must
//! explain one; the counts are printed.
//!
//! The second test installs both generators' CRDs of the example, the
//! shapes, the constraints, a kind of built-in types and the first
//! generated kinds side by side on a real control plane and creates the
//! same objects under each (hand-written rows, and empty, null and random
//! objects of the generated kinds): the verdicts and the stored objects
//! must be the same, except the rows that name a known difference (and
//! those must differ) and refusals that differ only by controller-gen's
//! `allOf` cause (a known difference, listed). It also checks that the
//! apiserver refuses controller-gen's `uniqueItems` CRD and takes kubegen's.
//!
//! `KUBEGEN_CGDIFF_CASES=500 KUBEGEN_CGDIFF_SEED=7` runs more generated
//! cases (default: 50 with seed 34); `KUBEGEN_CGDIFF_KEEP=1` keeps the
//! twins and both CRD sets in a temp dir.

#[path = "controller_gen_diff/builtins.rs"]
mod builtins;
#[path = "controller_gen_diff/compare.rs"]
mod compare;
#[path = "controller_gen_diff/generators.rs"]
mod generators;
#[path = "controller_gen_diff/plane.rs"]
mod plane;
#[path = "controller_gen_diff/random.rs"]
mod random;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::OnceLock;

use serde_json::Value;

use compare::{Counts, Difference, KnownDifferences};
use generators::{ROOT, TWINS};

const DEFAULT_SEED: u64 = 34;
const DEFAULT_CASES: usize = 50;
/// The hand-written shapes are compared a second time with descriptions cut
/// to this length.
const DESCRIPTION_LEN: usize = 30;
const SHAPES_GROUP: &str = "shapes.cgdiff.example.com";
/// Generated cases whose CRDs the plane test installs.
const PLANE_RANDOM_CASES: usize = 12;
/// Objects with random values created per generated case on the plane.
const PLANE_FUZZ_OBJECTS: usize = 6;

fn env_number(name: &str) -> Option<u64> {
    std::env::var(name).ok().map(|v| {
        v.parse()
            .unwrap_or_else(|_| panic!("{name} must be a number"))
    })
}

/// The differences file.
fn known() -> KnownDifferences {
    let path = Path::new(TWINS).join("DIFFERENCES.toml");
    let known: KnownDifferences = toml::from_str(&std::fs::read_to_string(&path).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    for k in &known.differences {
        assert!(
            !k.class.is_empty() && !k.what.is_empty() && !k.reason.is_empty(),
            "{}: every entry says what differs, its class and why ({})",
            path.display(),
            k.path
        );
    }
    known
}

/// Both generators' CRDs, paired by group and kind.
pub struct Generated {
    /// (group/kind, kubegen's CRD, controller-gen's CRD).
    pub pairs: Vec<(String, Value, Value)>,
    /// Kinds only one generator wrote: (group/kind, "kubegen" or "controller-gen").
    pub unpaired: Vec<(String, &'static str)>,
    /// The generator's seed.
    pub seed: u64,
    /// Whether this is the default generated slice.
    pub default_run: bool,
}

fn group_kind(crd: &Value) -> String {
    format!(
        "{}/{}",
        crd["spec"]["group"].as_str().unwrap(),
        crd["spec"]["names"]["kind"].as_str().unwrap()
    )
}

/// Writes both sides into a temp dir and runs both generators (once per
/// test binary).
pub fn generated() -> &'static Generated {
    static GENERATED: OnceLock<Generated> = OnceLock::new();
    GENERATED.get_or_init(|| {
        let seed = env_number("KUBEGEN_CGDIFF_SEED").unwrap_or(DEFAULT_SEED);
        let cases = env_number("KUBEGEN_CGDIFF_CASES").map_or(DEFAULT_CASES, |n| n as usize);
        let tmp = tempfile::tempdir().unwrap();
        let go = tmp.path().join("go");
        let krate = tmp.path().join("rust");
        generators::copy_tree(
            Path::new(TWINS),
            &go,
            &["rust", "README.md", "DIFFERENCES.toml"],
        );
        generators::copy_tree(&Path::new(TWINS).join("rust"), &krate, &[]);

        let known = known();
        let table = builtins::table();
        let types: Vec<&builtins::Builtin> = table
            .iter()
            .filter(|t| !known.skips.iter().any(|s| s.definition == t.definition))
            .collect();
        for s in &known.skips {
            assert!(
                table.iter().any(|t| t.definition == s.definition),
                "skip entry {} names no type of the built-in table",
                s.definition
            );
        }
        let (random_rust, random_go) = random::sources(seed, cases);
        for (dir, file, text) in [
            ("builtins/v1", "types.go", builtins::go(&types)),
            ("random/v1", "types.go", random_go),
        ] {
            std::fs::create_dir_all(go.join(dir)).unwrap();
            std::fs::write(go.join(dir).join(file), text).unwrap();
        }
        std::fs::write(krate.join("src/builtins.rs"), builtins::rust(&types)).unwrap();
        std::fs::write(krate.join("src/random.rs"), random_rust).unwrap();
        let mut lib = std::fs::read_to_string(krate.join("src/lib.rs")).unwrap();
        lib.push_str("pub mod builtins;\npub mod random;\n");
        std::fs::write(krate.join("src/lib.rs"), lib).unwrap();

        let cg_out = tmp.path().join("controller-gen-out");
        let mut theirs: BTreeMap<String, Value> = generators::run_controller_gen(&go, &cg_out, "")
            .into_values()
            .map(|crd| (group_kind(&crd), crd))
            .collect();
        let mut ours: BTreeMap<String, Value> = generators::run_kubegen_generate(&krate)
            .into_values()
            .map(|crd| (group_kind(&crd), crd))
            .collect();
        let example = generators::run_kubegen_crd(
            &Path::new(ROOT).join("examples/my-application/Cargo.toml"),
            "MyApplication",
        );
        ours.insert(group_kind(&example), example);

        // The shapes again with descriptions cut: controller-gen's
        // maxDescLen, kubegen's max-description-len.
        let short = tmp.path().join("rust-short");
        generators::copy_tree(&Path::new(TWINS).join("rust"), &short, &[]);
        let manifest = std::fs::read_to_string(short.join("Cargo.toml")).unwrap();
        let setting =
            format!("[package.metadata.kubegen]\nmax-description-len = {DESCRIPTION_LEN}\n");
        std::fs::write(
            short.join("Cargo.toml"),
            manifest.replace("[package.metadata.kubegen]\n", &setting),
        )
        .unwrap();
        let cut = |crds: BTreeMap<String, Value>| {
            crds.into_values()
                .filter(|crd| crd["spec"]["group"] == SHAPES_GROUP)
                .map(|crd| {
                    (
                        format!("maxDescLen={DESCRIPTION_LEN}/{}", group_kind(&crd)),
                        crd,
                    )
                })
                .collect::<Vec<_>>()
        };
        theirs.extend(cut(generators::run_controller_gen(
            &go,
            &tmp.path().join("controller-gen-short"),
            &format!(",maxDescLen={DESCRIPTION_LEN}"),
        )));
        ours.extend(cut(generators::run_kubegen_generate(&short)));

        let mut pairs = Vec::new();
        let mut unpaired = Vec::new();
        for (gk, k) in ours {
            match theirs.remove(&gk) {
                Some(c) => pairs.push((gk, k, c)),
                None => unpaired.push((gk, "kubegen")),
            }
        }
        unpaired.extend(theirs.into_keys().map(|gk| (gk, "controller-gen")));
        let generated = Generated {
            pairs,
            unpaired,
            seed,
            default_run: seed == DEFAULT_SEED && cases == DEFAULT_CASES,
        };
        if std::env::var_os("KUBEGEN_CGDIFF_KEEP").is_some() {
            eprintln!("twins kept in {}", tmp.keep().display());
        }
        generated
    })
}

#[test]
fn kubegen_crds_equal_controller_gen_crds_node_for_node() {
    let generated = generated();
    assert!(
        generated.unpaired.is_empty(),
        "kinds only one generator wrote: {:?}",
        generated.unpaired
    );
    let known = known();
    let mut counts = Counts::default();
    let mut differences: Vec<Difference> = Vec::new();
    let mut per_group: BTreeMap<String, Counts> = BTreeMap::new();
    for (gk, k, c) in &generated.pairs {
        let mut here = Counts::default();
        differences.extend(compare::compare(gk, k, c, &mut here));
        let group = per_group
            .entry(gk.split('/').next().unwrap().to_owned())
            .or_default();
        group.compared += here.compared;
        group.identical += here.identical;
        counts.compared += here.compared;
        counts.identical += here.identical;
    }
    let verdict = compare::explain(&known, &differences);

    println!(
        "controller-gen diff: {} CRDs, {} nodes compared, {} identical, {} in {} differences",
        generated.pairs.len(),
        counts.compared,
        counts.identical,
        counts.compared - counts.identical,
        differences.len()
    );
    for (group, c) in &per_group {
        println!(
            "  {group}: {} compared, {} identical",
            c.compared, c.identical
        );
    }
    println!("explained, by class (differences, nodes):");
    for (class, (n, nodes)) in &verdict.by_class {
        println!("  {class}: {n} differences, {nodes} nodes");
    }
    println!("explained, by entry (differences, nodes):");
    for (i, k) in known.differences.iter().enumerate() {
        let (n, nodes) = verdict.per_entry[i];
        println!(
            "  [{i}] {n:5} {nodes:6}  {} {} ({}): {}",
            k.path,
            k.change.map_or("any".to_owned(), |c| format!("{c:?}")),
            k.class,
            k.what
        );
    }
    println!("built-in types left out:");
    for s in &known.skips {
        println!("  {}: {}", s.definition, s.reason);
    }

    let mut failures = Vec::new();
    if !verdict.unexplained.is_empty() {
        failures.push(format!(
            "{} unexplained differences ({} nodes):\n{}",
            verdict.unexplained.len(),
            verdict.unexplained.iter().map(|d| d.nodes).sum::<usize>(),
            compare::report_unexplained(&verdict.unexplained)
        ));
    }
    let unused: Vec<String> = verdict
        .unused
        .iter()
        .map(|i| format!("  [{i}] {}", known.differences[*i].path))
        .collect();
    if !unused.is_empty() {
        if generated.default_run {
            failures.push(format!(
                "entries of DIFFERENCES.toml that explain nothing (remove them):\n{}",
                unused.join("\n")
            ));
        } else {
            println!(
                "entries that explain nothing in this non-default run:\n{}",
                unused.join("\n")
            );
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[tokio::test]
async fn controller_gen_crds_give_the_same_verdicts_on_the_apiserver() -> anyhow::Result<()> {
    let generated = tokio::task::spawn_blocking(generated).await?;
    let env = kubegen_testenv::TestEnv::shared().await?;
    let namespace = env.namespace("cgdiff").await?;
    let client = env.client().await?;
    let mut rows = plane::rows();
    rows.extend(plane::random_rows(
        generated.seed,
        PLANE_RANDOM_CASES,
        PLANE_FUZZ_OBJECTS,
    ));
    // The CRDs themselves: controller-gen's uniqueItems is refused.
    let (_, ours, theirs) = generated
        .pairs
        .iter()
        .find(|(gk, ..)| gk == "shapes.cgdiff.example.com/Extras")
        .expect("the Extras pair");
    let group = ours["spec"]["group"].as_str().unwrap();
    plane::install(&client, ours, group).await?;
    let refused = plane::install(&client, theirs, &plane::controller_gen_group(group))
        .await
        .expect_err("the apiserver accepted controller-gen's uniqueItems: true");
    let refusal = format!("{refused:#}");
    println!("CRD Extras: kubegen's installed; controller-gen's refused: {refusal}");
    assert!(
        refusal.contains("uniqueItems cannot be set to true"),
        "{refusal}"
    );
    let outcomes = plane::run(&client, &namespace, &generated.pairs, &rows).await?;
    println!("{}", plane::table(&rows, &outcomes));
    let mut failures = Vec::new();
    for (row, (theirs, ours)) in rows.iter().zip(&outcomes) {
        match (row.differs, theirs == ours) {
            (None, false) => failures.push(format!(
                "{}: controller-gen's CRD {theirs:?}, kubegen's {ours:?}",
                row.name
            )),
            (Some(why), true) => failures.push(format!(
                "{}: expected to differ ({why}), but both CRDs give {ours:?}",
                row.name
            )),
            _ => {}
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    Ok(())
}
