//! Raw access to the control plane's etcd through its JSON gRPC gateway
//! (plain HTTP on [`TestEnv::etcd_url`]): read what the apiserver stored
//! under a key prefix (`/registry/<group>/<plural>/<namespace>/<name>` for
//! custom resources, stored as JSON), and compact the history.
//!
//! ```no_run
//! # async fn demo() -> anyhow::Result<()> {
//! let env = kubegen_testenv::TestEnv::shared().await?;
//! for entry in env.etcd_range("/registry/shop.example.com/carts/").await? {
//!     println!("{} at {}", entry.key, entry.json()?["apiVersion"]);
//! }
//! # Ok(()) }
//! ```

use std::time::Duration;

use anyhow::{Context, Result, bail};
use serde_json::json;

use crate::TestEnv;

/// One key of etcd and what is stored under it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EtcdEntry {
    /// The key, e.g. `/registry/shop.example.com/carts/ns/name`.
    pub key: String,
    /// The stored bytes: JSON for custom resources, protobuf (starting
    /// with `k8s\0`) for most built-in kinds.
    pub value: Vec<u8>,
    /// The etcd revision that last wrote the key.
    pub mod_revision: i64,
}

impl EtcdEntry {
    /// The value read as JSON (custom resources are stored as JSON).
    pub fn json(&self) -> Result<serde_json::Value> {
        serde_json::from_slice(&self.value)
            .with_context(|| format!("the value of {} is not JSON", self.key))
    }
}

impl TestEnv {
    /// Every key of etcd starting with `prefix`, in key order, with its
    /// value — what the apiserver stored, bypassing it.
    pub async fn etcd_range(&self, prefix: &str) -> Result<Vec<EtcdEntry>> {
        let reply = post(
            self.etcd_url(),
            "/v3/kv/range",
            json!({
                "key": encode(prefix.as_bytes()),
                "range_end": encode(&prefix_end(prefix.as_bytes())),
            }),
        )
        .await?;
        let Some(kvs) = reply.get("kvs").and_then(|k| k.as_array()) else {
            return Ok(Vec::new());
        };
        kvs.iter()
            .map(|kv| {
                let field = |name: &str| {
                    kv.get(name)
                        .and_then(|v| v.as_str())
                        .with_context(|| format!("no {name} in etcd's reply: {kv}"))
                };
                Ok(EtcdEntry {
                    key: String::from_utf8(decode(field("key")?)?)?,
                    value: kv
                        .get("value")
                        .and_then(|v| v.as_str())
                        .map(decode)
                        .transpose()?
                        .unwrap_or_default(),
                    mod_revision: number(kv.get("mod_revision"))?,
                })
            })
            .collect()
    }

    /// etcd's current revision.
    pub async fn etcd_revision(&self) -> Result<i64> {
        let reply = post(
            self.etcd_url(),
            "/v3/kv/range",
            json!({ "key": encode(b"\0"), "count_only": true }),
        )
        .await?;
        number(reply.get("header").and_then(|h| h.get("revision")))
    }

    /// Writes `value` under `key`, bypassing the apiserver (whose cache
    /// does not see it until it relists).
    pub async fn etcd_put(&self, key: &str, value: &[u8]) -> Result<()> {
        post(
            self.etcd_url(),
            "/v3/kv/put",
            json!({ "key": encode(key.as_bytes()), "value": encode(value) }),
        )
        .await?;
        Ok(())
    }

    /// Deletes `key`, bypassing the apiserver.
    pub async fn etcd_delete(&self, key: &str) -> Result<()> {
        post(
            self.etcd_url(),
            "/v3/kv/deleterange",
            json!({ "key": encode(key.as_bytes()) }),
        )
        .await?;
        Ok(())
    }

    /// Compacts etcd's history up to the current revision and returns it:
    /// reads at older revisions (watches, continue tokens of lists served
    /// from etcd) then fail with 410 Gone.
    pub async fn etcd_compact(&self) -> Result<i64> {
        let revision = self.etcd_revision().await?;
        post(
            self.etcd_url(),
            "/v3/kv/compaction",
            json!({ "revision": revision.to_string(), "physical": true }),
        )
        .await?;
        Ok(revision)
    }
}

/// The gateway writes 64-bit integers as strings.
fn number(value: Option<&serde_json::Value>) -> Result<i64> {
    let value = value.context("a number is missing from etcd's reply")?;
    value
        .as_str()
        .and_then(|s| s.parse().ok())
        .or_else(|| value.as_i64())
        .with_context(|| format!("not a number: {value}"))
}

/// The end of the range of keys starting with `prefix`: the prefix with its
/// last byte below 0xff incremented (and what follows it dropped).
fn prefix_end(prefix: &[u8]) -> Vec<u8> {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last < 0xff {
            end.push(last + 1);
            return end;
        }
    }
    // Every byte was 0xff: to the end of the keyspace.
    vec![0]
}

/// A minimal HTTP/1.0 JSON POST to etcd's gateway.
async fn post(etcd_url: &str, path: &str, body: serde_json::Value) -> Result<serde_json::Value> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let host = etcd_url
        .strip_prefix("http://")
        .context("the etcd URL is not http")?;
    let body = body.to_string();
    let mut stream = tokio::net::TcpStream::connect(host).await?;
    let request = format!(
        "POST {path} HTTP/1.0\r\nHost: {host}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await?;
    let mut response = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut response)).await??;
    let response = String::from_utf8(response)?;
    let (head, body) = response
        .split_once("\r\n\r\n")
        .context("malformed HTTP response from etcd")?;
    if !head.starts_with("HTTP/1.0 200") && !head.starts_with("HTTP/1.1 200") {
        bail!("etcd {path}: {head}\n{body}");
    }
    Ok(serde_json::from_str(body)?)
}

/// Standard base64 with padding (the gateway's encoding of bytes), as
/// Kubernetes encodes `[]byte`.
fn encode(data: &[u8]) -> String {
    match serde_json::to_value(k8s_openapi::ByteString(data.to_vec())) {
        Ok(serde_json::Value::String(text)) => text,
        _ => String::new(),
    }
}

/// Decodes standard base64, padding optional.
fn decode(text: &str) -> Result<Vec<u8>> {
    let padded = format!("{text}{}", "=".repeat((4 - text.len() % 4) % 4));
    let bytes: k8s_openapi::ByteString =
        serde_json::from_value(json!(padded)).with_context(|| format!("not base64: {text}"))?;
    Ok(bytes.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips() {
        for data in [
            &b""[..],
            b"f",
            b"fo",
            b"foo",
            b"/registry/x",
            &[0, 255, 128, 7],
        ] {
            assert_eq!(decode(&encode(data)).unwrap(), data);
        }
        assert_eq!(encode(b"foob"), "Zm9vYg==");
        assert_eq!(decode("Zm9vYg").unwrap(), b"foob");
        assert!(decode("!!").is_err());
    }

    #[test]
    fn a_prefix_range_ends_after_its_last_key() {
        assert_eq!(prefix_end(b"/registry/a/"), b"/registry/a0");
        assert_eq!(prefix_end(&[b'a', 0xff]), b"b");
        assert_eq!(prefix_end(&[0xff]), [0]);
    }
}
