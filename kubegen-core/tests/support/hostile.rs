//! Values a hostile user could put in a CRD: strings in full Unicode with
//! YAML 1.1 and 1.2 special forms, number extremes, long keys, nesting.

use proptest::prelude::*;
use serde_json::{Map, Number, Value};

/// Whole strings that YAML 1.1 or 1.2 readers give a meaning of their own.
pub const SPECIAL: &[&str] = &[
    "",
    " ",
    "  ",
    "y",
    "Y",
    "n",
    "N",
    "yes",
    "Yes",
    "YES",
    "no",
    "No",
    "NO",
    "on",
    "On",
    "ON",
    "off",
    "Off",
    "OFF",
    "true",
    "True",
    "TRUE",
    "false",
    "False",
    "FALSE",
    "yEs",
    "null",
    "Null",
    "NULL",
    "~",
    "0",
    "-0",
    "+1",
    "007",
    "0o17",
    "0x1F",
    "0b101",
    "1_000",
    ".1_0",
    "._",
    "1:20",
    "190:20:30.15",
    "-1:20",
    ".inf",
    ".Inf",
    "-.INF",
    "+.inf",
    ".nan",
    ".NaN",
    ".NAN",
    "1e3",
    "1E+3",
    "1.5e-7",
    "0.",
    ".5",
    "6.8523015e+5",
    "2001-12-14",
    "2001-12-14t21:59:43.10-05:00",
    "2001-12-14 21:59:43.10 -5",
    "<<",
    "=",
    "-",
    "- a",
    "?",
    "? a",
    ":",
    ": a",
    "a:",
    "a: b",
    "a:b",
    "#",
    "#c",
    "a #c",
    "a# c",
    "&a",
    "*a",
    "!a",
    "!!str",
    "|",
    ">",
    "|-",
    "'",
    "\"",
    "%",
    "%YAML 1.2",
    "@a",
    "`a",
    ",",
    "[",
    "]",
    "{",
    "}",
    "---",
    "...",
    "--- a",
    "a\n---\nb",
    "\u{feff}a",
    "a\u{85}b",
    "\t",
    "a\tb",
    "\r\n",
    "\n",
    "\na",
    "a\n",
    "a\n\nb",
    " a\nb",
    "a \nb",
];

/// Characters from every class that matters to a YAML reader.
fn any_char() -> impl Strategy<Value = char> {
    prop_oneof![
        4 => any::<char>(),
        3 => prop::char::range('a', 'z'),
        2 => prop::sample::select(
            " \t\n\r-?:,[]{}#&*!|>'\"%@`.~_+0123456789eExXoObB/\\=<".chars().collect::<Vec<_>>()
        ),
        2 => prop::char::range('\u{0}', '\u{1f}'),
        2 => prop::char::range('\u{7f}', '\u{a0}'),
        1 => prop::sample::select(vec![
            '\u{2028}', '\u{2029}', '\u{feff}', '\u{fffe}', '\u{ffff}', '\u{fffd}', '\u{d7ff}',
            '\u{e000}', '\u{10000}', '\u{10ffff}', '\u{1f600}', 'é', 'ß', '中',
        ]),
    ]
}

pub fn any_string() -> impl Strategy<Value = String> {
    let special = prop::sample::select(SPECIAL.to_vec()).prop_map(str::to_string);
    let chars = || prop::collection::vec(any_char(), 0..24).prop_map(String::from_iter);
    prop_oneof![
        3 => chars(),
        2 => special.clone(),
        2 => (special.clone(), chars(), special).prop_map(|(a, b, c)| format!("{a}{b}{c}")),
        1 => (chars(), 1usize..3).prop_map(|(s, n)| {
            let unit = if s.is_empty() { "x".to_string() } else { s };
            unit.repeat(1100 / unit.chars().count() * n + 1)
        }),
    ]
}

pub fn any_number() -> impl Strategy<Value = Number> {
    prop_oneof![
        any::<i64>().prop_map(Number::from),
        any::<u64>().prop_map(Number::from),
        prop::sample::select(vec![i64::MIN, i64::MAX, 0, -1]).prop_map(Number::from),
        any::<f64>().prop_filter_map("finite", Number::from_f64),
        prop::sample::select(vec![
            1e21,
            1e-7,
            1e300,
            -1.5e-300,
            0.1,
            5e-324,
            1.7976931348623157e308
        ])
        .prop_filter_map("finite", Number::from_f64),
    ]
}

pub fn any_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        1 => Just(Value::Null),
        1 => any::<bool>().prop_map(Value::Bool),
        1 => any_number().prop_map(Value::Number),
        4 => any_string().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec((any_string(), inner), 0..5)
                .prop_map(|entries| Value::Object(entries.into_iter().collect::<Map<_, _>>())),
        ]
    })
}
