//! Every HTTP entry point of the operator's servers fed generated hostile
//! input over real connections: `ConversionReview`s and `AdmissionReview`s
//! (validating and defaulting) on the webhook server over TLS, `/metrics`
//! and the probes over plain HTTP — malformed and truncated JSON, wrong
//! kinds and versions, huge strings and arrays, deep nesting, invalid
//! UTF-8, duplicated keys, wrong content types, lying `Content-Length`s,
//! odd methods and paths.
//!
//! Every case must get a well-formed HTTP answer with an expected code (a
//! lying `Content-Length` may instead close the connection), never `500`
//! (a panic), JSON whenever the code is `200` on a review path; the
//! process's peak memory must stay bounded; and a valid review must still
//! be answered at the end. `KUBEGEN_WIRE_CASES` cases (400 by default;
//! `make differential` runs 5,000), seeded by `KUBEGEN_WIRE_SEED`.

use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result, bail, ensure};
use kubegen::server::{
    DevCa, MetricsServer, ProbeServer, ServingCert, SharedRegistry, WebhookServer,
};
use kubegen_core::rng::Rng;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;

mod support;

use support::carts::{converter, v2};

/// A review of each kind the webhook server answers.
fn seeds() -> Vec<(&'static str, Value)> {
    let cart = json!({"apiVersion": "shop.example.com/v2", "kind": "Cart",
        "metadata": {"name": "c", "namespace": "ns"},
        "spec": {"lines": [{"sku": "a", "quantity": 2}], "note": "n"}});
    let admission = json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
        "request": {"uid": "u", "kind": {"group": "shop.example.com", "version": "v2", "kind": "Cart"},
            "resource": {"group": "shop.example.com", "version": "v2", "resource": "carts"},
            "operation": "CREATE", "userInfo": {"username": "x"}, "object": cart.clone()}});
    let (validate, mutate) = kubegen::server::admission_paths::<v2::Cart>();
    vec![
        (
            "/convert",
            json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
            "request": {"uid": "u", "desiredAPIVersion": "shop.example.com/v1", "objects": [cart.clone(), cart]}}),
        ),
        (leak(validate), admission.clone()),
        (leak(mutate), admission),
    ]
}

fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

/// A JSON value with one random node replaced by something hostile.
fn mutate_value(rng: &mut Rng, value: &mut Value, depth: usize) {
    let children: usize = match value {
        Value::Object(m) => m.len(),
        Value::Array(a) => a.len(),
        _ => 0,
    };
    if children > 0 && depth < 6 && rng.chance(3, 4) {
        let i = rng.below(children);
        match value {
            Value::Object(m) => {
                let key = m.keys().nth(i).cloned().unwrap_or_default();
                if let Some(child) = m.get_mut(&key) {
                    mutate_value(rng, child, depth + 1);
                }
            }
            Value::Array(a) => mutate_value(rng, &mut a[i], depth + 1),
            _ => {}
        }
        return;
    }
    *value = match rng.below(9) {
        0 => Value::Null,
        1 => json!("x".repeat(1 << (10 + rng.below(11)))),
        2 => json!(vec![0; 1 << (4 + rng.below(14))]),
        3 => json!({"kind": "NotAReview", "apiVersion": "v0"}),
        4 => json!(-1),
        5 => json!(u64::MAX),
        6 => json!([]),
        7 => json!({}),
        _ => json!(true),
    };
}

/// A hostile body made from a valid one.
fn body(rng: &mut Rng, seed: &Value) -> Vec<u8> {
    let mut value = seed.clone();
    match rng.below(8) {
        0 | 1 => {
            mutate_value(rng, &mut value, 0);
            serde_json::to_vec(&value).unwrap()
        }
        2 => {
            let text = serde_json::to_vec(&value).unwrap();
            let cut = rng.below(text.len());
            text[..cut].to_vec()
        }
        3 => {
            let mut text = serde_json::to_vec(&value).unwrap();
            for _ in 0..=rng.below(4) {
                let i = rng.below(text.len());
                text[i] = *rng.pick(&[0xff, 0xc3, 0x00, b'"', b'{', b']', b'\\']);
            }
            text
        }
        4 => {
            // Nested far past any parser's recursion limit.
            let depth = 1 << (6 + rng.below(10));
            let mut text = "[".repeat(depth).into_bytes();
            text.extend("]".repeat(depth).into_bytes());
            text
        }
        5 => {
            // A duplicated key: the first `request` replaced by another.
            let text = serde_json::to_string(&value).unwrap();
            text.replacen('{', r#"{"request":{"uid":"dup","objects":[]},"#, 1)
                .into_bytes()
        }
        6 => br#"{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"u","desiredAPIVersion":"shop.example.com/v1","objects":[1e999999]}}"#.to_vec(),
        _ => Vec::new(),
    }
}

/// One request's bytes: head and body, the head's `Content-Length`
/// possibly lying; `true` when it lies.
fn request(rng: &mut Rng, method: &str, path: &str, body: &[u8], json: bool) -> (Vec<u8>, bool) {
    let content_type = if json || rng.chance(1, 10) {
        "application/json"
    } else {
        *rng.pick(&["text/plain", "application/json-seq", "", "application/yaml"])
    };
    let lie = rng.chance(1, 20);
    let length = if lie {
        body.len() + 1 + rng.below(100)
    } else {
        body.len()
    };
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: {length}\r\n"
    );
    if !content_type.is_empty() {
        head.push_str(&format!("Content-Type: {content_type}\r\n"));
    }
    head.push_str("\r\n");
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(body);
    (bytes, lie)
}

/// Sends `bytes` and reads the answer (status code and body), writing and
/// reading at once; `None` when the connection closed without an answer.
async fn exchange<S>(stream: S, bytes: Vec<u8>, half_close: bool) -> Option<(u16, Vec<u8>)>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let (mut read, mut write) = tokio::io::split(stream);
    let sending = async move {
        let _ = write.write_all(&bytes).await;
        let _ = write.flush().await;
        // Half-close so that a lying Content-Length ends in EOF (the
        // servers, as hyper's default, close a connection whose request
        // is cut by EOF without answering).
        if half_close {
            let _ = write.shutdown().await;
        }
        write
    };
    let mut answer = Vec::new();
    let reading = read.read_to_end(&mut answer);
    let (_write, _) = tokio::join!(sending, reading);
    let text = String::from_utf8_lossy(&answer);
    let code: u16 = text.strip_prefix("HTTP/1.1 ")?.get(..3)?.parse().ok()?;
    let body = answer
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map(|i| answer[i + 4..].to_vec())
        .unwrap_or_default();
    Some((code, body))
}

fn peak_memory() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM"))?
                .split_whitespace()
                .nth(1)?
                .parse()
                .ok()
        })
        .unwrap_or(0)
        * 1024
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_input_gets_a_well_formed_answer_every_time() -> Result<()> {
    let cases: u64 = std::env::var("KUBEGEN_WIRE_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(400);
    let seed: u64 = std::env::var("KUBEGEN_WIRE_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    let dir = tempfile::tempdir()?;
    let ca = DevCa::new("wire-fuzz")?;
    ca.issue(dir.path(), &["127.0.0.1"])?;
    let webhooks = WebhookServer::builder(ServingCert::from_dir(dir.path()))
        .conversion(converter())
        .validate::<v2::Cart>(|_| Ok(vec![]))
        .default::<v2::Cart>(|cart| {
            cart.spec
                .note
                .get_or_insert_with(|| "defaulted".into())
                .push('!')
        })
        .bind("127.0.0.1:0")
        .await?;
    let webhook_port = webhooks.local_addr()?.port();
    tokio::spawn(webhooks.serve(std::future::pending()));
    let metrics = MetricsServer::insecure(SharedRegistry::default())
        .bind("127.0.0.1:0")
        .await?;
    let metrics_port = metrics.local_addr()?.port();
    tokio::spawn(metrics.serve(std::future::pending()));
    let probes = ProbeServer::builder().bind("127.0.0.1:0").await?;
    let probes_port = probes.local_addr()?.port();
    tokio::spawn(probes.serve(std::future::pending()));

    let mut roots = rustls::RootCertStore::empty();
    for cert in CertificateDer::pem_slice_iter(ca.pem().as_bytes()) {
        roots.add(cert?)?;
    }
    let tls = tokio_rustls::TlsConnector::from(Arc::new(
        rustls::ClientConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()?
        .with_root_certificates(roots)
        .with_no_client_auth(),
    ));
    let seeds = seeds();
    let start_peak = peak_memory();
    let mut rng = Rng::new(seed);
    let mut codes = std::collections::BTreeMap::<u16, usize>::new();
    for case in 0..cases {
        let plain = rng.chance(1, 3);
        let (port, bytes, lie, review_path) = if plain {
            let port = if rng.chance(1, 2) {
                metrics_port
            } else {
                probes_port
            };
            let method = *rng.pick(&["GET", "HEAD", "POST", "DELETE", "OPTIONS"]);
            let long = "a".repeat(1 << (4 + rng.below(10)));
            let path = *rng.pick(&[
                "/metrics",
                "/healthz",
                "/readyz",
                "/livez",
                "/../../etc/passwd",
                "/%00",
                "/metrics?x=1",
            ]);
            let path = if rng.chance(1, 5) {
                format!("/{long}")
            } else {
                path.to_owned()
            };
            let body = if method == "POST" {
                body(&mut rng, &seeds[0].1)
            } else {
                Vec::new()
            };
            let (bytes, lie) = request(&mut rng, method, &path, &body, false);
            (port, bytes, lie, None)
        } else {
            let (path, seed_value) = rng.pick(&seeds).clone();
            let method = if rng.chance(1, 10) { "GET" } else { "POST" };
            let hostile = body(&mut rng, &seed_value);
            let json = rng.chance(9, 10);
            let (bytes, lie) = request(&mut rng, method, path, &hostile, json);
            (webhook_port, bytes, lie, Some(path))
        };
        let shown = String::from_utf8_lossy(&bytes[..bytes.len().min(300)]).into_owned();
        let tcp = TcpStream::connect(("127.0.0.1", port)).await?;
        let answer = if port == webhook_port {
            let stream = tls
                .connect(ServerName::try_from("127.0.0.1")?.to_owned(), tcp)
                .await?;
            tokio::time::timeout(Duration::from_secs(30), exchange(stream, bytes, lie)).await
        } else {
            tokio::time::timeout(Duration::from_secs(30), exchange(tcp, bytes, lie)).await
        }
        .with_context(|| format!("case {case}: no answer within 30 s"))?;
        let Some((code, body)) = answer else {
            ensure!(
                lie,
                "case {case}: the connection closed without an answer to {shown}"
            );
            continue;
        };
        *codes.entry(code).or_default() += 1;
        ensure!(
            [200, 400, 404, 405, 413, 415, 429, 431, 503].contains(&code),
            "case {case}: answered {code}: {}",
            String::from_utf8_lossy(&body[..body.len().min(300)])
        );
        if code == 200 && review_path.is_some() {
            // A streamed answer may be chunked: the JSON is between the
            // chunk sizes; parse what a chunked reader would give.
            let text = dechunk(&body);
            let answer: Value = serde_json::from_slice(&text)
                .with_context(|| format!("case {case}: a 200 that is not JSON"))?;
            ensure!(answer.get("response").is_some(), "case {case}: {answer}");
        }
    }
    let grown = peak_memory().saturating_sub(start_peak);
    ensure!(grown < 256 << 20, "the peak memory grew by {grown} bytes");
    // Still serving.
    let (path, valid) = &seeds[0];
    let (bytes, _) = request(
        &mut Rng::new(0),
        "POST",
        path,
        &serde_json::to_vec(valid)?,
        true,
    );
    let tcp = TcpStream::connect(("127.0.0.1", webhook_port)).await?;
    let stream = tls
        .connect(ServerName::try_from("127.0.0.1")?.to_owned(), tcp)
        .await?;
    match exchange(stream, bytes, false).await {
        Some((200, _)) => {}
        other => bail!("a valid review after the fuzzing: {other:?}"),
    }
    eprintln!(
        "{cases} cases, answers by code: {codes:?}, peak memory grew {} KiB",
        grown / 1024
    );
    Ok(())
}

/// The payload of a body sent with `Transfer-Encoding: chunked` (or the
/// body itself when it is not chunked).
fn dechunk(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut rest = body;
    loop {
        let Some(line_end) = rest.windows(2).position(|w| w == b"\r\n") else {
            return body.to_vec();
        };
        let Ok(size) = usize::from_str_radix(String::from_utf8_lossy(&rest[..line_end]).trim(), 16)
        else {
            return body.to_vec();
        };
        if size == 0 {
            return out;
        }
        let start = line_end + 2;
        if rest.len() < start + size + 2 {
            return body.to_vec();
        }
        out.extend_from_slice(&rest[start..start + size]);
        rest = &rest[start + size + 2..];
    }
}
