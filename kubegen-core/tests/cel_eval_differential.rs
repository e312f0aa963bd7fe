//! Differential test of `kubegen_core::cel::eval` against the apiserver's
//! CEL runtime (cel-go v0.26 with k8s.io/apiserver v0.36.3's libraries in
//! the environment of new CRD rules), run by `go run ./tests/cel eval`:
//! constant expressions over the quantity, URL and format libraries and
//! the strings extension's `format` and `strings.quote` — hand-picked
//! corners and a seeded generator's random quantity texts (invalid ones
//! among them), URLs, format-validation inputs, `format` templates with
//! arguments, and timestamps (RFC 3339 texts as Go's `time.Parse` reads
//! them, accessors in time zones given as offsets and names).
//!
//! Both sides print a value in one canonical text (see `canonical` here
//! and in `tests/cel/main.go`) or an evaluation error's message; they
//! must agree on every expression kubegen evaluates. kubegen must refuse
//! to check what the apiserver does not compile (`string.format`'s
//! compile-time checks among it); those expressions and the ones kubegen
//! leaves unsupported are counted, not compared.
//!
//! Needs `go` (1.26) on `PATH`. `KUBEGEN_CEL_EVAL_CASES` sets the number
//! of generated expressions (default 3,000), `KUBEGEN_CEL_EVAL_SEED` the
//! seed.

use kubegen_core::cel::checked::NodeKind;
use kubegen_core::cel::eval::value::Val;
use kubegen_core::cel::eval::{EvalError, evaluate};
use kubegen_core::cel::{Purpose, Type, check_rule};
use kubegen_core::go::fmt::{go_float, go_quote};
use kubegen_core::rng::Rng;
use serde_json::{Value, json};

#[path = "support/differences.rs"]
mod differences;
#[path = "support/go_helper.rs"]
mod go_helper;

/// Hand-picked expressions.
const PICKED: &[&str] = &[
    "quantity('1').add(1) == quantity('2')",
    "quantity('2') == quantity('1').add(1)",
    "quantity('2') != quantity('1').add(1)",
    "[quantity('2')] == [quantity('1').add(1)]",
    "quantity('1x')",
    "quantity('')",
    "quantity('.')",
    "quantity('.Ei')",
    "quantity('1e')",
    "quantity('1ki')",
    "quantity('1e100').asInteger()",
    "quantity('0e400').asApproximateFloat()",
    "quantity('9223372036854775807').add(1).asApproximateFloat()",
    "quantity('9223372036854775807').add(1).isInteger()",
    "quantity('-9223372036854775808').asApproximateFloat()",
    "sign(quantity('0').sub(-9223372036854775808))",
    "quantity('0').sub(-9223372036854775808).sign()",
    "quantity('0').sub(-9223372036854775808).asInteger()",
    "quantity('10Ei').asInteger()",
    "quantity('-10Ei').asApproximateFloat()",
    "quantity('0.5Ki').asApproximateFloat()",
    "quantity('1.5Gi').isInteger()",
    "quantity('0.0000000001').asApproximateFloat()",
    "quantity('-0.0000000001').compareTo(quantity('-1n'))",
    "sign(quantity('1e-1000'))",
    "quantity('1e4294967296').asApproximateFloat()",
    "quantity('1.5e4294967297').asApproximateFloat()",
    "quantity('12345678901234567890').asApproximateFloat()",
    "quantity('123456789012345678.9').compareTo(quantity('123456789012345679'))",
    "cel.bind(q, quantity('1'), q.isLessThan(quantity('1e-1000')) || q.isInteger())",
    "cel.bind(q, quantity('1'), [q.isInteger(), q.isLessThan(quantity('1e-1000')), q.isInteger()])",
    "cel.bind(q, quantity('1e30'), [q.add(q).asApproximateFloat(), q.asApproximateFloat()])",
    "cel.bind(q, quantity('1e-30'), [q.sub(1).asApproximateFloat(), q.asApproximateFloat()])",
    "quantity('1Ki').isGreaterThan(quantity('1k'))",
    "quantity('1m').add(quantity('1u')).asApproximateFloat()",
    "quantity('999999999999999999').add(1).asInteger()",
    "quantity('1').add(9223372036854775807).asInteger()",
    "quantity('1k').add(9223372036854775807).asApproximateFloat()",
    "isQuantity('1.0.0')",
    "isQuantity('+1M')",
    "type(quantity('1'))",
    "type(quantity('1').add(1))",
    "quantity('1') == quantity('1000m')",
    "quantity('1') in [quantity('1000m')]",
    "quantity('1') in [quantity('1').add(0)]",
    "quantity('1').add(0) in [quantity('1')]",
    "url('/a') in [url('/a')]",
    "[url('/a')] == [url('/a')]",
    "format.uri() in [format.named('uri').value()]",
    "'%.400f'.format([1.0])",
    "'%.256f'.format([1.0])",
    "'%.300f'.format([1e-200])",
    "'%.260f'.format([2.0 / 3.0])",
    "'%.255f'.format([2.0 / 3.0])",
    "'%.255e'.format([2.0 / 3.0])",
    "'%.1000f'.format([0.1])",
    "'%.1001f'.format([0.1])",
    "'%.1001z'.format([0.1])",
    "'%.2f'.format([dyn(1)])",
    "'%s'.format([[timestamp('2020-01-01T00:00:00Z')]])",
    "'%s'.format(dyn([b'\\xff']))",
    "'%x'.format(dyn([b'\\xff']))",
    "'%s'.format(dyn([[b'\\xff']]))",
    "'%s'.format(dyn([{1.5: 1}]))",
    "'%s'.format(dyn([{'a': quantity('1')}]))",
    "'%\\xc3'.format(dyn([1]))",
    "format.dns1123LabelPrefix().validate('aü-')",
    "format.dns1123SubdomainPrefix().validate('ü-')",
    "format.dns1035LabelPrefix().validate('a-')",
    "format.named('uri').value().validate('http://[zz]/')",
    "url('http://[fe80::1%25en0]:8080/').getHostname()",
    "url('http://[::ffff:1.2.3.4]/').getHost()",
];

/// A random quantity text: mostly valid, sometimes broken.
fn quantity_text(rng: &mut Rng) -> String {
    let mut s = String::new();
    s.push_str(one(rng, &["", "", "", "-", "+"]));
    let digits = |rng: &mut Rng, max: usize| -> String {
        let n = rng.below(max);
        (0..n)
            .map(|_| char::from(b'0' + rng.below(10) as u8))
            .collect()
    };
    let long = rng.chance(1, 5);
    s.push_str(&digits(rng, if long { 25 } else { 6 }));
    if rng.chance(1, 3) {
        s.push('.');
        let long = rng.chance(1, 5);
        s.push_str(&digits(rng, if long { 22 } else { 5 }));
    }
    if rng.chance(2, 3) {
        let suffix = *rng.pick(&[
            "", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei",
            "e", "E", "e-", "e+", "i", "ki", "KiB", "mm", " ",
        ]);
        s.push_str(suffix);
        if suffix.starts_with(['e', 'E']) || rng.chance(1, 10) {
            let n = *rng.pick(&["0", "1", "3", "9", "18", "19", "40", "300", "400"]);
            s.push_str(n);
        }
    }
    if rng.chance(1, 30) {
        s.push(*rng.pick(&['x', '.', '-', '0']));
    }
    s
}

/// A random expression over quantities.
fn quantity_expr(rng: &mut Rng) -> String {
    let a = quantity_text(rng);
    let b = quantity_text(rng);
    let q = |t: &str| format!("quantity('{t}')");
    let int = *rng.pick(&[
        "0",
        "1",
        "-1",
        "1000",
        "9223372036854775807",
        "-9223372036854775808",
    ]);
    match rng.below(12) {
        0 => format!("isQuantity('{a}')"),
        1 => format!("sign({})", q(&a)),
        2 => format!("{}.isInteger()", q(&a)),
        3 => format!("{}.asInteger()", q(&a)),
        4 => format!("{}.asApproximateFloat()", q(&a)),
        5 => format!("{}.compareTo({})", q(&a), q(&b)),
        6 => format!(
            "[{0}.isGreaterThan({1}), {0}.isLessThan({1})]",
            q(&a),
            q(&b)
        ),
        7 => format!("{} == {}", q(&a), q(&b)),
        8 => format!(
            "{}.{}({}).{}",
            q(&a),
            rng.pick(&["add", "sub"]),
            q(&b),
            rng.pick(&["asApproximateFloat()", "asInteger()", "isInteger()"])
        ),
        9 => format!(
            "{}.{}({int}).{}",
            q(&a),
            rng.pick(&["add", "sub"]),
            rng.pick(&[
                "asApproximateFloat()",
                "asInteger()",
                "compareTo(quantity('0'))"
            ])
        ),
        10 => format!(
            "cel.bind(x, {}, [x.compareTo({}), x.isInteger(), x.add(x).asApproximateFloat(), x.asApproximateFloat()])",
            q(&a),
            q(&b)
        ),
        _ => format!(
            "{}.add({}).compareTo({}.sub({}))",
            q(&a),
            q(&b),
            q(&b),
            q(&a)
        ),
    }
}

/// A random constant of any type `format` may meet.
fn format_arg(rng: &mut Rng, depth: usize) -> String {
    let pick = |rng: &mut Rng, items: &[&str]| rng.pick(items).to_string();
    let v = match rng.below(if depth > 1 { 9 } else { 11 }) {
        0 => pick(
            rng,
            &[
                "0",
                "-5",
                "255",
                "1000000",
                "9223372036854775807",
                "-9223372036854775808",
            ],
        ),
        1 => pick(rng, &["0u", "255u", "18446744073709551615u"]),
        2 | 3 => pick(
            rng,
            &[
                "0.0",
                "-0.0",
                "1.5",
                "1234567.891",
                "1e21",
                "1e-7",
                "0.125",
                "-2.5",
                "1.0/0.0",
                "-1.0/0.0",
                "0.0/0.0",
                "123456789.123",
                "9.9999995",
                "1e300",
                "5e-324",
                "-0.0000001",
                "999.9999",
            ],
        ),
        4 => pick(
            rng,
            &[
                "'abc'",
                "''",
                "'NaN'",
                "'Infinity'",
                "'-Infinity'",
                "'a\"b'",
                "'ü\\n'",
                "'\\u2028'",
                "'%s'",
                "'😀'",
            ],
        ),
        5 => pick(rng, &["b'abc'", "b'\\xff'", "b''", "b'\"'"]),
        6 => pick(rng, &["true", "false", "null", "int", "string", "type(1u)"]),
        7 => pick(
            rng,
            &[
                "duration('1.5s')",
                "duration('-1h1ms')",
                "duration('0s')",
                "duration('1ns')",
                "optional.none()",
                "quantity('1')",
                "timestamp('2020-01-01T00:00:00Z')",
                "timestamp('2020-01-01T00:00:00Z') + duration('1.5s')",
                "timestamp(0)",
            ],
        ),
        8 => pick(rng, &["1", "'x'", "2.5"]),
        9 => {
            let n = rng.below(4);
            let items: Vec<String> = (0..n).map(|_| format_arg(rng, depth + 1)).collect();
            format!("[{}]", items.join(", "))
        }
        _ => {
            let n = rng.below(3);
            let keys = ["'k'", "'a'", "1", "-2", "true", "3u", "''"];
            let mut used = Vec::new();
            let mut entries = Vec::new();
            for _ in 0..n {
                let k = *rng.pick(&keys);
                if used.contains(&k) {
                    continue;
                }
                used.push(k);
                entries.push(format!("{k}: {}", format_arg(rng, depth + 1)));
            }
            format!("{{{}}}", entries.join(", "))
        }
    };
    if depth == 0 && rng.chance(1, 3) {
        format!("dyn({v})")
    } else {
        v
    }
}

/// A random `format` call (or `strings.quote`).
fn format_expr(rng: &mut Rng) -> String {
    if rng.chance(1, 10) {
        let s = *rng.pick(&[
            "abc",
            r#"a\"b"#,
            r"\\",
            r"\n\t\r\a\b\f\v",
            r"\u2028",
            r"\x01",
            "ü😀",
            "",
        ]);
        return format!("strings.quote('{s}')");
    }
    let mut template = String::new();
    let mut clauses = 0;
    for _ in 0..rng.below(4) + 1 {
        let piece = *rng.pick(&[
            "%s",
            "%s",
            "%d",
            "%f",
            "%.2f",
            "%.0f",
            "%.30f",
            "%e",
            "%.1e",
            "%.20e",
            "%b",
            "%o",
            "%x",
            "%X",
            "%%",
            "a",
            " ",
            "é",
            "%.",
            "%.a",
            "%z",
            "%5",
            "%.99999999999999999999f",
        ]);
        template.push_str(piece);
        if piece.starts_with('%') && piece != "%%" {
            clauses += 1;
        }
    }
    if rng.chance(1, 15) {
        template.push('%');
    }
    let n = match rng.below(6) {
        0 => clauses + 1,
        1 if clauses > 0 => clauses - 1,
        _ => clauses,
    };
    let args: Vec<String> = (0..n).map(|_| format_arg(rng, 0)).collect();
    let list = format!("[{}]", args.join(", "));
    if rng.chance(1, 3) {
        // Not a literal list: no compile-time check of the clauses.
        format!("'{template}'.format(dyn({list}))")
    } else {
        format!("'{template}'.format({list})")
    }
}

/// One of `items`, picked at random.
fn one<'a>(rng: &mut Rng, items: &[&'a str]) -> &'a str {
    items[rng.below(items.len())]
}

/// A CEL string literal of `s`.
fn lit(s: &str) -> String {
    format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'"))
}

/// A random URL text, mostly well formed.
fn url_text(rng: &mut Rng) -> String {
    if rng.chance(1, 12) {
        return rng
            .pick(&["*", "", "/", "?", "a b", "//a/b", ":x", "http://", "a/b"])
            .to_string();
    }
    let mut s = String::new();
    let scheme = *rng.pick(&[
        "http", "https", "HTTPS", "ftp", "mailto", "a+b", "1a", "", "", "x-y",
    ]);
    if !scheme.is_empty() {
        s.push_str(scheme);
        s.push(':');
    }
    if rng.chance(3, 4) {
        s.push_str("//");
        s.push_str(one(
            rng,
            &[
                "", "", "", "u@", "u:p@", "u%41@", "u p@", "@", "u%zz@", "ü@",
            ],
        ));
        s.push_str(one(
            rng,
            &[
                "a.b",
                "A.B",
                "[::1]",
                "[::1]:8080",
                "[fe80::1%25eth0]",
                "[1.2.3.4]",
                "[zz]",
                "a%41",
                "a%c3%bc",
                "a b",
                "a:80",
                "a:b:80",
                "a:",
                "[::1]:x",
                "a_b",
                "",
                "[::1",
                "a[b]",
                "ü.de",
                "a:80:90",
                "1.2.3.4:0",
                "[%25x]",
                "[]",
                "[1::x]",
                "[1.2.3]",
            ],
        ));
    }
    s.push_str(one(
        rng,
        &[
            "", "/", "/a b", "/a%2fb", "/ü", "/%zz", "//x", "/a;b", "/*", "/a/b/", "/%41",
            "/a%20b", "/[x]", "/a%",
        ],
    ));
    s.push_str(one(
        rng,
        &[
            "",
            "",
            "?",
            "?a=1&a=2",
            "?x",
            "?a;b=1",
            "?%zz=1&b=2",
            "?q=a+b%21",
            "?&&a=",
            "?a=%c3%bc",
            "?a=%ff",
            "?=1",
        ],
    ));
    s.push_str(one(rng, &["", "", "#f", "#%zz", "#a b", "#"]));
    s
}

/// A random expression over URLs.
fn url_expr(rng: &mut Rng) -> String {
    let s = lit(&url_text(rng));
    match rng.below(10) {
        0 => format!("isURL({s})"),
        1 => format!("format.uri().validate({s})"),
        2 => format!("url({s}) == url({s})"),
        _ => format!(
            "url({s}).{}()",
            rng.pick(&[
                "getScheme",
                "getHost",
                "getHostname",
                "getPort",
                "getEscapedPath",
                "getQuery"
            ])
        ),
    }
}

/// A random expression over named formats.
fn format_validation_expr(rng: &mut Rng) -> String {
    const NAMES: &[&str] = &[
        "dns1123Label",
        "dns1123Subdomain",
        "dns1035Label",
        "qualifiedName",
        "dns1123LabelPrefix",
        "dns1123SubdomainPrefix",
        "dns1035LabelPrefix",
        "labelValue",
        "uri",
        "uuid",
        "byte",
        "date",
        "datetime",
    ];
    let name = *rng.pick(NAMES);
    let mut v = String::new();
    let len = match rng.below(10) {
        0 => 60 + rng.below(8),
        1 => 250 + rng.below(8),
        _ => rng.below(12),
    };
    for _ in 0..len {
        v.push(*rng.pick(&[
            'a', 'b', 'z', '0', '9', '-', '.', '_', '/', 'A', 'ü', ' ', ':', '=',
        ]));
    }
    if rng.chance(1, 4) {
        v = rng
            .pick(&[
                "my-name",
                "a.b",
                "my-",
                "-",
                "example.com/Name",
                "a/b/c",
                "/x",
                "x/",
                "123e4567-e89b-12d3-a456-426614174000",
                "aGk=",
                "aGk",
                "2020-02-29",
                "2021-02-29",
                "2020-01-01T00:00:00Z",
                "2020-01-01T00:00:00.123+01:00",
                "https://a/b",
                "",
            ])
            .to_string();
    }
    let v = lit(&v);
    match rng.below(8) {
        0 => format!("format.named('{}').value().validate({v})", name),
        1 => format!(
            "format.named({}).hasValue()",
            lit(one(rng, &[name, "DNS1123Label", "nope", ""]))
        ),
        2 => format!(
            "format.{name}() == format.named({}).value()",
            lit(one(rng, NAMES))
        ),
        _ => format!("format.{name}().validate({v})"),
    }
}

/// A value in the canonical text of `tests/cel/main.go`.
fn canonical(v: &Val) -> String {
    match v {
        Val::Null => "null".into(),
        Val::Bool(b) => b.to_string(),
        Val::Int(i) => format!("int:{i}"),
        Val::Uint(u) => format!("uint:{u}"),
        Val::Double(d) => format!("double:{}", go_float(*d)),
        Val::String(s) => format!("string:{}", go_quote(s)),
        Val::Bytes(b) => format!("bytes:{}", go_quote(&String::from_utf8_lossy(b))),
        Val::Duration(n) => format!("duration:{n}"),
        Val::Timestamp(n) => format!(
            "timestamp:{}.{:09}",
            n.div_euclid(1_000_000_000),
            n.rem_euclid(1_000_000_000)
        ),
        Val::Type(t) => format!("type:{t}"),
        Val::Optional(None) => "optional:none".into(),
        Val::Optional(Some(x)) => format!("optional:{}", canonical(x)),
        Val::List(items, _) => format!(
            "[{}]",
            items.iter().map(canonical).collect::<Vec<_>>().join(", ")
        ),
        Val::Map(entries) => {
            let mut parts: Vec<String> = entries
                .iter()
                .map(|(k, v)| format!("{}: {}", canonical(k), canonical(v)))
                .collect();
            parts.sort();
            format!("{{{}}}", parts.join(", "))
        }
        other => format!("<{}>", other.type_name().unwrap_or("?")),
    }
}

/// What kubegen makes of an expression: `Ok(Some(answer))` as the Go
/// helper prints it, `Ok(None)` when unsupported, `Err` when it does not
/// check.
fn ours(expr: &str) -> Result<Option<Value>, String> {
    let self_type = Type::of_schema(
        &json!({"type": "object", "properties": {}}),
        "selfType",
        false,
    )
    .expect("a type");
    // A rule must be a bool: check `dyn(expr) == null` and evaluate its
    // first operand.
    let rule = format!("dyn({expr}) == null");
    let checked = check_rule(&rule, &self_type, false, Purpose::Rule, |_| true)
        .map_err(|e| format!("{e:?}"))?;
    let NodeKind::Call { args, .. } = &checked.tree.kind else {
        panic!("{rule} is a call");
    };
    Ok(match evaluate(&args[0], &[]) {
        Ok(v) => Some(json!({"value": canonical(&v)})),
        Err(EvalError::Error(e) | EvalError::Internal(e)) => Some(json!({"error": e})),
        Err(EvalError::Unsupported(_)) => None,
        Err(EvalError::CostLimit) => unreachable!("evaluated without a cost limit"),
    })
}

/// A random RFC 3339 text, valid or broken as Go's `time.Parse` sees
/// them: fractions, `,` before them, offsets (in and out of range), one
/// digit short, out-of-range fields, extra text.
fn timestamp_text(rng: &mut Rng) -> String {
    format!(
        "{}-{}-{}T{}:{}:{}{}{}{}",
        one(rng, &["2024", "0001", "9999", "1970", "202"]),
        one(rng, &["01", "02", "12", "13", "1"]),
        one(rng, &["01", "29", "30", "31", "00"]),
        one(rng, &["00", "03", "23", "24", "1"]),
        one(rng, &["00", "04", "59", "60"]),
        one(rng, &["00", "05", "59", "60"]),
        one(
            rng,
            &["", "", ".5", ",25", ".123456789", ".1234567891", "."]
        ),
        one(rng, &["Z", "Z", "Z", "+01:00", "+24:00", "+01:61", "z", ""]),
        one(rng, &["", "", "", " ", "x"]),
    )
}

/// A random timestamp expression: conversions of texts, accessors in
/// time zones given as offsets and names, arithmetic, `string()`.
fn time_expr(rng: &mut Rng) -> String {
    let ts = format!("timestamp('{}')", timestamp_text(rng));
    let accessor = one(
        rng,
        &[
            "getFullYear",
            "getMonth",
            "getDate",
            "getDayOfMonth",
            "getDayOfWeek",
            "getDayOfYear",
            "getHours",
            "getMinutes",
            "getSeconds",
            "getMilliseconds",
        ],
    );
    let zone = one(
        rng,
        &[
            "+05:30",
            "-08:00",
            "-00:30",
            "05:-30",
            "+14:00",
            "+x:00",
            "1:",
            "UTC",
            "",
            "../x",
            "/etc/zone",
            "+99999999999999999999:00",
        ],
    );
    match rng.below(4) {
        0 => ts,
        1 => format!("{ts}.{accessor}()"),
        2 => format!("{ts}.{accessor}('{zone}')"),
        _ => format!("string({ts} + duration('1.5s'))"),
    }
}

#[test]
fn evaluation_agrees_with_the_apiservers() {
    let cases: usize = std::env::var("KUBEGEN_CEL_EVAL_CASES").map_or(3000, |v| v.parse().unwrap());
    let seed: u64 = std::env::var("KUBEGEN_CEL_EVAL_SEED").map_or(42, |v| v.parse().unwrap());
    let mut rng = Rng::new(seed ^ 0xce1e);
    let mut exprs: Vec<String> = PICKED.iter().map(|s| s.to_string()).collect();
    for i in 0..cases {
        exprs.push(match i % 5 {
            0 => quantity_expr(&mut rng),
            1 => format_expr(&mut rng),
            2 => url_expr(&mut rng),
            3 => time_expr(&mut rng),
            _ => format_validation_expr(&mut rng),
        });
    }
    let lines: Vec<String> = exprs
        .iter()
        .map(|e| json!({"expr": e}).to_string())
        .collect();
    let answers = go_helper::run("cel", &["eval"], &lines);
    let (mut agreed, mut unsupported, mut not_compiled) = (0, 0, 0);
    let mut differences = Vec::new();
    for (expr, theirs) in exprs.iter().zip(&answers) {
        if theirs.get("compileError").is_some() {
            not_compiled += 1;
            if ours(expr).is_ok() {
                differences.push(format!("{expr}\n  go: {theirs}\n  kubegen checks it"));
            }
            continue;
        }
        match ours(expr) {
            Err(e) => differences.push(format!(
                "{expr}\n  go: {theirs}\n  kubegen does not check it: {e}"
            )),
            Ok(None) => unsupported += 1,
            Ok(Some(mine)) if &mine == theirs => agreed += 1,
            Ok(Some(mine)) => {
                differences.push(format!("{expr}\n  go:      {theirs}\n  kubegen: {mine}"))
            }
        }
    }
    println!(
        "{} expressions: {agreed} agree, {unsupported} unsupported by kubegen, {not_compiled} not compiled by the apiserver (nor checked by kubegen), {} differ",
        exprs.len(),
        differences.len()
    );
    differences::assert_none(&differences, 40);
}
