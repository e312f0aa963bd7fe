//! The subscriber: filters callsites, keeps spans and prints each event
//! as one line.

use std::cell::RefCell;
use std::io::Write;
use std::time::SystemTime;

use tracing::level_filters::LevelFilter;
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};
use tracing_core::Interest;
use tracing_core::span::Current;

use super::LogFormat;
use super::filter::Filter;
use super::format::{self, BOLD, DIMMED, HumanFields, JsonFields, SpanFields, json_string, paint};
use super::forward;
use super::spans::{SpanData, Spans};

/// Prints events passing `filter` in `format`, each line written with one
/// `write_all` to a writer `make_writer` returns for it.
pub(crate) struct Logger<M> {
    format: LogFormat,
    filter: Filter,
    ansi: bool,
    make_writer: M,
    spans: Spans,
}

impl<M> Logger<M> {
    pub(crate) fn new(format: LogFormat, filter: Filter, ansi: bool, make_writer: M) -> Self {
        Logger {
            format,
            filter,
            // The JSON format has no colours.
            ansi: ansi && format == LogFormat::Human,
            make_writer,
            spans: Spans::new(),
        }
    }

    /// How many spans are alive.
    #[cfg(test)]
    pub(crate) fn live_spans(&self) -> usize {
        self.spans.len()
    }

    fn format_human(&self, out: &mut String, event: &Event<'_>, target: &str) {
        let ansi = self.ansi;
        let scope = if event.is_root() {
            None
        } else if event.is_contextual() {
            self.spans.current().map(|(id, _)| id)
        } else {
            event.parent().cloned()
        };
        if scope.is_some() {
            self.spans.with_scope(scope.as_ref(), |spans| {
                let spans: Vec<&SpanData> = spans.collect();
                for span in spans.iter().rev() {
                    paint(out, ansi, BOLD, span.metadata.name());
                    span.fields.write_human(out, ansi);
                    paint(out, ansi, DIMMED, ":");
                }
                if !spans.is_empty() {
                    out.push(' ');
                }
            });
        }
        paint(out, ansi, DIMMED, target);
        paint(out, ansi, DIMMED, ":");
        out.push(' ');
        event.record(&mut HumanFields::new(out, ansi));
    }

    fn format_json(&self, out: &mut String, event: &Event<'_>, target: &str) {
        event.record(&mut JsonFields(out));
        out.push_str(",\"target\":");
        json_string(out, target);
        // As `tracing_subscriber` did: `span` is the explicit parent or
        // else the current span (even for an event without a parent);
        // `spans` are always the current span and its ancestors.
        let current = self.spans.current().map(|(id, _)| id);
        let Some(span) = event.parent().cloned().or_else(|| current.clone()) else {
            return;
        };
        self.spans.with_scope(Some(&span), |scope| {
            if let Some(span) = scope.next() {
                out.push_str(",\"span\":");
                span.fields.write_json(out, span.metadata.name());
            }
        });
        out.push_str(",\"spans\":[");
        self.spans.with_scope(current.as_ref(), |scope| {
            let spans: Vec<&SpanData> = scope.collect();
            for (i, span) in spans.iter().rev().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                span.fields.write_json(out, span.metadata.name());
            }
        });
        out.push(']');
    }

    /// Formats `event` as a line into `out`.
    fn format(&self, out: &mut String, event: &Event<'_>) {
        let metadata = event.metadata();
        // A forwarded `log` record names its own target.
        let log_target = forward::record_target(event);
        let target = log_target.as_deref().unwrap_or(metadata.target());
        let now = SystemTime::now();
        match self.format {
            LogFormat::Human => {
                if self.ansi {
                    out.push_str("\x1b[2m"); // dimmed, as `paint` writes it
                    format::write_timestamp(out, now);
                    out.push_str("\x1b[0m");
                } else {
                    format::write_timestamp(out, now);
                }
                out.push(' ');
                format::write_level(out, self.ansi, metadata.level());
                out.push(' ');
                self.format_human(out, event, target);
            }
            LogFormat::Json => {
                out.push_str("{\"timestamp\":\"");
                format::write_timestamp(out, now);
                out.push_str("\",\"level\":\"");
                out.push_str(metadata.level().as_str());
                out.push('"');
                self.format_json(out, event, target);
                out.push('}');
            }
        }
        out.push('\n');
    }
}

thread_local! {
    /// The line being formatted, reused from event to event.
    static LINE: RefCell<String> = const { RefCell::new(String::new()) };
}

impl<M, W> Subscriber for Logger<M>
where
    M: Fn() -> W + Send + Sync + 'static,
    W: Write,
{
    fn register_callsite(&self, metadata: &'static Metadata<'static>) -> Interest {
        if self.enabled(metadata) {
            Interest::always()
        } else {
            Interest::never()
        }
    }

    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        self.filter.enabled(metadata.target(), metadata.level())
    }

    fn max_level_hint(&self) -> Option<LevelFilter> {
        Some(self.filter.max_level())
    }

    fn new_span(&self, attrs: &Attributes<'_>) -> Id {
        let fields = SpanFields::new(self.format, self.ansi, |v| attrs.record(v));
        let parent = if attrs.is_root() {
            None
        } else if attrs.is_contextual() {
            self.spans.current().map(|(id, _)| id)
        } else {
            attrs.parent().cloned()
        };
        self.spans.insert(attrs.metadata(), parent, fields)
    }

    fn record(&self, span: &Id, values: &Record<'_>) {
        // Formatted before taking the lock: `Debug` impls may log.
        let later = SpanFields::new(self.format, self.ansi, |v| values.record(v));
        self.spans.update(span, |fields| fields.extend(later));
    }

    fn record_follows_from(&self, _: &Id, _: &Id) {}

    fn event(&self, event: &Event<'_>) {
        let write = |line: &mut String| {
            line.clear();
            self.format(line, event);
            // Errors writing logs have nowhere to go.
            let _ = (self.make_writer)().write_all(line.as_bytes());
        };
        // A `Debug` impl that logs formats its event into a line of its own.
        let reused = LINE.try_with(|line| match line.try_borrow_mut() {
            Ok(mut line) => {
                write(&mut line);
                true
            }
            Err(_) => false,
        });
        if reused != Ok(true) {
            write(&mut String::new());
        }
    }

    fn enter(&self, span: &Id) {
        self.spans.enter(span);
    }

    fn exit(&self, span: &Id) {
        self.spans.exit(span);
    }

    fn clone_span(&self, span: &Id) -> Id {
        self.spans.clone_ref(span);
        span.clone()
    }

    fn try_close(&self, span: Id) -> bool {
        self.spans.release(&span)
    }

    fn current_span(&self) -> Current {
        match self.spans.current() {
            Some((id, metadata)) => Current::new(id, metadata),
            None => Current::none(),
        }
    }
}
