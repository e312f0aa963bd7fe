//! What an operator keeps however few objects it holds, counted by a global
//! allocator (this file is its own test binary; its tests take turns, so
//! nothing else allocates meanwhile). A sharded replica holds a third of
//! the objects but all of this.
//!
//! Schemas:
//!
//! - building a built-in kind's schema (its apply configuration's, on the
//!   first apply) keeps nothing of the table it was read from. The parsed
//!   table (a `serde_json::Value` tree of the whole 1 MB
//!   `definitions.json`) stayed allocated for the process's life, 4.2 MB;
//! - the schema an apply configuration keeps for the process's life is its
//!   merge structure. Kept whole (descriptions, validations, defaults of
//!   the pod template and everything it inlines) the Deployment's held
//!   1.4 MB of heap in every replica.
//!
//! Event series: an operator records events about most objects it
//! reconciles, so its recorder's series cache is full (4,096 series by
//! default) in every replica. Keeping each key's strings and a lock per
//! series, it held 455 bytes a series (1.9 MB); now 100.

// The counting allocator forwards to the system's.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::Mutex;
use std::sync::atomic::{AtomicIsize, Ordering};

use k8s_openapi::api::core::v1::ObjectReference;
use kubegen::events::{EventRecorder, EventType};

struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

// SAFETY: forwards to the system allocator, only counting.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: the caller's contract is the system allocator's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: the caller's contract is the system allocator's.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(
            new_size as isize - layout.size() as isize,
            Ordering::Relaxed,
        );
        // SAFETY: the caller's contract is the system allocator's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Held by each test: one counts at a time.
static TURN: Mutex<()> = Mutex::new(());

#[test]
fn schemas_keep_what_apply_needs_and_no_more() {
    let _turn = TURN.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    // Built-in schemas built and dropped leave next to nothing behind.
    let before = LIVE.load(Ordering::Relaxed);
    let schemas: Vec<_> = [
        "io.k8s.api.apps.v1.Deployment",
        "io.k8s.api.core.v1.Service",
        "io.k8s.api.core.v1.Pod",
    ]
    .iter()
    .map(|d| kubegen_core::builtin::schema_of(d).unwrap())
    .collect();
    let with_schemas = LIVE.load(Ordering::Relaxed);
    let schemas_size: usize = schemas.iter().map(|s| s.to_string().len()).sum();
    drop(schemas);
    let retained = LIVE.load(Ordering::Relaxed) - before;
    // What stays: the table's short list of refused types, by name.
    assert!(
        retained < 16 * 1024,
        "{retained} bytes stay allocated after building and dropping the schemas"
    );
    // The schemas themselves were built (a Deployment's alone is ~300 KB
    // of JSON), so the count above is not of nothing.
    assert!(
        with_schemas - before > schemas_size as isize,
        "{with_schemas} {schemas_size}"
    );

    // The Deployment's apply schema: its merge structure only.
    static CELL: kubegen::apply::SchemaCell = kubegen::apply::SchemaCell::new();
    let before = LIVE.load(Ordering::Relaxed);
    let full = kubegen_core::builtin::schema_of("io.k8s.api.apps.v1.Deployment").unwrap();
    let whole = LIVE.load(Ordering::Relaxed) - before;
    drop(full);
    let before = LIVE.load(Ordering::Relaxed);
    let shape = kubegen::apply::builtin_schema(&CELL, "io.k8s.api.apps.v1.Deployment").unwrap();
    let kept = LIVE.load(Ordering::Relaxed) - before;
    let schema = shape.to_value();
    let containers = &schema["properties"]["spec"]["properties"]["template"]["properties"]["spec"]
        ["properties"]["containers"];
    assert_eq!(
        containers["x-kubernetes-list-map-keys"],
        serde_json::json!(["name"])
    );
    // Measured: 1,392,339 bytes whole; 1,114,037 kept as the JSON of the
    // structure alone (a map's B-tree node per schema node), 70,136 kept
    // compiled.
    assert!(
        kept * 10 < whole,
        "the Deployment's apply schema keeps {kept} bytes allocated, the whole schema takes {whole}"
    );
}

#[test]
fn a_full_event_series_cache_is_small() {
    let _turn = TURN.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    // An apiserver that takes every Event: 201 for a create, 200 for a
    // series patch.
    let service = tower::service_fn(|request: http::Request<kubegen::client::Body>| async move {
        let status = if request.method() == http::Method::POST {
            http::StatusCode::CREATED
        } else {
            http::StatusCode::OK
        };
        let mut response = http::Response::new(kubegen::client::Body::from(b"{}".to_vec()));
        *response.status_mut() = status;
        Ok::<_, std::convert::Infallible>(response)
    });
    // The client spawns its request buffer's task.
    let _context = runtime.enter();
    let client = kubegen::Client::new(service, "default");
    let recorder = EventRecorder::new(client, "example.com/memory", "memory-0");
    let capacity = kubegen::events::DEFAULT_CACHE_CAPACITY;
    let publish = |name: String, note: &str| {
        let regarding = ObjectReference {
            api_version: Some("stable.example.com/v1".into()),
            kind: Some("MyApplication".into()),
            namespace: Some("ns-3".into()),
            uid: Some(format!("0b5f6a1e-7c2d-4e8f-9a3b-{:012}", name.len())),
            resource_version: Some("12345".into()),
            name: Some(name),
            field_path: None,
        };
        runtime
            .block_on(recorder.publish(
                &regarding,
                None,
                EventType::Normal,
                "Reconciled",
                "Reconcile",
                note,
            ))
            .unwrap();
    };
    // The first series allocates what every recorder has.
    publish("app-warm".into(), "created Deployment app-warm");
    let before = LIVE.load(Ordering::Relaxed);
    for i in 1..capacity {
        publish(format!("app-{i}"), &format!("created Deployment app-{i}"));
    }
    let per_series = (LIVE.load(Ordering::Relaxed) - before) / (capacity as isize - 1);
    // A repeat continues its series, so the cache was in use, not bypassed.
    let before_repeats = LIVE.load(Ordering::Relaxed);
    for i in 1..capacity {
        publish(format!("app-{i}"), &format!("created Deployment app-{i}"));
    }
    let repeats = LIVE.load(Ordering::Relaxed) - before_repeats;
    // Measured: 100 bytes a series (a 64-byte entry and the index's
    // buckets); 455 with the keys' strings and a lock per series.
    assert!(
        per_series < 128,
        "a series of a full cache keeps {per_series} bytes allocated"
    );
    assert!(
        repeats.abs() < 1024,
        "repeats kept {repeats} bytes allocated"
    );
}
