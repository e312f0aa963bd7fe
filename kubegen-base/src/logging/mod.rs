//! Structured logs for operators: one call installs a `tracing` subscriber
//! printing human-readable lines or JSON objects, filtered by `RUST_LOG`.
//!
//! `RUST_LOG` is a comma-separated list of `target=level` directives and at
//! most one bare `level` for every other target (`info`,
//! `my_operator=debug,kube=warn`), a target matching every target it
//! prefixes and the longest matching target deciding: the syntax and
//! semantics of `tracing_subscriber`'s `Targets` filter (a bare target
//! means `target=trace`; levels are `off`, `error`, `warn`, `info`,
//! `debug` and `trace`, in any case). Unlike `EnvFilter`, span and field
//! filters (`[reconcile{key}]=debug`) are not supported; such a value is
//! reported and replaced by `info`. (`EnvFilter`'s regular-expression
//! engine would be built into every operator for them.)
//!
//! ```
//! use kubegen::logging::{LogFormat, init};
//! let json = false; // e.g. from a `--log-json` flag
//! init(LogFormat::from_flag(json));
//! tracing::info!(answer = 42, "logging is set up");
//! ```
//!
//! Spans carry context into every line logged inside them: the
//! controller's `reconcile` span adds `object.key` and `controller`, shown
//! as `reconcile{object.key="ns/name" controller="foo"}:` in human output
//! and under `span` / `spans` in JSON.
//!
//! The subscriber is this module's own, small one (`filter`, `spans`,
//! `format`, `forward`) rather than `tracing-subscriber`: that crate and
//! its dependencies (`sharded-slab`, `thread_local`, `nu-ansi-term`,
//! `tracing-log`, `tracing-serde`, `matchers`, …) took seconds of every
//! operator's first build for the few features used here. It prints what
//! `tracing-subscriber`'s `fmt` subscriber printed with this module's
//! settings, byte for byte: the full human format
//! (`2024-05-06T07:08:09.123456Z  INFO span{a=1}: target: message k="v"`,
//! coloured on a terminal) and the JSON format with flattened events, the
//! current span and the span list. Records of the `log` crate are
//! forwarded as `tracing-log` did.

use std::io::IsTerminal;
use std::str::FromStr;

mod filter;
mod format;
mod forward;
mod spans;
mod subscriber;

pub(crate) use filter::Filter;
pub(crate) use subscriber::Logger;

/// The filter used when `RUST_LOG` is unset or invalid.
pub const DEFAULT_FILTER: &str = "info";

/// How log lines are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LogFormat {
    /// One readable line per event, with the fields of the enclosing spans
    /// (coloured when standard error is a terminal).
    #[default]
    Human,
    /// One JSON object per line: `timestamp`, `level`, `target`, the event's
    /// fields (`message` included) at the top level, the innermost span as
    /// `span` and all enclosing spans as `spans`.
    Json,
}

impl LogFormat {
    /// [`LogFormat::Json`] when `json` is set (a `--log-json` flag), else
    /// [`LogFormat::Human`].
    pub fn from_flag(json: bool) -> Self {
        if json {
            LogFormat::Json
        } else {
            LogFormat::Human
        }
    }
}

/// Installs the global subscriber: `format` on standard error, filtered by
/// `RUST_LOG` (`info` when unset; an invalid value is reported and
/// replaced by `info`). Also forwards records of the `log` crate (unless a
/// `log` logger is already set).
///
/// Returns whether this call installed it: later calls, or a subscriber
/// installed by someone else, leave the existing one alone (so calling it
/// from every test is fine).
pub fn init(format: LogFormat) -> bool {
    let (filter, invalid) = match std::env::var("RUST_LOG") {
        Ok(directives) if !directives.trim().is_empty() => match parse_filter(&directives) {
            Ok(filter) => (filter, None),
            Err(e) => (default_filter(), Some((directives, e))),
        },
        _ => (default_filter(), None),
    };
    let max_level = filter.max_level();
    let ansi = std::io::stderr().is_terminal();
    let logger = subscriber(format, filter, ansi, || std::io::stderr().lock());
    if tracing::subscriber::set_global_default(logger).is_err() {
        return false;
    }
    forward::install(max_level);
    if let Some((directives, e)) = invalid {
        tracing::warn!(
            RUST_LOG = directives,
            "invalid RUST_LOG ignored, using {DEFAULT_FILTER:?}: {e}"
        );
    }
    true
}

/// `RUST_LOG`'s directives as a filter; span and field filters (which
/// `Targets` would read as target names matching nothing) are refused.
fn parse_filter(directives: &str) -> Result<Filter, String> {
    Filter::from_str(directives)
}

/// [`DEFAULT_FILTER`] as a filter.
fn default_filter() -> Filter {
    parse_filter(DEFAULT_FILTER).expect("the default filter parses")
}

/// A subscriber printing `format` to a writer `make_writer` returns per
/// line, filtered by `filter`, coloured when `ansi`.
pub(crate) fn subscriber<M, W>(
    format: LogFormat,
    filter: Filter,
    ansi: bool,
    make_writer: M,
) -> Logger<M>
where
    M: Fn() -> W + Send + Sync + 'static,
    W: std::io::Write,
{
    Logger::new(format, filter, ansi, make_writer)
}

#[cfg(any(test, feature = "test-support"))]
#[doc(hidden)]
pub mod capture;
#[cfg(test)]
mod tests;
