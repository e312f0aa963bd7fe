//! Running one of the Go helpers under `tests/` (the apiserver's own code,
//! built from the Go module proxy): one JSON line in per case, one JSON
//! line out per case.

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::Value;

/// `go run . <args>` in `tests/<dir>` with `lines` on standard input: its
/// answers, one per line.
pub fn run(dir: &str, args: &[&str], lines: &[String]) -> Vec<Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(dir);
    let mut child = Command::new("go")
        .args(["run", "."])
        .args(args)
        .current_dir(&path)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("`go` (1.26) on PATH runs ./tests/{dir}: {e}"));
    let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(out.status.success(), "go run ./tests/{dir} {args:?} failed");
    let answers: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers.len(), lines.len());
    answers
}
