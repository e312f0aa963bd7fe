//! Scenario scripts: requests with the outcome each is built to have,
//! run in order against one server (the fake or the real plane) through
//! a `kubegen_client::Client`, each answer recorded for comparison.

use std::time::Duration;

use anyhow::{Context as _, Result, anyhow};
use http_body_util::BodyExt as _;
use serde_json::{Value, json};

/// One step of a scenario.
#[derive(Clone, Debug)]
pub enum Step {
    /// One request; `expect` is the HTTP code it is built to get.
    Request {
        method: &'static str,
        path: String,
        content_type: Option<&'static str>,
        body: Option<Value>,
        expect: u16,
    },
    /// A watch: the first `events` events it sends (or fewer after 10 s).
    Watch { path: String, events: usize },
    /// Repeats a GET until it answers `code` (and, with `present`, its
    /// answer has that JSON pointer): what asynchronous controllers do
    /// takes time on a real plane. Up to 30 s.
    Await {
        path: String,
        code: u16,
        present: Option<&'static str>,
    },
}

/// A named sequence of steps, run in a namespace of its own (`{ns}` in
/// paths and bodies).
#[derive(Clone, Debug)]
pub struct Scenario {
    pub name: String,
    pub steps: Vec<Step>,
}

/// Shorthands for building steps.
pub fn req(method: &'static str, path: &str, body: Option<Value>, expect: u16) -> Step {
    Step::Request {
        method,
        path: path.to_string(),
        content_type: None,
        body,
        expect,
    }
}

pub fn patch(path: &str, content_type: &'static str, body: Value, expect: u16) -> Step {
    Step::Request {
        method: "PATCH",
        path: path.to_string(),
        content_type: Some(content_type),
        body: Some(body),
        expect,
    }
}

/// A server-side apply of `body` by `manager` (with `force`).
pub fn apply(path: &str, manager: &str, force: bool, body: Value, expect: u16) -> Step {
    let mut query = format!("?fieldManager={manager}");
    if force {
        query.push_str("&force=true");
    }
    patch(
        &format!("{path}{query}"),
        "application/apply-patch+yaml",
        body,
        expect,
    )
}

/// What one step answered: the code and the body (a JSON document, or
/// the array of watch events).
#[derive(Clone, Debug, PartialEq)]
pub struct Answer {
    pub code: u16,
    pub body: Value,
}

/// `${N:/pointer}` in `s` replaced by the value at `pointer` in step
/// N's answer (strings unquoted), `{ns}` by the namespace.
fn fill(s: &str, ns: &str, answers: &[Answer]) -> Result<String> {
    let mut out = String::new();
    let mut rest = s.replace("{ns}", ns);
    while let Some(i) = rest.find("${") {
        out.push_str(&rest[..i]);
        let end = rest[i..]
            .find('}')
            .ok_or_else(|| anyhow!("unclosed ${{ in {s}"))?
            + i;
        let (step, pointer) = rest[i + 2..end]
            .split_once(':')
            .ok_or_else(|| anyhow!("bad reference in {s}"))?;
        let n: usize = step.parse()?;
        // A value the step's answer lacks (it failed) is empty: both
        // servers then get the same request.
        match answers.get(n).and_then(|a| a.body.pointer(pointer)) {
            Some(Value::String(t)) => out.push_str(t),
            Some(other) => out.push_str(&other.to_string()),
            None => {}
        }
        rest = rest[end + 1..].to_string();
    }
    out.push_str(&rest);
    Ok(out)
}

fn whole_reference(s: &str) -> Option<(usize, &str)> {
    let inner = s.strip_prefix("${")?.strip_suffix('}')?;
    let (n, pointer) = inner.split_once(':')?;
    Some((n.parse().ok()?, pointer))
}

fn fill_value(v: &Value, ns: &str, answers: &[Answer]) -> Result<Value> {
    Ok(match v {
        Value::String(s) => match whole_reference(s) {
            // A whole-string reference takes the referenced value as it is.
            Some((n, pointer)) => answers
                .get(n)
                .and_then(|a| a.body.pointer(pointer))
                .cloned()
                .unwrap_or(Value::Null),
            None => Value::String(fill(s, ns, answers)?),
        },
        Value::Array(a) => Value::Array(
            a.iter()
                .map(|x| fill_value(x, ns, answers))
                .collect::<Result<_>>()?,
        ),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, x)| Ok((k.clone(), fill_value(x, ns, answers)?)))
                .collect::<Result<_>>()?,
        ),
        other => other.clone(),
    })
}

async fn send(
    client: &kubegen_client::Client,
    method: &str,
    path: &str,
    content_type: Option<&str>,
    body: Vec<u8>,
) -> Result<http::Response<kubegen_client::Body>> {
    let mut b = http::Request::builder().method(method).uri(path);
    if let Some(ct) = content_type.or(Some("application/json")) {
        b = b.header(http::header::CONTENT_TYPE, ct);
    }
    let request = b.body(kubegen_client::Body::from(body))?;
    Ok(client.send(request).await?)
}

async fn read_json(resp: http::Response<kubegen_client::Body>) -> Result<Answer> {
    let code = resp.status().as_u16();
    let bytes = resp.into_body().collect().await?.to_bytes();
    let body = serde_json::from_slice(&bytes)
        .unwrap_or_else(|_| json!({"text": String::from_utf8_lossy(&bytes)}));
    Ok(Answer { code, body })
}

async fn read_events(resp: http::Response<kubegen_client::Body>, n: usize) -> Result<Answer> {
    let code = resp.status().as_u16();
    let mut body = resp.into_body();
    let mut buf = Vec::new();
    let mut events = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while events.len() < n {
        let frame = match tokio::time::timeout_at(deadline, body.frame()).await {
            Ok(Some(f)) => f?,
            Ok(None) | Err(_) => break,
        };
        if let Ok(data) = frame.into_data() {
            buf.extend_from_slice(&data);
        }
        while let Some(i) = buf.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = buf.drain(..=i).collect();
            if let Ok(v) = serde_json::from_slice::<Value>(&line) {
                // Periodic bookmarks come when they come: not compared.
                let periodic = v["type"] == "BOOKMARK"
                    && v.pointer("/object/metadata/annotations/k8s.io~1initial-events-end")
                        .is_none();
                if !periodic {
                    events.push(v);
                }
            }
        }
    }
    Ok(Answer {
        code,
        body: Value::Array(events),
    })
}

/// Runs `scenario` in namespace `ns` with `client`: one answer per step.
pub async fn run(
    client: &kubegen_client::Client,
    ns: &str,
    scenario: &Scenario,
) -> Result<Vec<Answer>> {
    let mut answers: Vec<Answer> = Vec::new();
    for (i, step) in scenario.steps.iter().enumerate() {
        let answer = match step {
            Step::Request {
                method,
                path,
                content_type,
                body,
                ..
            } => {
                let path = fill(path, ns, &answers)?;
                let body = match body {
                    Some(b) => serde_json::to_vec(&fill_value(b, ns, &answers)?)?,
                    None => Vec::new(),
                };
                read_json(send(client, method, &path, *content_type, body).await?).await?
            }
            Step::Watch { path, events } => {
                let path = fill(path, ns, &answers)?;
                read_events(send(client, "GET", &path, None, Vec::new()).await?, *events).await?
            }
            Step::Await {
                path,
                code,
                present,
            } => {
                let path = fill(path, ns, &answers)?;
                let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
                loop {
                    let a = read_json(send(client, "GET", &path, None, Vec::new()).await?).await?;
                    let done =
                        a.code == *code && present.is_none_or(|p| a.body.pointer(p).is_some());
                    if done || tokio::time::Instant::now() > deadline {
                        break a;
                    }
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            }
        };
        answers.push(answer);
        let _ = i;
    }
    Ok(answers)
}

/// The steps whose code is not the one they were built to get.
pub fn unexpected(scenario: &Scenario, answers: &[Answer]) -> Vec<String> {
    scenario
        .steps
        .iter()
        .zip(answers)
        .enumerate()
        .filter_map(|(i, (s, a))| match s {
            Step::Request {
                expect,
                method,
                path,
                ..
            } if *expect != 0 && *expect != a.code => Some(format!(
                "{}: step {i} {method} {path}: expected {expect}, got {} {}",
                scenario.name, a.code, a.body
            )),
            Step::Await { code, path, .. } if *code != a.code => Some(format!(
                "{}: step {i} awaiting {code} from {path}: got {}",
                scenario.name, a.code
            )),
            _ => None,
        })
        .collect()
}

/// Makes the scenario's namespace on a fake server (the real plane's
/// test environment makes its own).
pub async fn namespace(client: &kubegen_client::Client, ns: &str) -> Result<()> {
    let body = serde_json::to_vec(
        &json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}),
    )?;
    let a = read_json(send(client, "POST", "/api/v1/namespaces", None, body).await?).await?;
    (a.code == 201)
        .then_some(())
        .context(format!("namespace {ns}: {}", a.body))
}
