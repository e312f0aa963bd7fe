//! File-system fault injection for `kubegen generate`: whatever goes wrong,
//! the crate's tree is either unchanged or fully updated (compared by the
//! contents of every file, directory and symlink), nothing outside the
//! crate is touched, and no other crate's or hand-written file is removed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod support;
use support::{FIXTURE, copy_dir, kubegen, text};

/// A copy of the fixture crate at `dir`, its package renamed to `name`
/// and `settings` appended to `[package.metadata.kubegen]`.
fn crate_at(dir: &Path, name: &str, settings: &str) -> PathBuf {
    copy_dir(Path::new(FIXTURE), dir);
    let manifest = dir.join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest)
        .unwrap()
        .replacen("name = \"shop\"", &format!("name = \"{name}\""), 1)
        .replacen(
            "[package.metadata.kubegen]\n",
            &format!("[package.metadata.kubegen]\n{settings}"),
            1,
        );
    std::fs::write(&manifest, text).unwrap();
    // The checked-in output is the fixture's: make it this crate's.
    for (path, contents) in snapshot(dir) {
        if contents.contains("kubegen:crate=shop\n") {
            let renamed = contents.replacen(
                "kubegen:crate=shop\n",
                &format!("kubegen:crate={name}\n"),
                1,
            );
            std::fs::write(dir.join(path), renamed).unwrap();
        }
    }
    manifest
}

fn generate(manifest: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["generate", "--manifest-path", manifest.to_str().unwrap()];
    args.extend(extra);
    kubegen(&args)
}

/// Every entry under `dir`, not following symlinks: files by content,
/// directories, symlinks by target.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, String> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries {
            let entry = entry.unwrap();
            let path = entry.path();
            let rel = path.strip_prefix(root).unwrap().to_path_buf();
            let kind = entry.file_type().unwrap();
            if kind.is_symlink() {
                let target = std::fs::read_link(&path).unwrap();
                out.insert(rel, format!("symlink -> {}", target.display()));
            } else if kind.is_dir() {
                out.insert(rel, "dir".into());
                walk(root, &path, out);
            } else {
                let bytes = std::fs::read(&path).unwrap();
                out.insert(rel, String::from_utf8_lossy(&bytes).into_owned());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// Makes `path` impossible to change: `chattr +i` for root (whom file
/// modes do not stop), read-only modes otherwise. Undone on drop.
struct Frozen(PathBuf);

fn run(program: &str, args: &[&str]) {
    let status = Command::new(program).args(args).status().unwrap();
    assert!(status.success(), "{program} {args:?}");
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| text(&o.stdout).trim() == "0")
}

impl Frozen {
    fn new(path: &Path) -> Frozen {
        if is_root() {
            run("chattr", &["+i", path.to_str().unwrap()]);
        } else {
            run("chmod", &["a-w", path.to_str().unwrap()]);
        }
        Frozen(path.to_path_buf())
    }
}

impl Drop for Frozen {
    fn drop(&mut self) {
        let path = self.0.to_str().unwrap();
        if is_root() {
            run("chattr", &["-i", path]);
        } else {
            run("chmod", &["u+w", path]);
        }
    }
}

/// Changes the spec so that every CRD and some Rust files change.
fn edit_sources(dir: &Path) {
    let api = dir.join("src/api/v2.rs");
    let text = std::fs::read_to_string(&api).unwrap();
    let edited = text.replace("/// How many.", "/// How many items.");
    assert_ne!(text, edited, "the fixture changed; update this test");
    std::fs::write(&api, edited).unwrap();
    // Every generated file differs from what generate will write.
    for (path, contents) in snapshot(dir) {
        let full = dir.join(&path);
        if contents.starts_with("# @generated") || contents.starts_with("// @generated") {
            std::fs::write(&full, format!("{contents}\n")).unwrap();
        }
    }
}

fn leftovers(dir: &Path) -> Vec<PathBuf> {
    snapshot(dir)
        .into_keys()
        .filter(|p| p.to_string_lossy().contains(".kubegen-"))
        .collect()
}

#[test]
fn a_read_only_output_directory_changes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("shop");
    let manifest = crate_at(&dir, "shop", "");
    edit_sources(&dir);
    // A new file must be created in a directory that cannot change.
    std::fs::remove_file(dir.join("src/generated/listers/shop_v2.rs")).unwrap();
    let before = snapshot(&dir);
    let listers = dir.join("src/generated/listers");
    let frozen = Frozen::new(&listers);
    let out = generate(&manifest, &[]);
    drop(frozen);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(
        err.contains("src/generated/listers"),
        "the failing path is named: {err}"
    );
    assert!(err.contains("nothing was written"), "{err}");
    assert_eq!(snapshot(&dir), before, "the tree changed");
    assert!(leftovers(&dir).is_empty());

    // Once writable, the same run fully updates the tree.
    let out = generate(&manifest, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(generate(&manifest, &["--check"]).status.success());
}

#[test]
fn a_failure_in_the_middle_of_the_set_is_rolled_back() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("shop");
    let manifest = crate_at(&dir, "shop", "");
    edit_sources(&dir);
    let before = snapshot(&dir);
    // The CRDs sort before it and are replaced first; then this one fails.
    let role = dir.join("config/rbac/role.yaml");
    let frozen = Frozen::new(&role);
    let out = generate(&manifest, &[]);
    drop(frozen);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(err.contains("config/rbac/role.yaml"), "{err}");
    assert!(err.contains("nothing was written"), "{err}");
    assert!(!err.contains(" written, "), "no success summary: {err}");
    assert_eq!(snapshot(&dir), before, "the tree changed");
    assert!(leftovers(&dir).is_empty());
}

#[test]
fn symlinks_are_never_followed() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("shop");
    let manifest = crate_at(&dir, "shop", "");
    // A loop inside the output, and a link to a directory outside the crate
    // holding a file that looks like this crate's output.
    std::os::unix::fs::symlink(".", dir.join("src/generated/loop")).unwrap();
    let outside = tmp.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    std::fs::write(
        outside.join("old_v1.rs"),
        "// @generated by kubegen. DO NOT EDIT.\n// kubegen:crate=shop\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(&outside, dir.join("src/generated/out")).unwrap();
    let outside_before = snapshot(&outside);
    let before = snapshot(&dir);
    let out = generate(&manifest, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("0 removed"),
        "{}",
        text(&out.stdout)
    );
    assert_eq!(snapshot(&dir), before, "an up-to-date tree changed");
    assert_eq!(
        snapshot(&outside),
        outside_before,
        "outside the crate changed"
    );

    // A symlinked output directory is refused, not written through.
    let rbac = dir.join("config/rbac");
    std::fs::rename(&rbac, tmp.path().join("rbac-real")).unwrap();
    std::os::unix::fs::symlink(tmp.path().join("rbac-real"), &rbac).unwrap();
    std::fs::write(
        tmp.path().join("rbac-real/role.yaml"),
        "# @generated by kubegen. DO NOT EDIT.\n",
    )
    .unwrap();
    let real_before = snapshot(&tmp.path().join("rbac-real"));
    let out = generate(&manifest, &[]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("config/rbac") && err.contains("symbolic link"),
        "{err}"
    );
    assert_eq!(snapshot(&tmp.path().join("rbac-real")), real_before);
}

#[test]
fn hand_written_files_at_output_paths_are_not_overwritten() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("shop");
    let manifest = crate_at(&dir, "shop", "");
    std::fs::write(dir.join("config/rbac/role.yaml"), "kind: Mine\n").unwrap();
    let before = snapshot(&dir);
    let out = generate(&manifest, &[]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("config/rbac/role.yaml") && err.contains("not generated by kubegen"),
        "{err}"
    );
    assert_eq!(snapshot(&dir), before);
}

#[test]
fn output_outside_the_crate_needs_an_opt_in_and_spares_other_crates() {
    let tmp = tempfile::tempdir().unwrap();
    let shared = tmp.path().join("shared-crds");
    std::fs::create_dir(&shared).unwrap();
    std::fs::write(shared.join("README"), "hand-written\n").unwrap();
    let a = crate_at(
        &tmp.path().join("a"),
        "shop-a",
        "crd-dir = \"../shared-crds\"\n",
    );
    let b = crate_at(
        &tmp.path().join("b"),
        "shop-b",
        "crd-dir = \"../shared-crds\"\n",
    );

    // Without the opt-in: refused, nothing written anywhere.
    let before = snapshot(tmp.path());
    let out = generate(&a, &[]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("outside the crate") && err.contains("--allow-outside-crate"),
        "{err}"
    );
    assert_eq!(snapshot(tmp.path()), before);

    // With it, two crates share the folder; each removes only its own
    // files and neither overwrites the other's.
    assert!(generate(&a, &["--allow-outside-crate"]).status.success());
    let a_files = snapshot(&shared);
    let b_old = shared.join("shop-b_gone.yaml");
    std::fs::write(
        &b_old,
        "# @generated by kubegen. DO NOT EDIT.\n# kubegen:crate=shop-b\n",
    )
    .unwrap();
    let out = generate(&a, &["--allow-outside-crate"]);
    assert!(
        text(&out.stdout).contains("0 removed"),
        "{}",
        text(&out.stdout)
    );
    assert!(b_old.exists(), "a removed b's file");

    // b produces the same CRD file names as a: refused, named, unchanged.
    let before = snapshot(tmp.path());
    let out = generate(&b, &["--allow-outside-crate"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("was generated for the crate `shop-a`, not `shop-b`"),
        "{err}"
    );
    assert_eq!(snapshot(tmp.path()), before);

    // b's own stale file is its to remove, through its own run's --check.
    let out = generate(&b, &["--allow-outside-crate", "--check"]);
    let err = text(&out.stderr);
    assert!(
        err.contains("extra (no longer generated): ../shared-crds/shop-b_gone.yaml"),
        "{err}"
    );
    assert!(!err.contains("README"), "{err}");
    assert_eq!(snapshot(&shared)[Path::new("README")], "hand-written\n");
    assert!(a_files.keys().all(|k| shared.join(k).exists()));
}

#[test]
fn concurrent_runs_of_two_crates_both_complete() {
    let tmp = tempfile::tempdir().unwrap();
    let a = crate_at(&tmp.path().join("a"), "shop-a", "");
    let b = crate_at(&tmp.path().join("b"), "shop-b", "");
    edit_sources(&tmp.path().join("a"));
    edit_sources(&tmp.path().join("b"));
    let spawn = |m: &Path| {
        Command::new(env!("CARGO_BIN_EXE_kubegen"))
            .args(["generate", "--manifest-path", m.to_str().unwrap()])
            .output()
    };
    let (ra, rb) = std::thread::scope(|s| {
        let ha = s.spawn(|| spawn(&a));
        let hb = s.spawn(|| spawn(&b));
        (ha.join().unwrap().unwrap(), hb.join().unwrap().unwrap())
    });
    assert!(ra.status.success(), "{}", text(&ra.stderr));
    assert!(rb.status.success(), "{}", text(&rb.stderr));
    for m in [&a, &b] {
        let out = generate(m, &["--check"]);
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
    assert!(leftovers(tmp.path()).is_empty());
}
