//! The book builds with mdBook (`make book`, which installs the pinned
//! mdBook once into `~/.cache/kubegen/tools/`): every chapter `SUMMARY.md`
//! names exists and every `{{#include}}` resolves, as mdBook itself checks.

use std::process::Command;

mod support;

#[test]
fn make_book_builds_the_book() {
    let repo = support::repo();
    let out = Command::new("make")
        .arg("-s")
        .arg("book")
        .current_dir(&repo)
        .output()
        .expect("running make book");
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "make book failed:\n{log}");
    assert!(!log.contains("WARN"), "mdBook warned:\n{log}");
    let index = repo.join("target/book/tutorial.html");
    let html = std::fs::read_to_string(&index).unwrap();
    assert!(
        html.contains("kubegen new website-operator"),
        "{}",
        index.display()
    );
}
