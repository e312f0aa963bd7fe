//! Label and field selectors as the apiserver parses and matches them
//! (`k8s.io/apimachinery/pkg/labels` and `pkg/fields`): `=`, `==`, `!=`,
//! `in`, `notin`, existence and `!` for labels, `>`/`<` on integers;
//! `=`, `==`, `!=` with `\` escapes for fields.

use serde_json::Value;

/// One label requirement.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Op {
    In(Vec<String>),
    NotIn(Vec<String>),
    Exists,
    DoesNotExist,
    Gt(i64),
    Lt(i64),
}

/// A parsed label selector; the empty selector matches everything.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Labels(Vec<(String, Op)>);

/// A parsed field selector; the empty selector matches everything.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Fields(Vec<(String, bool, String)>);

fn is_value_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/')
}

struct Lexer<'a> {
    s: &'a str,
    i: usize,
}

impl<'a> Lexer<'a> {
    fn skip(&mut self) {
        while self.s[self.i..].starts_with(char::is_whitespace) {
            self.i += 1;
        }
    }

    fn eat(&mut self, t: &str) -> bool {
        self.skip();
        if self.s[self.i..].starts_with(t) {
            self.i += t.len();
            true
        } else {
            false
        }
    }

    fn word(&mut self) -> &'a str {
        self.skip();
        let start = self.i;
        while self.s[self.i..].starts_with(is_value_char) {
            self.i += 1;
        }
        &self.s[start..self.i]
    }

    fn done(&mut self) -> bool {
        self.skip();
        self.i == self.s.len()
    }
}

impl Lexer<'_> {
    /// The next token's text, for an error.
    fn literal(&mut self) -> String {
        self.skip();
        let save = self.i;
        let w = self.word().to_string();
        self.i = save;
        if w.is_empty() {
            self.s[self.i..]
                .chars()
                .next()
                .map(String::from)
                .unwrap_or_default()
        } else {
            w
        }
    }
}

fn values(lx: &mut Lexer<'_>) -> Result<Vec<String>, String> {
    if !lx.eat("(") {
        return Err(format!("found '{}' expected: '('", lx.literal()));
    }
    let mut out = Vec::new();
    loop {
        out.push(lx.word().to_string());
        if lx.eat(")") {
            return Ok(out);
        }
        if !lx.eat(",") {
            return Err(format!("found '{}', expected: ',' or ')'", lx.literal()));
        }
    }
}

impl Labels {
    /// Parses `s` as `labels.Parse` does.
    pub fn parse(s: &str) -> Result<Labels, String> {
        Labels::requirements(s).map_err(|e| format!("unable to parse requirement: {e}"))
    }

    fn requirements(s: &str) -> Result<Labels, String> {
        let mut lx = Lexer { s, i: 0 };
        let mut out = Vec::new();
        if lx.done() {
            return Ok(Labels(out));
        }
        loop {
            let not = lx.eat("!");
            let key = lx.word().to_string();
            if key.is_empty() {
                return Err(format!(
                    "unable to parse requirement: found '{}', expected: identifier",
                    &s[lx.i..]
                ));
            }
            let op = if not {
                Op::DoesNotExist
            } else if lx.eat("==") || lx.eat("=") {
                Op::In(vec![lx.word().to_string()])
            } else if lx.eat("!=") {
                Op::NotIn(vec![lx.word().to_string()])
            } else if lx.eat(">") {
                Op::Gt(int(lx.word())?)
            } else if lx.eat("<") {
                Op::Lt(int(lx.word())?)
            } else {
                let save = lx.i;
                match lx.word() {
                    "in" => Op::In(values(&mut lx)?),
                    "notin" => Op::NotIn(values(&mut lx)?),
                    _ => {
                        lx.i = save;
                        Op::Exists
                    }
                }
            };
            out.push((key, op));
            if lx.done() {
                break;
            }
            if !lx.eat(",") {
                return Err(format!(
                    "found '{}', expected: ',' or 'end of string'",
                    &s[lx.i..]
                ));
            }
        }
        Ok(Labels(out))
    }

    /// Whether an object's labels (`metadata.labels`) match.
    pub fn matches(&self, labels: Option<&Value>) -> bool {
        let get = |k: &str| labels.and_then(|l| l.get(k)).and_then(Value::as_str);
        self.0.iter().all(|(k, op)| match op {
            Op::In(vs) => get(k).is_some_and(|v| vs.iter().any(|x| x == v)),
            Op::NotIn(vs) => get(k).is_none_or(|v| !vs.iter().any(|x| x == v)),
            Op::Exists => get(k).is_some(),
            Op::DoesNotExist => get(k).is_none(),
            Op::Gt(n) => get(k)
                .and_then(|v| v.parse::<i64>().ok())
                .is_some_and(|v| v > *n),
            Op::Lt(n) => get(k)
                .and_then(|v| v.parse::<i64>().ok())
                .is_some_and(|v| v < *n),
        })
    }
}

fn int(s: &str) -> Result<i64, String> {
    s.parse()
        .map_err(|_| format!("for 'Gt', 'Lt' operators, the value must be an integer: {s}"))
}

impl Fields {
    /// Parses `s` as `fields.ParseSelector` does.
    pub fn parse(s: &str) -> Result<Fields, String> {
        let mut out = Vec::new();
        if s.is_empty() {
            return Ok(Fields(out));
        }
        for term in split_unescaped(s, ',') {
            let (key, eq, value) = if let Some(i) = find_unescaped(&term, "!=") {
                (&term[..i], false, &term[i + 2..])
            } else if let Some(i) = find_unescaped(&term, "==") {
                (&term[..i], true, &term[i + 2..])
            } else if let Some(i) = find_unescaped(&term, "=") {
                (&term[..i], true, &term[i + 1..])
            } else {
                return Err(format!(
                    "invalid selector: '{s}'; can't understand '{term}'"
                ));
            };
            out.push((key.to_string(), eq, unescape(value)?));
        }
        Ok(Fields(out))
    }

    /// The field labels named, to check against the resource's
    /// supported ones.
    pub fn labels(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(k, _, _)| k.as_str())
    }

    /// Whether an object matches, reading each label with `get`.
    pub fn matches(&self, get: impl Fn(&str) -> String) -> bool {
        self.0.iter().all(|(k, eq, v)| (get(k) == *v) == *eq)
    }
}

fn split_unescaped(s: &str, sep: char) -> Vec<String> {
    // Escapes stay in each term for `find_unescaped` and `unescape`.
    let mut out = vec![String::new()];
    let mut escaped = false;
    for c in s.chars() {
        if !escaped && c == sep {
            out.push(String::new());
            continue;
        }
        escaped = !escaped && c == '\\';
        if let Some(last) = out.last_mut() {
            last.push(c);
        }
    }
    out
}

fn find_unescaped(s: &str, pat: &str) -> Option<usize> {
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < s.len() {
        if bytes[i] == b'\\' {
            i += 2;
            continue;
        }
        if s[i..].starts_with(pat) {
            return Some(i);
        }
        i += 1;
    }
    None
}

fn unescape(s: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some(e @ ('\\' | ',' | '=' | '!')) => out.push(e),
                Some(e) => return Err(format!("invalid escape sequence: \\{e}")),
                None => return Err("invalid trailing escape sequence".into()),
            }
        } else {
            out.push(c);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn label_selectors_match_as_the_apiservers() {
        let labels = json!({"app": "web", "tier": "front", "n": "5"});
        let m = |s: &str| Labels::parse(s).unwrap().matches(Some(&labels));
        assert!(m(""));
        assert!(m("app=web"));
        assert!(m("app==web,tier"));
        assert!(!m("app!=web"));
        assert!(m("app in (web, db)"));
        assert!(!m("app notin (web)"));
        assert!(m("!missing"));
        assert!(!m("!app"));
        assert!(m("n>4") && !m("n<5"));
        assert!(m("missing notin (x)"));
        assert!(Labels::parse("app in web").is_err());
        assert!(Labels::parse("a=b c=d").is_err());
    }

    #[test]
    fn field_selectors_unescape_and_match() {
        let f = Fields::parse(r"metadata.name=a\,b,status.phase!=Running").unwrap();
        assert_eq!(
            f.labels().collect::<Vec<_>>(),
            ["metadata.name", "status.phase"]
        );
        assert!(f.matches(|k| if k == "metadata.name" {
            "a,b".into()
        } else {
            "Pending".into()
        }));
        assert!(!f.matches(|_| "Running".into()));
        assert!(Fields::parse("nonsense").is_err());
    }
}
