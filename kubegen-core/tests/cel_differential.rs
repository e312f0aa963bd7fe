//! Differential test of `kubegen_core::cel::parse` against the apiserver's
//! CEL parser: k8s.io/apiserver's base environment (cel-go with the
//! apiserver's options and macros), run by `go run ./tests/cel` from the Go
//! module proxy. Expressions are hand-picked edge cases, a seeded
//! generator's grammar-shaped expressions (every operator, literal form,
//! escape, macro and aggregate, with reserved names, bad escapes and
//! out-of-range numbers among them), the same expressions mutated at random
//! (characters and tokens inserted, dropped and swapped), and nesting
//! shapes on both sides of the apiserver's recursion limits.
//!
//! For each one kubegen must give the apiserver's verdict, and for an
//! accepted one the same tree: both sides print it as one S-expression
//! (see `tests/cel/main.go`; macros print as the calls they were written
//! as, `&&` and `||` flattened, cel-go balancing them). Error messages are
//! compared and counted but not asserted: kubegen words syntax errors its
//! own way (ANTLR lists every token it expected).
//!
//! Needs `go` (1.26) on `PATH`. `KUBEGEN_CEL_CASES` sets the number of
//! generated expressions (default 3,000), `KUBEGEN_CEL_SEED` the seed.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use kubegen_core::cel::sizes::Sizes;
use kubegen_core::cel::{
    Checked, Expr, ExprKind, Literal, Purpose, RuleError, Type, check_rule, cost, parse,
};
use kubegen_core::rng::Rng;
#[path = "support/differences.rs"]
mod differences;
#[path = "support/go_helper.rs"]
mod go_helper;

use serde_json::{Value, json};

/// Hand-picked expressions: each rule of the grammar, the lexer's
/// longest-match corners, literal limits, escapes, macros, reserved names.
const PICKED: &[&str] = &[
    "self.min <= self.max",
    "has(self.x) && self.x.matches('^[a-z]+$')",
    "self.all(x, x > 0)",
    "self == oldSelf",
    "self.?x.orValue(1) > 0",
    "quantity(self.q).isGreaterThan(quantity('1Gi'))",
    "size(self) <= 10 ? true : false",
    "1 +",
    "",
    " ",
    "// only a comment",
    "a // trailing comment",
    "-9223372036854775808",
    "--9223372036854775808",
    "- 9223372036854775808",
    "-(9223372036854775808)",
    "9223372036854775807",
    "0x7fffffffffffffff",
    "0x8000000000000000",
    "-0x8000000000000000",
    "0X10",
    "0x",
    "18446744073709551615u",
    "18446744073709551616u",
    "0xffffffffffffffffu",
    "-1u",
    "1.5",
    ".5",
    "1.",
    "1.e5",
    "1e5",
    "1e+5",
    "1e-5",
    "1e",
    "1e400",
    "-1e400",
    "1e-400",
    "1.5u",
    "1..2",
    "x.5",
    "[,]",
    "[1,]",
    "[1,,]",
    "[,1]",
    "{,}",
    "{1:2,}",
    "{1:2,,}",
    "a.b{}",
    "a.b{,}",
    ".a.b{c: 1}",
    "a{?b: 1}",
    "a{1: 2}",
    "if{}",
    "a.in{}",
    "`a`",
    "a.`b c`",
    "a{`b`: 1}",
    "self.?x",
    "self[?'x']",
    "[?x, ?y]",
    "{?'a': x}",
    "x.?y(1)",
    "x. ?y",
    "x[ ?y]",
    "if",
    "if(1)",
    "x.if",
    "x.if()",
    ".if",
    "as",
    "void",
    "namespace",
    "package.x",
    "in",
    "x in y",
    "x in y in z",
    "true.x",
    "x.true",
    "x.null",
    "null",
    "a ? b : c ? d : e",
    "a ? b ? c : d : e",
    "a ? (b ? c : d) : e",
    "a || b && c",
    "!a",
    "!!a",
    "!!!a",
    "!-1",
    "!-x",
    "-!x",
    "--x",
    "---x",
    "-1.x",
    "-1.5.x",
    "f(1,)",
    "f(,)",
    "f()",
    ".f()",
    "..f",
    "a..b",
    "has(a)",
    "has(a.b)",
    "has(a.b.c)",
    "has(a.?b)",
    "has(a[0])",
    "has(a, b)",
    "x.has(a)",
    ".has(a)",
    "l.all(x)",
    "l.all(x.y, true)",
    "l.all(1, true)",
    "l.all(.x, true)",
    "l.all(__result__, true)",
    "l.exists_one(x, x)",
    "l.existsOne(x, x)",
    "l.map(x, x * 2)",
    "l.map(x, x > 0, x * 2)",
    "l.map(1, 2)",
    "l.filter(x.y, true)",
    "m.all(k, v, k == v)",
    "m.all(k, k, true)",
    "m.all(k, __result__, true)",
    "m.exists(k, 1, true)",
    "l.transformList(i, v, v)",
    "l.transformList(i, v, i > 0, v)",
    "m.transformMap(k, v, v)",
    "m.transformMapEntry(k, v, {k: v})",
    "m.transformMapEntry(k, k, {k: v})",
    "o.optMap(v, v + 1)",
    "o.optMap(v.x, v)",
    "o.optFlatMap(1, v)",
    "l.sortBy(x, x)",
    "[3, 1].sortBy(x, x)",
    "1.sortBy(x, x)",
    "{}.sortBy(x, x)",
    "'a'.sortBy(x, x)",
    "x.y.sortBy(1, x)",
    "cel.bind(x, 1, x)",
    "'\\a\\b\\f\\n\\r\\t\\v\\\\\\'\\\"\\`\\?'",
    "'\\q'",
    "'\\x41\\X41\\101\\u0041\\U00000041'",
    "'\\xff'",
    "'\\377'",
    "'\\400'",
    "'\\uD800'",
    "'\\U00110000'",
    "'\\U0010FFFF'",
    "b'\\xff\\377'",
    "b'\\u0041'",
    "b'\\U00000041'",
    "b'é'",
    "'é'",
    "r'\\q'",
    "r'\\'",
    "R\"\\n\"",
    "br'\\x'",
    "Br'a'",
    "rb'a'",
    "'''a\nb'''",
    "\"\"\"a\"b\"\"\"",
    "'''a\\''''",
    "''''",
    "'''''''",
    "''''''",
    "'''",
    "'a\nb'",
    "'a\rb'",
    "r'''a\r\nb'''",
    "'''a\r\nb'''",
    "a # b",
    "a = b",
    "a & b",
    "a | b",
    "a ; b",
    "é",
    "a\u{b}b",
    "a\u{c}b",
    "x.f(1)(2)",
    "(x)(1)",
    "x[0][1]",
    "x[0].y",
    "x.y[0].z()",
    "a.b.c(d)",
    "a.b.c{d: e}",
    "1 < 2 < 3",
    "1 + 2 * 3 - 4 / 5 % 6",
    "a - -1",
    "a--1",
    "a - - 1",
    "(1) - 1",
    "int(1)",
    "string(b'a')",
    "dyn(1)",
    "type(1) == int",
    "timestamp('2020-01-01T00:00:00Z')",
    "duration('1s')",
    "url('http://x').getHost()",
];

/// Names an identifier, a call or a field takes.
const NAMES: &[&str] = &[
    "self", "oldSelf", "x", "y", "_a", "a1", "has", "size", "if", "as", "while", "var", "void",
    "Ident",
];

/// Receiver functions and macros.
const METHODS: &[&str] = &[
    "size",
    "all",
    "exists",
    "exists_one",
    "existsOne",
    "map",
    "filter",
    "optMap",
    "optFlatMap",
    "sortBy",
    "transformList",
    "transformMap",
    "transformMapEntry",
    "orValue",
    "matches",
    "has",
    "if",
];

/// Literals, valid and invalid.
const LITERALS: &[&str] = &[
    "0",
    "1",
    "-1",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "0x1F",
    "0xffffffffffffffff",
    "1u",
    "18446744073709551616u",
    "0x10u",
    "1.5",
    ".5",
    "1e3",
    "1e400",
    "2.5e-3",
    "true",
    "false",
    "null",
    "'a'",
    "\"b\"",
    "''",
    "'\\n\\t'",
    "'\\x41'",
    "'\\u00e9'",
    "'\\uDFFF'",
    "'\\U0001F600'",
    "'\\U00110000'",
    "'\\101'",
    "'\\q'",
    "'é'",
    "r'\\d'",
    "b'ab'",
    "b'\\xff'",
    "b'\\u0041'",
    "'''x\ny'''",
    "\"\"\"q\"\"\"",
];

const BINARY: &[&str] = &[
    "+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "in", "&&", "||",
];

/// Text a mutation inserts.
const NOISE: &[&str] = &[
    "(", ")", "[", "]", "{", "}", ".", ",", "?", ":", "!", "-", "+", "=", "&", "|", "'", "\"", "`",
    "\\", "#", " ", "\n", "0", "x", "in", "?.", ".?", "[?", "//", "é", "u", "e", "r", "b",
];

fn generate(rng: &mut Rng, depth: usize) -> String {
    let leaf = depth == 0 || rng.chance(1, 4);
    if leaf {
        return match rng.below(3) {
            0 => rng.pick(LITERALS).to_string(),
            1 => rng.pick(NAMES).to_string(),
            _ => format!(".{}", rng.pick(NAMES)),
        };
    }
    let d = depth - 1;
    let args = |rng: &mut Rng| {
        let n = rng.below(5);
        (0..n)
            .map(|_| {
                if rng.chance(1, 2) {
                    rng.pick(NAMES).to_string()
                } else {
                    generate(rng, d)
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    match rng.below(14) {
        0 => format!("{}.{}", generate(rng, d), rng.pick(NAMES)),
        1 => format!("{}.?{}", generate(rng, d), rng.pick(NAMES)),
        2 => {
            let target = generate(rng, d);
            let method = rng.pick(METHODS);
            format!("{target}.{method}({})", args(rng))
        }
        3 => {
            let name = rng.pick(NAMES);
            format!("{name}({})", args(rng))
        }
        4 => format!(
            "{}[{}{}]",
            generate(rng, d),
            if rng.chance(1, 4) { "?" } else { "" },
            generate(rng, d)
        ),
        5 => format!(
            "{}{}",
            rng.pick(&["!", "-", "!!", "--", "- "]),
            generate(rng, d)
        ),
        6 | 7 => format!(
            "{} {} {}",
            generate(rng, d),
            rng.pick(BINARY),
            generate(rng, d)
        ),
        8 => format!(
            "{} ? {} : {}",
            generate(rng, d),
            generate(rng, d),
            generate(rng, d)
        ),
        9 => format!("({})", generate(rng, d)),
        10 => {
            let n = rng.below(4);
            let items: Vec<String> = (0..n)
                .map(|_| {
                    format!(
                        "{}{}",
                        if rng.chance(1, 5) { "?" } else { "" },
                        generate(rng, d)
                    )
                })
                .collect();
            format!(
                "[{}{}]",
                items.join(", "),
                if rng.chance(1, 4) { "," } else { "" }
            )
        }
        11 => {
            let n = rng.below(3);
            let items: Vec<String> = (0..n)
                .map(|_| {
                    let opt = if rng.chance(1, 5) { "?" } else { "" };
                    format!("{opt}{}: {}", generate(rng, d), generate(rng, d))
                })
                .collect();
            format!(
                "{{{}{}}}",
                items.join(", "),
                if rng.chance(1, 4) { "," } else { "" }
            )
        }
        12 => {
            let n = rng.below(3);
            let items: Vec<String> = (0..n)
                .map(|_| {
                    let opt = if rng.chance(1, 5) { "?" } else { "" };
                    format!("{opt}{}: {}", rng.pick(NAMES), generate(rng, d))
                })
                .collect();
            format!(
                "{}.{}{{{}}}",
                rng.pick(NAMES),
                rng.pick(NAMES),
                items.join(", ")
            )
        }
        _ => format!("{} // c\n", generate(rng, d)),
    }
}

/// `src` with one to three random edits.
fn mutate(rng: &mut Rng, src: &str) -> String {
    let mut chars: Vec<char> = src.chars().collect();
    for _ in 0..1 + rng.below(3) {
        let at = rng.below(chars.len() + 1);
        match rng.below(3) {
            0 if at < chars.len() => {
                chars.remove(at);
            }
            1 if at + 1 < chars.len() => chars.swap(at, at + 1),
            _ => {
                for (k, c) in rng.pick(NOISE).chars().enumerate() {
                    chars.insert(at + k, c);
                }
            }
        }
    }
    chars.into_iter().collect()
}

/// Wrappers that nest an expression one level more, for the limit shapes.
const WRAPPERS: &[(&str, &str)] = &[
    ("(", ")"),
    ("", ".f"),
    ("", "[0]"),
    ("f(", ")"),
    ("", " + 1"),
    ("1 + ", ""),
    ("1 * ", ""),
    ("", " == 1"),
    ("c ? ", " : d"),
    ("c ? d : ", ""),
    ("[", "]"),
    ("{1: ", "}"),
    ("!", ""),
    ("-", ""),
    ("", ".m()"),
    ("x.m(", ")"),
    ("l.all(v, ", ")"),
    ("a && ", ""),
];

fn nested(open: &str, close: &str, n: usize) -> String {
    format!("{}x{}", open.repeat(n), close.repeat(n))
}

/// Shapes at and around the recursion limits: each wrapper alone, 240 to
/// 256 times, and seeded mixes of them.
fn limit_shapes(rng: &mut Rng) -> Vec<String> {
    let mut out = Vec::new();
    for (open, close) in WRAPPERS {
        for n in (120..=130).chain(240..=256) {
            out.push(nested(open, close, n));
        }
    }
    for n in [247, 248, 249, 250, 251] {
        out.push(vec!["1"; n + 1].join(" + "));
        out.push(vec!["1"; n + 1].join(" == "));
        out.push(format!("x{}", ".f".repeat(n)));
        out.push(format!("x{}", "[0]".repeat(n)));
        out.push(vec!["a"; n + 1].join(" && "));
    }
    for _ in 0..150 {
        let n = 60 + rng.below(260);
        let mut e = "x".to_string();
        for _ in 0..n {
            let (open, close) = rng.pick(WRAPPERS);
            e = format!("{open}{e}{close}");
        }
        out.push(e);
    }
    out
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// `e` printed as `tests/cel/main.go` prints cel-go's tree.
fn sexpr(e: &Expr, out: &mut String) {
    match &e.kind {
        ExprKind::Literal(l) => match l {
            Literal::Int(i) => write!(out, "i:{i}").unwrap(),
            Literal::Uint(u) => write!(out, "u:{u}").unwrap(),
            Literal::Double(d) => write!(out, "d:{:016x}", d.to_bits()).unwrap(),
            Literal::String(s) => write!(out, "s:{}", hex(s.as_bytes())).unwrap(),
            Literal::Bytes(b) => write!(out, "b:{}", hex(b)).unwrap(),
            Literal::Bool(b) => write!(out, "{b}").unwrap(),
            Literal::Null => out.push_str("null"),
        },
        ExprKind::Ident(n) => out.push_str(n),
        ExprKind::Select { operand, field } => {
            out.push_str("(. ");
            sexpr(operand, out);
            write!(out, " {field})").unwrap();
        }
        ExprKind::Call {
            function,
            target,
            args,
            is_macro,
        } => {
            let mut terms = Vec::new();
            if matches!(function.as_str(), "_&&_" | "_||_") && target.is_none() && !is_macro {
                flatten(function, e, &mut terms);
            } else {
                terms.extend(args.iter());
            }
            write!(out, "(call {function} ").unwrap();
            match target {
                Some(t) => sexpr(t, out),
                None => out.push('-'),
            }
            for a in terms {
                out.push(' ');
                sexpr(a, out);
            }
            out.push(')');
        }
        ExprKind::List(elements) => {
            out.push_str("(list");
            for el in elements {
                out.push(' ');
                if el.optional {
                    out.push('?');
                }
                sexpr(&el.value, out);
            }
            out.push(')');
        }
        ExprKind::Map(entries) => {
            out.push_str("(map");
            for en in entries {
                out.push_str(" (entry ");
                if en.optional {
                    out.push('?');
                }
                sexpr(&en.key, out);
                out.push(' ');
                sexpr(&en.value, out);
                out.push(')');
            }
            out.push(')');
        }
        ExprKind::Struct { name, fields } => {
            write!(out, "(struct {name}").unwrap();
            for f in fields {
                out.push_str(" (field ");
                if f.optional {
                    out.push('?');
                }
                write!(out, "{} ", f.name).unwrap();
                sexpr(&f.value, out);
                out.push(')');
            }
            out.push(')');
        }
    }
}

fn flatten<'e>(function: &str, e: &'e Expr, terms: &mut Vec<&'e Expr>) {
    if let ExprKind::Call {
        function: f,
        target: None,
        args,
        is_macro: false,
    } = &e.kind
        && f == function
    {
        for a in args {
            flatten(function, a, terms);
        }
        return;
    }
    terms.push(e);
}

/// The apiserver's answer for each expression.
fn apiserver(exprs: &[String]) -> Vec<Value> {
    let lines: Vec<String> = exprs
        .iter()
        .map(|e| serde_json::to_string(e).unwrap())
        .collect();
    go_helper::run("cel", &[], &lines)
}

#[test]
fn parser_agrees_with_the_apiserver() {
    let cases: usize = std::env::var("KUBEGEN_CEL_CASES").map_or(3000, |v| v.parse().unwrap());
    let seed: u64 = std::env::var("KUBEGEN_CEL_SEED").map_or(42, |v| v.parse().unwrap());
    let mut rng = Rng::new(seed);
    let mut exprs: Vec<String> = PICKED.iter().map(|s| s.to_string()).collect();
    for _ in 0..cases {
        let e = generate(&mut rng, 4);
        if rng.chance(1, 3) {
            exprs.push(mutate(&mut rng, &e));
        }
        exprs.push(e);
    }
    exprs.extend(limit_shapes(&mut rng));
    exprs.push(format!("'{}'", "a".repeat(99_998)));
    exprs.push(format!("'{}'", "a".repeat(99_999)));

    let answers = apiserver(&exprs);
    let mut differences = Vec::new();
    let short = |s: &str| -> String {
        let mut out: String = s.chars().take(160).collect();
        if out.len() < s.len() {
            out.push('…');
        }
        out
    };
    let (mut accepted, mut refused, mut same_message) = (0, 0, 0);
    for (src, answer) in exprs.iter().zip(&answers) {
        let ours = parse(src);
        match (&ours, answer.get("ast").and_then(Value::as_str)) {
            (Ok(e), Some(theirs)) => {
                accepted += 1;
                let mut mine = String::new();
                sexpr(e, &mut mine);
                if mine != theirs {
                    differences.push(format!(
                        "{:?}\n  kubegen:   {}\n  apiserver: {}",
                        short(src),
                        short(&mine),
                        short(theirs)
                    ));
                }
            }
            (Err(e), None) => {
                refused += 1;
                if answer["error"].as_str() == Some(e.message.as_str()) {
                    same_message += 1;
                }
            }
            (Ok(_), None) => differences.push(format!(
                "{:?}\n  kubegen accepts; apiserver: {}",
                short(src),
                answer["error"]
            )),
            (Err(e), Some(_)) => differences.push(format!(
                "{:?}\n  apiserver accepts; kubegen: {}",
                short(src),
                e.message
            )),
        }
    }
    eprintln!(
        "{} expressions: {accepted} accepted and {refused} refused by both ({same_message} with the same message), {} differences",
        exprs.len(),
        differences.len()
    );
    differences::assert_none(&differences, 30);
    assert!(
        accepted > exprs.len() / 5 && refused > exprs.len() / 5,
        "the cases exercise both verdicts"
    );
}

/// The function table kubegen checks calls against is the apiserver's
/// environment's, overload for overload.
#[test]
fn function_table_is_the_apiservers() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cel");
    let out = Command::new("go")
        .args(["run", ".", "functions"])
        .current_dir(&dir)
        .output()
        .expect("`go` on PATH");
    assert!(out.status.success());
    let theirs: Value = serde_json::from_slice(&out.stdout).unwrap();
    let ours: Value = serde_json::from_str(kubegen_core::cel::functions::TABLE).unwrap();
    assert!(
        ours == theirs,
        "src/cel/functions.json is stale: regenerate it with `(cd kubegen-core/tests/cel && go run . functions) > kubegen-core/src/cel/functions.json`"
    );
}

/// A seeded schema: an object with fields of every kind the apiserver
/// declares a CEL type for, nested once.
fn gen_schema(rng: &mut Rng, depth: usize) -> Value {
    let scalar = |rng: &mut Rng| match rng.below(10) {
        0 => json!({"type": "integer"}),
        1 => json!({"type": "number"}),
        2 => json!({"type": "boolean"}),
        3 => json!({"type": "string", "format": "duration"}),
        4 => json!({"type": "string", "format": "date-time"}),
        5 => json!({"type": "string", "format": "byte"}),
        6 => json!({"x-kubernetes-int-or-string": true}),
        7 => json!({"type": "string", "maxLength": 64}),
        8 => json!({"type": "string", "enum": ["a", "bcd"]}),
        _ => json!({"type": "string"}),
    };
    let mut props = serde_json::Map::new();
    for name in FIELDS.iter().take(2 + rng.below(FIELDS.len() - 1)) {
        let s = match rng.below(if depth == 0 { 7 } else { 10 }) {
            0..=3 => scalar(rng),
            4 => json!({"type": "array", "maxItems": 10, "items": scalar(rng)}),
            6 => json!({"type": "array", "items": scalar(rng)}),
            5 => {
                json!({"type": "object", "maxProperties": 10, "additionalProperties": scalar(rng)})
            }
            7 => json!({"type": "array", "maxItems": 5, "items": gen_schema(rng, depth - 1)}),
            8 => json!({"type": "object", "additionalProperties": gen_schema(rng, depth - 1)}),
            _ => gen_schema(rng, depth - 1),
        };
        props.insert((*name).to_string(), s);
    }
    // Required fields make an object's smallest serialization, and with it
    // the estimated count of unbounded lists and maps of it, larger.
    let required: Vec<String> = props.keys().filter(|_| rng.chance(1, 3)).cloned().collect();
    let mut schema = json!({"type": "object", "properties": props});
    if !required.is_empty() {
        schema["required"] = json!(required);
    }
    schema
}

/// `messageExpression`s through the strings library's `format`, whose
/// literal format string the apiserver checks against the arguments.
const FORMATS: &[&str] = &[
    "'%s is bad'.format([P])",
    "'%v is bad'.format([P])",
    "'%d items'.format([P])",
    "'%.2f%%'.format([P])",
    "'%e'.format([P])",
    "'%x %X %o %b'.format([P, P, P, P])",
    "'%s and %s'.format([P])",
    "'%s'.format([P, 1])",
    "'%s: %d'.format(['x', P])",
    "'%s'.format([[P, 'a'], {'k': P}])",
    "'%.f'.format([P])",
    "'%.3'.format([P])",
    "'trailing %'.format([P])",
    "'%5d'.format([P])",
    "'%%s'.format([])",
];

/// Field names, one CEL reserves.
const FIELDS: &[&str] = &[
    "replicas", "name", "items", "spec", "ttl", "in", "port", "labels",
];

/// Typed paths below `self` into `schema`: (CEL path, the schema there).
fn paths(schema: &Value, at: &str, out: &mut Vec<(String, Value)>, depth: usize) {
    out.push((at.to_string(), schema.clone()));
    if depth == 0 {
        return;
    }
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for (name, sub) in props {
            let escaped = kubegen_core::schema::cel::escape(name).unwrap_or_else(|| name.clone());
            paths(sub, &format!("{at}.{escaped}"), out, depth - 1);
        }
    }
    if let Some(items) = schema.get("items") {
        paths(items, &format!("{at}[0]"), out, depth - 1);
    }
    if let Some(values) = schema.get("additionalProperties") {
        paths(values, &format!("{at}['k']"), out, depth - 1);
    }
}

/// A seeded rule over `paths`: mostly well-typed shapes with the mistakes
/// users make (typos, wrong operand types, non-bool bodies, calls on the
/// wrong type).
fn gen_rule(rng: &mut Rng, paths: &[(String, Value)], depth: usize) -> String {
    let path = |rng: &mut Rng| rng.pick(paths).0.clone();
    let leaf = |rng: &mut Rng| match rng.below(12) {
        0 => "1".to_string(),
        1 => "2u".to_string(),
        2 => "1.5".to_string(),
        3 => "'a'".to_string(),
        4 => "b'a'".to_string(),
        5 => "true".to_string(),
        6 => "null".to_string(),
        7 => "duration('1s')".to_string(),
        8 => "timestamp('2024-01-01T00:00:00Z')".to_string(),
        9 => "[1, 2]".to_string(),
        10 => "{'a': 1}".to_string(),
        _ => "[]".to_string(),
    };
    if depth == 0 {
        return if rng.chance(2, 3) {
            path(rng)
        } else {
            leaf(rng)
        };
    }
    let d = depth - 1;
    match rng.below(16) {
        0 => format!("{}.replica", path(rng)),
        1 => format!("has({})", {
            let p = path(rng);
            if p.contains('.') && !p.ends_with(']') {
                p
            } else {
                format!("{p}.x")
            }
        }),
        2..=4 => format!(
            "{} {} {}",
            gen_rule(rng, paths, d),
            rng.pick(BINARY),
            gen_rule(rng, paths, d)
        ),
        5 => format!("{}.size()", gen_rule(rng, paths, d)),
        6 => format!(
            "{}.{}",
            gen_rule(rng, paths, d),
            rng.pick(&[
                "startsWith('a')",
                "contains('a')",
                "matches('^a')",
                "lowerAscii()",
                "split(',')",
                "isSorted()",
                "sum()",
                "indexOf('a')",
                "getHours()",
                "orValue(1)",
                "hasValue()"
            ])
        ),
        7 => format!(
            "{}.{}(x, {})",
            path(rng),
            rng.pick(&["all", "exists", "exists_one", "map", "filter"]),
            gen_rule(rng, &[("x".to_string(), json!({}))], d)
        ),
        8 => format!(
            "{}.all(k, v, {})",
            path(rng),
            gen_rule(rng, &[("k".into(), json!({})), ("v".into(), json!({}))], d)
        ),
        9 => format!(
            "{} ? {} : {}",
            gen_rule(rng, paths, d),
            gen_rule(rng, paths, d),
            gen_rule(rng, paths, d)
        ),
        10 => format!(
            "{}(self.{})",
            rng.pick(&[
                "int", "string", "double", "size", "quantity", "url", "ip", "cidr", "isURL", "dyn",
                "type"
            ]),
            rng.pick(FIELDS)
        ),
        11 => format!("self.?{}.orValue({})", rng.pick(FIELDS), leaf(rng)),
        12 => format!("{}[{}]", path(rng), leaf(rng)),
        13 => format!("[{}, {}]", gen_rule(rng, paths, d), gen_rule(rng, paths, d)),
        14 => format!("!{}", gen_rule(rng, paths, d)),
        _ => format!("sets.contains({}, {})", path(rng), gen_rule(rng, paths, d)),
    }
}

/// `text` with the digits after each `prefix` removed: the apiserver names
/// the type of `self` `selfType<nanoseconds>`, and numbers free type
/// variables (`_var0`) in an order kubegen does not reproduce.
fn strip_numbers(text: &str, prefix: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find(prefix) {
        out.push_str(&rest[..i + prefix.len()]);
        rest = rest[i + prefix.len()..].trim_start_matches(|c: char| c.is_ascii_digit());
    }
    out + rest
}

/// A rule meant to be well typed: a boolean about one path, chosen by the
/// schema there (with the occasional slip a user makes).
fn gen_typed(rng: &mut Rng, paths: &[(String, Value)]) -> String {
    let (p, schema) = rng.pick(paths).clone();
    let kind = schema.get("type").and_then(Value::as_str).unwrap_or("");
    let format = schema.get("format").and_then(Value::as_str).unwrap_or("");
    let int_or_string = schema.get("x-kubernetes-int-or-string").is_some();
    let choices: &[&str] = match (kind, format) {
        _ if int_or_string => &[
            "P == 1",
            "P == 'a'",
            "string(P).size() > 0",
            "type(P) == int",
        ],
        ("integer", _) => &[
            "P > 0",
            "P % 2 == 0",
            "P <= 10 && P >= -1",
            "P == 1.0",
            "double(P) < 2.5",
            "P in [1, 2]",
        ],
        ("number", _) => &[
            "P > 0.5",
            "P < 1",
            "int(P) == 1",
            "P + 1.0 < 3.0",
            "math.ceil(P) > 0.0",
        ],
        ("boolean", _) => &["P", "!P", "P == true", "P || false"],
        ("string", "duration") => &[
            "P > duration('1s')",
            "P.getSeconds() < 60",
            "P == duration('1h30m')",
            "P < duration('1x')",
        ],
        ("string", "date-time") => &[
            "P < timestamp('2030-01-01T00:00:00Z')",
            "P.getFullYear() > 2000",
            "P + duration('1h') > P",
            "P > timestamp('2024-02-30T00:00:00Z')",
        ],
        ("string", "byte") => &["P.size() > 0", "P == b'abc'", "string(P).size() < 5"],
        ("string", _) => &[
            "P.size() <= 10",
            "P.startsWith('a')",
            "P.matches('^[a-z]+$')",
            "P.lowerAscii() == P",
            "P.split('-').size() > 1",
            "P in ['a', 'b']",
            "isURL(P)",
            "P.indexOf('x') >= 0",
            "quantity(P).isGreaterThan(quantity('1'))",
            "P.substring(1) != ''",
            "P != null",
            "P.replace('a', 'bb').size() > 0",
            "P.replace('', P).size() > 0",
            "P.split(',').all(s, s.size() < 3)",
            "P.split(',', 3).size() <= 3",
            "P.find('[a-z]+') != ''",
            "P.findAll('a').size() > 0",
            "P.matches(P)",
            "P.contains(P)",
            "P + P != ''",
            "P.trim().upperAscii() == P",
            "P.charAt(0) == 'a'",
            "P < 'm'",
            "P.endsWith(P)",
            "bytes(P).size() > 0",
            "url(P).getHost() == 'x'",
            "isIP(P) && ip(P).family() == 4",
            "cidr(P).containsIP(P)",
            "cidr(P).containsCIDR(P)",
            "ip.isCanonical(P)",
            "isQuantity(P) && quantity(P) == quantity('1')",
            "isSemver(P) && semver(P).major() == 1",
            "format.dns1123Label().validate(P).hasValue()",
            "strings.quote(P) != ''",
            "[P].join('-') == P",
            "{P: 1}.size() == 1",
            "P.lowerAscii().split('.').exists(s, s == 'a')",
            "url(P) == url(P)",
            "self.?name.optMap(n, n.size()).orValue(0) >= 0",
            "'%s'.format([P]) != ''",
        ],
        ("array", _) => &[
            "P.size() <= 5",
            "P.all(x, x != null)",
            "P.exists(x, x == P[0])",
            "size(P) == 0 || has(P[0].x)",
            "P.map(x, 1).size() >= 0",
            "P.filter(x, true) == P",
            "P.isSorted()",
            "P.all(i, v, i >= 0)",
            "sets.contains(P, P)",
            "P.all(x, P.exists(y, y == x))",
            "P.exists_one(x, x == P[0])",
            "P.map(x, P.filter(y, y == x).size()).sum() >= 0",
            "P.distinct().size() >= 0",
            "P.reverse().size() == P.size()",
            "P.slice(0, 1).size() >= 0",
            "P.transformList(i, v, v).size() >= 0",
            "P.join(',') != ''",
            "P.sortBy(x, x).size() >= 0",
            "P.sort() == P",
            "[P, P].flatten().size() >= 0",
            "P.min() == P[0] || P.max() == P[0]",
            "P.lastIndexOf(P[0]) >= 0",
            "sets.equivalent(P, P) && sets.intersects(P, P)",
            "P + P == P",
            "P[0] in P",
            "lists.range(3).size() == 3",
            "P.first().hasValue()",
        ],
        ("object", _) if schema.get("additionalProperties").is_some() => &[
            "P.size() < 3",
            "P.all(k, k.size() > 0)",
            "'a' in P",
            "P.exists(k, v, k == 'a')",
            "P.?a.hasValue()",
        ],
        ("object", _) => &[
            "has(P.replicas)",
            "P == P",
            "has(P.name) || has(P.spec)",
            "P.?name.hasValue()",
            "P != null",
        ],
        _ => &["P == P"],
    };
    rng.pick(choices).replace('P', &p)
}

/// kubegen's checker gives the apiserver's verdict, and the apiserver's
/// message, on seeded schemas and rules, a quarter of them with a
/// `messageExpression` (`KUBEGEN_CEL_CASES` / 10 schemas of 20 rules
/// each).
#[test]
fn checker_agrees_with_the_apiserver() {
    let cases: usize = std::env::var("KUBEGEN_CEL_CASES").map_or(3000, |v| v.parse().unwrap());
    let seed: u64 = std::env::var("KUBEGEN_CEL_SEED").map_or(42, |v| v.parse().unwrap());
    let mut rng = Rng::new(seed ^ 0xce1);
    let mut schemas = Vec::new();
    for _ in 0..cases.div_ceil(200).max(3) * 10 {
        let mut schema = gen_schema(&mut rng, 2);
        let mut ps = Vec::new();
        paths(&schema, "self", &mut ps, 3);
        let rules: Vec<Value> = (0..20)
            .map(|_| {
                let rule = match rng.below(4) {
                    0 => gen_rule(&mut rng, &ps, 2),
                    1 => format!(
                        "{} {} {}",
                        gen_typed(&mut rng, &ps),
                        rng.pick(&["&&", "||"]),
                        gen_typed(&mut rng, &ps)
                    ),
                    _ => gen_typed(&mut rng, &ps),
                };
                if rng.chance(1, 4) {
                    let path = rng.pick(&ps).0.clone();
                    let message = match rng.below(6) {
                        0 => format!("'bad: ' + string({path})"),
                        1 => rng.pick(FORMATS).replace('P', &path),
                        2 => path,
                        3 => format!("{path}.size() > 0 ? 'long' : 'short'"),
                        4 => format!("'value ' + {path}"),
                        _ => rng.pick(FORMATS).replace('P', &path),
                    };
                    json!({"rule": rule, "messageExpression": message})
                } else {
                    json!({"rule": rule})
                }
            })
            .collect();
        schema["x-kubernetes-validations"] = Value::Array(rules);
        schemas.push(schema);
    }
    let lines: Vec<String> = schemas.iter().map(|s| s.to_string()).collect();
    let answers = go_helper::run("cel", &["compile"], &lines);
    let normalize = |m: &str| -> String {
        let first = m.lines().next().unwrap_or("");
        let first = first
            .strip_prefix("compilation failed: ")
            .or_else(|| first.strip_prefix("messageExpression compilation failed: "))
            .unwrap_or(first);
        let first = match first.strip_prefix("ERROR: <input>:") {
            Some(rest) => rest
                .splitn(3, ':')
                .nth(2)
                .unwrap_or("")
                .trim_start()
                .to_string(),
            None => first.to_string(),
        };
        strip_numbers(&strip_numbers(&first, "selfType"), "_var")
    };
    let (mut accepted, mut refused, mut same_message, mut same_cost) = (0, 0, 0, 0);
    let mut over_budget = 0;
    let mut differences = Vec::new();
    for (schema, answer) in schemas.iter().zip(&answers) {
        let Some(results) = answer["results"].as_array() else {
            panic!("the apiserver refused a generated schema: {answer}");
        };
        let self_type = Type::of_schema(schema, "selfType", false).unwrap();
        let sizes = Sizes::of_schema(schema, false).unwrap();
        for (entry, theirs) in schema["x-kubernetes-validations"]
            .as_array()
            .unwrap()
            .iter()
            .zip(results)
        {
            let rule = entry["rule"].as_str().unwrap();
            let message = entry.get("messageExpression").and_then(Value::as_str);
            let cost_of = |c: Checked| cost::estimate(&c.tree, &sizes).estimate.max;
            let ours = check_rule(rule, &self_type, false, Purpose::Rule, |_| true).and_then(|c| {
                let rule_cost = cost_of(c);
                let message_cost = match message {
                    Some(m) => cost_of(check_rule(m, &self_type, false, Purpose::Message, |_| {
                        true
                    })?),
                    None => 0,
                };
                Ok((rule_cost, message_cost))
            });
            match (&ours, theirs.get("error").and_then(Value::as_str)) {
                (Ok((rule_cost, message_cost)), None) => {
                    accepted += 1;
                    let theirs = (
                        theirs["cost"].as_u64().unwrap(),
                        theirs["messageCost"].as_u64().unwrap(),
                        theirs["cardinality"].as_u64().unwrap(),
                    );
                    let ours = (*rule_cost, *message_cost, sizes.max_cardinality());
                    if ours == theirs {
                        same_cost += 1;
                        if rule_cost.saturating_mul(ours.2) > cost::PER_EXPRESSION_LIMIT {
                            over_budget += 1;
                        }
                    } else {
                        differences.push(format!(
                            "{rule} / {message:?}\n  cost, message cost, cardinality: kubegen {ours:?}, apiserver {theirs:?}"
                        ));
                    }
                }
                (Err(e), Some(m)) => {
                    refused += 1;
                    // Syntax errors are worded by ANTLR; kubegen words its own.
                    if normalize(m) == strip_numbers(e.message(), "_var")
                        || m.contains("Syntax error:")
                    {
                        same_message += 1;
                    } else {
                        differences.push(format!(
                            "{rule}\n  kubegen:   {}\n  apiserver: {}",
                            e.message(),
                            normalize(m)
                        ));
                    }
                }
                (Ok(_), Some(m)) => differences.push(format!(
                    "{rule}\n  kubegen accepts; apiserver: {}",
                    normalize(m)
                )),
                (Err(e), None) => differences.push(format!(
                    "{rule}\n  apiserver accepts; kubegen: {}",
                    e.message()
                )),
            }
        }
    }
    eprintln!(
        "{} rules on {} schemas: {accepted} accepted ({same_cost} with the same estimated cost, {over_budget} of them over the budget) and {refused} refused by both ({same_message} with the same message), {} differences",
        accepted + refused + differences.len(),
        schemas.len(),
        differences.len()
    );
    differences::assert_none(&differences, 40);
}

/// `schema` with rules attached at some of its nodes (each checked
/// against that node's own type), and messages to some of them.
fn attach_rules(rng: &mut Rng, schema: &mut Value, at_root: bool) {
    if let Some(props) = schema.get_mut("properties").and_then(Value::as_object_mut) {
        for sub in props.values_mut() {
            attach_rules(rng, sub, false);
        }
    }
    for key in ["items", "additionalProperties"] {
        if let Some(sub) = schema.get_mut(key).filter(|v| v.is_object()) {
            attach_rules(rng, sub, false);
        }
    }
    if !at_root && !rng.chance(1, 3) {
        return;
    }
    let mut paths_here = Vec::new();
    paths(schema, "self", &mut paths_here, 2);
    let mut rules: Vec<Value> = Vec::new();
    for _ in 0..1 + rng.below(3) {
        let rule = gen_typed(rng, &paths_here);
        if rules.iter().any(|r| r["rule"] == rule.as_str()) {
            continue;
        }
        rules.push(if rng.chance(1, 4) {
            json!({"rule": rule, "messageExpression": "'bad: ' + string(self)"})
        } else {
            json!({"rule": rule})
        });
    }
    schema["x-kubernetes-validations"] = Value::Array(rules);
}

/// A schema path (`.a[*].b`) and a rule's place in it, from an apiserver
/// field path (`spec.validation.openAPIV3Schema.properties[a].items
/// .properties[b].x-kubernetes-validations[0].rule`).
fn schema_place(field: &str) -> String {
    let mut rest = field
        .strip_prefix("spec.validation.openAPIV3Schema")
        .unwrap_or(field);
    let mut out = String::new();
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix(".properties[") {
            let end = r.find(']').unwrap();
            out.push('.');
            out.push_str(&r[..end]);
            rest = &r[end + 1..];
        } else if let Some(r) = rest.strip_prefix(".items") {
            out.push_str("[*]");
            rest = r;
        } else if let Some(r) = rest.strip_prefix(".additionalProperties") {
            out.push_str("[*]");
            rest = r;
        } else {
            out.push(' ');
            out.push_str(rest.trim_start_matches('.'));
            break;
        }
    }
    out
}

/// The verdict of `ValidateCustomResourceDefinition` on CRDs whose rules
/// sit at every level — under bounded and unbounded lists and maps, so
/// that each rule's cost is multiplied by how often it can run — equals
/// kubegen's `check_schema`: the same rules refused for their cost, the
/// same schemas over the CRD's total budget with the same rules named, the
/// same rules refused for their types (`KUBEGEN_CEL_CASES` / 20 CRDs).
#[test]
fn crd_verdicts_agree_with_the_apiserver() {
    let cases: usize = std::env::var("KUBEGEN_CEL_CASES").map_or(3000, |v| v.parse().unwrap());
    let seed: u64 = std::env::var("KUBEGEN_CEL_SEED").map_or(42, |v| v.parse().unwrap());
    let mut rng = Rng::new(seed ^ 0xc7d);
    let schemas: Vec<Value> = (0..cases / 20)
        .map(|_| {
            let mut s = gen_schema(&mut rng, 3);
            attach_rules(&mut rng, &mut s, true);
            s
        })
        .collect();
    let lines: Vec<String> = schemas.iter().map(|s| s.to_string()).collect();
    let answers = go_helper::run("cel", &["crd"], &lines);
    let (mut agreed, mut refused_for_cost, mut over_total, mut rules) = (0, 0, 0, 0);
    let mut differences = Vec::new();
    for (schema, answer) in schemas.iter().zip(&answers) {
        let mut theirs: Vec<String> = answer["errors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                let detail = e["detail"].as_str().unwrap();
                let kind = if detail.starts_with("contributed to") {
                    "contributed"
                } else if detail.contains("exceeds budget") {
                    "cost"
                } else {
                    "refused"
                };
                format!("{}: {kind}", schema_place(e["field"].as_str().unwrap()))
            })
            .collect();
        let mut ours = Vec::new();
        for p in kubegen_core::cel::check_schema(schema, true, |_| true) {
            let node = pointer(schema, &p.path);
            let index = node["x-kubernetes-validations"]
                .as_array()
                .and_then(|rs| rs.iter().position(|r| r["rule"] == p.rule.as_str()));
            let which = if p.expression == p.rule {
                "rule"
            } else {
                "messageExpression"
            };
            let place = |path: &str, i: Option<usize>, which: &str| {
                format!(
                    "{path} x-kubernetes-validations[{}].{which}",
                    i.unwrap_or(99)
                )
            };
            match &p.error {
                RuleError::Cost { .. } => {
                    ours.push(format!("{}: cost", place(&p.path, index, which)));
                }
                RuleError::TotalCost { most_expensive, .. } => {
                    ours.push(": cost".to_string());
                    for (path, rule, expression) in most_expensive {
                        let node = pointer(schema, path);
                        let i = node["x-kubernetes-validations"]
                            .as_array()
                            .and_then(|rs| rs.iter().position(|r| r["rule"] == rule.as_str()));
                        let which = if expression == rule {
                            "rule"
                        } else {
                            "messageExpression"
                        };
                        ours.push(format!("{}: contributed", place(path, i, which)));
                    }
                }
                _ => ours.push(format!("{}: refused", place(&p.path, index, which))),
            }
        }
        rules += count_rules(schema);
        // Which of equally expensive expressions the apiserver names as
        // contributing depends on Go's map order: compare their costs.
        let costs = kubegen_core::cel::rules::costs(schema, true, |_| true);
        let contributed = |list: &mut Vec<String>| -> Vec<u64> {
            let mut found: Vec<u64> = list
                .iter()
                .filter_map(|place| place.strip_suffix(": contributed"))
                .map(|place| {
                    costs
                        .iter()
                        .find(|c| {
                            let node = pointer(schema, &c.path);
                            let i = node["x-kubernetes-validations"]
                                .as_array()
                                .and_then(|rs| rs.iter().position(|r| r["rule"] == c.rule.as_str()))
                                .unwrap_or(99);
                            let which = if c.expression == c.rule {
                                "rule"
                            } else {
                                "messageExpression"
                            };
                            format!("{} x-kubernetes-validations[{i}].{which}", c.path) == place
                        })
                        .map_or(0, |c| c.cost)
                })
                .collect();
            list.retain(|place| !place.ends_with(": contributed"));
            found.sort();
            found
        };
        let (their_top, our_top) = (contributed(&mut theirs), contributed(&mut ours));
        theirs.sort();
        ours.sort();
        if theirs == ours && their_top == our_top {
            agreed += 1;
            refused_for_cost += ours.iter().filter(|o| o.ends_with(": cost")).count();
            over_total += usize::from(ours.iter().any(|o| o == ": cost"));
        } else {
            differences.push(format!(
                "{schema}\n  kubegen:   {ours:?} {our_top:?}\n  apiserver: {theirs:?} {their_top:?}"
            ));
        }
    }
    eprintln!(
        "{} CRDs with {rules} rules: {agreed} with the same verdict ({refused_for_cost} rules refused for their cost, {over_total} CRDs over the total budget), {} differences",
        schemas.len(),
        differences.len()
    );
    differences::assert_none(&differences, 10);
}

/// The schema node at `path` (`.a[*].b`).
fn pointer<'a>(schema: &'a Value, path: &str) -> &'a Value {
    let mut node = schema;
    let mut rest = path;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("[*]") {
            node = node
                .get("items")
                .unwrap_or_else(|| &node["additionalProperties"]);
            rest = r;
        } else {
            let r = &rest[1..];
            let end = r.find(['.', '[']).unwrap_or(r.len());
            node = &node["properties"][&r[..end]];
            rest = &r[end..];
        }
    }
    node
}

fn count_rules(schema: &Value) -> usize {
    let here = schema["x-kubernetes-validations"]
        .as_array()
        .map_or(0, Vec::len);
    let below: usize = ["items", "additionalProperties"]
        .iter()
        .filter_map(|k| schema.get(*k))
        .chain(
            schema
                .get("properties")
                .and_then(Value::as_object)
                .into_iter()
                .flat_map(|p| p.values()),
        )
        .map(count_rules)
        .sum();
    here + below
}
