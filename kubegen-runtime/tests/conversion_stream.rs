//! `ConversionReview`s answered object by object
//! (`kubegen::conversion::stream::answer`) against the whole-review answer
//! (`Converter::review`), on generated reviews: the same converted objects
//! in the same order, the same uid, the same result — for any order of the
//! request's fields, any number of objects, failing objects anywhere; and
//! what the streaming answer alone does: objects over the size limit and
//! malformed input after the first object end the response with a failure
//! result, a broken envelope writes nothing, and the memory one review
//! holds does not grow with the number of objects.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::io::{self, Read, Write};

use kubegen::conversion::stream::answer;
use kubegen::core::conversion::ConversionReview;
use kubegen_core::rng::Rng;
use serde_json::{Value, json};

mod support;

use support::carts::converter;

/// The system allocator, counting the bytes this thread holds while
/// `TRACKING` is on, and their peak.
struct Counting;

thread_local! {
    static TRACKING: Cell<bool> = const { Cell::new(false) };
    static HELD: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn count(delta: isize) {
    let _ = TRACKING.try_with(|on| {
        if on.get() {
            let held = HELD.get() + delta;
            HELD.set(held);
            PEAK.set(PEAK.get().max(held));
        }
    });
}

// SAFETY: every call is forwarded to `System` unchanged. (The one unsafe
// code of the workspace's tests: counting allocations is how the heap a
// review holds is measured.)
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size() as isize);
        // SAFETY: the caller's contract, forwarded.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        count(-(layout.size() as isize));
        // SAFETY: the caller's contract, forwarded.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size as isize - layout.size() as isize);
        // SAFETY: the caller's contract, forwarded.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// How many generated reviews are compared.
const CASES: u64 = 300;

fn cart(rng: &mut Rng, i: usize) -> Value {
    let version = if rng.chance(1, 2) { "v1" } else { "v2" };
    let spec = match version {
        "v1" => json!({"items": (0..rng.below(4)).map(|j| format!("i{j}")).collect::<Vec<_>>()}),
        _ => json!({"lines": (0..rng.below(4))
            .map(|j| json!({"sku": format!("s{j}"), "quantity": rng.below(5) + 1}))
            .collect::<Vec<_>>()}),
    };
    let mut cart = json!({
        "apiVersion": format!("shop.example.com/{version}"), "kind": "Cart",
        "metadata": {"name": format!("c{i}"), "namespace": "ns", "uid": format!("u{i}")},
        "spec": spec,
    });
    if rng.chance(1, 3) {
        cart["spec"]["note"] = json!("a note");
    }
    if rng.chance(1, 12) {
        // Does not convert: the failure names it.
        cart["spec"]["lines"] = json!("not a list");
        cart["apiVersion"] = json!("shop.example.com/v2");
    }
    cart
}

/// The request's fields in a random order, as text.
fn review_text(rng: &mut Rng, uid: &str, desired: &str, objects: &[Value]) -> String {
    let mut fields = [
        format!("\"uid\":{}", json!(uid)),
        format!("\"desiredAPIVersion\":{}", json!(desired)),
        format!("\"objects\":{}", Value::from(objects.to_vec())),
    ];
    if rng.chance(1, 2) {
        let i = rng.below(3);
        let j = rng.below(3);
        fields.swap(i, j);
    }
    format!(
        "{{\"kind\":\"ConversionReview\",\"apiVersion\":\"apiextensions.k8s.io/v1\",\"request\":{{{}}}}}",
        fields.join(",")
    )
}

fn streamed(input: &str, max_object: usize) -> Result<Value, String> {
    let mut out = Vec::new();
    answer(&converter(), input.as_bytes(), &mut out, max_object).map_err(|e| e.to_string())?;
    Ok(serde_json::from_slice(&out).expect("the streamed answer is JSON"))
}

#[test]
fn streamed_answers_equal_whole_review_answers() {
    let converter = converter();
    let mut failures = 0;
    for seed in 0..CASES {
        let mut rng = Rng::new(seed);
        let objects: Vec<Value> = (0..rng.below(12)).map(|i| cart(&mut rng, i)).collect();
        let desired = *rng.pick(&["shop.example.com/v1", "shop.example.com/v2"]);
        let text = review_text(&mut rng, &format!("uid-{seed}"), desired, &objects);
        let review: ConversionReview = serde_json::from_str(&text).unwrap();
        let whole = serde_json::to_value(converter.review(review)).unwrap();
        let streamed = streamed(&text, 1 << 20).unwrap();
        let (w, s) = (&whole["response"], &streamed["response"]);
        assert_eq!(s["uid"], w["uid"], "seed {seed}");
        assert_eq!(s["result"]["status"], w["result"]["status"], "seed {seed}");
        assert_eq!(
            s["result"]["message"], w["result"]["message"],
            "seed {seed}"
        );
        if w["result"]["status"] == "Success" {
            assert_eq!(s["convertedObjects"], w["convertedObjects"], "seed {seed}");
        } else {
            failures += 1;
            assert_eq!(s["result"]["code"], 400, "seed {seed}");
        }
        assert_eq!(streamed["kind"], "ConversionReview");
        assert_eq!(streamed["apiVersion"], "apiextensions.k8s.io/v1");
    }
    assert!(
        failures > 0 && failures < CASES,
        "failing cases: {failures}"
    );
}

#[test]
fn an_object_over_the_limit_fails_the_review() {
    let big = json!({"apiVersion": "shop.example.com/v1", "kind": "Cart",
        "metadata": {"name": "big"}, "spec": {"items": vec!["x".repeat(100); 100]}});
    let small = json!({"apiVersion": "shop.example.com/v1", "kind": "Cart",
        "metadata": {"name": "small"}, "spec": {"items": ["a"]}});
    let text = json!({"kind": "ConversionReview", "apiVersion": "apiextensions.k8s.io/v1",
        "request": {"uid": "u", "desiredAPIVersion": "shop.example.com/v2", "objects": [small, big]}})
    .to_string();
    let answer = streamed(&text, 5000).unwrap();
    assert_eq!(answer["response"]["result"]["status"], "Failure");
    let message = answer["response"]["result"]["message"].as_str().unwrap();
    assert!(message.contains("larger than 5000 bytes"), "{message}");
    // Under the limit, the same review converts.
    let answer = streamed(&text, 1 << 20).unwrap();
    assert_eq!(answer["response"]["result"]["status"], "Success");
}

#[test]
fn a_broken_envelope_writes_nothing_and_broken_objects_fail_the_review() {
    for broken in [
        "",
        "[]",
        "{\"request\": 3}",
        "{\"kind\":\"ConversionReview\"}",
        "{\"request\":{\"uid\":\"u\"",
        "nul",
    ] {
        let mut out = Vec::new();
        let result = answer(&converter(), broken.as_bytes(), &mut out, 1 << 20);
        assert!(result.is_err(), "{broken:?} answered");
        assert!(out.is_empty(), "{broken:?} wrote {out:?}");
    }
    let cut = "{\"request\":{\"uid\":\"u\",\"desiredAPIVersion\":\"shop.example.com/v2\",\"objects\":[{\"apiVersion\":\"shop.example.com/v1\",\"kind\":\"Cart\",\"metadata\":{\"name\":\"a\"},\"spec\":{\"items\":[]}},{\"apiV";
    let answer = streamed(cut, 1 << 20).unwrap();
    assert_eq!(answer["response"]["result"]["status"], "Failure");
    assert_eq!(answer["response"]["uid"], "u");
}

/// A reader producing a review of `n` identical small carts without ever
/// holding it, counting the bytes it hands out.
struct Generated {
    head: io::Cursor<Vec<u8>>,
    object: Vec<u8>,
    left: usize,
    at: usize,
    tail: io::Cursor<Vec<u8>>,
    produced: usize,
}

impl Read for Generated {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = if (self.head.position() as usize) < self.head.get_ref().len() {
            self.head.read(buf)?
        } else if self.left > 0 {
            let chunk = &self.object[self.at..];
            let n = chunk.len().min(buf.len());
            buf[..n].copy_from_slice(&chunk[..n]);
            self.at += n;
            if self.at == self.object.len() {
                self.at = 0;
                self.left -= 1;
            }
            n
        } else {
            self.tail.read(buf)?
        };
        self.produced += n;
        Ok(n)
    }
}

/// Counts what is written without keeping it.
#[derive(Default)]
struct Sink {
    written: usize,
    tail: Vec<u8>,
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.written += buf.len();
        self.tail.extend_from_slice(buf);
        let keep = self.tail.len().saturating_sub(4096);
        self.tail.drain(..keep);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_review_of_many_objects_is_answered_without_holding_it() {
    let object = json!({"apiVersion": "shop.example.com/v1", "kind": "Cart",
        "metadata": {"name": "c", "namespace": "ns"}, "spec": {"items": ["a", "b"]}});
    let mut object = serde_json::to_vec(&object).unwrap();
    object.push(b',');
    let count = 200_000;
    let mut input = Generated {
        head: io::Cursor::new(br#"{"request":{"uid":"big","desiredAPIVersion":"shop.example.com/v2","objects":["#.to_vec()),
        object,
        left: count,
        at: 0,
        tail: io::Cursor::new(br#"{"apiVersion":"shop.example.com/v1","kind":"Cart","metadata":{"name":"last"},"spec":{"items":[]}}]}}"#.to_vec()),
        produced: 0,
    };
    let mut sink = Sink::default();
    let converter = converter();
    HELD.set(0);
    PEAK.set(0);
    TRACKING.set(true);
    let answered = answer(&converter, &mut input, &mut sink, 1 << 20);
    TRACKING.set(false);
    answered.unwrap();
    assert!(
        input.produced > 20 << 20,
        "a review of {} bytes",
        input.produced
    );
    // The reader's buffer, one object decoded and converted, the sink's
    // tail: far below the review's size.
    let peak = PEAK.get();
    assert!(
        peak < 1 << 20,
        "peak heap {peak} bytes for a review of {} bytes",
        input.produced
    );
    eprintln!(
        "a {} byte review answered with a peak of {peak} heap bytes",
        input.produced
    );
    let tail = String::from_utf8_lossy(&sink.tail);
    assert!(
        tail.ends_with(r#"],"uid":"big","result":{"metadata":{},"status":"Success"}}}"#),
        "{tail}"
    );
    assert!(
        sink.written > input.produced,
        "every object written: {}",
        sink.written
    );
}
