//! Forwards records of the `log` crate (rustls logs through it) to the
//! current `tracing` subscriber, as `tracing-log`'s `LogTracer` did: the
//! subscriber's filter sees the record's target and level, and the event
//! carries `message`, `log.target`, `log.module_path`, `log.file` and
//! `log.line`. The subscriber prints such an event under the record's
//! target; the human format leaves the `log.` fields out, the JSON format
//! keeps them (as `tracing_subscriber` did).

use std::sync::Once;

use tracing::field::{Field, Visit};
use tracing::level_filters::LevelFilter;
use tracing::{Dispatch, Event, Level, Metadata, Value, dispatcher};
use tracing_core::callsite::{self, Callsite};
use tracing_core::field::FieldSet;
use tracing_core::metadata::Kind;
use tracing_core::{Interest, identify_callsite};

/// The fields of a forwarded record's event.
const FIELDS: &[&str] = &[
    "message",
    "log.target",
    "log.module_path",
    "log.file",
    "log.line",
];

/// The callsite of forwarded records of one level.
struct LogCallsite(&'static Metadata<'static>);

impl Callsite for LogCallsite {
    fn set_interest(&self, _: Interest) {}

    fn metadata(&self) -> &Metadata<'_> {
        self.0
    }
}

/// A callsite and its metadata per level (each names the other).
macro_rules! log_callsite {
    ($callsite:ident, $metadata:ident, $level:expr) => {
        static $callsite: LogCallsite = LogCallsite(&$metadata);
        static $metadata: Metadata<'static> = Metadata::new(
            "log event",
            "log",
            $level,
            None,
            None,
            None,
            FieldSet::new(FIELDS, identify_callsite!(&$callsite)),
            Kind::EVENT,
        );
    };
}

log_callsite!(TRACE_CALLSITE, TRACE_METADATA, Level::TRACE);
log_callsite!(DEBUG_CALLSITE, DEBUG_METADATA, Level::DEBUG);
log_callsite!(INFO_CALLSITE, INFO_METADATA, Level::INFO);
log_callsite!(WARN_CALLSITE, WARN_METADATA, Level::WARN);
log_callsite!(ERROR_CALLSITE, ERROR_METADATA, Level::ERROR);

/// The callsite of `level`'s records and its `tracing` level.
fn callsite(level: log::Level) -> &'static LogCallsite {
    match level {
        log::Level::Trace => &TRACE_CALLSITE,
        log::Level::Debug => &DEBUG_CALLSITE,
        log::Level::Info => &INFO_CALLSITE,
        log::Level::Warn => &WARN_CALLSITE,
        log::Level::Error => &ERROR_CALLSITE,
    }
}

/// The target of the `log` record `event` forwards, if it forwards one.
pub(crate) fn record_target(event: &Event<'_>) -> Option<String> {
    let callsite = event.metadata().callsite();
    let forwarded = [
        &TRACE_CALLSITE,
        &DEBUG_CALLSITE,
        &INFO_CALLSITE,
        &WARN_CALLSITE,
        &ERROR_CALLSITE,
    ]
    .into_iter()
    .any(|c| callsite == identify_callsite!(c));
    if !forwarded {
        return None;
    }
    let mut target = RecordTarget(None);
    event.record(&mut target);
    target.0
}

/// Picks the `log.target` field.
struct RecordTarget(Option<String>);

impl Visit for RecordTarget {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "log.target" {
            self.0 = Some(value.to_owned());
        }
    }

    fn record_debug(&mut self, _: &Field, _: &dyn std::fmt::Debug) {}
}

/// The `log::Log` that forwards records to the current subscriber.
pub(crate) struct Forward;

impl log::Log for Forward {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        dispatcher::get_default(|dispatch| passes(dispatch, metadata))
    }

    fn log(&self, record: &log::Record<'_>) {
        dispatcher::get_default(|dispatch| forward_to(dispatch, record));
    }

    fn flush(&self) {}
}

/// Whether `dispatch`'s filter lets records with `metadata` through.
fn passes(dispatch: &Dispatch, metadata: &log::Metadata<'_>) -> bool {
    let callsite = callsite(metadata.level());
    let level = *callsite.0.level();
    if level > LevelFilter::current() {
        return false;
    }
    // The record's own target, for the filter.
    let metadata = Metadata::new(
        "log record",
        metadata.target(),
        level,
        None,
        None,
        None,
        FieldSet::new(&[], identify_callsite!(callsite)),
        Kind::EVENT,
    );
    dispatch.enabled(&metadata)
}

/// Hands `record` to `dispatch` as an event, if its filter lets it through.
pub(crate) fn forward_to(dispatch: &Dispatch, record: &log::Record<'_>) {
    if !passes(dispatch, record.metadata()) {
        return;
    }
    let metadata = callsite(record.level()).0;
    let fields = metadata.fields();
    let field = |name| fields.field(name).expect("a field of FIELDS");
    let (message, target, module, file, line) = (
        field("message"),
        field("log.target"),
        field("log.module_path"),
        field("log.file"),
        field("log.line"),
    );
    let (module_path, file_name, line_number) =
        (record.module_path(), record.file(), record.line());
    let values: [(_, Option<&dyn Value>); 5] = [
        (&message, Some(record.args())),
        (&target, Some(&record.target())),
        (&module, module_path.as_ref().map(|m| m as &dyn Value)),
        (&file, file_name.as_ref().map(|f| f as &dyn Value)),
        (&line, line_number.as_ref().map(|l| l as &dyn Value)),
    ];
    dispatch.event(&Event::new(metadata, &fields.value_set(&values)));
}

/// Makes [`Forward`] the `log` crate's logger, letting records up to
/// `max_level` through; a logger set before stays.
pub(crate) fn install(max_level: LevelFilter) {
    static REGISTER: Once = Once::new();
    REGISTER.call_once(|| {
        for level in [
            log::Level::Trace,
            log::Level::Debug,
            log::Level::Info,
            log::Level::Warn,
            log::Level::Error,
        ] {
            callsite::register(callsite(level));
        }
    });
    static FORWARD: Forward = Forward;
    if log::set_logger(&FORWARD).is_ok() {
        log::set_max_level(match max_level.into_level() {
            None => log::LevelFilter::Off,
            Some(Level::ERROR) => log::LevelFilter::Error,
            Some(Level::WARN) => log::LevelFilter::Warn,
            Some(Level::INFO) => log::LevelFilter::Info,
            Some(Level::DEBUG) => log::LevelFilter::Debug,
            Some(Level::TRACE) => log::LevelFilter::Trace,
        });
    }
}
