//! The tutorial, followed literally: its shell blocks (```` ```sh ````) run
//! in order in one bash session, from an empty directory, with `KUBEGEN_SRC`
//! a fresh `git clone` of this repository (its committed tree). A Rust
//! block under a `<!-- file: PATH -->` line is written to `PATH` where it
//! stands, as the reader replaces the file. ```` ```sh,not-in-ci ```` blocks are
//! left out (building an image needs a container engine, which CI has
//! not). The session has job control, so `kill %N` stops a background
//! step and everything it started, as Ctrl-C would.
//!
//! What the harness adds around the page, and only that: `set -eu` (a
//! failing command fails the test), the clone, `helm` on `PATH` (the
//! tutorial lists it as a prerequisite), a cargo install root and the
//! target directory `kubegen new`'s test builds in (`target/scaffold`, so runs reuse
//! builds), and killing whatever is left running at the end.

use std::process::Command;

mod support;

/// The path of a `<!-- file: PATH -->` line just above the fence on line
/// `fence` (1-based).
fn file_above(markdown: &str, fence: usize) -> Option<String> {
    let above = markdown.lines().nth(fence.checked_sub(2)?)?;
    let path = above
        .trim()
        .strip_prefix("<!-- file:")?
        .strip_suffix("-->")?;
    Some(path.trim().to_string())
}

#[test]
fn the_tutorial_runs_on_a_fresh_clone() {
    let repo = support::repo();
    let page = support::book().join("src/tutorial.md");
    let markdown = std::fs::read_to_string(&page).unwrap();
    let scratch = repo.join("target/book-tutorial");
    if scratch.exists() {
        std::fs::remove_dir_all(&scratch).unwrap();
    }
    std::fs::create_dir_all(&scratch).unwrap();
    let clone = scratch.join("kubegen");
    let out = Command::new("git")
        .args(["clone", "--quiet"])
        .arg(&repo)
        .arg(&clone)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let helm = kubegen_testenv::helm().unwrap();

    let mut script = String::from(
        "set -eu\nset -m\nset -x\n\
         cleanup() { for job in $(jobs -p); do kill -- -\"$job\" 2>/dev/null || true; done; wait 2>/dev/null || true; }\n\
         trap cleanup EXIT\n",
    );
    let mut steps = 0;
    for block in support::blocks(&markdown) {
        let mut words = block.info.split(',');
        let language = words.next().unwrap_or_default();
        let attributes: Vec<&str> = words.collect();
        match language {
            "sh" if attributes.contains(&"not-in-ci") => continue,
            "sh" => {
                assert!(
                    attributes.is_empty(),
                    "tutorial.md:{}: {:?}",
                    block.line,
                    block.info
                );
                script.push_str(&format!("# tutorial.md:{}\n{}", block.line, block.text));
            }
            "rust" => {
                let Some(file) = file_above(&markdown, block.line) else {
                    continue;
                };
                let delimiter = "KUBEGEN_TUTORIAL_FILE";
                assert!(!block.text.contains(delimiter));
                script.push_str(&format!(
                    "# tutorial.md:{}\ncat > {file} <<'{delimiter}'\n{}{delimiter}\n",
                    block.line, block.text
                ));
            }
            _ => continue,
        }
        steps += 1;
    }
    assert!(steps >= 10, "only {steps} steps found in tutorial.md");

    let log = scratch.join("tutorial.log");
    let status = Command::new("timeout")
        .args(["--kill-after=30s", "40m", "bash", "-c", &script])
        .current_dir(&scratch)
        .env("KUBEGEN_SRC", &clone)
        .env("CARGO_TARGET_DIR", repo.join("target/scaffold"))
        .env("CARGO_INSTALL_ROOT", scratch.join("cargo"))
        .env(
            "PATH",
            format!(
                "{}:{}:{}",
                scratch.join("cargo/bin").display(),
                helm.parent().unwrap().display(),
                std::env::var("PATH").unwrap()
            ),
        )
        .env_remove("KUBECONFIG")
        .env_remove("KUBEGEN")
        .stdout(std::fs::File::create(&log).unwrap())
        .stderr(std::fs::File::create(scratch.join("tutorial.err")).unwrap())
        .status()
        .unwrap();
    if !status.success() {
        let err = std::fs::read_to_string(scratch.join("tutorial.err")).unwrap_or_default();
        let tail: Vec<&str> = err.lines().rev().take(120).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        panic!(
            "the tutorial failed ({status}); the whole run is in {} and {}:\n{}",
            log.display(),
            scratch.join("tutorial.err").display(),
            tail.join("\n")
        );
    }
    println!("tutorial: {steps} steps ran");
    std::fs::remove_dir_all(&scratch).unwrap();
}
