//! What the `tracing-subscriber` implementation printed for a set of
//! events, spans and `log` records (`logging/testdata/`, recorded before
//! it was replaced, timestamps normalised): the own subscriber prints the
//! same bytes.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::{capture_styled, forward};
use crate::logging::LogFormat;
use crate::logging::format::write_timestamp;

/// `text` with each RFC 3339 timestamp (`2024-05-06T07:08:09.123456Z`)
/// replaced by `<TIME>`; panics when there is none.
fn normalise(text: &str) -> String {
    const SHAPE: &[u8] = b"dddd-dd-ddTdd:dd:dd.ddddddZ";
    let matches = |window: &[u8]| {
        window.iter().zip(SHAPE).all(|(&b, &s)| match s {
            b'd' => b.is_ascii_digit(),
            _ => b == s,
        })
    };
    let bytes = text.as_bytes();
    let mut out = String::new();
    let (mut start, mut i, mut found) = (0, 0, 0);
    while i + SHAPE.len() <= bytes.len() {
        if matches(&bytes[i..i + SHAPE.len()]) {
            out.push_str(&text[start..i]);
            out.push_str("<TIME>");
            i += SHAPE.len();
            start = i;
            found += 1;
        } else {
            i += 1;
        }
    }
    out.push_str(&text[start..]);
    assert!(found > 0, "no timestamp in {text:?}");
    out
}

/// An error with an optional cause, for `record_error`.
#[derive(Debug)]
struct Failure {
    what: &'static str,
    cause: Option<Box<Failure>>,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.what)
    }
}

impl std::error::Error for Failure {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.cause.as_deref().map(|c| c as _)
    }
}

#[derive(Debug)]
#[allow(dead_code)] // read through `Debug`
struct Point {
    x: i32,
    y: i32,
}

/// Events and spans covering what the formats print: every field type,
/// nested spans with fields, fields recorded after creation, explicit
/// and no parents, a disabled span, escapes and `log` records.
fn characterisation() {
    tracing::info!("message only");
    tracing::warn!(
        int = -7i64,
        unsigned = u64::MAX,
        flag = true,
        text = "a \"quoted\" \\ ünï\tcode",
        float = 1.5f64,
        whole = 2.0f64,
        nan = f64::NAN,
        wide = i128::MAX,
        point = ?Point { x: 1, y: -2 },
        shown = %"displayed text",
        "fields of every type"
    );
    let cause = Failure {
        what: "disk full",
        cause: None,
    };
    let failure = Failure {
        what: "write failed",
        cause: Some(Box::new(Failure {
            what: "flush failed",
            cause: Some(Box::new(cause)),
        })),
    };
    tracing::error!(
        error = &failure as &(dyn std::error::Error + 'static),
        "with a chain"
    );
    let single = Failure {
        what: "no cause",
        cause: None,
    };
    tracing::error!(
        error = &single as &(dyn std::error::Error + 'static),
        "with an error"
    );
    tracing::info!(only = 1, "");
    tracing::info!(only = 1);
    tracing::info!(message = "message as a str field", after = "x");
    tracing::info!(r#type = "kw", log.extra = 5, "raw and log-prefixed names");
    tracing::info!("escapes: \x1b[31mred\x1b[0m bell\x07 c1\u{9b} del\x7f nl\nnext \"q\"");
    tracing::info!(text = "\x1b[1m in a field", "escape in a field");
    tracing::trace!("filtered out");
    tracing::debug!(target: "custom::target", "custom target");
    forward(
        &log::Record::builder()
            .args(format_args!("log record {}", 1))
            .level(log::Level::Warn)
            .target("rustls::client::hs")
            .module_path(Some("rustls::client::hs"))
            .file(Some("src/client/hs.rs"))
            .line(Some(42))
            .build(),
    );
    forward(
        &log::Record::builder()
            .args(format_args!("bare log record"))
            .level(log::Level::Info)
            .target("bare")
            .build(),
    );
    forward(
        &log::Record::builder()
            .args(format_args!("filtered log record"))
            .level(log::Level::Trace)
            .target("bare")
            .build(),
    );
    let outer = tracing::info_span!("outer", zeta = "ns/name", alpha = 3u64, on = true);
    let outer_entered = outer.enter();
    tracing::info!("in outer");
    let inner = tracing::debug_span!("inner", late = tracing::field::Empty, n = 1i64, f = 0.25f64);
    inner.record("late", "set later");
    inner.record("n", 2i64);
    let inner_entered = inner.enter();
    tracing::info!(k = "v", "in inner");
    let hidden = tracing::trace_span!("hidden", secret = 1);
    let hidden_entered = hidden.enter();
    tracing::info!("inside a disabled span");
    drop(hidden_entered);
    let empty = tracing::info_span!("empty");
    empty.in_scope(|| tracing::warn!("in a span without fields"));
    let filled = tracing::info_span!("filled", first = tracing::field::Empty);
    filled.record("first", 1u64);
    filled.record("second_missing", 2u64);
    filled.in_scope(|| tracing::info!("fields recorded into an empty span"));
    tracing::info!(parent: None, "explicit root");
    tracing::info!(parent: &outer, "explicit parent");
    let sibling = tracing::info_span!(parent: None, "detached", d = 4);
    tracing::info!(parent: &sibling, "parent not entered");
    forward(
        &log::Record::builder()
            .args(format_args!("log record in spans"))
            .level(log::Level::Error)
            .target("rustls::conn")
            .module_path(Some("rustls::conn"))
            .build(),
    );
    let reentered = outer.enter();
    tracing::info!("outer re-entered inside inner");
    drop(reentered);
    drop(inner_entered);
    tracing::info!("back in outer");
    drop(outer_entered);
    tracing::info!(error = %"after all spans", "done");
}

/// The lines the `tracing-subscriber` implementation printed for
/// [`characterisation`], timestamps normalised: the own formatter
/// prints the same bytes.
#[test]
fn prints_what_tracing_subscriber_printed() {
    for (format, ansi, expected) in [
        (
            LogFormat::Human,
            false,
            include_str!("../testdata/human.log"),
        ),
        (
            LogFormat::Human,
            true,
            include_str!("../testdata/human_ansi.log"),
        ),
        (LogFormat::Json, false, include_str!("../testdata/json.log")),
    ] {
        let text = normalise(&capture_styled("debug", format, ansi, characterisation))
            // Recorded when these tests were in `logging::tests`.
            .replace(module_path!(), "kubegen::logging::tests");
        assert_eq!(text, expected, "{format:?} ansi={ansi}");
    }
}

/// Timestamps are RFC 3339 in UTC with microseconds, as
/// `tracing_subscriber`'s `SystemTime` printed them: leap days, centuries,
/// the years 1 and 9999, a signed year past 9999, before 1970.
#[test]
fn timestamps_are_rfc_3339_utc_with_microseconds() {
    let at = |secs: i64, micros: u64| {
        let offset = Duration::from_secs(secs.unsigned_abs());
        let time = if secs >= 0 {
            UNIX_EPOCH + offset
        } else {
            UNIX_EPOCH - offset
        };
        let mut out = String::new();
        write_timestamp(&mut out, time + Duration::from_micros(micros));
        out
    };
    for (secs, micros, expected) in [
        (0, 0, "1970-01-01T00:00:00.000000Z"),
        (1_709_251_199, 999_999, "2024-02-29T23:59:59.999999Z"),
        (951_868_800, 1, "2000-03-01T00:00:00.000001Z"),
        (4_133_939_405, 123_456, "2100-12-31T12:30:05.123456Z"),
        (-2_203_891_200, 0, "1900-03-01T00:00:00.000000Z"),
        (-62_135_596_800, 0, "0001-01-01T00:00:00.000000Z"),
        (253_402_300_799, 999_999, "9999-12-31T23:59:59.999999Z"),
        (253_402_300_800, 0, "+10000-01-01T00:00:00.000000Z"),
        (-2, 500_000, "1969-12-31T23:59:58.500000Z"),
    ] {
        assert_eq!(at(secs, micros), expected, "{secs}s {micros}µs");
    }
    // Nanoseconds are cut, not rounded.
    let mut out = String::new();
    write_timestamp(&mut out, UNIX_EPOCH + Duration::from_nanos(1_999));
    assert_eq!(out, "1970-01-01T00:00:00.000001Z");
    // And the clock is read per line.
    let mut now = String::new();
    write_timestamp(&mut now, SystemTime::now());
    assert_eq!(normalise(&now), "<TIME>");
}
