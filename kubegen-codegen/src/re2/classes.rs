//! Escapes and classes: `\x41`-style escapes, Perl (`\d`), POSIX
//! (`[:alpha:]`) and Unicode (`\pL`) classes as Go reads them.

use super::*;

/// An escape such as `\n`, `\x41`, `\101`, `\.` at the start of `s` (which
/// starts with `\`): the character and the escape's length.
pub(super) fn parse_escape(s: &str) -> Result<(u32, usize), Error> {
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
pub(super) fn class_char(s: &str, whole: &str) -> Result<(u32, usize), Error> {
    match s.chars().next() {
        None => Err(err(MISSING_BRACKET, whole)),
        Some('\\') => parse_escape(s),
        Some(c) => Ok((c as u32, c.len_utf8())),
    }
}

/// The characters of the code point range `lo..=hi` (Go takes surrogates
/// in escapes; no string holds one, so they match nothing).
pub(super) fn char_ranges(lo: u32, hi: u32) -> impl Iterator<Item = ClassItem> {
    [(lo, hi.min(0xD7FF)), (lo.max(0xE000), hi)]
        .into_iter()
        .filter(|(a, b)| a <= b)
        .filter_map(|(a, b)| Some(ClassItem::Range(char::from_u32(a)?, char::from_u32(b)?)))
}

pub(super) const DIGIT: Ascii = &[('0', '9')];
pub(super) const SPACE_PERL: Ascii = &[('\t', '\n'), ('\u{c}', '\r'), (' ', ' ')];
pub(super) const WORD: Ascii = &[('0', '9'), ('A', 'Z'), ('_', '_'), ('a', 'z')];

/// `\d`, `\D`, `\s`, `\S`, `\w`, `\W` at the start of `s` (ASCII, as Go).
pub(super) fn perl_class(s: &str) -> Option<ClassItem> {
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
pub(super) fn posix_class(s: &str) -> Result<Option<(ClassItem, &str)>, Error> {
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
pub(super) fn unicode_class(s: &str) -> Result<Option<(ClassItem, usize)>, Error> {
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
pub(super) fn canonical_name(name: &str) -> String {
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
