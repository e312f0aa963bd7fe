//! The MyApplication operator binary.
//!
//! ```text
//! my-application-controller [--json-logs] [--namespace NS] [--workers N]
//!     [--health-probe-bind-address ADDR]   (default 0.0.0.0:8081, plain HTTP)
//!     [--metrics-bind-address ADDR]        (default 0.0.0.0:8443, HTTPS + TokenReview/SubjectAccessReview)
//!     [--metrics-cert-dir DIR]             (tls.crt/tls.key, reloaded on change; default self-signed)
//!     [--insecure-metrics]                 (plain HTTP, no authentication: local development only)
//!     [--webhook-cert-dir DIR]             (serve the conversion webhook with tls.crt/tls.key from DIR)
//!     [--webhook-bind-address ADDR]        (default 0.0.0.0:9443)
//!     [--lease-namespace NS] [--lease-duration SECONDS] [--no-leader-elect]
//!     [--paginated-lists]                  (fill caches with paginated LISTs, not streaming lists)
//!     [--decoded-caches]                   (cache owned Deployments/Services decoded, not as JSON)
//! ```
//! Credentials come from KUBECONFIG or the in-cluster ServiceAccount.
//! SIGTERM/SIGINT: stop taking work, finish in-flight reconciles, release
//! the Lease, exit 0. Lost leadership: exit 1, to be restarted as a fresh
//! candidate.

use anyhow::{Context, Result, bail};
use kubegen::logging::{LogFormat, init};
use my_application::operator::{Options, manager};

const USAGE: &str = "usage: my-application-controller [--json-logs] [--namespace NS] [--workers N] \
[--health-probe-bind-address ADDR] [--metrics-bind-address ADDR] [--metrics-cert-dir DIR] \
[--insecure-metrics] [--webhook-cert-dir DIR] [--webhook-bind-address ADDR] [--lease-namespace NS] [--lease-duration SECONDS] [--no-leader-elect] [--paginated-lists] [--decoded-caches]";

fn parse(args: &[String]) -> Result<(Options, bool)> {
    let mut options = Options::default();
    let mut json = false;
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) => (f, Some(v.to_string())),
            None => (arg.as_str(), None),
        };
        let mut value = || -> Result<String> {
            inline
                .clone()
                .or_else(|| iter.next().cloned())
                .with_context(|| format!("{flag} needs a value\n{USAGE}"))
        };
        match flag {
            "--json-logs" => json = true,
            "--no-leader-elect" => options.leader_election = false,
            "--insecure-metrics" => options.insecure_metrics = true,
            "--paginated-lists" => options.paginated_lists = true,
            "--decoded-caches" => options.compact_caches = false,
            "--health-probe-bind-address" => {
                options.health_probe_addr =
                    value()?.parse().context("--health-probe-bind-address")?
            }
            "--metrics-bind-address" => {
                options.metrics_addr = value()?.parse().context("--metrics-bind-address")?
            }
            "--metrics-cert-dir" => options.metrics_cert_dir = Some(value()?.into()),
            "--webhook-cert-dir" => options.webhook_cert_dir = Some(value()?.into()),
            "--webhook-bind-address" => {
                options.webhook_addr = value()?.parse().context("--webhook-bind-address")?
            }
            "--namespace" => options.namespace = Some(value()?),
            "--lease-namespace" => options.lease_namespace = value()?,
            "--workers" => options.workers = value()?.parse().context("--workers")?,
            "--lease-duration" => {
                let seconds: u64 = value()?.parse().context("--lease-duration")?;
                options.lease_duration = std::time::Duration::from_secs(seconds);
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            other => bail!("unknown option {other}\n{USAGE}"),
        }
    }
    Ok((options, json))
}

#[tokio::main]
async fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (options, json) = parse(&args)?;
    init(LogFormat::from_flag(json));
    let client = kube::Client::try_default()
        .await
        .context("connecting to the apiserver")?;
    let (manager, _, recorder) = manager(client, &options).await?;
    tracing::info!(
        probes = ?manager.health_probe_addr(),
        metrics = ?manager.metrics_addr(),
        webhooks = ?manager.webhook_addr(),
        "my-application-controller started"
    );
    manager.run().await?;
    recorder.flush().await;
    tracing::info!("stopped cleanly");
    Ok(())
}
