//! The workload: random creates, spec updates (replicas 1–3, image tag),
//! deletes and re-creates of a fixed set of MyApplications, while faults
//! come and go. Every change is retried until the apiserver confirms it,
//! and the book records the last intended state of every name (its spec,
//! or absence) — what the operator must eventually reflect.
//!
//! A write that timed out may still have been applied: a create retried
//! into `AlreadyExists` reads the object back (it must carry our spec), a
//! delete retried into `NotFound` is done, a spec patch is idempotent.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use kubegen::api::{Api, DeleteParams, Patch, PatchParams, PostParams};
use my_application::api::{MyApplication, MyApplicationSpec};

use super::rng::Rng;

/// How long one request may take before it is retried.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(5);
/// How long one change may take, retries included, before the soak fails.
const CHANGE_DEADLINE: Duration = Duration::from_secs(120);
/// Image tags the updates pick from (kwok runs no containers: any works).
const TAGS: [&str; 3] = ["1.27", "1.28", "1.29"];

/// The part of the spec the soak changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spec {
    /// `spec.replicas`.
    pub replicas: i32,
    /// `spec.image`.
    pub image: String,
}

impl Spec {
    fn random(rng: &mut Rng) -> Spec {
        Spec {
            replicas: 1 + rng.below(3) as i32,
            image: format!("nginx:{}", TAGS[rng.below(TAGS.len())]),
        }
    }

    /// The spec `app` carries.
    pub fn of(app: &MyApplication) -> Spec {
        Spec {
            replicas: app.spec.replicas,
            image: app.spec.image.clone(),
        }
    }
}

/// The last intended state of one name.
#[derive(Debug, Clone)]
pub struct Intent {
    /// The spec, or `None`: absent (deleted, or not created yet).
    pub spec: Option<Spec>,
    /// The uid of the object the spec belongs to.
    pub uid: Option<String>,
    /// Bumped by every confirmed change.
    pub version: u64,
    /// When the last change was confirmed.
    pub changed_at: Instant,
    /// A change is under way: the state is not defined until it is confirmed.
    pub pending: bool,
    /// The last version observed reflected (children and status).
    pub reflected: Option<u64>,
    /// The last version observed Ready (or rightly absent).
    pub ready: Option<u64>,
}

/// One object a name stood for: its uid, from before its create was
/// first sent until its delete was confirmed (wall clock, microseconds
/// since the epoch, as the audit log's timestamps), so that a write the
/// audit log records by name can be traced to the application it was for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Incarnation {
    /// `metadata.uid`.
    pub uid: String,
    /// Taken before the first create request was sent.
    pub created: i64,
    /// Taken once the delete was confirmed; `None` while it exists.
    pub deleted: Option<i64>,
}

/// Now on the wall clock, in microseconds since the epoch.
pub fn wall_micros() -> i64 {
    k8s_openapi::jiff::Timestamp::now().as_microsecond()
}

/// Everything the churn did.
#[derive(Debug, Default)]
pub struct Book {
    /// By name.
    pub intents: BTreeMap<String, Intent>,
    /// The uid of every object ever created.
    pub uids: BTreeSet<String>,
    /// Confirmed changes by kind (`create`, `update`, `delete`).
    pub changes: BTreeMap<&'static str, usize>,
    /// Requests retried (failed or timed out while the plane was down).
    pub retries: usize,
    /// When the last change was confirmed.
    pub last_change: Option<Instant>,
    /// Every object each name stood for, oldest first.
    pub incarnations: BTreeMap<String, Vec<Incarnation>>,
}

/// The book, shared with the observer.
pub type SharedBook = Arc<Mutex<Book>>;

/// Locks the book (a panicked holder does not make it unreadable).
pub fn lock(book: &SharedBook) -> std::sync::MutexGuard<'_, Book> {
    book.lock().unwrap_or_else(|p| p.into_inner())
}

/// The names of the soak's applications.
pub fn names(apps: usize) -> Vec<String> {
    (0..apps).map(|i| format!("app-{i:03}")).collect()
}

/// A book with every name absent.
pub fn new_book(names: &[String]) -> SharedBook {
    let now = Instant::now();
    let intents = names
        .iter()
        .map(|n| {
            let intent = Intent {
                spec: None,
                uid: None,
                version: 0,
                changed_at: now,
                pending: false,
                reflected: Some(0),
                ready: Some(0),
            };
            (n.clone(), intent)
        })
        .collect();
    Arc::new(Mutex::new(Book {
        intents,
        ..Book::default()
    }))
}

/// Changes random applications every 0.2–0.7 s until `until`. Absent
/// ones are created; present ones are updated (70 %) or deleted (30 %).
pub async fn churn(
    apps: Api<MyApplication>,
    book: SharedBook,
    mut rng: Rng,
    until: Instant,
) -> Result<()> {
    let names: Vec<String> = lock(&book).intents.keys().cloned().collect();
    while Instant::now() < until {
        tokio::time::sleep(rng.between(Duration::from_millis(200), Duration::from_millis(700)))
            .await;
        let name = &names[rng.below(names.len())];
        let current = {
            let mut book = lock(&book);
            let intent = book.intents.get_mut(name).expect("a known name");
            intent.pending = true;
            intent.spec.clone()
        };
        let sent = wall_micros();
        let (kind, spec, uid) = match current {
            None => {
                let spec = Spec::random(&mut rng);
                let uid = create(&apps, name, &spec, &book).await?;
                ("create", Some(spec), Some(uid))
            }
            Some(old) if rng.chance(0.7) => {
                let mut spec = Spec::random(&mut rng);
                while spec == old {
                    spec = Spec::random(&mut rng);
                }
                update(&apps, name, &spec, &book).await?;
                let uid = lock(&book).intents[name].uid.clone();
                ("update", Some(spec), uid)
            }
            Some(_) => {
                delete(&apps, name, &book).await?;
                ("delete", None, None)
            }
        };
        let now = Instant::now();
        let confirmed = wall_micros();
        let mut book = lock(&book);
        if let Some(uid) = &uid {
            book.uids.insert(uid.clone());
        }
        let incarnations = book.incarnations.entry(name.clone()).or_default();
        match kind {
            "create" => incarnations.push(Incarnation {
                uid: uid.clone().unwrap_or_default(),
                created: sent,
                deleted: None,
            }),
            "delete" => {
                if let Some(last) = incarnations.last_mut() {
                    last.deleted = Some(confirmed);
                }
            }
            _ => {}
        }
        *book.changes.entry(kind).or_default() += 1;
        book.last_change = Some(now);
        let intent = book.intents.get_mut(name).expect("a known name");
        intent.spec = spec;
        intent.uid = uid;
        intent.version += 1;
        intent.changed_at = now;
        intent.pending = false;
    }
    Ok(())
}

/// What one attempt of a change came to.
enum Attempt<T> {
    Done(T),
    Retry(String),
}

/// Runs `attempt` until it is done, for at most [`CHANGE_DEADLINE`].
async fn retrying<T, F, Fut>(what: &str, book: &SharedBook, mut attempt: F) -> Result<T>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Attempt<T>>,
{
    let deadline = Instant::now() + CHANGE_DEADLINE;
    loop {
        match attempt().await {
            Attempt::Done(value) => return Ok(value),
            Attempt::Retry(why) => {
                if Instant::now() > deadline {
                    bail!("{what}: not confirmed within {CHANGE_DEADLINE:?}; last error: {why}");
                }
                lock(book).retries += 1;
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
        }
    }
}

/// An error as a reason to retry.
fn retry<T>(error: impl std::fmt::Display) -> Attempt<T> {
    Attempt::Retry(error.to_string())
}

async fn create(
    apps: &Api<MyApplication>,
    name: &str,
    spec: &Spec,
    book: &SharedBook,
) -> Result<String> {
    let object = MyApplication::new(
        name,
        MyApplicationSpec {
            image: spec.image.clone(),
            replicas: spec.replicas,
            port: 80,
        },
    );
    let uid = retrying(&format!("creating {name}"), book, || async {
        match tokio::time::timeout(
            REQUEST_TIMEOUT,
            apps.create(&PostParams::default(), &object),
        )
        .await
        {
            Ok(Ok(created)) => Attempt::Done(Ok(created)),
            // An earlier attempt that timed out went through.
            Ok(Err(kubegen::Error::Api(s))) if s.is_already_exists() => {
                match tokio::time::timeout(REQUEST_TIMEOUT, apps.get(name)).await {
                    Ok(Ok(existing)) if Spec::of(&existing) == *spec => Attempt::Done(Ok(existing)),
                    Ok(Ok(existing)) => Attempt::Done(Err(anyhow::anyhow!(
                        "{name} exists with {:?}, not the {spec:?} just created",
                        Spec::of(&existing)
                    ))),
                    Ok(Err(e)) => retry(e),
                    Err(e) => retry(e),
                }
            }
            Ok(Err(e)) => retry(e),
            Err(e) => retry(e),
        }
    })
    .await??;
    uid.metadata
        .uid
        .ok_or_else(|| anyhow::anyhow!("{name} was created without a uid"))
}

async fn update(
    apps: &Api<MyApplication>,
    name: &str,
    spec: &Spec,
    book: &SharedBook,
) -> Result<()> {
    let patch = serde_json::json!({
        "spec": { "replicas": spec.replicas, "image": spec.image }
    });
    retrying(&format!("updating {name}"), book, || async {
        let (params, patch) = (PatchParams::default(), Patch::Merge(&patch));
        match tokio::time::timeout(REQUEST_TIMEOUT, apps.patch(name, &params, &patch)).await {
            Ok(Ok(_)) => Attempt::Done(()),
            Ok(Err(e)) => retry(e),
            Err(e) => retry(e),
        }
    })
    .await
}

async fn delete(apps: &Api<MyApplication>, name: &str, book: &SharedBook) -> Result<()> {
    retrying(&format!("deleting {name}"), book, || async {
        let params = DeleteParams::background();
        match tokio::time::timeout(REQUEST_TIMEOUT, apps.delete(name, &params)).await {
            Ok(Ok(_)) => Attempt::Done(()),
            // An earlier attempt that timed out went through.
            Ok(Err(kubegen::Error::Api(s))) if s.is_not_found() => Attempt::Done(()),
            Ok(Err(e)) => retry(e),
            Err(e) => retry(e),
        }
    })
    .await
}
