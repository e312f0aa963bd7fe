//! Scale run (a benchmark, not a test): N MyApplications (default 1,000)
//! across M namespaces (default 10) on a private control plane with kwok
//! nodes, from creation until every one is Ready. Prints the total time,
//! the operator's peak RSS and its write requests per object.
//!
//! `cargo bench -p my-application --bench scale` (SCALE_APPS, SCALE_NAMESPACES
//! override the sizes). The operator runs as a separate process (so its
//! memory is its own), as the generated ClusterRole's ServiceAccount.

use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use futures::StreamExt;
use k8s_openapi::api::core::v1::Namespace;
use k8s_openapi::api::rbac::v1::ClusterRoleBinding;
use kube::api::{Api, ListParams, PostParams};
use kubegen::kube;
use kubegen_testenv::{Options, TestEnv};
use my_application::api::{MyApplication, MyApplicationSpec};

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .map(|v| v.trim().trim_end_matches("kB").trim().to_string())
        })
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

async fn scrape(addr: &str, metric: &str) -> Result<f64> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(addr).await?;
    stream
        .write_all(format!("GET /metrics HTTP/1.0\r\nHost: {addr}\r\n\r\n").as_bytes())
        .await?;
    let mut body = String::new();
    stream.read_to_string(&mut body).await?;
    let values: Vec<f64> = body
        .lines()
        .filter(|l| l.starts_with(metric))
        .filter_map(|l| l.rsplit(' ').next())
        .filter_map(|v| v.parse().ok())
        .collect();
    if values.is_empty() {
        bail!("{metric} not served");
    }
    // Several label sets (e.g. reconcile_total by result) are summed.
    Ok(values.iter().sum())
}

#[path = "../tests/support/mod.rs"]
mod support;

#[tokio::main]
async fn main() -> Result<()> {
    let apps = env_usize("SCALE_APPS", 1000);
    let namespaces = env_usize("SCALE_NAMESPACES", 10);
    // 110 pods per kwok node; one pod per application.
    let nodes = apps.div_ceil(100).max(3);
    println!("scale run: {apps} MyApplications in {namespaces} namespaces, {nodes} kwok nodes");
    let env = TestEnv::start_with(Options { nodes }).await?;
    let admin = env.client().await?;

    // The CRD (awaited until Established) and the generated ClusterRole.
    support::install(&admin).await?;
    let system = "scale-system";
    Api::<Namespace>::all(admin.clone())
        .create(
            &PostParams::default(),
            &serde_json::from_value(serde_json::json!({ "metadata": { "name": system } }))?,
        )
        .await?;
    Api::<ClusterRoleBinding>::all(admin.clone())
        .create(&PostParams::default(), &serde_json::from_value(serde_json::json!({
            "metadata": { "name": "scale-operator" },
            "roleRef": { "apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "my-application-controller" },
            "subjects": [{ "kind": "ServiceAccount", "name": "operator", "namespace": system }],
        }))?)
        .await?;
    // Creates the ServiceAccount the binding names.
    let kubeconfig = env
        .kubeconfig_for_service_account(system, "operator")
        .await?;
    let port = kubegen_testenv::free_loopback_port()?;
    let metrics_addr = format!("127.0.0.1:{port}");
    let log = std::fs::File::create(env.dir().join("operator.log"))?;
    let mut operator = std::process::Command::new(env!("CARGO_BIN_EXE_my-application-controller"))
        .args([
            "--lease-namespace",
            system,
            "--insecure-metrics",
            "--metrics-bind-address",
            &metrics_addr,
            "--health-probe-bind-address",
            "127.0.0.1:0",
            "--workers",
            "4",
        ])
        .env("KUBECONFIG", &kubeconfig)
        .env("RUST_LOG", "warn")
        .stdout(log.try_clone()?)
        .stderr(log)
        .spawn()?;
    let pid = operator.id();

    let names: Vec<String> = (0..namespaces).map(|i| format!("scale-{i}")).collect();
    for ns in &names {
        Api::<Namespace>::all(admin.clone())
            .create(
                &PostParams::default(),
                &serde_json::from_value(serde_json::json!({ "metadata": { "name": ns } }))?,
            )
            .await?;
    }
    let begun = Instant::now();
    let creates = futures::stream::iter(0..apps)
        .map(|i| {
            let api = Api::<MyApplication>::namespaced(admin.clone(), &names[i % namespaces]);
            async move {
                let app = MyApplication::new(
                    &format!("app-{i}"),
                    MyApplicationSpec {
                        image: "nginx".into(),
                        replicas: 1,
                        port: 80,
                    },
                );
                api.create(&PostParams::default(), &app).await
            }
        })
        .buffer_unordered(16)
        .collect::<Vec<_>>()
        .await;
    if let Some(Err(e)) = creates.into_iter().find(Result::is_err) {
        bail!("creating applications: {e}");
    }
    let created = begun.elapsed();
    let all = Api::<MyApplication>::all(admin.clone());
    let mut peak_kib = 0;
    loop {
        peak_kib = peak_kib.max(rss_kib(pid));
        let list = all.list(&ListParams::default()).await?;
        let ready = list
            .items
            .iter()
            .filter(|a| {
                a.status
                    .as_ref()
                    .is_some_and(|s| kubegen::conditions::is_condition_true(&s.conditions, "Ready"))
            })
            .count();
        if ready == apps {
            break;
        }
        if begun.elapsed() > Duration::from_secs(1200) {
            bail!("only {ready}/{apps} Ready after 20 minutes");
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let total = begun.elapsed();
    // Steady state for 10 s: the write count must not move.
    let writes = scrape(&metrics_addr, "my_application_writes_total").await?;
    tokio::time::sleep(Duration::from_secs(10)).await;
    let writes_after = scrape(&metrics_addr, "my_application_writes_total").await?;
    peak_kib = peak_kib.max(rss_kib(pid));
    let reconciles = scrape(&metrics_addr, "reconcile_total{")
        .await
        .unwrap_or(f64::NAN);
    let _ = operator.kill();
    let _ = operator.wait();

    println!("created {apps} objects in {:.1} s", created.as_secs_f64());
    println!(
        "all Ready after {:.1} s ({:.1} objects/s)",
        total.as_secs_f64(),
        apps as f64 / total.as_secs_f64()
    );
    println!("operator peak RSS {:.1} MiB", peak_kib as f64 / 1024.0);
    println!(
        "operator write requests: {writes} ({:.2} per object: Deployment and Service creates, status patches), {} more in 10 s of steady state",
        writes / apps as f64,
        writes_after - writes
    );
    println!(
        "reconciles: {reconciles} ({:.2} per object)",
        reconciles / apps as f64
    );
    Ok(())
}
