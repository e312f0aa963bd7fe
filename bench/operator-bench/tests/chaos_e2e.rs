//! The chaos soak, 60 s variant (run by `make test`): two operator
//! replicas on a private control plane, a churn of 20 MyApplications, and
//! kill -9 of the apiserver, etcd and the leading replica every few
//! seconds; fails on any broken invariant (see `chaos/mod.rs`). The
//! 10-minute variant is `cargo bench -p my-application-bench --bench chaos`.
//!
//! Below the soak, the audit-log checks are run on hand-written logs, so
//! that each leader invariant is seen to fail when it is broken.

mod chaos;

use std::time::Duration;

use chaos::audit::analyze;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chaos_soak_keeps_the_invariants() -> anyhow::Result<()> {
    let config = chaos::Config::from_env(Duration::from_secs(60), 20);
    let report = chaos::soak(config).await?;
    assert!(
        report.violations.is_empty(),
        "{} invariants broken (logs in {}):\n{}",
        report.violations.len(),
        report.dir.display(),
        report.violations.join("\n")
    );
    Ok(())
}

/// One audit line: `who` (`a-0`) did `verb` on `resource` at `at` seconds,
/// answered `code` 10 ms later.
fn line(who: &str, verb: &str, resource: &str, at: f64, code: u16) -> String {
    let time = |s: f64| format!("2030-01-01T00:00:{s:09.6}Z");
    let (resource, subresource) = resource.split_once('/').unwrap_or((resource, ""));
    serde_json::json!({
        "stage": "ResponseComplete",
        "verb": verb,
        "user": { "username": format!("system:serviceaccount:ns:op-{who}") },
        "objectRef": { "resource": resource, "subresource": subresource, "namespace": "ns", "name": "x" },
        "responseStatus": { "code": code },
        "requestReceivedTimestamp": time(at),
        "stageTimestamp": time(at + 0.01),
    })
    .to_string()
}

/// The violations `analyze` finds in `lines`.
fn violations(lines: &[String]) -> Vec<String> {
    let dir = tempfile_dir();
    let path = dir.join("audit.log");
    std::fs::write(&path, lines.join("\n")).unwrap();
    let figures = analyze(&path, "ns").unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    figures.violations
}

fn tempfile_dir() -> std::path::PathBuf {
    static SEQ: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("kubegen-chaos-audit-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A leader `who` renewing every 0.4 s from `from` to `to` seconds.
fn renewals(who: &str, from: f64, to: f64) -> Vec<String> {
    let mut out = vec![line(who, "create", "leases", from, 201)];
    let mut t = from + 0.4;
    while t <= to {
        out.push(line(who, "update", "leases", t, 200));
        t += 0.4;
    }
    out
}

#[test]
fn a_clean_handover_passes() {
    let mut log = renewals("a-0", 0.0, 2.0);
    log.push(line("a-0", "create", "deployments", 0.5, 201));
    log.push(line("a-0", "patch", "myapplications/status", 1.9, 200));
    // a-0 dies after renewing at 2.0; b-0 takes over 3 s later.
    log.extend(renewals("b-0", 5.1, 6.0));
    log.push(line("b-0", "update", "deployments", 5.2, 200));
    // Refused writes and events do not count.
    log.push(line("a-0", "update", "deployments", 5.3, 409));
    log.push(line("a-0", "create", "events", 5.3, 201));
    assert_eq!(violations(&log), Vec::<String>::new());
}

#[test]
fn interleaved_writers_are_two_leaders_acting() {
    let mut log = renewals("a-0", 0.0, 3.0);
    log.extend(renewals("b-0", 0.0, 3.0));
    log.push(line("a-0", "create", "deployments", 1.0, 201));
    log.push(line("b-0", "create", "services", 1.2, 201));
    let found = violations(&log);
    assert_found(&found, "two leaders acting");
    assert_found(&found, "the Lease was taken");
}

#[test]
fn a_quick_handover_is_two_leaders_acting() {
    let mut log = renewals("a-0", 0.0, 2.0);
    log.push(line("a-0", "update", "deployments", 2.1, 200));
    // b-0 writes 0.3 s after a-0's last write, having taken the Lease
    // 1 s after a-0's last renewal (the lease duration is 3 s).
    log.extend(renewals("b-0", 2.3, 3.0));
    log.push(line("b-0", "update", "deployments", 2.4, 200));
    let found = violations(&log);
    assert_found(&found, "two leaders acting");
    assert_found(&found, "the Lease was taken");
}

#[test]
fn writes_without_the_lease_are_not_fenced() {
    let mut log = renewals("a-0", 0.0, 1.0);
    // Past the renew deadline (2 s) after the last renewal at 0.8 s.
    log.push(line("a-0", "update", "deployments", 3.5, 200));
    // A process that never held the Lease.
    log.push(line("c-0", "patch", "myapplications/status", 9.0, 200));
    let found = violations(&log);
    assert_found(&found, "a write 2.7");
    assert!(
        found
            .iter()
            .any(|v| v.starts_with("a write by a process that never held the Lease")),
        "{found:?}"
    );
}

/// Fails unless a violation starting with `prefix` was found.
fn assert_found(found: &[String], prefix: &str) {
    assert!(found.iter().any(|v| v.starts_with(prefix)), "{found:?}");
}
