//! Span lifecycle: reference counts, ids, per-thread stacks, fields
//! recorded later, the current span, and logging from `Debug` impls.

use std::fmt;
use std::sync::{Arc, Barrier};

use tracing::field::Empty;
use tracing::{Dispatch, Span, info, info_span};

use super::{Captured, capture};
use crate::logging::{LogFormat, Logger, parse_filter, subscriber};

type TestLogger = Logger<Box<dyn Fn() -> Captured + Send + Sync>>;

/// A dispatcher for a human-format subscriber at trace level, and what
/// it prints.
fn logger() -> (Dispatch, Captured) {
    logger_in(LogFormat::Human)
}

/// A dispatcher for a `format` subscriber at trace level, and what it
/// prints.
fn logger_in(format: LogFormat) -> (Dispatch, Captured) {
    let out = Captured::default();
    let writer = out.clone();
    let make_writer: Box<dyn Fn() -> Captured + Send + Sync> = Box::new(move || writer.clone());
    let logger = subscriber(format, parse_filter("trace").unwrap(), false, make_writer);
    (Dispatch::new(logger), out)
}

/// How many spans `dispatch`'s subscriber keeps.
fn live(dispatch: &Dispatch) -> usize {
    dispatch.downcast_ref::<TestLogger>().unwrap().live_spans()
}

/// A span lives while a handle, a child or an entry in a thread's stack
/// refers to it; then its data is freed. Ids are never 0 and never reused.
#[test]
fn spans_are_freed_when_the_last_reference_goes() {
    let (dispatch, out) = logger();
    tracing::dispatcher::with_default(&dispatch, || {
        let parent = info_span!("parent", p = 1);
        let first_id = parent.id().unwrap().into_u64();
        assert_ne!(first_id, 0);
        let child = parent.in_scope(|| info_span!("child"));
        let copy = child.clone();
        assert_eq!(live(&dispatch), 2);
        drop(parent);
        assert_eq!(live(&dispatch), 2, "the child holds its parent");
        copy.in_scope(|| info!("inside"));
        drop(child);
        assert_eq!(live(&dispatch), 2, "a clone of the child is open");
        drop(copy);
        assert_eq!(live(&dispatch), 0, "the child released its parent");

        let entered = info_span!("entered");
        let id = entered.id().unwrap();
        assert!(id.into_u64() > first_id, "ids are not reused");
        dispatch.enter(&id);
        drop(entered);
        assert_eq!(live(&dispatch), 1, "entering holds the span");
        info!("in a span without handles");
        dispatch.exit(&id);
        assert_eq!(live(&dispatch), 0);
    });
    let text = out.text();
    assert!(text.contains(" parent{p=1}:child: "), "{text}");
    assert!(text.contains(" entered: "), "{text}");
}

/// Two threads in spans of the same subscriber at the same time each see
/// their own spans only.
#[test]
fn threads_keep_their_own_span_stacks() {
    let (dispatch, out) = logger();
    let barrier = Arc::new(Barrier::new(2));
    let threads = ["a", "b"].map(|name| {
        let (dispatch, barrier) = (dispatch.clone(), barrier.clone());
        std::thread::spawn(move || {
            tracing::dispatcher::with_default(&dispatch, || {
                let outer = info_span!("outer", thread = name).entered();
                barrier.wait();
                let inner = info_span!("inner", thread = name).entered();
                barrier.wait();
                info!(thread = name, "both threads are inside");
                barrier.wait();
                drop(inner);
                info!(thread = name, "left inner");
                drop(outer);
            })
        })
    });
    for thread in threads {
        thread.join().unwrap();
    }
    let text = out.text();
    assert_eq!(text.lines().count(), 4, "{text}");
    for name in ["a", "b"] {
        let outer = format!("outer{{thread=\"{name}\"}}:");
        let inner = format!("{outer}inner{{thread=\"{name}\"}}: ");
        let field = format!("thread=\"{name}\"");
        assert!(
            text.lines()
                .any(|l| l.contains(&inner) && l.ends_with(&format!("inside {field}"))),
            "{text}"
        );
        assert!(
            text.lines()
                .any(|l| l.contains(&format!("{outer} "))
                    && l.ends_with(&format!("left inner {field}"))),
            "{text}"
        );
    }
    assert_eq!(live(&dispatch), 0);
}

/// Spans entered through one subscriber are not the current spans of
/// another one on the same thread (ids of different subscribers collide).
#[test]
fn subscribers_on_one_thread_keep_their_spans_apart() {
    let (outer, outer_out) = logger();
    let (inner, inner_out) = logger();
    tracing::dispatcher::with_default(&outer, || {
        let _span = info_span!("outer_only").entered();
        tracing::dispatcher::with_default(&inner, || {
            // The inner subscriber's first span has the outer one's id.
            let _unentered = info_span!("unentered");
            assert_eq!(Span::current().metadata(), None);
            info!("in the inner subscriber");
        });
        info!("in the outer subscriber");
    });
    let (outer_text, inner_text) = (outer_out.text(), inner_out.text());
    assert!(
        inner_text.ends_with(&format!(" {}: in the inner subscriber\n", module_path!()))
            && !inner_text.contains("outer_only"),
        "{inner_text}"
    );
    assert!(
        outer_text.ends_with(&format!(
            " outer_only: {}: in the outer subscriber\n",
            module_path!()
        )),
        "{outer_text}"
    );
}

/// Fields recorded after a span was created show up: appended in human
/// output, replacing the earlier value in JSON.
#[test]
fn fields_recorded_later_show_up() {
    let log = || {
        let span = info_span!("work", key = "k", result = Empty, attempt = 1u64);
        span.record("result", "ok");
        span.record("attempt", 2u64);
        span.in_scope(|| info!("done"));
    };
    let text = capture(LogFormat::Human, log);
    assert!(
        text.contains(" work{key=\"k\" attempt=1 result=\"ok\" attempt=2}: "),
        "{text}"
    );
    let line: serde_json::Value = serde_json::from_str(&capture(LogFormat::Json, log)).unwrap();
    assert_eq!(
        line["span"],
        serde_json::json!({"attempt": 2, "key": "k", "result": "ok", "name": "work"})
    );
}

/// The current span is the latest one entered and not left; entering a
/// span again while in another does not make it current (as
/// `tracing_subscriber`'s registry).
#[test]
fn the_current_span_is_the_latest_entered() {
    let (dispatch, _) = logger();
    let current = || Span::current().metadata().map(|m| m.name());
    tracing::dispatcher::with_default(&dispatch, || {
        assert_eq!(current(), None);
        let a = info_span!("a");
        let entered_a = a.enter();
        assert_eq!(current(), Some("a"));
        let b = info_span!("b");
        let entered_b = b.enter();
        assert_eq!(current(), Some("b"));
        let again = a.enter();
        assert_eq!(current(), Some("b"));
        drop(again);
        drop(entered_b);
        assert_eq!(current(), Some("a"));
        drop(entered_a);
        assert_eq!(current(), None);
    });
}

/// Logs when formatted, straight to a dispatcher (`tracing`'s macros
/// drop events logged while a scoped dispatcher is busy, but not those of
/// a global one, which operators use).
struct Noisy(Dispatch);

impl fmt::Debug for Noisy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let record = log::Record::builder()
            .args(format_args!("from Debug"))
            .level(log::Level::Info)
            .target("nested")
            .build();
        crate::logging::forward::forward_to(&self.0, &record);
        f.write_str("noisy")
    }
}

/// A `Debug` impl that logs while a span's fields or a line are formatted
/// gets lines of its own, before the line being formatted; nothing
/// deadlocks or mixes.
#[test]
fn logging_from_debug_impls_prints_whole_lines() {
    for format in [LogFormat::Human, LogFormat::Json] {
        let (dispatch, out) = logger_in(format);
        let noisy = || Noisy(dispatch.clone());
        tracing::dispatcher::with_default(&dispatch, || {
            let span = info_span!("s", created = ?noisy(), later = Empty);
            span.record("later", tracing::field::debug(noisy()));
            span.in_scope(|| info!(value = ?noisy(), "outer event"));
        });
        let text = out.text();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 4, "{text}");
        assert!(
            lines[..3].iter().all(|l| l.contains("from Debug")),
            "{text}"
        );
        if format == LogFormat::Json {
            for line in &lines {
                serde_json::from_str::<serde_json::Value>(line).unwrap();
            }
            assert!(
                lines[2].contains(
                    r#""target":"nested","span":{"created":"noisy","later":"noisy","name":"s"}"#
                ),
                "{text}"
            );
            assert!(
                lines[3].contains(r#""message":"outer event","value":"noisy""#),
                "{text}"
            );
        } else {
            assert!(lines[0].ends_with(" nested: from Debug"), "{text}");
            assert!(
                lines[2].ends_with(" s{created=noisy later=noisy}: nested: from Debug"),
                "{text}"
            );
            assert!(
                lines[3].ends_with(&format!(
                    " s{{created=noisy later=noisy}}: {}: outer event value=noisy",
                    module_path!()
                )),
                "{text}"
            );
        }
    }
}
