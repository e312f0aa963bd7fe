//! The logging module's tests: the shared capture helpers and the
//! module's API here; the characterisation of what the
//! `tracing-subscriber` implementation printed, the filter, spans, the
//! JSON escapes, writes and `log` forwarding in their own files.

mod characterisation;
mod filter;
mod output;
mod spans;

use super::LogFormat;
pub(super) use super::capture::{Captured, capture, capture_styled};

pub(super) fn capture_with(filter: &str, format: LogFormat, log: impl FnOnce()) -> String {
    capture_styled(filter, format, false, log)
}

/// Hands `record` to the `log` forwarding `init` installs, as the `log`
/// macros would.
pub(super) fn forward(record: &log::Record<'_>) {
    log::Log::log(&super::forward::Forward, record);
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
