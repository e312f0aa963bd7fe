//! The example operator tried as a hostile caller would, on a private
//! control plane: big `ConversionReview`s, many at once, an object larger
//! than the apiserver could ever send, a flood of random bearer tokens on
//! `/metrics` — while a steady workload runs (a MyApplication created every
//! half second, deleted once `Ready`: the reconcile path the scale bench
//! drives) and the apiserver lists MyApplications at v2, which it converts
//! through the same webhook.
//!
//! For each attack: the operator's peak RSS over its idle RSS (`VmHWM`,
//! reset through `/proc/PID/clear_refs` before each attack), the answers
//! by status code, create→Ready of the workload's applications created
//! during the attack (p50, p99), the apiserver's own conversions answered
//! and failed meanwhile, and for the token flood the `TokenReview`s the
//! apiserver received (its own `apiserver_request_total`). A first row runs
//! the workload under no attack.
//!
//! The controller-runtime peer (`bench/peer-go`, serving the same
//! conversion webhook as a kubebuilder project does and kubebuilder's
//! secure metrics) gets the same attacks on the same plane.
//!
//! The attacks come from `127.0.0.2`, the apiserver from `127.0.0.1`: in
//! a cluster a hostile pod's address is its own, and the operator gives
//! one address at most half of what it answers at once.
//!
//! `make test` runs a bounded slice (smaller reviews) against this tree's
//! operator and asserts the bounds: every attack under 64 MiB over idle,
//! every apiserver conversion during the flood answered, at most the review
//! limit's burst of `TokenReview`s and fewer than the peer's.
//! `HOSTILE_FULL=1` runs the sizes of issue 41's table (60 MiB reviews,
//! four at once, fifty 3 MiB reviews, 2,000 tokens);
//! `HOSTILE_OPERATORS=label=PATH,...` measures other builds of the
//! operator (a release build, an earlier commit's) side by side and only
//! prints their figures.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context, Result, bail, ensure};
use kubegen::api::{Api, ApiResource, DeleteParams, DynamicObject, ListParams, PostParams};
use kubegen::server::DevCa;
use my_application::api::MyApplication;
use my_application_bench::application;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::Instant;

const MIB: usize = 1024 * 1024;

/// The attack sizes.
struct Sizes {
    review: usize,
    at_once: usize,
    small_reviews: usize,
    small_review: usize,
    tokens: usize,
}

impl Sizes {
    fn from_env() -> Sizes {
        if std::env::var_os("HOSTILE_FULL").is_some() {
            Sizes {
                review: 60 * MIB,
                at_once: 4,
                small_reviews: 50,
                small_review: 3 * MIB,
                tokens: 2000,
            }
        } else {
            Sizes {
                review: 24 * MIB,
                at_once: 2,
                small_reviews: 20,
                small_review: 3 * MIB,
                tokens: 300,
            }
        }
    }
}

/// One attack's figures.
#[derive(Default)]
struct Row {
    attack: String,
    peak_over_idle: u64,
    codes: std::collections::BTreeMap<String, usize>,
    /// When the attack ran (the workload's samples and the apiserver's
    /// conversions in this window are the row's).
    window: Option<(Instant, Instant)>,
    /// `TokenReview`s the apiserver answered during the attack, where
    /// counted.
    token_reviews: Option<u64>,
    /// create→Ready of the workload's applications created in the window.
    ready: Vec<Duration>,
    converted: usize,
    failed_conversions: usize,
}

/// A running operator and how to reach it.
struct Operator {
    child: Child,
    webhook: u16,
    metrics: u16,
    tls: tokio_rustls::TlsConnector,
}

impl Drop for Operator {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Which operator is attacked.
enum Flavour {
    /// A build of the example operator.
    Kubegen(PathBuf),
    /// The controller-runtime peer (`bench/peer-go`).
    Peer(PathBuf),
}

fn free_port() -> Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port())
}

/// `VmRSS` or `VmHWM` of `pid`, in bytes.
fn memory(pid: u32, field: &str) -> Result<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    let line = status
        .lines()
        .find(|l| l.starts_with(field))
        .with_context(|| format!("no {field} for {pid}"))?;
    let kib: u64 = line
        .split_whitespace()
        .nth(1)
        .context("a malformed status line")?
        .parse()?;
    Ok(kib * 1024)
}

/// Resets `VmHWM` to the current RSS.
fn reset_peak(pid: u32) -> Result<()> {
    std::fs::write(format!("/proc/{pid}/clear_refs"), "5").context("resetting the peak RSS")
}

/// The address attacks come from: not the apiserver's (`127.0.0.1`), as
/// a hostile pod's address is not the apiserver's in a cluster.
const ATTACKER: [u8; 4] = [127, 0, 0, 2];

/// One HTTPS request from [`ATTACKER`], the body written as given; returns
/// the status code (`"reset"` when the connection was cut first).
async fn request(op: &Operator, port: u16, head: String, body: Arc<Vec<u8>>) -> String {
    let attempt = async {
        let socket = tokio::net::TcpSocket::new_v4()?;
        socket.bind((ATTACKER, 0).into())?;
        let tcp = socket.connect(([127, 0, 0, 1], port).into()).await?;
        let tls = op
            .tls
            .connect(ServerName::try_from("127.0.0.1")?.to_owned(), tcp)
            .await?;
        // Reads the answer while still sending, as Go's HTTP client (the
        // apiserver's) does.
        let (mut read, mut write) = tokio::io::split(tls);
        let sending = async move {
            write.write_all(head.as_bytes()).await?;
            for chunk in body.chunks(64 * 1024) {
                write.write_all(chunk).await?;
            }
            anyhow::Ok(write)
        };
        let mut answer = Vec::new();
        let reading = read.read_to_end(&mut answer);
        let (_sent, _read) = tokio::join!(sending, reading);
        let text = String::from_utf8_lossy(&answer[..answer.len().min(64)]).to_string();
        anyhow::Ok(text.split_whitespace().nth(1).unwrap_or("reset").to_owned())
    };
    tokio::time::timeout(Duration::from_secs(120), attempt)
        .await
        .map_or_else(
            |_| "timeout".into(),
            |r| r.unwrap_or_else(|_| "reset".into()),
        )
}

/// A `ConversionReview` of about `size` bytes of v1 MyApplications
/// (`objects` of `object_size` bytes each) to v2.
fn review(size: usize, object_size: usize) -> Arc<Vec<u8>> {
    let pad = "x".repeat(object_size.saturating_sub(200));
    let mut body = String::from(
        r#"{"kind":"ConversionReview","apiVersion":"apiextensions.k8s.io/v1","request":{"uid":"attack","desiredAPIVersion":"stable.example.com/v2","objects":["#,
    );
    let mut i = 0;
    while body.len() < size {
        if i > 0 {
            body.push(',');
        }
        let _ = write!(
            body,
            r#"{{"apiVersion":"stable.example.com/v1","kind":"MyApplication","metadata":{{"name":"a-{i}","namespace":"ns","annotations":{{"pad":"{pad}"}}}},"spec":{{"image":"nginx","replicas":1,"port":80}}}}"#
        );
        i += 1;
    }
    body.push_str("]}}");
    Arc::new(body.into_bytes())
}

fn post(path: &str, body: &[u8]) -> String {
    format!(
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )
}

/// Runs `attack` against `op`, measuring its peak RSS over idle.
async fn measure<F, Fut>(op: &Operator, attack: &str, run: F) -> Result<Row>
where
    F: FnOnce() -> Fut,
    Fut: std::future::Future<Output = Vec<String>>,
{
    tokio::time::sleep(Duration::from_millis(500)).await;
    let pid = op.child.id();
    let idle = memory(pid, "VmRSS")?;
    reset_peak(pid)?;
    let start = Instant::now();
    let codes = run().await;
    let window = Some((start, Instant::now()));
    let peak = memory(pid, "VmHWM")?;
    let mut row = Row {
        attack: attack.to_owned(),
        peak_over_idle: peak.saturating_sub(idle),
        window,
        ..Row::default()
    };
    for code in codes {
        *row.codes.entry(code).or_default() += 1;
    }
    Ok(row)
}

/// The `TokenReview`s the apiserver has answered.
async fn token_reviews(admin: &kubegen::Client) -> Result<u64> {
    let text = admin
        .request_text(http::Request::get("/metrics").body(Vec::new())?)
        .await?;
    Ok(text
        .lines()
        .filter(|l| {
            l.starts_with("apiserver_request_total{") && l.contains("resource=\"tokenreviews\"")
        })
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum::<f64>() as u64)
}

/// How long the flood of small reviews lasts, and the workload's run under
/// no attack.
const FLOOD: Duration = Duration::from_secs(10);

/// The label of the workload's applications.
const WORKLOAD: &str = "workload";

/// One application of the workload: when it was created and how long it
/// took to turn `Ready`.
struct Sample {
    created: Instant,
    ready: Duration,
}

/// One event of the apiserver's conversions: when, and whether it
/// succeeded.
type Conversion = (Instant, bool);

/// The steady workload: creates an application (labelled [`WORKLOAD`],
/// named `prefix-N`) every half second until `stop`, records each one's
/// create→`Ready` and deletes it once `Ready` (so the operator also
/// reconciles deletions and the garbage collector deletes its Deployment
/// and Service). Returns when every created application was `Ready`; fails
/// if one is not within 120 s.
async fn workload(
    admin: kubegen::Client,
    prefix: String,
    stop: tokio::sync::watch::Receiver<bool>,
    samples: Arc<Mutex<Vec<Sample>>>,
) -> Result<()> {
    let apps: Api<MyApplication> = Api::namespaced(admin, "hostile");
    let selector = ListParams::default().labels(&format!("{WORKLOAD}={prefix}"));
    let mut pending: Vec<(String, Instant)> = Vec::new();
    let mut next = Instant::now();
    let mut n = 0;
    loop {
        let stopping = *stop.borrow();
        if stopping && pending.is_empty() {
            return Ok(());
        }
        if !stopping && Instant::now() >= next {
            let name = format!("{prefix}-{n}");
            let mut app = application(&name);
            app.metadata.labels = Some([(WORKLOAD.to_owned(), prefix.clone())].into());
            apps.create(&PostParams::default(), &app).await?;
            pending.push((name, Instant::now()));
            next += Duration::from_millis(500);
            n += 1;
        }
        for app in apps.list(&selector).await? {
            let ready = app
                .status
                .as_ref()
                .and_then(|s| my_application_bench::condition(s, "Ready"))
                == Some("True");
            let name = app.metadata.name.unwrap_or_default();
            if let Some(i) = pending.iter().position(|(n, _)| *n == name)
                && ready
            {
                let (_, created) = pending.swap_remove(i);
                samples.lock().expect("samples").push(Sample {
                    created,
                    ready: created.elapsed(),
                });
                apps.delete(&name, &DeleteParams::background()).await?;
            }
        }
        if let Some((name, _)) = pending
            .iter()
            .find(|(_, at)| at.elapsed() > Duration::from_secs(120))
        {
            bail!("{name}: not Ready within 120 s");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The median and the 99th percentile of `samples`.
fn percentiles(samples: &[Duration]) -> String {
    let mut sorted = samples.to_vec();
    sorted.sort();
    if sorted.is_empty() {
        return "none".into();
    }
    let at = |q: f64| sorted[((sorted.len() - 1) as f64 * q).round() as usize];
    format!(
        "n {}, p50 {:.0} ms, p99 {:.0} ms",
        sorted.len(),
        at(0.5).as_secs_f64() * 1e3,
        at(0.99).as_secs_f64() * 1e3
    )
}

/// Lists MyApplications at v2 (converted by the operator's webhook) until
/// `stop`, recording each list's outcome.
async fn convert_meanwhile(
    admin: kubegen::Client,
    stop: tokio::sync::watch::Receiver<bool>,
    events: Arc<Mutex<Vec<Conversion>>>,
) -> Option<String> {
    let v2 = ApiResource {
        group: "stable.example.com".into(),
        version: "v2".into(),
        api_version: "stable.example.com/v2".into(),
        kind: "MyApplication".into(),
        plural: "myapplications".into(),
    };
    let api: Api<DynamicObject> = Api::namespaced_with(admin, "hostile", &v2);
    let mut first = None;
    while !*stop.borrow() {
        let outcome = api.list(&ListParams::default()).await;
        let ok = matches!(&outcome, Ok(list) if list.items.len() >= 20);
        if !ok {
            first.get_or_insert_with(|| format!("{:?}", outcome.map(|l| l.items.len())));
        }
        events.lock().expect("events").push((Instant::now(), ok));
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    first
}

async fn start(
    flavour: &Flavour,
    env: &kubegen_testenv::TestEnv,
    admin: &kubegen::Client,
    dir: &Path,
) -> Result<Operator> {
    let (webhook, metrics) = (free_port()?, free_port()?);
    let certs = dir.join(format!("certs-{webhook}"));
    let ca = DevCa::new("hostile-ca")?;
    ca.issue(&certs, &["127.0.0.1"])?;
    kubegen::conversion::inject_ca_bundle(
        admin,
        "myapplications.stable.example.com",
        &ca.pem(),
        &kubegen::conversion::WebhookEndpoint::Url(format!("https://127.0.0.1:{webhook}/convert")),
    )
    .await?;
    let (binary, no_leader, probes) = match flavour {
        Flavour::Kubegen(binary) => (binary, "--no-leader-elect", "127.0.0.1:0"),
        Flavour::Peer(binary) => (binary, "--leader-elect=false", "0"),
    };
    let log = std::fs::File::create(dir.join(format!("operator-{webhook}.log")))?;
    let child = Command::new(binary)
        .args([no_leader, "--health-probe-bind-address", probes])
        .args(["--metrics-bind-address", &format!("127.0.0.1:{metrics}")])
        .args(["--webhook-bind-address", &format!("127.0.0.1:{webhook}")])
        .arg("--webhook-cert-dir")
        .arg(&certs)
        .arg("--metrics-cert-dir")
        .arg(&certs)
        .env("KUBECONFIG", env.kubeconfig())
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .with_context(|| format!("starting {}", binary.display()))?;
    let op = Operator {
        child,
        webhook,
        metrics,
        tls: connector(&ca.pem())?,
    };
    wait_listening(&[webhook, metrics], &binary.display().to_string()).await?;
    Ok(op)
}

/// Every attack against one operator, with the workload and the
/// apiserver's conversions running throughout.
async fn attack(
    flavour: &Flavour,
    env: &kubegen_testenv::TestEnv,
    admin: &kubegen::Client,
    sizes: &Sizes,
) -> Result<Vec<Row>> {
    let op = start(flavour, env, admin, env.dir()).await?;
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let samples = Arc::new(Mutex::new(Vec::new()));
    let events = Arc::new(Mutex::new(Vec::new()));
    let steady = tokio::spawn(workload(
        admin.clone(),
        format!("w-{}", op.webhook),
        stop_rx.clone(),
        samples.clone(),
    ));
    let conversions = tokio::spawn(convert_meanwhile(admin.clone(), stop_rx, events.clone()));
    let rows = attacks(&op, admin, sizes).await;
    stop_tx.send_replace(true);
    let first = conversions.await?;
    steady.await??;
    let mut rows = rows?;
    if let Some(first) = first {
        eprintln!("first failed conversion: {first}");
    }
    let samples = samples.lock().expect("samples");
    let events = events.lock().expect("events");
    for row in &mut rows {
        let Some((from, to)) = row.window else {
            continue;
        };
        let within = |at: &Instant| (from..=to).contains(at);
        row.ready = samples
            .iter()
            .filter(|s| within(&s.created))
            .map(|s| s.ready)
            .collect();
        row.converted = events.iter().filter(|(at, ok)| within(at) && *ok).count();
        row.failed_conversions = events.iter().filter(|(at, ok)| within(at) && !*ok).count();
    }
    Ok(rows)
}

/// The attacks, one row each, after a row of no attack.
async fn attacks(op: &Operator, admin: &kubegen::Client, sizes: &Sizes) -> Result<Vec<Row>> {
    // The workload's first applications wait for the operator's caches.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let mut rows = vec![
        measure(op, &format!("none ({FLOOD:?} of the workload)"), || async {
            tokio::time::sleep(FLOOD).await;
            Vec::new()
        })
        .await?,
    ];
    let big = review(sizes.review, 1024);
    rows.push(
        measure(
            op,
            &format!("one {} MiB ConversionReview", sizes.review / MIB),
            || async { vec![request(op, op.webhook, post("/convert", &big), big.clone()).await] },
        )
        .await?,
    );
    rows.push(
        measure(
            op,
            &format!("{} such reviews at once", sizes.at_once),
            || async {
                let all = (0..sizes.at_once)
                    .map(|_| request(op, op.webhook, post("/convert", &big), big.clone()));
                futures::future::join_all(all).await
            },
        )
        .await?,
    );
    drop(big);
    let one_object = review(8 * MIB, 8 * MIB);
    rows.push(
        measure(
            op,
            "one 8 MiB object (over the apiserver's 3 MiB)",
            || async {
                vec![
                    request(
                        op,
                        op.webhook,
                        post("/convert", &one_object),
                        one_object.clone(),
                    )
                    .await,
                ]
            },
        )
        .await?,
    );
    drop(one_object);
    let small = review(sizes.small_review, 1024);
    rows.push(
        measure(
            op,
            &format!(
                "{} concurrent {} MiB reviews, again and again for {FLOOD:?}",
                sizes.small_reviews,
                sizes.small_review / MIB
            ),
            || async {
                let until = Instant::now() + FLOOD;
                let mut codes = Vec::new();
                while Instant::now() < until {
                    let all = (0..sizes.small_reviews)
                        .map(|_| request(op, op.webhook, post("/convert", &small), small.clone()));
                    codes.extend(futures::future::join_all(all).await);
                }
                codes
            },
        )
        .await?,
    );
    rows.push(token_flood(op, admin, sizes).await?);
    Ok(rows)
}

/// Index of the flood of small reviews and of the token flood in
/// [`attacks`]' rows.
const FLOOD_ROW: usize = 4;
const TOKENS_ROW: usize = 5;

/// Random bearer tokens on `op`'s `/metrics`, 50 at a time (each token
/// new, so each one the apiserver was never asked about), counting the
/// `TokenReview`s the apiserver answered meanwhile.
async fn token_flood(op: &Operator, admin: &kubegen::Client, sizes: &Sizes) -> Result<Row> {
    let before = token_reviews(admin).await?;
    let mut tokens = measure(op, &format!("{} random bearer tokens", sizes.tokens), || async {
        let all = (0..sizes.tokens).map(|i| {
            let head = format!(
                "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer random-{i}-{}-{}\r\nConnection: close\r\n\r\n",
                std::process::id(),
                op.metrics
            );
            request(op, op.metrics, head, Arc::new(Vec::new()))
        });
        futures::stream::iter(all)
            .buffer_unordered(50)
            .collect::<Vec<_>>()
            .await
    })
    .await?;
    tokens.token_reviews = Some(token_reviews(admin).await? - before);
    Ok(tokens)
}

/// A TLS client trusting the PEM CA `ca`.
fn connector(ca: &str) -> Result<tokio_rustls::TlsConnector> {
    let mut roots = rustls::RootCertStore::empty();
    for cert in CertificateDer::pem_slice_iter(ca.as_bytes()) {
        roots.add(cert?)?;
    }
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()?
    .with_root_certificates(roots)
    .with_no_client_auth();
    Ok(tokio_rustls::TlsConnector::from(Arc::new(config)))
}

/// Waits until something listens on each of `ports`.
async fn wait_listening(ports: &[u16], what: &str) -> Result<()> {
    for _ in 0..300 {
        let mut all = true;
        for port in ports {
            all &= TcpStream::connect(("127.0.0.1", *port)).await.is_ok();
        }
        if all {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    bail!("{what} did not listen on {ports:?}")
}

use futures::StreamExt as _;

fn table(label: &str, rows: &[Row]) -> String {
    let mut out = format!(
        "\n{label}\n| attack | peak RSS over idle | answers | workload create→Ready | apiserver conversions meanwhile | TokenReviews |\n|---|---|---|---|---|---|\n"
    );
    for r in rows {
        let codes: Vec<String> = r.codes.iter().map(|(c, n)| format!("{n}× {c}")).collect();
        let _ = writeln!(
            out,
            "| {} | {:.1} MiB | {} | {} | {} answered, {} failed | {} |",
            r.attack,
            r.peak_over_idle as f64 / MIB as f64,
            codes.join(", "),
            percentiles(&r.ready),
            r.converted,
            r.failed_conversions,
            r.token_reviews.map_or("".into(), |n| n.to_string()),
        );
    }
    out
}

/// The operators to attack: `HOSTILE_OPERATORS`, or this tree's; then the
/// controller-runtime peer.
fn operators() -> Result<Vec<(String, Flavour)>> {
    let mut all: Vec<(String, Flavour)> = match std::env::var("HOSTILE_OPERATORS") {
        Ok(list) => list
            .split(',')
            .map(|entry| {
                let (label, path) = entry
                    .split_once('=')
                    .context("HOSTILE_OPERATORS is label=PATH,...")?;
                Ok((label.to_owned(), Flavour::Kubegen(PathBuf::from(path))))
            })
            .collect::<Result<_>>()?,
        Err(_) => vec![(
            "this".into(),
            Flavour::Kubegen(my_application_bench::operator_binary()?),
        )],
    };
    all.push((
        "controller-runtime peer".into(),
        Flavour::Peer(my_application_bench::peer_binary()?),
    ));
    Ok(all)
}

/// The bounds `make test` holds this tree's operator to; `peer` is the
/// controller-runtime peer's rows.
fn check_bounds(rows: &[Row], peer: &[Row], report: &str) -> Result<()> {
    for r in rows {
        ensure!(
            r.peak_over_idle <= 64 * MIB as u64,
            "{}: {:.1} MiB over idle{report}",
            r.attack,
            r.peak_over_idle as f64 / MIB as f64
        );
    }
    let flood = &rows[FLOOD_ROW];
    ensure!(
        flood.failed_conversions == 0 && flood.converted > 0,
        "{} failed conversions, {} answered during the flood{report}",
        flood.failed_conversions,
        flood.converted
    );
    let ours = rows[TOKENS_ROW].token_reviews.unwrap_or(u64::MAX);
    let theirs = peer[TOKENS_ROW].token_reviews.unwrap_or(0);
    ensure!(ours <= 50, "{ours} TokenReviews{report}");
    ensure!(
        ours < theirs,
        "{ours} TokenReviews against the peer's {theirs}{report}"
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_callers_cannot_knock_the_operator_over() -> Result<()> {
    let sizes = Sizes::from_env();
    let env = kubegen_testenv::TestEnv::start().await?;
    let admin = env.client().await?;
    // Both versions, converting through the webhook (pointed at each
    // operator in turn).
    let crd_yaml = std::fs::read_to_string(
        my_application_bench::example_dir()
            .join("config/crd/stable.example.com_myapplications.yaml"),
    )?;
    let crd: serde_json::Value = serde_yaml::from_str(&crd_yaml)?;
    kubegen_testenv::install_crd(&admin, &serde_json::from_value(crd)?).await?;
    let ns: k8s_openapi::api::core::v1::Namespace =
        serde_json::from_value(serde_json::json!({"metadata": {"name": "hostile"}}))?;
    Api::all(admin.clone())
        .create(&PostParams::default(), &ns)
        .await?;
    let apps: Api<MyApplication> = Api::namespaced(admin.clone(), "hostile");
    // Creates are held for 2 s after the CRD is Established.
    tokio::time::sleep(Duration::from_secs(3)).await;
    for i in 0..20 {
        apps.create(&PostParams::default(), &application(&format!("app-{i}")))
            .await?;
    }
    let mut report = String::new();
    let mut all = Vec::new();
    for (label, flavour) in operators()? {
        let rows = attack(&flavour, &env, &admin, &sizes)
            .await
            .with_context(|| format!("attacking {label}"))?;
        report.push_str(&table(&label, &rows));
        all.push((label, rows));
    }
    println!("{report}");
    let peer = &all.last().context("no peer")?.1;
    if let Some((_, ours)) = all.iter().find(|(label, _)| label == "this") {
        check_bounds(ours, peer, &report)?;
    }
    Ok(())
}
