//! Structured logs for operators: one call installs a `tracing` subscriber
//! printing human-readable lines or JSON objects, filtered by `RUST_LOG`.
//!
//! `RUST_LOG` is a comma-separated list of `target=level` directives and at
//! most one bare `level` for every other target (`info`,
//! `my_operator=debug,kube=warn`), a target matching every target it
//! prefixes: the syntax of `tracing_subscriber`'s `Targets` filter. Unlike
//! `EnvFilter`, span and field filters (`[reconcile{key}]=debug`) are not
//! supported; such a value is reported and replaced by `info`. (`EnvFilter`'s
//! regular-expression engine would be built into every operator for them.)
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
//! as `reconcile{object.key=ns/name controller=foo}:` in human output and
//! under `span` / `spans` in JSON.

use std::io::IsTerminal;

use tracing::Subscriber;
use tracing_subscriber::filter::Targets;
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

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
/// replaced by `info`). Also forwards records of the `log` crate.
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
    let ansi = std::io::stderr().is_terminal();
    let installed = subscriber(format, filter, ansi, std::io::stderr)
        .try_init()
        .is_ok();
    if installed && let Some((directives, e)) = invalid {
        tracing::warn!(
            RUST_LOG = directives,
            "invalid RUST_LOG ignored, using {DEFAULT_FILTER:?}: {e}"
        );
    }
    installed
}

/// `RUST_LOG`'s directives as a filter; span and field filters (which
/// `Targets` would read as target names matching nothing) are refused.
fn parse_filter(directives: &str) -> Result<Targets, String> {
    if directives.contains(['[', ']', '{', '}']) {
        return Err("span and field filters (`[span{field}]`) are not supported".into());
    }
    directives.parse::<Targets>().map_err(|e| e.to_string())
}

/// [`DEFAULT_FILTER`] as a filter.
fn default_filter() -> Targets {
    DEFAULT_FILTER.parse().expect("the default filter parses")
}

/// A subscriber printing `format` to `writer`, filtered by `filter`.
pub(crate) fn subscriber<W>(
    format: LogFormat,
    filter: Targets,
    ansi: bool,
    writer: W,
) -> Box<dyn Subscriber + Send + Sync>
where
    W: for<'w> MakeWriter<'w> + Send + Sync + 'static,
{
    // The formatter passes every level (its own default is INFO); `filter`
    // decides.
    let builder = tracing_subscriber::fmt()
        .with_max_level(tracing::level_filters::LevelFilter::TRACE)
        .with_writer(writer);
    match format {
        LogFormat::Human => Box::new(builder.with_ansi(ansi).finish().with(filter)),
        LogFormat::Json => Box::new(
            builder
                .json()
                .flatten_event(true)
                .with_current_span(true)
                .with_span_list(true)
                .finish()
                .with(filter),
        ),
    }
}

#[cfg(test)]
pub(crate) mod tests;
