//! How lines are printed: the timestamp, fields in the human and JSON
//! formats, and the escapes each needs. The layout is the one
//! `tracing_subscriber::fmt` printed (its full format, and its JSON format
//! with flattened events, the current span and the span list), byte for
//! byte: `logging/testdata/` holds what it printed.

use std::collections::BTreeMap;
use std::fmt::{self, Write};
use std::time::{SystemTime, UNIX_EPOCH};

use kubegen_core::go::time::civil_from_days;
use tracing::Level;
use tracing::field::{Field, Visit};

use super::LogFormat;

/// ANSI styles, as `nu-ansi-term` writes them.
pub(crate) const BOLD: &str = "1";
pub(crate) const DIMMED: &str = "2";
const ITALIC: &str = "3";

/// Writes `text` in `style` (an SGR code) when `ansi`, else as it is.
pub(crate) fn paint(out: &mut String, ansi: bool, style: &str, text: &str) {
    if ansi {
        let _ = write!(out, "\x1b[{style}m{text}\x1b[0m");
    } else {
        out.push_str(text);
    }
}

/// `level`, five characters wide, coloured when `ansi`.
pub(crate) fn write_level(out: &mut String, ansi: bool, level: &Level) {
    let (colour, text) = match *level {
        Level::TRACE => ("35", "TRACE"),
        Level::DEBUG => ("34", "DEBUG"),
        Level::INFO => ("32", " INFO"),
        Level::WARN => ("33", " WARN"),
        Level::ERROR => ("31", "ERROR"),
    };
    paint(out, ansi, colour, text);
}

/// `time` in RFC 3339, UTC, with microseconds: `2024-05-06T07:08:09.123456Z`.
pub(crate) fn write_timestamp(out: &mut String, time: SystemTime) {
    let (secs, nanos) = match time.duration_since(UNIX_EPOCH) {
        Ok(after) => (after.as_secs() as i64, after.subsec_nanos()),
        Err(before) => {
            let before = before.duration();
            match before.subsec_nanos() {
                0 => (-(before.as_secs() as i64), 0),
                n => (-(before.as_secs() as i64) - 1, 1_000_000_000 - n),
            }
        }
    };
    let (days, of_day) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (year, month, day) = civil_from_days(days);
    if year > 9999 {
        let _ = write!(out, "+{year}");
    } else if year < 0 {
        let _ = write!(out, "{year:05}");
    } else {
        let _ = write!(out, "{year:04}");
    }
    let _ = write!(
        out,
        "-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:06}Z",
        of_day / 3600,
        of_day / 60 % 60,
        of_day % 60,
        nanos / 1000,
    );
}

/// Writes what is formatted into it to a `String`, escaping the control
/// characters a terminal could act on (`\x1b`, …), as `tracing_subscriber`
/// does for messages and errors.
struct Sanitising<'a>(&'a mut String);

impl Write for Sanitising<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        for c in s.chars() {
            match c {
                '\x1b' | '\x07' | '\x08' | '\x0c' | '\x7f' => {
                    write!(self.0, "\\x{:02x}", c as u32)?;
                }
                '\u{80}'..='\u{9f}' => write!(self.0, "\\u{{{:x}}}", c as u32)?,
                c => self.0.push(c),
            }
        }
        Ok(())
    }
}

/// `value`'s `Display`, sanitised.
struct Sanitised<T>(T);

impl<T: fmt::Display> fmt::Display for Sanitised<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut text = String::new();
        write!(Sanitising(&mut text), "{}", self.0)?;
        f.write_str(&text)
    }
}

/// An error's chain of sources, from `first`: `[a, b]`.
struct Sources<'a>(&'a (dyn std::error::Error + 'static));

impl fmt::Display for Sources<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut list = f.debug_list();
        let mut next = Some(self.0);
        while let Some(error) = next {
            list.entry(&format_args!("{}", Sanitised(error)));
            next = error.source();
        }
        list.finish()
    }
}

/// Writes fields as `message name=value …` (the human format).
pub(crate) struct HumanFields<'a> {
    out: &'a mut String,
    ansi: bool,
    empty: bool,
}

impl<'a> HumanFields<'a> {
    pub(crate) fn new(out: &'a mut String, ansi: bool) -> Self {
        HumanFields {
            out,
            ansi,
            empty: true,
        }
    }
}

impl Visit for HumanFields<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.record_debug(field, &format_args!("{value}"));
        } else {
            self.record_debug(field, &value);
        }
    }

    fn record_error(&mut self, field: &Field, value: &(dyn std::error::Error + 'static)) {
        let Some(source) = value.source() else {
            return self.record_debug(field, &format_args!("{}", Sanitised(value)));
        };
        let mut label = String::new();
        paint(&mut label, self.ansi, ITALIC, field.name());
        paint(&mut label, self.ansi, ITALIC, ".sources");
        paint(&mut label, self.ansi, DIMMED, "=");
        let sources = Sources(source);
        self.record_debug(
            field,
            &format_args!("{} {label}{sources}", Sanitised(value)),
        );
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        let name = field.name();
        // `log.target` & co. of forwarded `log` records: already shown.
        if name.starts_with("log.") {
            return;
        }
        if !std::mem::replace(&mut self.empty, false) {
            self.out.push(' ');
        }
        if name == "message" {
            let _ = write!(Sanitising(self.out), "{value:?}");
        } else {
            let name = name.strip_prefix("r#").unwrap_or(name);
            paint(self.out, self.ansi, ITALIC, name);
            paint(self.out, self.ansi, DIMMED, "=");
            let _ = write!(self.out, "{value:?}");
        }
    }
}

/// Writes what is formatted into it to a `String` as the inside of a JSON
/// string: `"` and `\` escaped, control characters as `\n`, `\u001b`, …
/// (`serde_json`'s escapes); everything else as it is.
pub(crate) struct JsonEscaping<'a>(pub(crate) &'a mut String);

impl Write for JsonEscaping<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let mut plain = 0;
        for (at, c) in s.char_indices() {
            let escape = match c {
                '"' => "\\\"",
                '\\' => "\\\\",
                '\n' => "\\n",
                '\r' => "\\r",
                '\t' => "\\t",
                '\x08' => "\\b",
                '\x0c' => "\\f",
                c if c < ' ' => "",
                _ => continue,
            };
            self.0.push_str(&s[plain..at]);
            if escape.is_empty() {
                write!(self.0, "\\u{:04x}", c as u32)?;
            } else {
                self.0.push_str(escape);
            }
            plain = at + c.len_utf8();
        }
        self.0.push_str(&s[plain..]);
        Ok(())
    }
}

/// `value` as a JSON string.
pub(crate) fn json_string(out: &mut String, value: impl fmt::Display) {
    out.push('"');
    let _ = write!(JsonEscaping(out), "{value}");
    out.push('"');
}

/// Writes an event's fields as `,"name":value` entries of a JSON object;
/// numbers and booleans stay numbers and booleans, the rest are strings.
pub(crate) struct JsonFields<'a>(pub(crate) &'a mut String);

impl JsonFields<'_> {
    fn entry(&mut self, field: &Field, value: impl fmt::Display) {
        self.0.push(',');
        json_string(self.0, field.name());
        let _ = write!(self.0, ":{value}");
    }
}

impl Visit for JsonFields<'_> {
    fn record_f64(&mut self, field: &Field, value: f64) {
        // `serde_json`'s shortest form; not finite: `null`.
        self.entry(field, serde_json::Value::from(value));
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.entry(field, value);
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        self.entry(field, value);
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        self.entry(field, value);
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.push(',');
        json_string(self.0, field.name());
        self.0.push(':');
        json_string(self.0, value);
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.0.push(',');
        json_string(self.0, field.name());
        self.0.push(':');
        json_string(self.0, format_args!("{value:?}"));
    }
}

/// A span's fields, kept as its subscriber's format prints them.
pub(crate) enum SpanFields {
    /// `name=value …`, as in the human format.
    Human(String),
    /// By name; a field recorded again replaces the previous value.
    Json(BTreeMap<&'static str, serde_json::Value>),
}

impl SpanFields {
    /// The fields `record` (a span's `Attributes` or `Record`) visits.
    pub(crate) fn new(format: LogFormat, ansi: bool, record: impl FnOnce(&mut dyn Visit)) -> Self {
        match format {
            LogFormat::Human => {
                let mut text = String::new();
                record(&mut HumanFields::new(&mut text, ansi));
                SpanFields::Human(text)
            }
            LogFormat::Json => {
                let mut values = BTreeMap::new();
                record(&mut JsonValues(&mut values));
                SpanFields::Json(values)
            }
        }
    }

    /// Adds fields recorded later.
    pub(crate) fn extend(&mut self, later: SpanFields) {
        match (self, later) {
            (SpanFields::Human(text), SpanFields::Human(later)) => {
                if !text.is_empty() {
                    text.push(' ');
                }
                text.push_str(&later);
            }
            (SpanFields::Json(values), SpanFields::Json(later)) => values.extend(later),
            _ => {}
        }
    }

    /// Writes the human form, `{a=1 b=2}`, nothing when there are no
    /// fields.
    pub(crate) fn write_human(&self, out: &mut String, ansi: bool) {
        if let SpanFields::Human(text) = self
            && !text.is_empty()
        {
            paint(out, ansi, BOLD, "{");
            out.push_str(text);
            paint(out, ansi, BOLD, "}");
        }
    }

    /// Writes the JSON form, `{"a":1,"b":"x","name":"span"}`.
    pub(crate) fn write_json(&self, out: &mut String, name: &str) {
        out.push('{');
        if let SpanFields::Json(values) = self {
            for (key, value) in values {
                json_string(out, key);
                let _ = write!(out, ":{value},");
            }
        }
        out.push_str("\"name\":");
        json_string(out, name);
        out.push('}');
    }
}

/// Collects a span's fields as JSON values (as
/// `tracing_subscriber::fmt::format::JsonFields` did).
struct JsonValues<'a>(&'a mut BTreeMap<&'static str, serde_json::Value>);

impl Visit for JsonValues<'_> {
    fn record_f64(&mut self, field: &Field, value: f64) {
        self.0.insert(field.name(), value.into());
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.0.insert(field.name(), value.into());
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        self.0.insert(field.name(), value.into());
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        self.0.insert(field.name(), value.into());
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name(), value.into());
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        let name = field.name();
        if name.starts_with("log.") {
            return;
        }
        let name = name.strip_prefix("r#").unwrap_or(name);
        self.0.insert(name, format!("{value:?}").into());
    }
}
