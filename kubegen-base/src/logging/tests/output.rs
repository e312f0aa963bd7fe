//! What reaches the writer: JSON escapes, one write per line, and
//! forwarded `log` records.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use parking_lot::Mutex;
use proptest::prelude::*;
use tracing::level_filters::LevelFilter;

use super::{capture, capture_with, forward};
use crate::logging::format::json_string;
use crate::logging::{LogFormat, forward as forwarding, parse_filter, subscriber};

/// Characters JSON treats specially, and some that it does not.
fn tricky_char() -> impl Strategy<Value = char> {
    prop_oneof![
        any::<char>(),
        proptest::sample::select(vec![
            '"', '\\', '/', '\n', '\r', '\t', '\x08', '\x0c', '\0', '\x1b', '\x1f', '\x7f',
            '\u{9b}', '\u{2028}', 'é', '😀',
        ]),
    ]
}

proptest! {
    /// Any string, as a message, a string field, a `Debug` field and a
    /// span field, comes back from parsing the line with `serde_json`; the
    /// line is one line; the escapes are `serde_json`'s, byte for byte.
    #[test]
    fn json_strings_round_trip(chars in proptest::collection::vec(tricky_char(), 0..48)) {
        let text: String = chars.into_iter().collect();
        let t = text.as_str();
        let out = capture(LogFormat::Json, || {
            let span = tracing::info_span!("s", field = t);
            span.in_scope(|| tracing::info!(text = t, debugged = ?t, "{t}"));
        });
        prop_assert_eq!(out.matches('\n').count(), 1);
        prop_assert!(out.ends_with('\n'));
        let line: serde_json::Value = serde_json::from_str(&out).unwrap();
        prop_assert_eq!(&line["message"], t);
        prop_assert_eq!(&line["text"], t);
        prop_assert_eq!(&line["debugged"], &format!("{t:?}"));
        prop_assert_eq!(&line["span"]["field"], t);
        prop_assert_eq!(&line["spans"][0]["field"], t);
        let mut mine = String::new();
        json_string(&mut mine, t);
        prop_assert_eq!(mine, serde_json::to_string(t).unwrap());
    }
}

/// Counts the writers made and keeps each `write` call's bytes apart.
#[derive(Clone, Default)]
struct Writes {
    made: Arc<AtomicUsize>,
    chunks: Arc<Mutex<Vec<Vec<u8>>>>,
}

impl std::io::Write for Writes {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.chunks.lock().push(buf.to_vec());
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Each event gets a writer of its own and is written with one call,
/// ending in a newline (so lines of concurrent events do not mix).
#[test]
fn each_line_is_one_write_to_its_own_writer() {
    for format in [LogFormat::Human, LogFormat::Json] {
        let writes = Writes::default();
        let make = writes.clone();
        let logger = subscriber(format, parse_filter("info").unwrap(), true, move || {
            make.made.fetch_add(1, Ordering::Relaxed);
            make.clone()
        });
        tracing::subscriber::with_default(logger, || {
            tracing::info!("first");
            let span = tracing::info_span!("span", a = 1);
            span.in_scope(|| tracing::warn!(field = "x", "second\nwith a newline"));
            tracing::debug!("filtered out");
            tracing::error!("third");
        });
        assert_eq!(writes.made.load(Ordering::Relaxed), 3, "{format:?}");
        let chunks = writes.chunks.lock();
        assert_eq!(chunks.len(), 3, "{format:?}");
        for chunk in chunks.iter() {
            assert!(chunk.ends_with(b"\n"), "{format:?}");
        }
    }
}

/// Calls `f` with a `log` record.
fn with_record(level: log::Level, target: &str, message: &str, f: impl FnOnce(&log::Record<'_>)) {
    f(&log::Record::builder()
        .args(format_args!("{message}"))
        .level(level)
        .target(target)
        .module_path_static(Some("rustls::conn"))
        .line(Some(7))
        .build());
}

/// `log` records pass the filter by their own target and level (trace
/// included) and are printed under that target, inside the current span.
#[test]
fn log_records_are_filtered_and_printed_as_events() {
    let log = || {
        with_record(log::Level::Info, "rustls::conn", "quiet info", forward);
        with_record(log::Level::Warn, "rustls::conn", "loud warning", forward);
        with_record(log::Level::Debug, "other", "other debug", forward);
        with_record(log::Level::Trace, "chatty", "chatty trace", forward);
        tracing::info_span!("reconcile", key = "ns/a").in_scope(|| {
            with_record(log::Level::Info, "other", "other info", forward);
        });
    };
    let filter = "rustls=warn,info,chatty=trace";
    let text = capture_with(filter, LogFormat::Human, log);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(
        lines[0].ends_with("  WARN rustls::conn: loud warning"),
        "{text}"
    );
    assert!(lines[1].ends_with(" TRACE chatty: chatty trace"), "{text}");
    assert!(
        lines[2].ends_with("  INFO reconcile{key=\"ns/a\"}: other: other info"),
        "{text}"
    );
    let text = capture_with(filter, LogFormat::Json, log);
    let first: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(first["target"], "rustls::conn");
    assert_eq!(first["level"], "WARN");
    assert_eq!(first["message"], "loud warning");
    assert_eq!(first["log.target"], "rustls::conn");
    assert_eq!(first["log.module_path"], "rustls::conn");
    assert_eq!(first["log.line"], 7);
}

/// Installing the forwarding makes it the `log` crate's logger, which
/// hands records to whichever subscriber is current and asks its filter.
#[test]
fn installed_forwarding_reaches_the_current_subscriber() {
    forwarding::install(LevelFilter::TRACE);
    let text = capture_with("rustls=warn,info", LogFormat::Human, || {
        let logger = log::logger();
        let metadata = |level| {
            log::Metadata::builder()
                .level(level)
                .target("rustls")
                .build()
        };
        assert!(!logger.enabled(&metadata(log::Level::Info)));
        assert!(logger.enabled(&metadata(log::Level::Warn)));
        with_record(log::Level::Error, "rustls", "through the logger", |r| {
            logger.log(r)
        });
    });
    assert!(
        text.ends_with(" ERROR rustls: through the logger\n"),
        "{text}"
    );
}
