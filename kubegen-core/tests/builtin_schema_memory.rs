//! What an operator keeps after building a built-in kind's schema (its
//! apply configuration's, on the first apply): the schema, not the table it
//! was read from. The parsed table (a `serde_json::Value` tree of the whole
//! 1 MB `definitions.json`) stayed resident for the process's life, about
//! 7 MiB: most of an idle operator's heap.
//!
//! A global allocator counts the bytes live; this file is its own test
//! binary, with one test, so nothing else allocates meanwhile.

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
fn building_built_in_schemas_keeps_little_beside_them() {
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
    // The index: a name and a slice of the static text per definition.
    assert!(
        retained < 256 * 1024,
        "{retained} bytes stay allocated after building and dropping the schemas"
    );
    // The schemas themselves were built (a Deployment's alone is ~200 KB
    // of JSON), so the count above is not of nothing.
    assert!(
        with_schemas - before > schemas_size as isize,
        "{with_schemas} {schemas_size}"
    );
}
