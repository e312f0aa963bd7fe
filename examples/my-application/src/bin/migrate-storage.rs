//! Rewrites every MyApplication at the CRD's current storage version and
//! then trims `status.storedVersions` — the step between switching the
//! storage version (say to v2) and dropping the old version from the CRD.
//!
//! ```text
//! migrate-storage [--crd myapplications.stable.example.com] [--page-size N]
//! ```
//! Needs get on the CRD, patch on `customresourcedefinitions/status`, and
//! list/get/update on the resource (an administrator's kubeconfig, or a
//! Job's ServiceAccount bound to exactly that). Safe to run again at any
//! time: objects already at the storage version are not rewritten.

use anyhow::{Context, Result, bail};
use kubegen::storage_migration::StorageMigration;

const USAGE: &str = "usage: migrate-storage [--crd NAME] [--page-size N]";

#[tokio::main]
async fn main() -> Result<()> {
    let mut crd = "myapplications.stable.example.com".to_owned();
    let mut page_size = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || {
            args.next()
                .with_context(|| format!("{arg} needs a value\n{USAGE}"))
        };
        match arg.as_str() {
            "--crd" => crd = value()?,
            "--page-size" => page_size = Some(value()?.parse().context("--page-size")?),
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            other => bail!("unknown option {other}\n{USAGE}"),
        }
    }
    kubegen::logging::init(kubegen::logging::LogFormat::from_flag(false));
    let client = kubegen::Client::try_default()
        .await
        .context("connecting to the apiserver")?;
    let mut migration = StorageMigration::new(client, crd);
    if let Some(n) = page_size {
        migration = migration.page_size(n);
    }
    match migration.run().await {
        Ok(report) => {
            println!("{report}");
            Ok(())
        }
        Err(error) => {
            if let Some(checkpoint) = error.checkpoint() {
                eprintln!(
                    "stopped; a rerun is always safe (checkpoint: {})",
                    serde_json::to_string(checkpoint).unwrap_or_default()
                );
            }
            Err(error.into())
        }
    }
}
