use super::*;

/// `e` as a compact S-expression: operators and calls by name, literals
/// by value.
fn show(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Literal(Literal::Int(i)) => i.to_string(),
        ExprKind::Literal(Literal::Uint(u)) => format!("{u}u"),
        ExprKind::Literal(Literal::Double(d)) => format!("{d:?}"),
        ExprKind::Literal(Literal::String(s)) => format!("{s:?}"),
        ExprKind::Literal(Literal::Bytes(b)) => format!("b{b:?}"),
        ExprKind::Literal(Literal::Bool(b)) => b.to_string(),
        ExprKind::Literal(Literal::Null) => "null".into(),
        ExprKind::Ident(n) => n.clone(),
        ExprKind::Select { operand, field } => format!("{}.{field}", show(operand)),
        ExprKind::Call {
            function,
            target,
            args,
            ..
        } => {
            let mut parts: Vec<String> = target.iter().map(|t| show(t)).collect();
            parts.extend(args.iter().map(show));
            format!("({function} {})", parts.join(" "))
        }
        ExprKind::List(els) => format!(
            "[{}]",
            els.iter()
                .map(|e| show(&e.value))
                .collect::<Vec<_>>()
                .join(" ")
        ),
        ExprKind::Map(en) => format!("{{{}}}", en.len()),
        ExprKind::Struct { name, fields } => format!("{name}{{{}}}", fields.len()),
    }
}

fn ok(src: &str) -> String {
    show(&parse(src).unwrap_or_else(|e| panic!("{src}: {e:?}")))
}

fn err(src: &str) -> String {
    parse(src).expect_err(src).message
}

#[test]
fn precedence_and_associativity() {
    assert_eq!(ok("a + b * c - d"), "(_-_ (_+_ a (_*_ b c)) d)");
    assert_eq!(ok("a < b == c in d"), "(@in (_==_ (_<_ a b) c) d)");
    assert_eq!(
        ok("a || b && c ? d : e ? f : g"),
        "(_?_:_ (_||_ a (_&&_ b c)) d (_?_:_ e f g))"
    );
    assert_eq!(ok("!!a"), "a");
    assert_eq!(ok("!!!a.b"), "(!_ a.b)");
    assert_eq!(ok("--a"), "a");
    assert_eq!(ok("a - -1"), "(_-_ a -1)");
    assert_eq!(ok("-1.x"), "-1.x");
    assert_eq!(ok("1.e5"), "1.e5");
    assert_eq!(ok("-9223372036854775808"), "-9223372036854775808");
}

#[test]
fn members_names_and_aggregates() {
    assert_eq!(ok("a.b.c(1)[2]"), "(_[_] (c a.b 1) 2)");
    assert_eq!(ok("self.?x.orValue(1)"), "(orValue (_?._ self \"x\") 1)");
    assert_eq!(ok("m[?'k']"), "(_[?_] m \"k\")");
    assert_eq!(ok(".f(x)"), "(.f x)");
    assert_eq!(ok("a.b{c: 1, ?d: 2,}"), "a.b{2}");
    assert_eq!(ok("[1, ?x,]"), "[1 x]");
    assert_eq!(ok("[,]"), "[]");
    assert_eq!(ok("{1: 2, ?3: 4}"), "{2}");
    assert_eq!(ok("x.if(1)"), "(if x 1)");
}

#[test]
fn literals_decode_as_cel_go_does() {
    assert_eq!(ok(r"'\x41\101\u0041\U00000041'"), "\"AAAA\"");
    assert_eq!(ok(r"'\xff'"), "\"ÿ\"");
    assert_eq!(ok(r"b'\xff\377'"), "b[255, 255]");
    assert_eq!(ok(r"r'\n'"), "\"\\\\n\"");
    assert_eq!(ok("'''a\r\nb'''"), "\"a\\nb\"");
    assert_eq!(ok("0x10u"), "16u");
    assert_eq!(ok("-0x8000000000000000"), "-9223372036854775808");
    assert_eq!(err("9223372036854775808"), "invalid int literal");
    assert_eq!(err("--9223372036854775808"), "invalid int literal");
    assert_eq!(err("18446744073709551616u"), "invalid uint literal");
    assert_eq!(err("1e400"), "invalid double literal");
    assert_eq!(err(r"b'\u0041'"), "unable to unescape string");
    assert_eq!(err(r"'\uD800'"), "invalid unicode code point");
}

#[test]
fn macros_check_their_arguments() {
    assert_eq!(err("has(a)"), "invalid argument to has() macro");
    assert_eq!(err("has(a.?b)"), "invalid argument to has() macro");
    assert_eq!(err("l.all(x.y, true)"), "argument must be a simple name");
    assert_eq!(err("l.map(1, 2)"), "argument is not an identifier");
    assert_eq!(
        err("l.all(__result__, true)"),
        "iteration variable overwrites accumulator variable"
    );
    // `existsOne` is a macro with three arguments only in the apiserver's
    // environment.
    assert_eq!(ok("l.existsOne(1, 2)"), "(existsOne l 1 2)");
    assert_eq!(err("m.all(k, k, true)"), "duplicate variable name: k");
    assert_eq!(
        err("o.optMap(1, 2)"),
        "optMap() variable name must be a simple identifier"
    );
    assert!(err("1.sortBy(x, x)").starts_with("sortBy can only be applied"));
    // The wrong number of arguments makes a call, not a macro.
    assert_eq!(ok("l.all(x)"), "(all l x)");
    assert_eq!(ok("has(a, b)"), "(has a b)");
}

#[test]
fn refusals() {
    for (src, says) in [
        ("", "unexpected the end"),
        ("a +", "unexpected the end"),
        ("if", "reserved identifier: if"),
        ("while(1)", "reserved identifier: while"),
        ("a.`b`", "unsupported syntax: '`'"),
        ("a ? b ? c : d : e", "expecting ':'"),
        ("f(1,)", "unexpected ')'"),
        ("!-x", "unexpected '-'"),
        ("a = b", "token recognition error at: '='"),
        ("x.?y(1)", "unexpected '('"),
    ] {
        let e = err(src);
        assert!(e.contains(says), "{src:?}: {e}");
    }
}

#[test]
fn nesting_limits_count_as_the_apiserver_does() {
    let parens = |n: usize| format!("{}x{}", "(".repeat(n), ")".repeat(n));
    assert!(parse(&parens(249)).is_ok());
    assert!(parse(&parens(250)).is_err_and(|e| e.message.contains("recursion limit")));
    let sum = |n: usize| vec!["1"; n + 1].join(" + ");
    assert!(parse(&sum(250)).is_ok());
    assert!(parse(&sum(251)).is_err_and(|e| e.message == "max recursion depth exceeded"));
    let long = format!("'{}'", "a".repeat(MAX_CODE_POINTS));
    assert!(parse(&long).is_err_and(|e| e.message.contains("code point size exceeds limit")));
}

#[test]
fn errors_know_their_line_and_column() {
    let src = "a &&\n  b +";
    let e = parse(src).unwrap_err();
    assert_eq!(e.line_column(src), (2, 6));
}
