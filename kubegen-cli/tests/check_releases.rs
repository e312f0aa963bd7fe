//! `kubegen check` on real release pairs of corpus projects, downloaded
//! from the Go module proxy: the verdicts on changes read off their
//! CRDs by hand (Gateway API 1.6 made `spec` of ReferenceGrant required;
//! cert-manager 1.21 added a one-of rule to Venafi issuers; External
//! Secrets 1.x stopped serving v1beta1), nothing found between a release
//! and itself, and the reverse direction breaking what the forward one
//! added.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use support::{kubegen_in, text};

/// The module's directory in the module cache, downloading it if needed.
fn module(path: &str) -> PathBuf {
    let out = Command::new("go")
        .args(["mod", "download", "-json", path])
        .env("GOTOOLCHAIN", "local")
        .env("GOFLAGS", "-mod=mod")
        .output()
        .expect("go (the release pairs come from the Go module proxy)");
    let info: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("go mod download {path}: {e}: {}", text(&out.stderr)));
    match info["Dir"].as_str() {
        Some(dir) => PathBuf::from(dir),
        None => panic!("go mod download {path}: {info}"),
    }
}

/// `kubegen check --against <old> --crd <new>`: exit code and report.
fn check(old: &Path, new: &Path) -> (i32, String) {
    let here = std::env::current_dir().unwrap();
    let out = kubegen_in(
        &here,
        &[
            "check",
            "--against",
            old.to_str().unwrap(),
            "--crd",
            new.to_str().unwrap(),
        ],
    );
    assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
    (out.status.code().unwrap_or(-1), text(&out.stdout))
}

#[test]
fn verdicts_on_real_release_pairs() {
    let pairs = [
        (
            "sigs.k8s.io/gateway-api@v1.5.1",
            "sigs.k8s.io/gateway-api@v1.6.3",
            "config/crd/standard",
            &["referencegrants.gateway.networking.k8s.io\n  BREAKING required-added v1 .spec: "][..],
        ),
        (
            "github.com/cert-manager/cert-manager@v1.20.2",
            "github.com/cert-manager/cert-manager@v1.21.2",
            "deploy/crds",
            &["  BREAKING rule-added v1 .spec.venafi: "][..],
        ),
        (
            "github.com/external-secrets/external-secrets@v0.16.2",
            "github.com/external-secrets/external-secrets@v1.3.2",
            "config/crds/bases",
            &[
                "  BREAKING served-version-removed v1beta1: ",
                "(the same Go duration, written differently",
            ][..],
        ),
    ];
    for (old, new, dir, expected) in pairs {
        let (old, new) = (module(old).join(dir), module(new).join(dir));
        let (code, report) = check(&old, &new);
        eprintln!("{}", report.lines().last().unwrap_or_default());
        assert_eq!(code, 1, "{report}");
        for e in expected {
            assert!(report.contains(e), "{e:?} in\n{report}");
        }
        let (code, same) = check(&new, &new);
        assert_eq!(code, 0, "{same}");
        assert!(
            same.contains(" 0 breaking changes against ") && same.contains("(0 allowed, 0 safe)"),
            "{same}"
        );
        // Backwards, what was added is removed.
        let (code, back) = check(&new, &old);
        assert_eq!(code, 1, "{back}");
        let added = report
            .lines()
            .filter(|l| l.contains(" field-added "))
            .count();
        let removed = back
            .lines()
            .filter(|l| l.contains(" field-removed "))
            .count();
        assert_eq!(added, removed, "forward:\n{report}\nbackward:\n{back}");
    }
}
