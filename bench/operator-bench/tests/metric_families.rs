//! The example operator's metric families against controller-runtime's,
//! so the dashboards and alerts teams already run read them: both the
//! kubegen operator and its controller-runtime peer (`bench/peer-go`, the
//! same controller on controller-runtime v0.25) run the same workload on
//! the real plane — leader election on, two applications created, made
//! Ready and deleted — and their `/metrics` are scraped. Every family
//! controller-runtime exposes for controllers, work queues, the REST
//! client and leader election (`controller_runtime_*`, `workqueue_*`,
//! `rest_client_*`, `leader_election_*`) must be kubegen's too, with the
//! same type and the same label names, except the differences listed in
//! [`DIFFERENCES`] with their reasons. The whole comparison is printed.
//!
//! The example's alert rules and Grafana dashboard
//! (`examples/my-application/config/monitoring/`) read only families both
//! operators expose, so they work on either.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use anyhow::{Context, Result, bail, ensure};
use kubegen::api::{Api, DeleteParams, PostParams};
use my_application::api::MyApplication;
use my_application_bench::{application, condition};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The prefixes of the families controller-runtime's dashboards read.
const COMPARED: [&str; 4] = [
    "controller_runtime_",
    "workqueue_",
    "rest_client_",
    "leader_election_",
];

/// controller-runtime families kubegen does not expose, and why.
const DIFFERENCES: [(&str, &str); 1] = [(
    "controller_runtime_reconcile_timeouts_total",
    "kubegen puts no timeout around a reconcile (controller-runtime's ReconciliationTimeout)",
)];

/// The webhook families, exposed once a webhook server runs (neither
/// operator serves webhooks here; `kubegen-runtime/tests/webhook_metrics.rs`
/// checks kubegen's).
const WEBHOOK_SERVED: [&str; 3] = [
    "controller_runtime_webhook_requests_total",
    "controller_runtime_webhook_latency_seconds",
    "controller_runtime_webhook_requests_in_flight",
];

/// The families the example's alert rules and dashboard read: every name
/// with a [`COMPARED`] prefix in their queries, a histogram's `_bucket`
/// read as the histogram.
fn referenced() -> Result<BTreeSet<String>> {
    let dir = my_application_bench::example_dir().join("config/monitoring");
    let mut out = BTreeSet::new();
    for file in ["alerts.yaml", "dashboard.json"] {
        let text = std::fs::read_to_string(dir.join(file))?;
        let mut rest = text.as_str();
        while let Some(at) = COMPARED.iter().filter_map(|p| rest.find(p)).min() {
            let boundary = at == 0 || !rest.as_bytes()[at - 1].is_ascii_alphanumeric();
            let name: String = rest[at..]
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_')
                .collect();
            rest = &rest[at + name.len()..];
            if boundary {
                out.insert(name.strip_suffix("_bucket").unwrap_or(&name).to_owned());
            }
        }
    }
    Ok(out)
}

/// A family's type and the names of its labels (`le` aside).
type Families = BTreeMap<String, (String, BTreeSet<String>)>;

/// The families of a text exposition (Prometheus text or OpenMetrics),
/// each named as its samples are (a counter with `_total`).
fn families(text: &str) -> Families {
    let mut out = Families::new();
    for line in text.lines() {
        let mut words = line.split_whitespace();
        if let (Some("#"), Some("TYPE"), Some(name), Some(kind)) =
            (words.next(), words.next(), words.next(), words.next())
        {
            let name = match kind {
                "counter" if !name.ends_with("_total") => format!("{name}_total"),
                _ => name.to_owned(),
            };
            out.entry(name).or_default().0 = kind.to_owned();
        }
    }
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let end = line.find(['{', ' ']).unwrap_or(line.len());
        let sample = &line[..end];
        let family = ["", "_bucket", "_sum", "_count"].iter().find_map(|suffix| {
            let base = sample.strip_suffix(suffix)?;
            out.contains_key(base).then(|| base.to_owned())
        });
        let Some(family) = family else {
            continue;
        };
        let labels = label_names(&line[end..]);
        out.entry(family)
            .or_default()
            .1
            .extend(labels.into_iter().filter(|l| l != "le"));
    }
    out
}

/// The label names of a sample's `{a="x",b="y"} value` tail.
fn label_names(tail: &str) -> Vec<String> {
    let Some(mut rest) = tail.strip_prefix('{') else {
        return Vec::new();
    };
    let mut names = Vec::new();
    while let Some((name, after)) = rest.split_once("=\"") {
        names.push(name.trim_start_matches(',').to_owned());
        // The value: up to the first quote no backslash escapes.
        let mut escaped = false;
        let close = after.char_indices().find(|&(_, c)| {
            let end = c == '"' && !escaped;
            escaped = c == '\\' && !escaped;
            end
        });
        match close {
            Some((i, _)) => rest = &after[i + 1..],
            None => break,
        }
        if rest.starts_with('}') {
            break;
        }
    }
    names
}

/// `GET /metrics` over plain HTTP/1.0 (no chunked encoding), its body.
async fn scrape(port: u16) -> Result<String> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).await?;
    stream
        .write_all(b"GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
        .await?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await?;
    let (head, body) = answer.split_once("\r\n\r\n").context("no HTTP answer")?;
    ensure!(head.contains(" 200 "), "scrape: {head}");
    Ok(body.to_owned())
}

/// A running operator, killed when dropped.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `binary` (the kubegen operator when `kubegen`, else the peer)
/// with leader election in `namespace` and plain-HTTP metrics on
/// `metrics`.
fn start(
    binary: &Path,
    kubegen: bool,
    kubeconfig: &Path,
    namespace: &str,
    metrics: u16,
) -> Result<Running> {
    let mut command = Command::new(binary);
    if kubegen {
        command.args([
            "--insecure-metrics",
            "--health-probe-bind-address",
            "127.0.0.1:0",
        ]);
    } else {
        command.args(["--health-probe-bind-address", "0"]);
    }
    let child = command
        .args(["--lease-namespace", namespace])
        .args(["--metrics-bind-address", &format!("127.0.0.1:{metrics}")])
        .env("KUBECONFIG", kubeconfig)
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .with_context(|| format!("starting {}", binary.display()))?;
    Ok(Running(child))
}

/// Runs one operator through the workload in `namespace` and returns its
/// families.
async fn families_after_the_workload(
    binary: &Path,
    kubegen: bool,
    env: &kubegen_testenv::TestEnv,
    admin: &kubegen::Client,
    namespace: &str,
) -> Result<Families> {
    let ns: k8s_openapi::api::core::v1::Namespace =
        serde_json::from_value(serde_json::json!({"metadata": {"name": namespace}}))?;
    Api::all(admin.clone())
        .create(&PostParams::default(), &ns)
        .await?;
    let metrics = kubegen_testenv::free_loopback_port()?;
    let _operator = start(binary, kubegen, env.kubeconfig(), namespace, metrics)?;
    let apps: Api<MyApplication> = Api::namespaced(admin.clone(), namespace);
    for name in ["a", "b"] {
        apps.create(&PostParams::default(), &application(name))
            .await?;
    }
    kubegen_testenv::eventually(
        Duration::from_secs(120),
        "both applications Ready",
        || async {
            let mut ready = 0;
            for app in apps.list(&Default::default()).await? {
                let status = app.status.as_ref();
                ready += usize::from(status.and_then(|s| condition(s, "Ready")) == Some("True"));
            }
            Ok((ready == 2).then_some(()))
        },
    )
    .await?;
    for name in ["a", "b"] {
        apps.delete(name, &DeleteParams::background()).await?;
    }
    // The deletions reconciled, the queues idle again.
    tokio::time::sleep(Duration::from_secs(2)).await;
    Ok(families(&scrape(metrics).await?))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metric_families_match_controller_runtimes() -> Result<()> {
    let env = kubegen_testenv::TestEnv::shared().await?;
    let admin = env.client().await?;
    my_application_bench::install(&admin).await?;
    let ours_binary = my_application_bench::operator_binary()?;
    let peer_binary = my_application_bench::peer_binary()?;
    let ours = families_after_the_workload(&ours_binary, true, env, &admin, "families-kubegen")
        .await
        .context("the kubegen operator")?;
    let theirs = families_after_the_workload(&peer_binary, false, env, &admin, "families-peer")
        .await
        .context("the controller-runtime peer")?;

    let compared = |name: &str| COMPARED.iter().any(|p| name.starts_with(p));
    let names: BTreeSet<&String> = ours
        .keys()
        .chain(theirs.keys())
        .filter(|n| compared(n))
        .collect();
    let mut table = String::from("| family | controller-runtime | kubegen |\n|---|---|---|\n");
    let mut differences = Vec::new();
    let show = |f: Option<&(String, BTreeSet<String>)>| match f {
        Some((kind, labels)) => format!(
            "{kind} {{{}}}",
            labels.iter().cloned().collect::<Vec<_>>().join(",")
        ),
        None => "—".into(),
    };
    for name in names {
        let (mine, peer) = (ours.get(name), theirs.get(name));
        table.push_str(&format!("| `{name}` | {} | {} |\n", show(peer), show(mine)));
        let listed = DIFFERENCES.iter().any(|(n, _)| n == name);
        match (peer, mine) {
            (Some(p), Some(m)) if p != m => differences.push(format!(
                "{name}: controller-runtime {} but kubegen {}",
                show(Some(p)),
                show(Some(m))
            )),
            (Some(_), None) if !listed => {
                differences.push(format!("{name}: controller-runtime's, not kubegen's"))
            }
            (None, Some(_)) => {
                differences.push(format!("{name}: kubegen's, not controller-runtime's"))
            }
            _ => {}
        }
    }
    for (name, why) in DIFFERENCES {
        table.push_str(&format!("\nnot kept: `{name}`: {why}"));
        if ours.contains_key(name) {
            bail!("{name} is listed as a difference but kubegen exposes it");
        }
    }
    println!("{table}");
    ensure!(
        theirs.contains_key("controller_runtime_reconcile_total")
            && theirs.contains_key("rest_client_requests_total"),
        "the peer's scrape lacks controller-runtime's families:\n{table}"
    );
    ensure!(
        differences.is_empty(),
        "{}\n\n{table}",
        differences.join("\n")
    );
    let read = referenced()?;
    ensure!(read.len() >= 10, "the monitoring files read {read:?}");
    for family in &read {
        let served = WEBHOOK_SERVED.contains(&family.as_str());
        ensure!(
            served || (ours.contains_key(family) && theirs.contains_key(family)),
            "the alerts or the dashboard read {family}, which an operator does not expose"
        );
    }
    println!(
        "the alert rules and the dashboard read {} families, all exposed",
        read.len()
    );
    Ok(())
}

#[test]
fn expositions_are_read_into_families_with_their_label_names() {
    // Prometheus text (client_golang) and OpenMetrics (prometheus_client)
    // name a counter's family differently; both read as its samples.
    let go = "# HELP x_total X.\n# TYPE x_total counter\nx_total{code=\"200\",method=\"GET\"} 3\n# TYPE h histogram\nh_bucket{name=\"q\",le=\"0.1\"} 1\nh_sum{name=\"q\"} 0.5\nh_count{name=\"q\"} 1\n";
    let rust = "# TYPE x counter\nx_total{method=\"GET\",code=\"200\"} 3\n# TYPE h histogram\nh_sum{name=\"q\"} 0.5\nh_count{name=\"q\"} 1\nh_bucket{le=\"0.1\",name=\"q\"} 1\n# EOF\n";
    assert_eq!(families(go), families(rust));
    let f = families(go);
    assert_eq!(f["x_total"].0, "counter");
    assert_eq!(
        f["x_total"].1,
        BTreeSet::from(["code".to_owned(), "method".to_owned()])
    );
    assert_eq!(f["h"].1, BTreeSet::from(["name".to_owned()]));
    assert_eq!(
        label_names("{a=\"x,y\\\"z\",b=\"\"} 1"),
        ["a".to_owned(), "b".to_owned()]
    );
}
