//! Differential test of the YAML emitter: arbitrary JSON values (hostile
//! strings in full Unicode, YAML 1.1 and 1.2 special forms, number extremes,
//! long keys, nesting) are emitted by `to_yaml` and read back by two
//! independent parsers — libyaml through `serde_yaml` (YAML 1.2 core
//! schema) and `yaml-rust2`'s event parser with the YAML 1.1 type
//! resolution that kubectl's go-yaml and PyYAML apply — and must equal the
//! value we meant, in both.
//!
//! `KUBEGEN_YAML_CASES=1000000 cargo test --release -p kubegen-core --test
//! yaml_differential` runs a million cases; `make test` runs the default.

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{Map, Number, Value};
use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::{Marker, TScalarStyle};

use kubegen_core::output::to_yaml;

mod support;
use support::hostile::{SPECIAL, any_value};

/// Cases per run: 4,096 unless `KUBEGEN_YAML_CASES` says otherwise.
fn cases() -> u32 {
    std::env::var("KUBEGEN_YAML_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(4096)
}

/// A node under construction by [`Yaml11`].
enum Open {
    Seq(Vec<Value>),
    Map(Map<String, Value>, Option<String>),
}

/// Builds JSON from yaml-rust2's events, resolving plain scalars the way
/// YAML 1.1 readers do: the YAML 1.1 type repository (bool, null, int,
/// float, timestamp, merge, value) widened by what go-yaml v2 (kubectl) and
/// PyYAML also accept (`1e3`, `0o17`, `.1_0`, underscores anywhere).
#[derive(Default)]
struct Yaml11 {
    stack: Vec<Open>,
    done: Option<Value>,
    error: Option<String>,
}

impl Yaml11 {
    fn push(&mut self, v: Value) {
        match self.stack.last_mut() {
            None => self.done = Some(v),
            Some(Open::Seq(items)) => items.push(v),
            Some(Open::Map(map, key)) => match key.take() {
                None => match v {
                    Value::String(k) => *key = Some(k),
                    other => self.error = Some(format!("non-string key {other}")),
                },
                Some(k) => {
                    if map.insert(k.clone(), v).is_some() {
                        self.error = Some(format!("duplicate key {k:?}"));
                    }
                }
            },
        }
    }
}

impl MarkedEventReceiver for Yaml11 {
    fn on_event(&mut self, ev: Event, _mark: Marker) {
        match ev {
            Event::Scalar(text, style, _, tag) => {
                if tag.is_some() {
                    self.error = Some(format!("unexpected tag on {text:?}"));
                }
                let v = if style == TScalarStyle::Plain {
                    resolve_yaml11(&text)
                } else {
                    Value::String(text)
                };
                self.push(v);
            }
            Event::SequenceStart(..) => self.stack.push(Open::Seq(Vec::new())),
            Event::MappingStart(..) => self.stack.push(Open::Map(Map::new(), None)),
            Event::SequenceEnd | Event::MappingEnd => match self.stack.pop() {
                Some(Open::Seq(items)) => self.push(Value::Array(items)),
                Some(Open::Map(map, _)) => self.push(Value::Object(map)),
                None => self.error = Some("unbalanced end".into()),
            },
            Event::Alias(_) => self.error = Some("unexpected alias".into()),
            _ => {}
        }
    }
}

/// Whether all of `s` matches `pattern` (compiled once per pattern).
fn full(pattern: &str, s: &str) -> bool {
    thread_local! {
        static CACHE: std::cell::RefCell<std::collections::HashMap<String, regex::Regex>> =
            Default::default();
    }
    CACHE.with(|c| {
        c.borrow_mut()
            .entry(pattern.to_string())
            .or_insert_with(|| regex::Regex::new(&format!("^(?:{pattern})$")).unwrap())
            .is_match(s)
    })
}

/// The YAML 1.1 reading of a plain scalar. Numbers written the way our
/// emitter writes them come back as numbers; every other non-string
/// reading comes back as a marker string that can never equal the input.
fn resolve_yaml11(s: &str) -> Value {
    const BOOL: &str =
        "y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF";
    const NULL: &str = "~|null|Null|NULL|";
    const INT: &str =
        "[-+]?(?:0b[01_]+|0o?[0-7_]+|0x[0-9a-fA-F_]+|[0-9][0-9_]*|[1-9][0-9_]*(?::[0-5]?[0-9])+)";
    const FLOAT: &str = r"[-+]?(?:[0-9][0-9_]*)?\.[0-9._]*(?:[eE][-+]?[0-9]+)?|[-+]?[0-9][0-9_]*(?:\.[0-9_]*)?[eE][-+]?[0-9]+|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)";
    const TIMESTAMP: &str = r"[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?(?:(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)?";
    const OTHER: &str = "<<|=";
    if full(BOOL, s) {
        // We emit booleans as `true`/`false`; any other spelling is a
        // string we failed to quote.
        return match s {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            _ => marker("bool", s),
        };
    }
    if full(NULL, s) {
        return if s == "null" {
            Value::Null
        } else {
            marker("null", s)
        };
    }
    if full(INT, s) {
        if let Ok(i) = s.parse::<i64>() {
            return Value::Number(i.into());
        }
        if let Ok(u) = s.parse::<u64>() {
            return Value::Number(u.into());
        }
        return marker("int", s);
    }
    if full(FLOAT, s) {
        return match s.parse::<f64>().ok().and_then(Number::from_f64) {
            Some(n) if !s.contains('_') && !s.contains(':') => Value::Number(n),
            _ => marker("float", s),
        };
    }
    if full(TIMESTAMP, s) || full(OTHER, s) {
        return marker("other", s);
    }
    Value::String(s.to_string())
}

/// A value that can never equal a string we emitted: the type YAML 1.1 gave.
fn marker(kind: &str, s: &str) -> Value {
    Value::String(format!("\u{0}yaml1.1 {kind}: {s}"))
}

fn read_yaml11(text: &str) -> Result<Value, String> {
    let mut loader = Yaml11::default();
    Parser::new_from_str(text)
        .load(&mut loader, false)
        .map_err(|e| e.to_string())?;
    match (loader.error, loader.done) {
        (Some(e), _) => Err(e),
        (None, Some(v)) => Ok(v),
        (None, None) => Err("no document".into()),
    }
}

/// The emitted text, and what each parser read from it.
fn round_trip(v: &Value) -> Result<(), TestCaseError> {
    let text = to_yaml(v);
    let libyaml: Value = serde_yaml::from_str(&text)
        .map_err(|e| TestCaseError::fail(format!("serde_yaml: {e}\n{text}")))?;
    prop_assert_eq!(
        &libyaml,
        v,
        "serde_yaml (YAML 1.2) read back differently:\n{}",
        text
    );
    let yaml11 =
        read_yaml11(&text).map_err(|e| TestCaseError::fail(format!("yaml-rust2: {e}\n{text}")))?;
    prop_assert_eq!(
        &yaml11,
        v,
        "yaml-rust2 with YAML 1.1 resolution read back differently:\n{}",
        text
    );
    Ok(())
}

#[test]
fn every_value_reads_back_exactly_in_yaml_1_1_and_1_2() {
    let mut runner = TestRunner::new(Config {
        cases: cases(),
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&any_value(), |v| round_trip(&v))
        .unwrap_or_else(|e| panic!("{e}"));
    eprintln!("yaml differential: {} cases, 0 mismatches", cases());
}

#[test]
fn special_strings_as_keys_and_values_read_back() {
    for s in SPECIAL {
        let v = serde_json::json!({ *s: [*s, { *s: *s }] });
        round_trip(&v).unwrap_or_else(|e| panic!("{s:?}: {e}"));
    }
}

#[test]
fn the_1_1_reader_catches_what_it_should() {
    // The oracle itself: a plain `yes`, `1:20` or `.1_0` is not a string in
    // YAML 1.1, so an emitter writing them plain would fail the test above.
    for s in [
        "yes",
        "On",
        "y",
        "1:20",
        ".1_0",
        "017",
        "0x1F",
        "2001-12-14",
        "<<",
        "~",
    ] {
        assert_ne!(
            read_yaml11(&format!("a: {s}\n")).unwrap()["a"],
            Value::String(s.into()),
            "{s}"
        );
    }
    assert_eq!(read_yaml11("a: plain\n").unwrap()["a"], "plain");
    assert_eq!(read_yaml11("a: 1.0e+21\n").unwrap()["a"], 1e21);
}
