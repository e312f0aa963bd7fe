//! Patterns as the apiserver reads them: Go's `regexp` (RE2 syntax with
//! Perl extensions, what `regexp.Compile` accepts), not Rust's `regex`.
//!
//! [`parse`] follows Go's `regexp/syntax` parser with its `Perl` flags rule
//! for rule: literal `[` inside a character class, POSIX classes
//! (`[[:alpha:]]`), `\pL`, `\p{Greek}` and `\P{^Greek}` with Go's Unicode
//! names, `\Q...\E`, `\A`, `\z`, `\b`, flags `i`, `m`, `s`, `U` in `(?flags)`
//! and `(?flags:re)`, named groups `(?P<n>re)` and `(?<n>re)`, counted
//! repetitions up to 1000 (also as a product of nested counts), octal
//! `\0`–`\777` and hex `\x41`, `\x{10FFFF}` escapes, escaped punctuation. It
//! refuses what Go refuses, with Go's error text: look-around, backreferences
//! (`\1`), `\Z`, `\C`, escaped letters Go does not know, stacked repetition
//! operators (`a**`), ... Go's size limits are approximated: an expression
//! nested more than 1000 deep, or whose compiled size by Go's count exceeds
//! Go's budget, is refused; the count is taken before Go factors
//! alternatives, so it can only overestimate (near 3.3 million instructions,
//! far beyond any CRD's pattern), and Go's cap of 32 million class ranges
//! (some 26,000 `\pL`) is not counted.
//!
//! An accepted pattern is translated into a Rust `regex` pattern that
//! matches the same strings: every literal escaped as Rust reads it, Go's
//! ASCII-only `\d`, `\s`, `\w`, `\b` and POSIX classes written as ASCII
//! sets, flags applied where Go applies them (`^` and `$` are the text's
//! ends unless `(?m)`, `.` stops at `\n` unless `(?s)`). The differential
//! test `tests/re2_differential.rs` runs Go on generated patterns and
//! inputs and checks both halves.

mod classes;
mod limits;
mod parser;
mod translate;
pub mod unicode;

pub use classes::SURROGATES;
use classes::*;
use limits::*;
use parser::*;
use translate::*;

use std::fmt;

/// Go's refusal of a pattern; displays as Go's `regexp.Compile` error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    /// Go's error code text, e.g. `invalid escape sequence`.
    pub code: &'static str,
    /// The part of the pattern Go names.
    pub expr: String,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "error parsing regexp: {}: `{}`", self.code, self.expr)
    }
}

impl std::error::Error for Error {}

const INVALID_CHAR_CLASS_RANGE: &str = "invalid character class range";
const INVALID_ESCAPE: &str = "invalid escape sequence";
const INVALID_NAMED_CAPTURE: &str = "invalid named capture";
const INVALID_PERL_OP: &str = "invalid or unsupported Perl syntax";
const INVALID_REPEAT_OP: &str = "invalid nested repetition operator";
const INVALID_REPEAT_SIZE: &str = "invalid repeat count";
const MISSING_BRACKET: &str = "missing closing ]";
const MISSING_PAREN: &str = "missing closing )";
const MISSING_REPEAT_ARGUMENT: &str = "missing argument to repetition operator";
const TRAILING_BACKSLASH: &str = "trailing backslash at end of expression";
const UNEXPECTED_PAREN: &str = "unexpected )";
const NESTING_DEPTH: &str = "expression nests too deeply";
const LARGE: &str = "expression too large";

/// Go's limit on counted repetitions, alone and multiplied when nested.
const MAX_REPEAT: u32 = 1000;
/// Go's limit on the expression tree's height.
const MAX_HEIGHT: usize = 1000;
/// Go's budget of compiled instructions (128 MiB of 40-byte instructions).
const MAX_SIZE: u64 = (128 << 20) / 40;

/// A pattern Go accepts, with the Rust `regex` pattern that matches the
/// same strings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern {
    rust: String,
}

impl Pattern {
    /// The equivalent pattern in Rust `regex` syntax (unanchored, as Go's
    /// `MatchString` searches).
    pub fn rust(&self) -> &str {
        &self.rust
    }

    /// Compiles [`Pattern::rust`], with nesting and size limits wide enough
    /// for what Go accepts; fails only when Rust's compiled program would
    /// exceed 256 MiB.
    pub fn regex(&self) -> Result<regex::Regex, regex::Error> {
        regex::RegexBuilder::new(&self.rust)
            .nest_limit(4 * MAX_HEIGHT as u32)
            .size_limit(256 << 20)
            .build()
    }
}

/// Parses `pattern` as Go's `regexp.Compile` does; an accepted pattern comes
/// with its Rust translation.
pub fn parse(pattern: &str) -> Result<Pattern, Error> {
    let node = Parser::new(pattern).parse()?;
    if height(&node) > MAX_HEIGHT {
        return Err(Error {
            code: NESTING_DEPTH,
            expr: pattern.to_owned(),
        });
    }
    if size(&node) > MAX_SIZE {
        return Err(Error {
            code: LARGE,
            expr: pattern.to_owned(),
        });
    }
    let mut rust = String::new();
    emit(&node, &mut rust);
    Ok(Pattern { rust })
}

/// Whether Go's `regexp.Compile` accepts `pattern` (the check
/// `kubegen_core::cel` runs on a literal `matches()` pattern).
pub fn compiles(pattern: &str) -> bool {
    parse(pattern).is_ok()
}

/// Whether `s` matches `pattern` as the apiserver matches it; `None` when
/// Go refuses the pattern or Rust cannot compile its translation.
pub fn is_match(pattern: &str, s: &str) -> Option<bool> {
    parse(pattern).ok()?.regex().ok().map(|re| re.is_match(s))
}

/// Go's parse flags that change what a node means.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Flags {
    /// `i`
    fold: bool,
    /// `m`
    multi_line: bool,
    /// `s`
    dot_nl: bool,
    /// `U`
    ungreedy: bool,
}

/// One ASCII class of Go's Perl (`\d`) and POSIX (`[:alpha:]`) groups.
type Ascii = &'static [(char, char)];

/// An item of a bracketed class.
#[derive(Debug, Clone, PartialEq, Eq)]
enum ClassItem {
    /// `a` or `a-z`.
    Range(char, char),
    /// `\d`, `[:alpha:]` and their negations.
    Ascii(Ascii, bool),
    /// `\pL`, `\p{Greek}`: the table name, negated.
    Unicode(&'static str, bool),
}

/// The parsed expression.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Node {
    Empty,
    Literal(char, bool),
    /// Items, negated, case-folded.
    Class(Vec<ClassItem>, bool, bool),
    /// `.`; matching `\n` too.
    Dot(bool),
    /// `^`, `\A`; at line starts.
    Begin(bool),
    /// `$`, `\z`; at line ends.
    End(bool),
    /// `\b` (true) or `\B`.
    WordBoundary(bool),
    Capture(Box<Node>),
    Repeat {
        sub: Box<Node>,
        min: u32,
        max: Option<u32>,
        greedy: bool,
        counted: bool,
    },
    Concat(Vec<Node>),
    Alternate(Vec<Node>),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(p: &str) -> String {
        parse(p).unwrap_err().to_string()
    }

    #[test]
    fn a_literal_bracket_in_a_class_is_rs2() {
        let p = r#"^[^()<>@,;:\\"\/[\]?={} \t\x7f\x00]+$"#;
        let re = parse(p).unwrap().regex().unwrap();
        assert!(re.is_match("token"));
        assert!(!re.is_match("a[b"));
        assert!(!re.is_match("a b"));
        assert!(regex::Regex::new(p).is_err(), "Rust reads it differently");
    }

    #[test]
    fn go_s_refusals_with_go_s_text() {
        for (p, e) in [
            (
                "(?=a)",
                "error parsing regexp: invalid or unsupported Perl syntax: `(?=`",
            ),
            (
                r"(a)\1",
                "error parsing regexp: invalid escape sequence: `\\1`",
            ),
            (
                r"\8",
                "error parsing regexp: invalid escape sequence: `\\8`",
            ),
            (
                r"\Z",
                "error parsing regexp: invalid escape sequence: `\\Z`",
            ),
            (
                "a**",
                "error parsing regexp: invalid nested repetition operator: `**`",
            ),
            (
                "a{1001}",
                "error parsing regexp: invalid repeat count: `{1001}`",
            ),
            (
                "(a{100}){100}",
                "error parsing regexp: invalid repeat count: `{100}`",
            ),
            (
                "[z-a]",
                "error parsing regexp: invalid character class range: `z-a`",
            ),
            (
                "[[:foo:]]",
                "error parsing regexp: invalid character class range: `[:foo:]`",
            ),
            (
                r"\p{Foo}",
                "error parsing regexp: invalid character class range: `\\p{Foo}`",
            ),
            ("[a", "error parsing regexp: missing closing ]: `[a`"),
            ("(a", "error parsing regexp: missing closing ): `(a`"),
            ("a)", "error parsing regexp: unexpected ): `a)`"),
            (
                "*",
                "error parsing regexp: missing argument to repetition operator: `*`",
            ),
            (
                "a\\",
                "error parsing regexp: trailing backslash at end of expression: ``",
            ),
            (
                "(?P<a-b>x)",
                "error parsing regexp: invalid named capture: `(?P<a-b>`",
            ),
        ] {
            assert_eq!(refusal(p), e, "{p}");
        }
    }

    #[test]
    fn rust_reads_the_translation_as_go_reads_the_pattern() {
        for (p, yes, no) in [
            (r"^\w+$", "a_1", "é"),
            (r"(?i)straße", "STRAßE", "strasse"),
            (r"^a{,2}$", "a{,2}", "aa"),
            (r"\Qa.b\E+", "a.bbb", "axb"),
            (r"^[[:alpha:]]+$", "abc", "ab1"),
            (r"^\pL+$", "héllo", "h3"),
            (r"^(?P<x>a)(?<y>b)$", "ab", "ba"),
            ("a$", "a", "a\n"),
            (r"^\x41\101\x{42}$", "AAB", "AAC"),
            (r"x\b", "xé", "xy"),
            (r"[<>&~-]", "~", "a"),
        ] {
            let re = parse(p).unwrap().regex().unwrap();
            assert!(re.is_match(yes), "{p} ({}) on {yes:?}", re.as_str());
            assert!(!re.is_match(no), "{p} ({}) on {no:?}", re.as_str());
        }
    }
}
