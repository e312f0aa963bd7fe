//! What an operator keeps of the schemas it builds, counted by a global
//! allocator (this file is its own test binary with one test, so nothing
//! else allocates meanwhile):
//!
//! - building a built-in kind's schema (its apply configuration's, on the
//!   first apply) keeps nothing of the table it was read from. The parsed
//!   table (a `serde_json::Value` tree of the whole 1 MB
//!   `definitions.json`) stayed allocated for the process's life, 4.2 MB;
//! - the schema an apply configuration keeps for the process's life is its
//!   merge structure. Kept whole (descriptions, validations, defaults of
//!   the pod template and everything it inlines) the Deployment's held
//!   1.4 MB of heap in every replica.

// The counting allocator forwards to the system's.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};

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

#[test]
fn schemas_keep_what_apply_needs_and_no_more() {
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
