//! `kubegen check` on a crate in a git repository: the CRDs generated now
//! against those of a tagged release (and of a directory), breaking
//! changes refused until an `allow_breaking` attribute says why.

mod support;

use std::path::Path;
use std::process::Command;

use support::{kubegen_in, text};

fn git(dir: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .args(["-c", "user.email=t@example.com", "-c", "user.name=t"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git")
        .status
        .success();
    assert!(ok, "git {args:?}");
}

fn api(fields: &str, attrs: &str) -> String {
    format!(
        r#"use kubegen::CustomResource;
/// A widget.
#[derive(CustomResource)]
#[kubegen(group = "example.com", version = "v1", kind = "Widget", namespaced)]
{attrs}
pub struct WidgetSpec {{
{fields}
}}
"#
    )
}

#[test]
fn breaking_changes_since_a_release_are_refused_until_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(
        root.join("Cargo.toml"),
        "[package]\nname = \"widgets\"\nversion = \"0.1.0\"\n",
    )
    .unwrap();
    std::fs::write(root.join("src/lib.rs"), "mod api;\n").unwrap();
    let v1 = "    pub replicas: i32,\n    pub legacy: Option<String>,\n";
    std::fs::write(root.join("src/api.rs"), api(v1, "")).unwrap();
    let generate = |root: &Path| {
        let out = kubegen_in(root, &["generate"]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    };
    generate(root);
    git(root, &["init", "-q"]);
    git(root, &["add", "."]);
    git(root, &["commit", "-q", "-m", "v1"]);
    git(root, &["tag", "v0.1.0"]);
    let released = tempfile::tempdir().unwrap();
    support::copy_dir(&root.join("config/crd"), released.path());

    // Unchanged: nothing to report.
    let out = kubegen_in(root, &["check", "--against", "v0.1.0"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("0 breaking changes against v0.1.0 (0 allowed, 0 safe)"));

    let v2 =
        "    #[kubegen(maximum = 10)]\n    pub replicas: i32,\n    pub extra: Option<String>,\n";
    std::fs::write(root.join("src/api.rs"), api(v2, "")).unwrap();
    for against in ["v0.1.0", released.path().to_str().unwrap()] {
        let out = kubegen_in(root, &["check", "--against", against]);
        let stdout = text(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{stdout}{}", text(&out.stderr));
        for line in [
            "widgets.example.com\n",
            "  BREAKING field-removed v1 .spec.legacy: ",
            "  BREAKING bound-tightened v1 .spec.replicas: .spec.replicas gains maximum 10",
            "  safe     field-added v1 .spec.extra: ",
            "2 breaking changes against",
        ] {
            assert!(stdout.contains(line), "{line:?} in\n{stdout}");
        }
    }
    let out = kubegen_in(root, &["check", "--against", "v0.1.0", "--output", "json"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["refused"], 2);
    let ids: Vec<&str> = report["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            "field-removed v1 .spec.legacy",
            "bound-tightened v1 .spec.replicas",
            "field-added v1 .spec.extra"
        ]
    );

    // Allowed, with reasons: accepted; a stale allowance is reported.
    let allow = "#[kubegen(allow_breaking = \"field-removed v1 .spec.legacy: unused since v0.0.3\")]\n\
                 #[kubegen(allow_breaking = \"bound-tightened v1 .spec.replicas: more never worked\")]\n\
                 #[kubegen(allow_breaking = \"field-removed v1 .spec.gone: stale\")]";
    std::fs::write(root.join("src/api.rs"), api(v2, allow)).unwrap();
    let out = kubegen_in(root, &["check", "--against", "v0.1.0"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains("  allowed  field-removed v1 .spec.legacy: "),
        "{stdout}"
    );
    assert!(
        stdout.contains("(allowed: unused since v0.0.3)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("warning: allow_breaking \"field-removed v1 .spec.gone: stale\" names no breaking change"),
        "{stdout}"
    );

    // An allowance must say why, and name a rule.
    let bad = "#[kubegen(allow_breaking = \"field-removed v1 .spec.legacy\")]";
    std::fs::write(root.join("src/api.rs"), api(v2, bad)).unwrap();
    let out = kubegen_in(root, &["check", "--against", "v0.1.0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("must name the change and say why"),
        "{}",
        text(&out.stderr)
    );
    let typo = "#[kubegen(allow_breaking = \"field-remove v1 .spec.legacy: typo\")]";
    std::fs::write(root.join("src/api.rs"), api(v2, typo)).unwrap();
    let out = kubegen_in(root, &["check", "--against", "v0.1.0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("did you mean field-removed?"),
        "{}",
        text(&out.stderr)
    );

    // Neither a directory nor a ref.
    let out = kubegen_in(root, &["check", "--against", "v9.9.9"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("neither a directory nor a git ref"),
        "{}",
        text(&out.stderr)
    );
}
