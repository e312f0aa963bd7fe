//! The logging module's tests: the characterisation of what the
//! `tracing-subscriber` implementation printed, filters, spans and the
//! `log` forwarding.

use std::sync::Arc;

use parking_lot::Mutex;
use tracing_subscriber::filter::Targets;

use super::{LogFormat, subscriber};

/// Collects what a subscriber writes.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Captured {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock()).into_owned()
    }
}

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Runs `log` with a `format` subscriber at level debug and returns
/// what it printed.
pub(crate) fn capture(format: LogFormat, log: impl FnOnce()) -> String {
    capture_with("debug", format, log)
}

fn capture_with(filter: &str, format: LogFormat, log: impl FnOnce()) -> String {
    capture_styled(filter, format, false, log)
}

/// Runs `log` with a `format` subscriber filtered by `filter`, coloured
/// when `ansi`, and returns what it printed.
fn capture_styled(filter: &str, format: LogFormat, ansi: bool, log: impl FnOnce()) -> String {
    let out = Captured::default();
    let writer = out.clone();
    let sub = subscriber(
        format,
        filter.parse::<Targets>().unwrap(),
        ansi,
        move || writer.clone(),
    );
    tracing::subscriber::with_default(sub, log);
    out.text()
}

/// Hands `record` to the `log` forwarding `init` installs, as the `log`
/// macros would.
fn forward(record: &log::Record<'_>) {
    log::Log::log(&tracing_log::LogTracer::new(), record);
}

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
        (LogFormat::Human, false, include_str!("testdata/human.log")),
        (
            LogFormat::Human,
            true,
            include_str!("testdata/human_ansi.log"),
        ),
        (LogFormat::Json, false, include_str!("testdata/json.log")),
    ] {
        let text = normalise(&capture_styled("debug", format, ansi, characterisation));
        assert_eq!(text, expected, "{format:?} ansi={ansi}");
    }
}

fn log_in_span() {
    let span = tracing::info_span!("reconcile", object.key = "ns/a", controller = "demo");
    let _entered = span.enter();
    tracing::error!(error = "boom", "reconcile failed");
}

#[test]
fn from_flag_picks_the_format() {
    assert_eq!(LogFormat::from_flag(true), LogFormat::Json);
    assert_eq!(LogFormat::from_flag(false), LogFormat::Human);
}

#[test]
fn json_lines_carry_span_fields() {
    let text = capture(LogFormat::Json, log_in_span);
    let line: serde_json::Value = serde_json::from_str(text.trim()).unwrap();
    assert_eq!(line["level"], "ERROR");
    assert_eq!(line["message"], "reconcile failed");
    assert_eq!(line["error"], "boom");
    assert_eq!(line["span"]["name"], "reconcile");
    assert_eq!(line["span"]["object.key"], "ns/a");
    assert_eq!(line["span"]["controller"], "demo");
}

#[test]
fn human_lines_show_span_fields() {
    let text = capture(LogFormat::Human, log_in_span);
    assert!(
        text.contains("reconcile{object.key=\"ns/a\" controller=\"demo\"}"),
        "{text}"
    );
    assert!(text.contains("reconcile failed error=\"boom\""), "{text}");
}

/// `RUST_LOG` directives select targets by prefix, with a default level
/// for the rest; span filters are refused (and `init` falls back).
#[test]
fn rust_log_directives_filter_by_target() {
    let log = || {
        tracing::debug!(target: "my_operator::reconcile", "mine");
        tracing::debug!(target: "kube_client", "theirs");
        tracing::warn!(target: "kube_client", "their warning");
    };
    let text = capture_with("my_operator=debug,warn", LogFormat::Human, log);
    assert!(
        text.contains("mine") && text.contains("their warning"),
        "{text}"
    );
    assert!(!text.contains("theirs"), "{text}");
    let text = capture_with("my_operator=debug", LogFormat::Human, log);
    assert!(
        text.contains("mine") && !text.contains("their warning"),
        "{text}"
    );
    assert!(super::parse_filter("[reconcile{key}]=debug").is_err());
    assert!(super::parse_filter("my_operator=debug,warn").is_ok());
    assert!(super::parse_filter("my_operator=loud").is_err());
}

#[test]
fn init_is_idempotent() {
    let _ = super::init(LogFormat::Human);
    assert!(!super::init(LogFormat::Json));
}
