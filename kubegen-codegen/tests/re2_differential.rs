//! Differential test of `kubegen_codegen::re2` against Go's `regexp`, the
//! apiserver's engine: a seeded generator writes patterns (valid and
//! invalid RE2, with the constructs Rust's `regex` reads differently), hand
//! picked ones are added, and `go run tests/re2/main.go` gives Go's verdict
//! on each and its match on sampled inputs. kubegen must accept exactly what
//! Go accepts (refusing with Go's error text), and the Rust translation of
//! an accepted pattern must match exactly the inputs Go matches.
//!
//! Needs `go` (1.26, as the apiserver's build) on `PATH`. `KUBEGEN_RE2_CASES`
//! sets the number of generated patterns (default 2,000), `KUBEGEN_RE2_SEED`
//! the seed.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use kubegen_codegen::re2;
use kubegen_core::rng::Rng;
use serde_json::{Value, json};

/// Characters patterns and inputs are made of: ASCII letters with case
/// pairs, the characters Go and Rust treat specially, non-ASCII with case
/// folding (`ſ`, the Kelvin sign, final sigma), controls and spaces.
const CHARS: &[&str] = &[
    "a", "A", "b", "B", "k", "K", "s", "S", "z", "0", "1", "7", "9", "_", "-", " ", "\t", "\n",
    ".", "[", "]", "{", "}", "(", ")", "&", "~", "<", ">", "#", "^", "$", "|", "*", "+", "?", ",",
    ":", "/", "\"", "'", "=", "@", "\\", "ſ", "\u{212A}", "é", "É", "σ", "Σ", "ς", "α", "Ω", "一",
    "\u{0}", "\u{7f}", "\u{a0}", "\u{2028}", "😀", "\u{b}", "\u{c}", "\r",
];

/// Inputs every pattern is also tried on: word boundaries between ASCII
/// and non-ASCII letters, case-folding pairs, line ends, spaces.
const FIXED_INPUTS: &[&str] = &[
    "é", "aé", "éa", "a é", "ſ", "S", "s", "\u{212A}", "k", "K", "\n", "a\n", "\na", "Σσς", " \t",
    "\u{b}", "_", "a_b", "[", "]", "x-y", "aaa", "ab", "AB", "0", "09", "a.b", "\u{0}",
];

/// Atoms Go accepts: literals (plain and escaped), escapes, anchors.
const ATOMS: &[&str] = &[
    "a",
    "b",
    "K",
    "k",
    "s",
    "é",
    "Σ",
    "σ",
    "ſ",
    "一",
    " ",
    "-",
    "_",
    "~",
    "&",
    "<",
    ">",
    "#",
    "'",
    "\"",
    "/",
    ",",
    "]",
    "}",
    "{",
    "{1",
    "{,2}",
    "{01}",
    ".",
    "^",
    "$",
    r"\A",
    r"\z",
    r"\b",
    r"\B",
    r"\.",
    r"\[",
    r"\]",
    r"\{",
    r"\}",
    r"\(",
    r"\)",
    r"\*",
    r"\\",
    r"\-",
    r"\&",
    r"\~",
    r"\<",
    r"\>",
    r"\#",
    r"\_",
    r"\/",
    r"\ ",
    r"\d",
    r"\D",
    r"\s",
    r"\S",
    r"\w",
    r"\W",
    r"\pL",
    r"\PL",
    r"\p{Lu}",
    r"\p{^Lu}",
    r"\P{Ll}",
    r"\p{Greek}",
    r"\p{greek}",
    r"\p{Latin}",
    r"\p{Han}",
    r"\p{Any}",
    r"\p{ASCII}",
    r"\p{Letter}",
    r"\p{Uppercase_Letter}",
    r"\pZ",
    r"\p{Cs}",
    r"\P{Surrogate}",
    r"\p{Nd}",
    r"\x41",
    r"\x7f",
    r"\x{3A3}",
    r"\x{10FFFF}",
    r"\101",
    r"\0",
    r"\08",
    r"\12",
    r"\777",
    r"\a",
    r"\f",
    r"\n",
    r"\r",
    r"\t",
    r"\v",
    r"\Qa.b\E",
    r"\Q[*\E",
    r"\E",
    r"\x{D800}",
];

/// Atoms Go refuses (or that end the pattern), mixed in now and then.
const BAD_ATOMS: &[&str] = &[
    r"\p{Old_Italic}",
    r"\p{Foo}",
    r"\p{L",
    r"\pX",
    r"\x{110000}",
    r"\x{}",
    r"\xG1",
    r"\x4",
    r"\1",
    r"\8",
    r"\e",
    r"\q",
    r"\Z",
    r"\C",
    r"\G",
    r"\K",
    r"\Q",
];

/// Class items.
const CLASS_ITEMS: &[&str] = &[
    "a",
    "z",
    "A",
    "K",
    "s",
    "0",
    "9",
    "_",
    "-",
    "[",
    "&&",
    "~~",
    "--",
    "^",
    "é",
    "Σ",
    "ſ",
    " ",
    "a-z",
    "A-Z",
    "0-9",
    "z-a",
    "a-",
    "-a",
    r"\d",
    r"\D",
    r"\s",
    r"\W",
    r"\w",
    "[:alpha:]",
    "[:^space:]",
    "[:word:]",
    "[:punct:]",
    "[:xdigit:]",
    "[:foo:]",
    "[:alpha",
    "[a",
    r"\pL",
    r"\P{Greek}",
    r"\p{^Lu}",
    r"\]",
    r"\[",
    r"\-",
    r"\^",
    r"\\",
    r"\x41-\x5A",
    r"\x{3B1}-\x{3C9}",
    r"\b",
    r"\Q",
    r"\.",
    r"\n",
    "\u{212A}",
    r"\x{D7FF}-\x{E001}",
];

const REPEATS: &[&str] = &[
    "*",
    "+",
    "?",
    "*?",
    "+?",
    "??",
    "{2}",
    "{1,3}",
    "{2,}",
    "{0}",
    "{0,1}",
    "{3,2}",
    "{1001}",
    "{1000}",
    "{1,1001}",
    "{99999999999}",
    "**",
    "*+",
    "{2}{3}",
    "{2}?",
    "{2}??",
    "{",
    "{1,",
];

const GROUPS: &[(&str, &str)] = &[
    ("(", ")"),
    ("(?:", ")"),
    ("(?i:", ")"),
    ("(?s:", ")"),
    ("(?m:", ")"),
    ("(?U:", ")"),
    ("(?i-s:", ")"),
    ("(?-i:", ")"),
    ("(?P<n1>", ")"),
    ("(?<n_2>", ")"),
    ("(?P<1>", ")"),
    ("(?P<a-b>", ")"),
    ("(?'n'", ")"),
    ("(?=", ")"),
    ("(?!", ")"),
    ("(?<=", ")"),
    ("(?P=n", ")"),
    ("(?x:", ")"),
    ("(?i)", ""),
    ("(?s)", ""),
    ("(?m)", ""),
    ("(?U)", ""),
    ("(?-)", ""),
    ("(?)", ""),
    ("(?i-)", ""),
    ("(", ""),
    ("", ")"),
];

fn class(rng: &mut Rng) -> String {
    let mut s = String::from("[");
    if rng.below(3) == 0 {
        s.push('^');
    }
    for _ in 0..1 + rng.below(4) {
        s.push_str(rng.pick::<&str>(CLASS_ITEMS));
    }
    if rng.below(12) != 0 {
        s.push(']');
    }
    s
}

fn expression(rng: &mut Rng, depth: usize) -> String {
    let mut s = String::new();
    for _ in 0..1 + rng.below(4) {
        let piece = match rng.below(10) {
            0 if rng.below(4) == 0 => rng.pick(BAD_ATOMS).to_string(),
            0..=3 => rng.pick(ATOMS).to_string(),
            4 | 5 => class(rng),
            6 | 7 if depth < 3 => {
                let (open, close) = GROUPS[rng.below(GROUPS.len())];
                format!("{open}{}{close}", expression(rng, depth + 1))
            }
            8 if depth < 3 => format!(
                "{}|{}",
                expression(rng, depth + 1),
                expression(rng, depth + 1)
            ),
            _ => rng.pick(CHARS).to_string(),
        };
        s.push_str(&piece);
        if rng.below(3) == 0 {
            s.push_str(rng.pick::<&str>(REPEATS));
        }
    }
    s
}

/// Inputs for `pattern`: random strings over [`CHARS`], and strings made of
/// the pattern's own characters (which the pattern is likelier to match).
fn inputs(rng: &mut Rng, pattern: &str) -> Vec<String> {
    let own: Vec<char> = pattern.chars().filter(|c| *c != '\\').collect();
    let mut out: Vec<String> = FIXED_INPUTS.iter().map(|s| (*s).to_owned()).collect();
    out.push(String::new());
    for i in 0..14 {
        let mut s = String::new();
        for _ in 0..rng.below(7) {
            if i % 2 == 0 && !own.is_empty() {
                s.push(own[rng.below(own.len())]);
            } else {
                s.push_str(rng.pick::<&str>(CHARS));
            }
        }
        out.push(s);
    }
    out
}

/// Patterns picked by hand: real CRD patterns and each rule's edge.
const HAND_PICKED: &[&str] = &[
    r#"^[^()<>@,;:\\"\/[\]?={} \t\x7f\x00]+$"#,
    r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$",
    r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$",
    r"^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$",
    r"^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$",
    r"^/[^\s]*$",
    r"^\d{1,3}(\.\d{1,3}){3}$",
    r"^[[:alnum:]_-]+$",
    r"^\p{Lu}\p{Ll}*$",
    r"(?i)^k$",
    r"\b",
    r"a\b",
    r"\bé",
    r"\w+\B",
    r"^\s$",
    r"^[[:space:]]$",
    r"^\W$",
    r"^\D$",
    r"^[^\d]$",
    r"(?i)^[[:upper:]]$",
    r"(?i)^\w$",
    r"^.$",
    r"(?s)^.$",
    r"a$",
    r"(?m)a$",
    r"\Ab",
    r"^\p{Greek}+$",
    r"^\p{greek}+$",
    r"^[\p{Lu}\d]$",
    r"(?i)^[k-l]$",
    r"(?i)\W",
    r"(?i)[^k]",
    r"(?i)\p{Lu}",
    r"(?i)\P{Lu}",
    r"(?i)[[:^upper:]]",
    r"(?m)^a$",
    r"(?s)a.b",
    r"(?U)a+",
    r"(?U)a+?",
    r"a{,5}",
    r"a{2}{3}",
    r"(a{10}){100}",
    r"(a{10}){101}",
    r"((a{10}){10}){10}",
    r"x*\Q\E*",
    r"^*",
    r"$+",
    r"\b*",
    r"(?i)*",
    r"(|a)+",
    r"()",
    r"(?:)",
    r"a|*",
    r"[]a]",
    r"[^]a]",
    r"[]",
    r"[a-\d]",
    r"[\d-z]",
    r"[a-b-c]",
    r"\x{D800}",
    r"[^\x{D800}]",
    r"[\x{D800}-\x{DFFF}]",
    r"\p{Any}+",
    r"\p{L",
    r"\p{^}",
    r"\p",
    r"[\p]",
    r"(?P<n>a)(?P<n>b)",
    r"(?P<name",
    r"(?P>",
    r"(?<>a)",
    r"(?i",
    r"\8",
    r"\_",
    r"\%",
    r"[[:word:][:^digit:]]",
    "a\\",
    "[a",
    "[a\\",
];

#[test]
fn kubegen_reads_patterns_as_go_does() {
    let cases = std::env::var("KUBEGEN_RE2_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000usize);
    let seed = std::env::var("KUBEGEN_RE2_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x5EED_0034u64);
    let mut rng = Rng::new(seed);
    let mut patterns: Vec<String> = HAND_PICKED.iter().map(|p| (*p).to_owned()).collect();
    // Deep nesting on both sides of Go's limit of 1000.
    patterns.push(format!("{}a{}", "(".repeat(998), ")".repeat(998)));
    patterns.push(format!("{}a{}", "(".repeat(1001), ")".repeat(1001)));
    // Go's size budget (3.3 million instructions) on both sides.
    patterns.push(format!("(?:{}){{1000}}", "ab".repeat(1000)));
    patterns.push(format!("(?:{}){{1000}}", "ab".repeat(2000)));
    patterns.extend((0..cases).map(|_| expression(&mut rng, 0)));
    let queries: Vec<(String, Vec<String>)> = patterns
        .into_iter()
        .map(|p| {
            let i = inputs(&mut rng, &p);
            (p, i)
        })
        .collect();
    let answers = go(&queries);

    let (mut accepted, mut inputs_checked) = (0, 0);
    let mut disagreements = Vec::new();
    for ((pattern, inputs), answer) in queries.iter().zip(&answers) {
        let ours = re2::parse(pattern);
        match (answer.get("error").and_then(Value::as_str), &ours) {
            (Some(go), Err(e)) if go == e.to_string() => {}
            (Some(go), Err(e)) => {
                disagreements.push(format!("{pattern:?}: Go `{go}`, kubegen `{e}`"))
            }
            (Some(go), Ok(p)) => disagreements.push(format!(
                "{pattern:?}: Go refuses (`{go}`), kubegen accepts as {:?}",
                p.rust()
            )),
            (None, Err(e)) => {
                disagreements.push(format!("{pattern:?}: Go accepts, kubegen refuses: {e}"))
            }
            (None, Ok(p)) => {
                accepted += 1;
                let re = match p.regex() {
                    Ok(re) => re,
                    Err(e) => {
                        disagreements.push(format!(
                            "{pattern:?}: translation {:?} does not compile: {e}",
                            p.rust()
                        ));
                        continue;
                    }
                };
                let go_matches = answer["matches"].as_array().cloned().unwrap_or_default();
                for (input, go_match) in inputs.iter().zip(go_matches) {
                    inputs_checked += 1;
                    if Some(re.is_match(input)) != go_match.as_bool() {
                        disagreements.push(format!(
                            "{pattern:?} (as {:?}) on {input:?}: Go {go_match}, Rust {}",
                            p.rust(),
                            re.is_match(input)
                        ));
                    }
                }
            }
        }
    }
    println!(
        "re2 differential: {} patterns ({} hand-picked, {cases} generated, seed {seed:#x}), \
         {accepted} accepted by Go, {inputs_checked} matches compared, {} disagreements",
        queries.len(),
        HAND_PICKED.len() + 4,
        disagreements.len()
    );
    assert!(
        disagreements.is_empty(),
        "{} disagreements:\n{}",
        disagreements.len(),
        disagreements.join("\n")
    );
}

#[test]
fn the_unicode_names_are_go_s() {
    let out = Command::new("go")
        .args(["run", "main.go", "names"])
        .current_dir(helper_dir())
        .env("GOTOOLCHAIN", "local")
        .output()
        .expect("`go` (1.26) on PATH runs tests/re2/main.go");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let go: Vec<(String, String)> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| l.split_once('\t'))
        .map(|(a, b)| (a.to_owned(), b.to_owned()))
        .collect();
    let ours: Vec<(String, String)> = re2::unicode::NAMES
        .iter()
        .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
        .collect();
    assert_eq!(
        ours, go,
        "regenerate src/re2/unicode.rs from `go run tests/re2/main.go names`"
    );
    for (_, name) in re2::unicode::NAMES
        .iter()
        .filter(|(_, n)| !re2::SURROGATES.contains(n))
    {
        assert!(
            regex::Regex::new(&format!(r"\p{{{name}}}")).is_ok(),
            "Rust's regex does not know \\p{{{name}}}"
        );
    }
}

fn helper_dir() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/re2"))
}

/// Go's answers, one per query, from one run of the helper.
fn go(queries: &[(String, Vec<String>)]) -> Vec<Value> {
    let mut child = Command::new("go")
        .args(["run", "main.go"])
        .current_dir(helper_dir())
        .env("GOTOOLCHAIN", "local")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("`go` (1.26) on PATH runs tests/re2/main.go");
    let mut input = String::new();
    for (pattern, inputs) in queries {
        input.push_str(&json!({"pattern": pattern, "inputs": inputs}).to_string());
        input.push('\n');
    }
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let answers: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers.len(), queries.len());
    answers
}
