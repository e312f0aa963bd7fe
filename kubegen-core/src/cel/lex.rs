//! CEL's tokens, read as the apiserver's lexer (cel-go's ANTLR grammar,
//! `CEL.g4`) reads them: at each position the longest token wins, a tie
//! goes to the rule listed first (so `in`, `true`, `false` and `null` are
//! keywords, `inx` an identifier), whitespace (`\t`, `\n`, `\f`, `\r`,
//! space) and `//` comments are skipped, and a character no rule matches is
//! an error.

/// A token's kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tok {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `in`
    In,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>=`
    Ge,
    /// `>`
    Gt,
    /// `&&`
    And,
    /// `||`
    Or,
    /// `[`
    LBracket,
    /// `]`
    RBracket,
    /// `{`
    LBrace,
    /// `}`
    RBrace,
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// `.`
    Dot,
    /// `,`
    Comma,
    /// `-`
    Minus,
    /// `!`
    Bang,
    /// `?`
    Question,
    /// `:`
    Colon,
    /// `+`
    Plus,
    /// `*`
    Star,
    /// `/`
    Slash,
    /// `%`
    Percent,
    /// `true`
    True,
    /// `false`
    False,
    /// `null`
    Null,
    /// `1.5`, `1e3`, `.5`
    Float,
    /// `12`, `0x1F`
    Int,
    /// `12u`, `0x1Fu`
    Uint,
    /// A quoted, triple-quoted or raw string.
    String,
    /// A string prefixed by `b` or `B`.
    Bytes,
    /// `name`
    Ident,
    /// `` `name with.dots` `` (lexed, refused where the apiserver refuses it)
    EscIdent,
    /// The end of the input.
    Eof,
}

/// A token: its kind and its byte range in the source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    /// What it is.
    pub kind: Tok,
    /// Its first byte.
    pub start: usize,
    /// One past its last byte.
    pub end: usize,
}

/// A character no token starts with, at a byte offset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LexError {
    /// Where the unreadable text starts.
    pub offset: usize,
    /// The character that starts it.
    pub found: char,
}

/// The tokens of `src`, ending with [`Tok::Eof`].
pub fn tokens(src: &str) -> Result<Vec<Token>, LexError> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0c) {
            i += 1;
            continue;
        }
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        let (kind, end) = token_at(b, i).ok_or_else(|| LexError {
            offset: i,
            found: src[i..].chars().next().unwrap_or('\0'),
        })?;
        out.push(Token {
            kind,
            start: i,
            end,
        });
        i = end;
    }
    out.push(Token {
        kind: Tok::Eof,
        start: b.len(),
        end: b.len(),
    });
    Ok(out)
}

/// The longest token starting at `i`, if one does.
fn token_at(b: &[u8], i: usize) -> Option<(Tok, usize)> {
    let c = b[i];
    let next = b.get(i + 1).copied();
    if c.is_ascii_digit() || (c == b'.' && next.is_some_and(|n| n.is_ascii_digit())) {
        return Some(number(b, i));
    }
    if c.is_ascii_alphabetic() || c == b'_' {
        return Some(word(b, i));
    }
    if c == b'"' || c == b'\'' {
        return string(b, i, false).map(|end| (Tok::String, end));
    }
    if c == b'`' {
        let mut j = i + 1;
        while j < b.len()
            && (b[j].is_ascii_alphanumeric() || matches!(b[j], b'_' | b'.' | b'-' | b'/' | b' '))
        {
            j += 1;
        }
        return (j > i + 1 && b.get(j) == Some(&b'`')).then_some((Tok::EscIdent, j + 1));
    }
    let two = match (c, next) {
        (b'=', Some(b'=')) => Some(Tok::Eq),
        (b'!', Some(b'=')) => Some(Tok::Ne),
        (b'<', Some(b'=')) => Some(Tok::Le),
        (b'>', Some(b'=')) => Some(Tok::Ge),
        (b'&', Some(b'&')) => Some(Tok::And),
        (b'|', Some(b'|')) => Some(Tok::Or),
        _ => None,
    };
    if let Some(t) = two {
        return Some((t, i + 2));
    }
    let one = match c {
        b'<' => Tok::Lt,
        b'>' => Tok::Gt,
        b'[' => Tok::LBracket,
        b']' => Tok::RBracket,
        b'{' => Tok::LBrace,
        b'}' => Tok::RBrace,
        b'(' => Tok::LParen,
        b')' => Tok::RParen,
        b'.' => Tok::Dot,
        b',' => Tok::Comma,
        b'-' => Tok::Minus,
        b'!' => Tok::Bang,
        b'?' => Tok::Question,
        b':' => Tok::Colon,
        b'+' => Tok::Plus,
        b'*' => Tok::Star,
        b'/' => Tok::Slash,
        b'%' => Tok::Percent,
        _ => return None,
    };
    Some((one, i + 1))
}

/// Digits from `i`, where `digit` says which bytes are digits.
fn run(b: &[u8], mut i: usize, digit: fn(&u8) -> bool) -> usize {
    while b.get(i).is_some_and(digit) {
        i += 1;
    }
    i
}

/// The end of an exponent (`e`, an optional sign, digits) at `i`, if one is.
fn exponent(b: &[u8], i: usize) -> Option<usize> {
    if !matches!(b.get(i), Some(b'e' | b'E')) {
        return None;
    }
    let mut j = i + 1;
    if matches!(b.get(j), Some(b'+' | b'-')) {
        j += 1;
    }
    let end = run(b, j, u8::is_ascii_digit);
    (end > j).then_some(end)
}

/// A number at `i` (a digit, or `.` and a digit): the longest of NUM_FLOAT,
/// NUM_INT and NUM_UINT.
fn number(b: &[u8], i: usize) -> (Tok, usize) {
    let uint = |end: usize| match b.get(end) {
        Some(b'u' | b'U') => (Tok::Uint, end + 1),
        _ => (Tok::Int, end),
    };
    if b[i] == b'.' {
        let end = run(b, i + 1, u8::is_ascii_digit);
        return (Tok::Float, exponent(b, end).unwrap_or(end));
    }
    if b[i..].starts_with(b"0x") && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit) {
        return uint(run(b, i + 2, u8::is_ascii_hexdigit));
    }
    let end = run(b, i, u8::is_ascii_digit);
    if b.get(end) == Some(&b'.') && b.get(end + 1).is_some_and(u8::is_ascii_digit) {
        let frac = run(b, end + 1, u8::is_ascii_digit);
        return (Tok::Float, exponent(b, frac).unwrap_or(frac));
    }
    if let Some(exp) = exponent(b, end) {
        return (Tok::Float, exp);
    }
    uint(end)
}

/// An identifier or keyword at `i`, or a string it prefixes (`r"…"`,
/// `b'…'`, `br"…"`).
fn word(b: &[u8], i: usize) -> (Tok, usize) {
    let end = run(b, i, |c| c.is_ascii_alphanumeric() || *c == b'_');
    let quoted = matches!(b.get(end), Some(b'"' | b'\''));
    if quoted {
        let prefixed = match &b[i..end] {
            [b'r' | b'R'] => string(b, end, true).map(|e| (Tok::String, e)),
            [b'b' | b'B'] => string(b, end, false).map(|e| (Tok::Bytes, e)),
            [b'b' | b'B', b'r' | b'R'] => string(b, end, true).map(|e| (Tok::Bytes, e)),
            _ => None,
        };
        if let Some(t) = prefixed {
            return t;
        }
    }
    let kind = match &b[i..end] {
        b"in" => Tok::In,
        b"true" => Tok::True,
        b"false" => Tok::False,
        b"null" => Tok::Null,
        _ => Tok::Ident,
    };
    (kind, end)
}

/// The end of the escape sequence starting with the backslash at `i`, if
/// it is one CEL has.
fn escape(b: &[u8], i: usize) -> Option<usize> {
    let hex = |from: usize, n: usize| {
        (b.len() >= from + n && b[from..from + n].iter().all(u8::is_ascii_hexdigit))
            .then_some(from + n)
    };
    match b.get(i + 1)? {
        b'a' | b'b' | b'f' | b'n' | b'r' | b't' | b'v' | b'"' | b'\'' | b'\\' | b'?' | b'`' => {
            Some(i + 2)
        }
        b'0'..=b'3' => {
            let octal = |k: usize| b.get(k).is_some_and(|c| (b'0'..=b'7').contains(c));
            (octal(i + 2) && octal(i + 3)).then_some(i + 4)
        }
        b'x' | b'X' => hex(i + 2, 2),
        b'u' => hex(i + 2, 4),
        b'U' => hex(i + 2, 8),
        _ => None,
    }
}

/// The end of the string whose quote is at `i` (raw: no escapes), if it is
/// closed as the grammar requires. A triple quote that is never closed
/// falls back to the empty string its first two quotes make, as the
/// longest-match lexer does.
fn string(b: &[u8], i: usize, raw: bool) -> Option<usize> {
    let q = b[i];
    if b.len() >= i + 3 && b[i + 1] == q && b[i + 2] == q {
        let mut j = i + 3;
        while j < b.len() {
            if b.len() >= j + 3 && b[j..j + 3] == [q, q, q] {
                return Some(j + 3);
            }
            j = if !raw && b[j] == b'\\' {
                match escape(b, j) {
                    Some(e) => e,
                    None => break,
                }
            } else {
                j + 1
            };
        }
        return Some(i + 2);
    }
    let mut j = i + 1;
    while j < b.len() {
        match b[j] {
            c if c == q => return Some(j + 1),
            b'\n' | b'\r' => return None,
            b'\\' if !raw => j = escape(b, j)?,
            _ => j += 1,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<(Tok, &str)> {
        tokens(src)
            .unwrap()
            .into_iter()
            .filter(|t| t.kind != Tok::Eof)
            .map(|t| (t.kind, &src[t.start..t.end]))
            .collect()
    }

    #[test]
    fn longest_match_wins() {
        use Tok::*;
        assert_eq!(kinds("in inx"), [(In, "in"), (Ident, "inx")]);
        assert_eq!(kinds("1.e5"), [(Int, "1"), (Dot, "."), (Ident, "e5")]);
        assert_eq!(kinds("1.5e-3u"), [(Float, "1.5e-3"), (Ident, "u")]);
        assert_eq!(
            kinds("0x1Fu 0X1"),
            [(Uint, "0x1Fu"), (Int, "0"), (Ident, "X1")]
        );
        assert_eq!(kinds(".5 1e9"), [(Float, ".5"), (Float, "1e9")]);
        assert_eq!(
            kinds("r'\\' b\"x\" bR'y' rb'z'"),
            [
                (String, "r'\\'"),
                (Bytes, "b\"x\""),
                (Bytes, "bR'y'"),
                (Ident, "rb"),
                (String, "'z'")
            ]
        );
        assert_eq!(kinds("'''a\n'''"), [(String, "'''a\n'''")]);
        assert_eq!(kinds("''' x'"), [(String, "''"), (String, "' x'")]);
        assert_eq!(
            kinds("a // c\n<= `b.c`"),
            [(Ident, "a"), (Le, "<="), (EscIdent, "`b.c`")]
        );
    }

    #[test]
    fn unreadable_characters_are_errors() {
        for (src, at) in [
            ("a # b", 2),
            ("'\\q'", 0),
            ("a = b", 2),
            ("\u{b}", 0),
            ("é", 0),
            ("'a\nb'", 0),
        ] {
            assert_eq!(tokens(src).unwrap_err().offset, at, "{src:?}");
        }
    }
}
