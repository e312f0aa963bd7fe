//! Go's `regexp/syntax` parser: the pattern read left to right into a
//! [`Node`] tree, refusing with Go's errors, and counted repetitions.

use super::*;

/// An open group (the whole pattern is the outermost).
pub(super) struct Frame {
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
    pub(super) fn new(flags: Flags, capture: bool) -> Self {
        Frame {
            branches: Vec::new(),
            items: Vec::new(),
            flags,
            capture,
        }
    }

    pub(super) fn finish(mut self) -> Node {
        let branch = concat(std::mem::take(&mut self.items));
        if self.branches.is_empty() {
            branch
        } else {
            self.branches.push(branch);
            Node::Alternate(self.branches)
        }
    }
}

pub(super) fn concat(mut items: Vec<Node>) -> Node {
    match items.len() {
        0 => Node::Empty,
        1 => items.pop().unwrap_or(Node::Empty),
        _ => Node::Concat(items),
    }
}

pub(super) struct Parser<'a> {
    whole: &'a str,
    /// Byte offset of the rest of the pattern.
    pos: usize,
    flags: Flags,
    stack: Vec<Frame>,
}

pub(super) fn err(code: &'static str, expr: &str) -> Error {
    Error {
        code,
        expr: expr.to_owned(),
    }
}

impl<'a> Parser<'a> {
    pub(super) fn new(whole: &'a str) -> Self {
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

    pub(super) fn parse(mut self) -> Result<Node, Error> {
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
pub(super) enum Max {
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
pub(super) fn parse_repeat(s: &str) -> Option<(Option<u32>, Max, usize)> {
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
pub(super) fn parse_int(s: &str) -> Option<(Option<u32>, usize)> {
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
