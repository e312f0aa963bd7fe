//! Conversion webhook latency and throughput for a 1 KB object, on this
//! machine, in one run:
//!
//! 1. anchor: the same `ConversionReview` answered in-process
//!    (`Converter::review`, JSON in and out, no network);
//! 2. the `WebhookServer` over HTTPS (one keep-alive connection: latency
//!    p50/p99; four connections at once: throughput);
//! 3. through a real apiserver: GET at the storage version (no
//!    conversion) vs GET at the other version (a webhook call per read).
//!
//! Medians and ratios against the anchors are printed; nothing fails on
//! time. `cargo bench -p kubegen-runtime --bench conversion`
//! (`CONVERSION_BENCH_REQUESTS`, default 2000).

#[path = "../tests/support/mod.rs"]
mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use kubegen::api::{Api, PostParams};
use kubegen::conversion::{WebhookEndpoint, inject_ca_bundle};
use kubegen::{CustomResourceExt, merge_crds};
use kubegen_testenv::{TestEnv, eventually, install_crd};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

use support::carts::{converter, v1, v2};

/// A v2 Cart whose JSON is about 1 KB.
fn cart(name: &str) -> v2::Cart {
    let lines = (0..26)
        .map(|i| v2::Line {
            sku: format!("sku-{i:05}"),
            quantity: 1 + i % 5,
        })
        .collect();
    v2::Cart::new(
        name,
        v2::CartSpec {
            lines,
            note: Some("a note".into()),
        },
    )
}

fn review(object: &Value) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "ConversionReview",
        "request": {"uid": "bench", "desiredAPIVersion": "shop.example.com/v1", "objects": [object]},
    }))
    .unwrap_or_default()
}

fn quantile(sorted: &[Duration], q: f64) -> Duration {
    let rank = ((q * sorted.len() as f64).ceil() as usize).saturating_sub(1);
    sorted[rank.min(sorted.len() - 1)]
}

fn summary(mut samples: Vec<Duration>) -> (Duration, Duration) {
    samples.sort();
    (quantile(&samples, 0.5), quantile(&samples, 0.99))
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

/// One keep-alive HTTPS connection that POSTs reviews.
struct Connection {
    stream: BufReader<tokio_rustls::client::TlsStream<tokio::net::TcpStream>>,
}

impl Connection {
    async fn open(addr: std::net::SocketAddr, ca_pem: &str) -> Result<Connection> {
        let mut roots = rustls::RootCertStore::empty();
        roots.add(CertificateDer::from_pem_slice(ca_pem.as_bytes())?)?;
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()?
            .with_root_certificates(roots)
            .with_no_client_auth();
        let tcp = tokio::net::TcpStream::connect(addr).await?;
        tcp.set_nodelay(true)?;
        let tls = tokio_rustls::TlsConnector::from(Arc::new(config))
            .connect(ServerName::try_from("127.0.0.1")?, tcp)
            .await?;
        Ok(Connection {
            stream: BufReader::new(tls),
        })
    }

    async fn post(&mut self, body: &[u8]) -> Result<Vec<u8>> {
        let head = format!(
            "POST /convert HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        let stream = self.stream.get_mut();
        stream.write_all(head.as_bytes()).await?;
        stream.write_all(body).await?;
        stream.flush().await?;
        let mut status = String::new();
        self.stream.read_line(&mut status).await?;
        if !status.starts_with("HTTP/1.1 200") {
            bail!("webhook answered {status:?}");
        }
        let mut length = 0;
        loop {
            let mut line = String::new();
            self.stream.read_line(&mut line).await?;
            if line == "\r\n" {
                break;
            }
            if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                length = v.trim().parse()?;
            }
        }
        let mut answer = vec![0; length];
        self.stream.read_exact(&mut answer).await?;
        Ok(answer)
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<()> {
    let requests: usize = std::env::var("CONVERSION_BENCH_REQUESTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000);
    let object = serde_json::to_value(cart("bench"))?;
    let body = review(&object);
    let object_bytes = serde_json::to_vec(&object)?.len();
    let c = converter();

    // 1. In-process anchor.
    let mut anchor = Vec::with_capacity(requests);
    for _ in 0..requests {
        let started = Instant::now();
        let parsed = serde_json::from_slice(&body)?;
        let answer = serde_json::to_vec(&c.review(parsed))?;
        anchor.push(started.elapsed());
        std::hint::black_box(answer);
    }
    let (anchor_p50, anchor_p99) = summary(anchor);

    // 2. Over HTTPS.
    let webhooks = support::serve(|s| s.conversion(converter())).await?;
    let (addr, ca) = (webhooks.running.addr, &webhooks.ca);
    let mut connection = Connection::open(addr, &ca.pem()).await?;
    let answer: Value = serde_json::from_slice(&connection.post(&body).await?)?;
    if answer["response"]["result"]["status"] != "Success" {
        bail!("the webhook failed: {answer}");
    }
    let mut https = Vec::with_capacity(requests);
    for _ in 0..requests {
        let started = Instant::now();
        std::hint::black_box(connection.post(&body).await?);
        https.push(started.elapsed());
    }
    let (https_p50, https_p99) = summary(https);
    let clients = 4;
    let started = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..clients {
        let (pem, body) = (ca.pem(), body.clone());
        tasks.push(tokio::spawn(async move {
            let mut connection = Connection::open(addr, &pem).await?;
            for _ in 0..requests / clients {
                connection.post(&body).await?;
            }
            anyhow::Ok(())
        }));
    }
    for task in tasks {
        task.await??;
    }
    let throughput = (requests / clients * clients) as f64 / started.elapsed().as_secs_f64();

    // 3. Through the apiserver.
    let env = TestEnv::shared().await?;
    let client = env.client().await?;
    let ns = env.namespace("conversion-bench").await?;
    install_crd(
        &client,
        &serde_json::from_value(merge_crds(&[v1::Cart::crd_json()?, v2::Cart::crd_json()?])?)?,
    )
    .await?;
    inject_ca_bundle(
        &client,
        "carts.shop.example.com",
        &ca.pem(),
        &WebhookEndpoint::Url(format!("https://{addr}/convert")),
    )
    .await?;
    let at_v2 = Api::<v2::Cart>::namespaced(client.clone(), &ns);
    let at_v1 = Api::<v1::Cart>::namespaced(client.clone(), &ns);
    at_v2.create(&PostParams::default(), &cart("bench")).await?;
    eventually(Duration::from_secs(30), "reads at v1", || async {
        Ok(at_v1.get("bench").await.ok())
    })
    .await?;
    let reads = (requests / 10).max(50);
    let (mut stored, mut converted) = (Vec::new(), Vec::new());
    for _ in 0..reads {
        let started = Instant::now();
        at_v2.get("bench").await.context("GET at v2")?;
        stored.push(started.elapsed());
        let started = Instant::now();
        at_v1.get("bench").await.context("GET at v1")?;
        converted.push(started.elapsed());
    }
    let (stored_p50, stored_p99) = summary(stored);
    let (converted_p50, converted_p99) = summary(converted);
    webhooks.running.shut().await?;

    println!(
        "conversion of one {object_bytes}-byte Cart (v2 → v1, lossy: the stash is written), {requests} requests"
    );
    println!(
        "{:<46} {:>10} {:>10} {:>8}",
        "", "p50 µs", "p99 µs", "ratio"
    );
    println!(
        "{:<46} {:>10.1} {:>10.1} {:>8}",
        "in-process Converter::review (anchor)",
        us(anchor_p50),
        us(anchor_p99),
        "1.0"
    );
    println!(
        "{:<46} {:>10.1} {:>10.1} {:>8.1}",
        "WebhookServer over HTTPS (keep-alive)",
        us(https_p50),
        us(https_p99),
        https_p50.as_secs_f64() / anchor_p50.as_secs_f64()
    );
    println!(
        "{:<46} {:>10.0} req/s ({clients} connections)",
        "WebhookServer throughput", throughput
    );
    println!(
        "{:<46} {:>10.1} {:>10.1} {:>8}",
        "apiserver GET at v2 (storage; anchor)",
        us(stored_p50),
        us(stored_p99),
        "1.0"
    );
    println!(
        "{:<46} {:>10.1} {:>10.1} {:>8.2}",
        "apiserver GET at v1 (through the webhook)",
        us(converted_p50),
        us(converted_p99),
        converted_p50.as_secs_f64() / stored_p50.as_secs_f64()
    );
    Ok(())
}
