//! `kubegen new` of a sharded operator (`scaffold::create_with` with
//! [`Sharding`]): its `main` joins a shard set instead of electing a
//! leader and shards the controller, its Deployment runs three replicas
//! that know their pod's name, and its role grants exactly what the shard
//! set's Leases need. It verifies, stays sharded as it grows (`kubegen
//! add`), builds on its own and passes its own tests, e2e included.

use std::path::{Path, PathBuf};
use std::process::Command;

use kubegen_cli::scaffold::{self, DEFAULT_PARTITIONS, Options, Sharding};
use serde_yaml::Value;

mod support;
use support::{assert_rustfmt_clean, kubegen, text};

const REPO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

fn options(dir: &Path, kubegen_path: Option<PathBuf>) -> Options {
    Options {
        dir: dir.to_path_buf(),
        group: "stable.example.com".into(),
        version: "v1".into(),
        kind: "MyApplication".into(),
        kubegen_path,
        webhook: false,
    }
}

fn read(dir: &Path, file: &str) -> String {
    std::fs::read_to_string(dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
}

/// The YAML documents of `file`.
fn documents(dir: &Path, file: &str) -> Vec<Value> {
    read(dir, file)
        .split("\n---\n")
        .map(|doc| serde_yaml::from_str(doc).unwrap())
        .filter(|doc: &Value| !doc.is_null())
        .collect()
}

/// The verbs of every rule of the operator's role on Leases.
fn lease_verbs(dir: &Path) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    for role in documents(dir, "config/rbac/role.yaml") {
        for rule in role["rules"].as_sequence().into_iter().flatten() {
            let on_leases = rule["resources"]
                .as_sequence()
                .is_some_and(|r| r.iter().any(|r| r.as_str() == Some("leases")));
            if on_leases {
                assert_eq!(rule["apiGroups"][0].as_str(), Some("coordination.k8s.io"));
                let verbs = rule["verbs"].as_sequence().unwrap();
                found.push(
                    verbs
                        .iter()
                        .map(|v| v.as_str().unwrap().to_string())
                        .collect(),
                );
            }
        }
    }
    found
}

/// Fails unless `text` (the file `name`) contains every one of `needles`
/// and none of `absent`.
fn assert_says(name: &str, text: &str, needles: &[&str], absent: &[&str]) {
    for needle in needles {
        assert!(text.contains(needle), "{name}: {needle:?} not in\n{text}");
    }
    for needle in absent {
        assert!(!text.contains(needle), "{name}: {needle:?} in\n{text}");
    }
}

#[test]
fn a_sharded_scaffold_shards_runs_three_replicas_and_grants_the_lease_verbs() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("my-operator");
    let created = scaffold::create_with(&options(&dir, None), Some(Sharding { partitions: 32 }))
        .unwrap_or_else(|e| panic!("{e:#?}"));
    assert!(
        created
            .files
            .contains(&PathBuf::from("config/rbac/role.yaml"))
    );

    // The manager joins the shard set instead of electing a leader, and
    // the controller is sharded by the partitions this replica holds.
    assert_says(
        "src/main.rs",
        &read(&dir, "src/main.rs"),
        &[
            "use kubegen::sharding::ShardingConfig;\n",
            "const SHARD_SET: &str = \"my-operator\";\n",
            "const PARTITIONS: u32 = 32;\n",
            "    manager = manager.sharding(ShardingConfig {\n        partitions: PARTITIONS,\n        ..ShardingConfig::new(namespace, SHARD_SET)\n    });\n",
            "let shards = manager.shards().cloned()",
            "        .metrics(manager.controller_metrics())\n        .shards(&shards)\n        .reconcile(controller::reconcile, ctx.clone());\n",
            "--lease-namespace <NS>              namespace of the shard set's Leases",
        ],
        &[
            "leader_election",
            "LeaderElectionConfig",
            "LEASE_NAME",
            "leader_elect",
            "\"--no-leader-elect\" if",
        ],
    );

    // Exactly the Lease verbs a shard set needs, and nothing else on
    // Leases: no leader election Lease.
    assert_eq!(
        lease_verbs(&dir),
        [["create", "delete", "get", "list", "update"]]
    );
    assert_says(
        "src/controller.rs",
        &read(&dir, "src/controller.rs"),
        &[
            r#"#[rbac(groups = ["coordination.k8s.io"], resources = ["leases"], verbs = ["get", "list", "create", "update", "delete"])]"#,
        ],
        &[],
    );

    // Three active replicas, each knowing its pod's name (its identity in
    // the shard set) and namespace (the Leases').
    let deployment = &documents(&dir, "deploy/deployment.yaml")[0];
    assert_eq!(deployment["spec"]["replicas"].as_u64(), Some(3));
    let env = deployment["spec"]["template"]["spec"]["containers"][0]["env"]
        .as_sequence()
        .unwrap();
    for (name, field) in [
        ("POD_NAME", "metadata.name"),
        ("POD_NAMESPACE", "metadata.namespace"),
    ] {
        let var = env
            .iter()
            .find(|v| v["name"].as_str() == Some(name))
            .unwrap_or_else(|| panic!("no {name} in {env:?}"));
        assert_eq!(
            var["valueFrom"]["fieldRef"]["fieldPath"].as_str(),
            Some(field)
        );
    }

    let readme = read(&dir, "README.md");
    assert_says(
        "README.md",
        &readme,
        &[
            "--kind MyApplication --sharded --partitions 32\n",
            "## Sharding",
            "`my-operator-NNN`",
            "ShardedListAndWatch",
            "make run ARGS=\"--health-probe-bind-address",
        ],
        &["ARGS=\"--no-leader-elect", "| `--no-leader-elect`", "{{"],
    );
    assert_rustfmt_clean(&dir, "kubegen new --sharded");
}

#[test]
fn a_sharded_scaffold_with_the_default_count_says_only_sharded() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("My_Operator");
    scaffold::create_with(&options(&dir, None), Some(Sharding::default()))
        .unwrap_or_else(|e| panic!("{e:#?}"));
    assert_eq!(DEFAULT_PARTITIONS, 16);
    let main = read(&dir, "src/main.rs");
    // The shard set is named after the chart: a DNS label.
    assert_says(
        "src/main.rs",
        &main,
        &[
            "const PARTITIONS: u32 = 16;\n",
            "const SHARD_SET: &str = \"my-operator\";\n",
        ],
        &[],
    );
    assert!(
        read(&dir, "README.md").contains("--kind MyApplication --sharded\n"),
        "{}",
        read(&dir, "README.md")
    );
}

#[test]
fn a_partition_count_out_of_range_is_reported_and_nothing_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("my-operator");
    for partitions in [0, 257] {
        let errors =
            scaffold::create_with(&options(&dir, None), Some(Sharding { partitions })).unwrap_err();
        assert_eq!(errors.len(), 1, "{errors:#?}");
        assert_eq!(errors[0].file, Path::new("--partitions"));
        assert!(errors[0].message.contains("1 to 256"), "{errors:#?}");
        assert!(!dir.exists());
    }
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
}

/// `kubegen add kind` shards the controller it registers; `kubegen add
/// webhook` finds its anchors in a sharded `main.rs` too.
#[test]
fn a_sharded_scaffold_grows_sharded() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("grown-operator");
    scaffold::create_with(&options(&dir, None), Some(Sharding::default()))
        .unwrap_or_else(|e| panic!("{e:#?}"));
    let d = dir.to_str().unwrap();
    for args in [
        &["add", "--dir", d, "kind", "Backup"][..],
        &[
            "add",
            "--dir",
            d,
            "webhook",
            "--kind",
            "MyApplication",
            "--validating",
        ],
    ] {
        let out = kubegen(args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "kubegen {args:?}:\n{}{}",
            text(&out.stdout),
            text(&out.stderr)
        );
    }
    let main = read(&dir, "src/main.rs");
    assert_eq!(main.matches(".shards(&shards)\n").count(), 2, "{main}");
    assert_says(
        "src/main.rs",
        &main,
        &[
            "        .shards(&shards)\n        .reconcile(controller::backup::reconcile, ctx.clone());\n",
            "manager = manager.webhook_server(flags.webhook_addr, server);",
            "      --webhook-cert-dir <DIR>",
        ],
        &["leader_elect"],
    );
    assert!(dir.join("src/webhook.rs").is_file());
    assert_eq!(
        lease_verbs(&dir),
        [["create", "delete", "get", "list", "update"]]
    );
    assert_rustfmt_clean(&dir, "kubegen add on a sharded operator");
}

#[test]
fn sharded_scaffolded_crate_verifies_builds_and_passes_its_tests() {
    // Beside the unsharded crate of tests/scaffold.rs, sharing its build
    // artifacts (target/scaffold).
    let dir = Path::new(REPO).join("target/scaffold-crate/sharded-operator");
    if dir.exists() {
        std::fs::remove_dir_all(&dir).unwrap();
    }
    std::fs::create_dir_all(dir.parent().unwrap()).unwrap();
    let dir = dir
        .parent()
        .unwrap()
        .canonicalize()
        .unwrap()
        .join("sharded-operator");
    let repo = Path::new(REPO).canonicalize().unwrap();
    scaffold::create_with(&options(&dir, Some(repo)), Some(Sharding { partitions: 8 }))
        .unwrap_or_else(|e| panic!("{e:#?}"));

    let manifest = dir.join("Cargo.toml");
    let out = kubegen(&[
        "generate",
        "--check",
        "--manifest-path",
        manifest.to_str().unwrap(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );

    // rustfmt-clean, builds on its own against this tree's runtime (so
    // `ManagerBuilder::sharding`, `Manager::shards` and
    // `ControllerBuilder::shards` are used as they are), and its tests
    // pass: main's flags, the reconcile on the in-process API server, and
    // the e2e tests, which dry-run the sharded Deployment and role on a
    // real apiserver.
    let target_dir = Path::new(REPO).join("target/scaffold");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    for args in [&["fmt", "--check"][..], &["build", "--tests"], &["test"]] {
        let out = Command::new(&cargo)
            .args(args)
            .current_dir(&dir)
            .env("CARGO_TARGET_DIR", &target_dir)
            .output()
            .expect("running cargo");
        let log = format!("{}{}", text(&out.stdout), text(&out.stderr));
        assert!(out.status.success(), "cargo {args:?} failed:\n{log}");
        if args == ["test"] {
            for test in [
                "tests::bad_flags ... ok",
                "deploy_manifests_are_valid ... ok",
                "deployment_passes_pod_security_restricted ... ok",
            ] {
                assert!(log.contains(test), "{test} not run:\n{log}");
            }
        }
    }
}
