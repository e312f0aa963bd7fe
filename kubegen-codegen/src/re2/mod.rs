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

pub mod unicode;

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

/// An open group (the whole pattern is the outermost).
struct Frame {
    /// Finished alternatives.
    branches: Vec<Node>,
    /// The current alternative's items.
    items: Vec<Node>,
    /// The flags to restore when the group closes.
    flags: Flags,
    /// Capturing (`(re)`, `(?P<n>re)`) rather than `(?:re)`.
    capture: bool,
}

impl Frame {
    fn new(flags: Flags, capture: bool) -> Self {
        Frame {
            branches: Vec::new(),
            items: Vec::new(),
            flags,
            capture,
        }
    }

    fn finish(mut self) -> Node {
        let branch = concat(std::mem::take(&mut self.items));
        if self.branches.is_empty() {
            branch
        } else {
            self.branches.push(branch);
            Node::Alternate(self.branches)
        }
    }
}

fn concat(mut items: Vec<Node>) -> Node {
    match items.len() {
        0 => Node::Empty,
        1 => items.pop().unwrap_or(Node::Empty),
        _ => Node::Concat(items),
    }
}

struct Parser<'a> {
    whole: &'a str,
    /// Byte offset of the rest of the pattern.
    pos: usize,
    flags: Flags,
    stack: Vec<Frame>,
}

fn err(code: &'static str, expr: &str) -> Error {
    Error {
        code,
        expr: expr.to_owned(),
    }
}

impl<'a> Parser<'a> {
    fn new(whole: &'a str) -> Self {
        Parser {
            whole,
            pos: 0,
            flags: Flags::default(),
            stack: vec![Frame::new(Flags::default(), false)],
        }
    }

    fn rest(&self) -> &'a str {
        &self.whole[self.pos..]
    }

    fn top(&mut self) -> &mut Frame {
        let last = self.stack.len() - 1;
        &mut self.stack[last]
    }

    fn push(&mut self, node: Node) {
        self.top().items.push(node);
    }

    fn literal(&mut self, c: char) {
        let fold = self.flags.fold;
        self.push(Node::Literal(c, fold));
    }

    fn parse(mut self) -> Result<Node, Error> {
        // Where the previous step's repetition operator began, if it was one.
        let mut last_repeat: Option<usize> = None;
        while let Some(c) = self.rest().chars().next() {
            let start = self.pos;
            let mut repeat = None;
            match c {
                '(' if self.rest().starts_with("(?") => self.perl_flags()?,
                '(' => {
                    self.stack.push(Frame::new(self.flags, true));
                    self.pos += 1;
                }
                '|' => {
                    let frame = self.top();
                    let branch = concat(std::mem::take(&mut frame.items));
                    frame.branches.push(branch);
                    self.pos += 1;
                }
                ')' => {
                    // The outermost frame is the pattern's own, never closed.
                    let frame = match self.stack.pop() {
                        Some(frame) if !self.stack.is_empty() => frame,
                        _ => return Err(err(UNEXPECTED_PAREN, self.whole)),
                    };
                    self.flags = frame.flags;
                    let capture = frame.capture;
                    let node = frame.finish();
                    self.push(if capture {
                        Node::Capture(Box::new(node))
                    } else {
                        node
                    });
                    self.pos += 1;
                }
                '^' => {
                    let line = self.flags.multi_line;
                    self.push(Node::Begin(line));
                    self.pos += 1;
                }
                '$' => {
                    let line = self.flags.multi_line;
                    self.push(Node::End(line));
                    self.pos += 1;
                }
                '.' => {
                    let nl = self.flags.dot_nl;
                    self.push(Node::Dot(nl));
                    self.pos += 1;
                }
                '[' => self.class()?,
                '*' | '+' | '?' => {
                    let (min, max) = match c {
                        '*' => (0, None),
                        '+' => (1, None),
                        _ => (0, Some(1)),
                    };
                    self.pos += 1;
                    self.repeat(start, min, max, false, last_repeat)?;
                    repeat = Some(start);
                }
                '{' => match parse_repeat(self.rest()) {
                    None => {
                        self.literal('{');
                        self.pos += 1;
                    }
                    Some((min, max, len)) => {
                        let text = &self.rest()[..len];
                        let (min, max) = match (min, max) {
                            (Some(min), Max::Same) => (min, Some(min)),
                            (Some(min), Max::Unbounded) => (min, None),
                            (Some(min), Max::At(Some(max))) => (min, Some(max)),
                            _ => return Err(err(INVALID_REPEAT_SIZE, text)),
                        };
                        if min > MAX_REPEAT || max.is_some_and(|m| m > MAX_REPEAT || m < min) {
                            return Err(err(INVALID_REPEAT_SIZE, text));
                        }
                        self.pos += len;
                        self.repeat(start, min, max, true, last_repeat)?;
                        repeat = Some(start);
                    }
                },
                '\\' => self.escape()?,
                _ => {
                    self.literal(c);
                    self.pos += c.len_utf8();
                }
            }
            last_repeat = repeat;
        }
        match (self.stack.pop(), self.stack.is_empty()) {
            (Some(frame), true) => Ok(frame.finish()),
            _ => Err(err(MISSING_PAREN, self.whole)),
        }
    }

    /// Applies a repetition operator (already consumed up to, not
    /// including, a `?` that makes it lazy) to the last item.
    fn repeat(
        &mut self,
        start: usize,
        min: u32,
        max: Option<u32>,
        counted: bool,
        last_repeat: Option<usize>,
    ) -> Result<(), Error> {
        let mut greedy = !self.flags.ungreedy;
        if self.rest().starts_with('?') {
            self.pos += 1;
            greedy = !greedy;
        }
        if let Some(last) = last_repeat {
            return Err(err(INVALID_REPEAT_OP, &self.whole[last..self.pos]));
        }
        let text = &self.whole[start..self.pos];
        let Some(sub) = self.top().items.pop() else {
            return Err(err(MISSING_REPEAT_ARGUMENT, text));
        };
        let node = Node::Repeat {
            sub: Box::new(sub),
            min,
            max,
            greedy,
            counted,
        };
        if counted
            && (min >= 2 || max.is_some_and(|m| m >= 2))
            && !repeat_is_valid(&node, MAX_REPEAT)
        {
            return Err(err(INVALID_REPEAT_SIZE, text));
        }
        self.push(node);
        Ok(())
    }

    /// `(?`: a named group, a non-capturing group or flags.
    fn perl_flags(&mut self) -> Result<(), Error> {
        let t = self.rest();
        let starts_with_p = t.len() > 4 && t.as_bytes()[2] == b'P' && t.as_bytes()[3] == b'<';
        let starts_with_name = t.len() > 3 && t.as_bytes()[2] == b'<';
        if starts_with_p || starts_with_name {
            let name_start = if starts_with_p { 4 } else { 3 };
            let Some(end) = t.find('>') else {
                return Err(err(INVALID_NAMED_CAPTURE, t));
            };
            let name = &t[name_start..end];
            if name.is_empty() || !name.bytes().all(|b| b == b'_' || b.is_ascii_alphanumeric()) {
                return Err(err(INVALID_NAMED_CAPTURE, &t[..=end]));
            }
            self.stack.push(Frame::new(self.flags, true));
            self.pos += end + 1;
            return Ok(());
        }
        let mut flags = self.flags;
        let mut negate = false;
        let mut saw_flag = false;
        let mut used = 2;
        for c in t[2..].chars() {
            used += c.len_utf8();
            let set = !negate;
            match c {
                'i' => flags.fold = set,
                'm' => flags.multi_line = set,
                's' => flags.dot_nl = set,
                'U' => flags.ungreedy = set,
                '-' if !negate => {
                    negate = true;
                    saw_flag = false;
                    continue;
                }
                ':' | ')' if !negate || saw_flag => {
                    if c == ':' {
                        self.stack.push(Frame::new(self.flags, false));
                    }
                    self.flags = flags;
                    self.pos += used;
                    return Ok(());
                }
                _ => break,
            }
            saw_flag = true;
        }
        Err(err(INVALID_PERL_OP, &t[..used]))
    }

    /// A backslash outside a class.
    fn escape(&mut self) -> Result<(), Error> {
        let t = self.rest();
        let mut chars = t.chars();
        chars.next();
        match chars.next() {
            Some('A') => {
                self.push(Node::Begin(false));
                self.pos += 2;
                return Ok(());
            }
            Some('z') => {
                self.push(Node::End(false));
                self.pos += 2;
                return Ok(());
            }
            Some(b @ ('b' | 'B')) => {
                self.push(Node::WordBoundary(b == 'b'));
                self.pos += 2;
                return Ok(());
            }
            Some('C') => return Err(err(INVALID_ESCAPE, &t[..2])),
            Some('Q') => {
                let body = &t[2..];
                let (lit, len) = match body.find("\\E") {
                    Some(i) => (&body[..i], 2 + i + 2),
                    None => (body, t.len()),
                };
                for c in lit.chars() {
                    self.literal(c);
                }
                self.pos += len;
                return Ok(());
            }
            _ => {}
        }
        let fold = self.flags.fold;
        if let Some((item, len)) = unicode_class(t)? {
            self.push(Node::Class(vec![item], false, fold));
            self.pos += len;
            return Ok(());
        }
        if let Some(item) = perl_class(t) {
            self.push(Node::Class(vec![item], false, fold));
            self.pos += 2;
            return Ok(());
        }
        let (c, len) = parse_escape(t)?;
        match char::from_u32(c) {
            Some(c) => self.literal(c),
            None => self.push(Node::Class(Vec::new(), false, false)),
        }
        self.pos += len;
        Ok(())
    }

    /// A bracketed class, `[` to `]`.
    fn class(&mut self) -> Result<(), Error> {
        let whole = self.rest();
        let mut t = &whole[1..];
        let mut negated = false;
        if let Some(rest) = t.strip_prefix('^') {
            negated = true;
            t = rest;
        }
        let mut items = Vec::new();
        let mut first = true;
        while t.is_empty() || !t.starts_with(']') || first {
            first = false;
            if t.len() > 2
                && t.starts_with("[:")
                && let Some((item, rest)) = posix_class(t)?
            {
                items.push(item);
                t = rest;
                continue;
            }
            if let Some((item, len)) = unicode_class(t)? {
                items.push(item);
                t = &t[len..];
                continue;
            }
            if let Some(item) = perl_class(t) {
                items.push(item);
                t = &t[2..];
                continue;
            }
            let range_start = t;
            let (lo, len) = class_char(t, whole)?;
            t = &t[len..];
            let mut hi = lo;
            if t.len() >= 2 && t.starts_with('-') && !t[1..].starts_with(']') {
                let (h, len) = class_char(&t[1..], whole)?;
                t = &t[1 + len..];
                hi = h;
                if hi < lo {
                    let used = range_start.len() - t.len();
                    return Err(err(INVALID_CHAR_CLASS_RANGE, &range_start[..used]));
                }
            }
            items.extend(char_ranges(lo, hi));
        }
        let len = whole.len() - t.len() + 1;
        let fold = self.flags.fold;
        self.push(Node::Class(items, negated, fold));
        self.pos += len;
        Ok(())
    }
}

/// The upper bound of `{n,m}` as written.
enum Max {
    /// `{n}`.
    Same,
    /// `{n,}`.
    Unbounded,
    /// `{n,m}` (`None`: too many digits).
    At(Option<u32>),
}

/// `{n}`, `{n,}` or `{n,m}` at the start of `s`: (min, or `None` when it
/// has too many digits; max; length). `None` when `s` is not of that form
/// (then `{` is a literal).
fn parse_repeat(s: &str) -> Option<(Option<u32>, Max, usize)> {
    let mut t = s.strip_prefix('{')?;
    let (min, len) = parse_int(t)?;
    t = &t[len..];
    let max = match t.strip_prefix(',') {
        None => Max::Same,
        Some(rest) if rest.starts_with('}') => {
            t = rest;
            Max::Unbounded
        }
        Some(rest) => {
            let (max, len) = parse_int(rest)?;
            t = &rest[len..];
            Max::At(max)
        }
    };
    let rest = t.strip_prefix('}')?;
    Some((min, max, s.len() - rest.len()))
}

/// A decimal number without leading zeros: (value, or `None` from 10^8
/// on, as Go gives up; its length).
fn parse_int(s: &str) -> Option<(Option<u32>, usize)> {
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || (digits >= 2 && s.starts_with('0')) {
        return None;
    }
    let mut n: u32 = 0;
    for b in s[..digits].bytes() {
        if n >= 100_000_000 {
            return Some((None, digits));
        }
        n = n * 10 + u32::from(b - b'0');
    }
    Some((Some(n), digits))
}

/// Go's `repeatIsValid`: nested counted repetitions multiply to at most `n`
/// copies of the innermost expression.
fn repeat_is_valid(node: &Node, mut n: u32) -> bool {
    if let Node::Repeat {
        min,
        max,
        counted: true,
        ..
    } = node
    {
        let m = match max {
            Some(0) => return true,
            Some(m) => *m,
            None => *min,
        };
        if m > n {
            return false;
        }
        // `{0,}` divides by nothing.
        n = n.checked_div(m).unwrap_or(n);
    }
    children(node).iter().all(|c| repeat_is_valid(c, n))
}

fn children(node: &Node) -> &[Node] {
    match node {
        Node::Capture(sub) | Node::Repeat { sub, .. } => std::slice::from_ref(&**sub),
        Node::Concat(items) | Node::Alternate(items) => items,
        _ => &[],
    }
}

/// Go's tree height, literal runs counting as one node.
fn height(node: &Node) -> usize {
    match node {
        Node::Concat(items) => {
            let mut parts = 0;
            let mut max = 0;
            let mut in_literal = false;
            for item in items {
                let literal = matches!(item, Node::Literal(..));
                if !(literal && in_literal) {
                    parts += 1;
                }
                in_literal = literal;
                max = max.max(height(item));
            }
            if parts == 1 { max } else { 1 + max }
        }
        other => 1 + children(other).iter().map(height).max().unwrap_or(0),
    }
}

/// Go's compiled-size estimate (`calcSize`).
fn size(node: &Node) -> u64 {
    let s = match node {
        Node::Literal(..) => 1,
        Node::Capture(sub) => 2 + size(sub),
        Node::Concat(items) => items.iter().map(size).sum(),
        Node::Alternate(items) => {
            items.iter().map(size).sum::<u64>() + items.len().saturating_sub(1) as u64
        }
        Node::Repeat {
            sub,
            min,
            max,
            counted,
            ..
        } => {
            let sub = size(sub);
            match (counted, max) {
                (false, None) if *min == 0 => 2 + sub,
                (false, _) => 1 + sub,
                (true, None) if *min == 0 => 2 + sub,
                (true, None) => 1 + u64::from(*min) * sub,
                (true, Some(max)) => u64::from(*max) * sub + u64::from(max - min),
            }
        }
        _ => 0,
    };
    s.max(1)
}

/// An escape such as `\n`, `\x41`, `\101`, `\.` at the start of `s` (which
/// starts with `\`): the character and the escape's length.
fn parse_escape(s: &str) -> Result<(u32, usize), Error> {
    let mut it = s.char_indices().skip(1);
    let Some((_, c)) = it.next() else {
        return Err(err(TRAILING_BACKSLASH, ""));
    };
    let after = 1 + c.len_utf8();
    let invalid = |used: usize| Err(err(INVALID_ESCAPE, &s[..used]));
    let octal = |b: Option<&u8>| b.is_some_and(|b| (b'0'..=b'7').contains(b));
    match c {
        '1'..='7' if !octal(s.as_bytes().get(after)) => invalid(after),
        '0'..='7' => {
            let mut r = c as u32 - '0' as u32;
            let mut used = after;
            for _ in 1..3 {
                match s.as_bytes().get(used) {
                    Some(b) if octal(Some(b)) => {
                        r = r * 8 + u32::from(b - b'0');
                        used += 1;
                    }
                    _ => break,
                }
            }
            Ok((r, used))
        }
        'x' => {
            let rest = &s[after..];
            let mut chars = rest.chars();
            let Some(first) = chars.next() else {
                return invalid(after);
            };
            if first == '{' {
                let mut used = after + 1;
                let mut r: u32 = 0;
                for (digits, c) in rest[1..].chars().enumerate() {
                    used += c.len_utf8();
                    if c == '}' {
                        return if digits > 0 {
                            Ok((r, used))
                        } else {
                            invalid(used)
                        };
                    }
                    let Some(v) = c.to_digit(16) else {
                        return invalid(used);
                    };
                    r = r * 16 + v;
                    if r > 0x10FFFF {
                        return invalid(used);
                    }
                }
                return invalid(used);
            }
            let x = first.to_digit(16);
            let second = chars.next();
            let used = after + first.len_utf8() + second.map_or(0, char::len_utf8);
            match (x, second.and_then(|c| c.to_digit(16))) {
                (Some(x), Some(y)) => Ok((x * 16 + y, used)),
                _ => invalid(used),
            }
        }
        'a' => Ok((0x7, after)),
        'f' => Ok((0xC, after)),
        'n' => Ok((0xA, after)),
        'r' => Ok((0xD, after)),
        't' => Ok((0x9, after)),
        'v' => Ok((0xB, after)),
        c if c.is_ascii() && !c.is_ascii_alphanumeric() => Ok((c as u32, after)),
        _ => invalid(after),
    }
}

/// A class character (an escape or any character) at the start of `s`;
/// `whole` is the class from its `[`, for the missing-bracket error.
fn class_char(s: &str, whole: &str) -> Result<(u32, usize), Error> {
    match s.chars().next() {
        None => Err(err(MISSING_BRACKET, whole)),
        Some('\\') => parse_escape(s),
        Some(c) => Ok((c as u32, c.len_utf8())),
    }
}

/// The characters of the code point range `lo..=hi` (Go takes surrogates
/// in escapes; no string holds one, so they match nothing).
fn char_ranges(lo: u32, hi: u32) -> impl Iterator<Item = ClassItem> {
    [(lo, hi.min(0xD7FF)), (lo.max(0xE000), hi)]
        .into_iter()
        .filter(|(a, b)| a <= b)
        .filter_map(|(a, b)| Some(ClassItem::Range(char::from_u32(a)?, char::from_u32(b)?)))
}

const DIGIT: Ascii = &[('0', '9')];
const SPACE_PERL: Ascii = &[('\t', '\n'), ('\u{c}', '\r'), (' ', ' ')];
const WORD: Ascii = &[('0', '9'), ('A', 'Z'), ('_', '_'), ('a', 'z')];

/// `\d`, `\D`, `\s`, `\S`, `\w`, `\W` at the start of `s` (ASCII, as Go).
fn perl_class(s: &str) -> Option<ClassItem> {
    let b = s.as_bytes();
    if b.len() < 2 || b[0] != b'\\' {
        return None;
    }
    let set = match b[1].to_ascii_lowercase() {
        b'd' => DIGIT,
        b's' => SPACE_PERL,
        b'w' => WORD,
        _ => return None,
    };
    Some(ClassItem::Ascii(set, b[1].is_ascii_uppercase()))
}

/// `[:name:]` or `[:^name:]` at the start of `s`: the item and the rest;
/// `None` when `s` has no `:]` (then `[` is a literal).
fn posix_class(s: &str) -> Result<Option<(ClassItem, &str)>, Error> {
    let Some(i) = s[2..].find(":]") else {
        return Ok(None);
    };
    let (name, rest) = s.split_at(i + 4);
    let (negated, bare) = match name[2..name.len() - 2].strip_prefix('^') {
        Some(b) => (true, b),
        None => (false, &name[2..name.len() - 2]),
    };
    let set: Ascii = match bare {
        "alnum" => &[('0', '9'), ('A', 'Z'), ('a', 'z')],
        "alpha" => &[('A', 'Z'), ('a', 'z')],
        "ascii" => &[('\0', '\u{7f}')],
        "blank" => &[('\t', '\t'), (' ', ' ')],
        "cntrl" => &[('\0', '\u{1f}'), ('\u{7f}', '\u{7f}')],
        "digit" => DIGIT,
        "graph" => &[('!', '~')],
        "lower" => &[('a', 'z')],
        "print" => &[(' ', '~')],
        "punct" => &[('!', '/'), (':', '@'), ('[', '`'), ('{', '~')],
        "space" => &[('\t', '\r'), (' ', ' ')],
        "upper" => &[('A', 'Z')],
        "word" => WORD,
        "xdigit" => &[('0', '9'), ('A', 'F'), ('a', 'f')],
        _ => return Err(err(INVALID_CHAR_CLASS_RANGE, name)),
    };
    Ok(Some((ClassItem::Ascii(set, negated), rest)))
}

/// `\pL`, `\p{Name}`, `\P{^Name}` at the start of `s`: the item and its
/// length; `None` when `s` does not start with `\p` or `\P`.
fn unicode_class(s: &str) -> Result<Option<(ClassItem, usize)>, Error> {
    let b = s.as_bytes();
    if b.len() < 2 || b[0] != b'\\' || (b[1] != b'p' && b[1] != b'P') {
        return Ok(None);
    }
    let mut negated = b[1] == b'P';
    let (seq, name) = match s[2..].chars().next() {
        Some('{') => match s.find('}') {
            Some(end) => (&s[..=end], &s[3..end]),
            None => return Err(err(INVALID_CHAR_CLASS_RANGE, s)),
        },
        Some(c) => (&s[..2 + c.len_utf8()], &s[2..2 + c.len_utf8()]),
        None => (&s[..2], ""),
    };
    let name = match name.strip_prefix('^') {
        Some(n) => {
            negated = !negated;
            n
        }
        None => name,
    };
    let key = canonical_name(name);
    match unicode::NAMES.binary_search_by(|(k, _)| k.cmp(&key.as_str())) {
        Ok(i) => Ok(Some((
            ClassItem::Unicode(unicode::NAMES[i].1, negated),
            seq.len(),
        ))),
        Err(_) => Err(err(INVALID_CHAR_CLASS_RANGE, seq)),
    }
}

/// Go's lookup key of a Unicode class name: a leading capital, the rest in
/// lower case, without `_`, `-` and spaces.
fn canonical_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars().filter(|c| !matches!(c, '_' | '-' | ' ')) {
        if out.is_empty() {
            out.push(c.to_ascii_uppercase());
        } else {
            out.push(c.to_ascii_lowercase());
        }
    }
    out
}

/// Go's names of the surrogate category.
pub const SURROGATES: &[&str] = &["Cs", "Surrogate"];

/// Writes `c` so that Rust's parser reads exactly `c`, in or out of a class.
fn emit_char(c: char, out: &mut String) {
    if c.is_ascii_alphanumeric() || (!c.is_ascii() && !c.is_control() && !c.is_whitespace()) {
        out.push(c);
    } else if c.is_ascii_punctuation() && !matches!(c, '<' | '>') {
        out.push('\\');
        out.push(c);
    } else {
        out.push_str(&format!("\\x{{{:X}}}", c as u32));
    }
}

fn emit_class_item(item: &ClassItem, out: &mut String) {
    match item {
        ClassItem::Range(lo, hi) => {
            emit_char(*lo, out);
            if lo != hi {
                out.push('-');
                emit_char(*hi, out);
            }
        }
        ClassItem::Ascii(set, negated) => {
            out.push('[');
            if *negated {
                out.push('^');
            }
            for &(lo, hi) in *set {
                emit_class_item(&ClassItem::Range(lo, hi), out);
            }
            out.push(']');
        }
        // Surrogates: in no string, so Rust has no class of them.
        ClassItem::Unicode(name, negated) if SURROGATES.contains(name) => {
            out.push_str(if *negated {
                "[\\x{0}-\\x{10FFFF}]"
            } else {
                "[^\\x{0}-\\x{10FFFF}]"
            });
        }
        ClassItem::Unicode(name, negated) => {
            out.push_str(if *negated { "\\P{" } else { "\\p{" });
            out.push_str(name);
            out.push('}');
        }
    }
}

fn emit(node: &Node, out: &mut String) {
    match node {
        Node::Empty => out.push_str("(?:)"),
        Node::Literal(c, fold) => {
            if *fold {
                out.push_str("(?i:");
                emit_char(*c, out);
                out.push(')');
            } else {
                emit_char(*c, out);
            }
        }
        // Nothing (Go's surrogate escapes, or a class of them).
        Node::Class(items, false, _) if items.is_empty() => out.push_str("[^\\x{0}-\\x{10FFFF}]"),
        Node::Class(items, true, _) if items.is_empty() => out.push_str("(?s:.)"),
        Node::Class(items, negated, fold) => {
            if *fold {
                out.push_str("(?i:");
            }
            out.push('[');
            if *negated {
                out.push('^');
            }
            for item in items {
                emit_class_item(item, out);
            }
            out.push(']');
            if *fold {
                out.push(')');
            }
        }
        Node::Dot(true) => out.push_str("(?s:.)"),
        Node::Dot(false) => out.push_str("[^\\n]"),
        Node::Begin(true) => out.push_str("(?m:^)"),
        Node::Begin(false) => out.push_str("\\A"),
        Node::End(true) => out.push_str("(?m:$)"),
        Node::End(false) => out.push_str("\\z"),
        Node::WordBoundary(true) => out.push_str("(?-u:\\b)"),
        Node::WordBoundary(false) => out.push_str("(?-u:\\B)"),
        Node::Capture(sub) => {
            out.push_str("(?:");
            emit(sub, out);
            out.push(')');
        }
        Node::Repeat {
            sub,
            min,
            max,
            greedy,
            ..
        } => {
            out.push_str("(?:");
            emit(sub, out);
            out.push(')');
            match (min, max) {
                (0, None) => out.push('*'),
                (1, None) => out.push('+'),
                (0, Some(1)) => out.push('?'),
                (n, None) => out.push_str(&format!("{{{n},}}")),
                (n, Some(m)) if n == m => out.push_str(&format!("{{{n}}}")),
                (n, Some(m)) => out.push_str(&format!("{{{n},{m}}}")),
            }
            if !greedy {
                out.push('?');
            }
        }
        Node::Concat(items) => items.iter().for_each(|i| emit(i, out)),
        Node::Alternate(items) => {
            out.push_str("(?:");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push('|');
                }
                emit(item, out);
            }
            out.push(')');
        }
    }
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
