//! The chaos soak, long variant (a benchmark, not a test): 10 minutes of
//! churn over 60 MyApplications with kill -9 of the apiserver, etcd and
//! the leading operator replica every few seconds, on a private control
//! plane; prints the figures and fails on any broken invariant (see
//! `tests/chaos/mod.rs`).
//!
//! `cargo bench -p my-application-bench --bench chaos`; `KUBEGEN_CHAOS_DURATION`
//! (seconds), `KUBEGEN_CHAOS_APPS` and `KUBEGEN_CHAOS_SEED` override.

use std::time::Duration;

use anyhow::{Result, bail};

#[path = "../tests/chaos/mod.rs"]
mod chaos;

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<()> {
    // `cargo bench` passes `--bench`; there is nothing to filter.
    let config = chaos::Config::from_env(Duration::from_secs(600), 60);
    let report = chaos::soak(config).await?;
    if !report.violations.is_empty() {
        bail!(
            "{} invariants broken (logs in {}):\n{}",
            report.violations.len(),
            report.dir.display(),
            report.violations.join("\n")
        );
    }
    Ok(())
}
