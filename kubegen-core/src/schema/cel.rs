//! CEL helpers: escaping property names and quoting strings for
//! `x-kubernetes-validations` rules, and [`Expr`], the small expression
//! language kubegen writes its own rules in, which knows each expression's
//! worst-case cost as the apiserver estimates it (so a generated rule never
//! makes a CRD exceed the apiserver's CEL cost budget).

use serde_json::{Map, Value};

/// The apiserver's largest request (`MaxRequestSizeBytes`): it bounds how
/// many times a value can repeat inside lists and maps without a limit.
pub const MAX_REQUEST_SIZE: u64 = 3 * 1024 * 1024;

/// The apiserver's limit on one rule's estimated cost times the number of
/// times it can run (`StaticEstimatedCostLimit`).
pub const RULE_COST_LIMIT: u64 = 10_000_000;

/// The apiserver's limit on the sum of every rule's cost in one CRD version
/// (`StaticEstimatedCRDCostLimit`).
pub const CRD_COST_LIMIT: u64 = 100_000_000;

/// Words CEL reserves; the apiserver names such properties `__word__`.
const RESERVED: &[&str] = &[
    "true",
    "false",
    "null",
    "in",
    "as",
    "break",
    "const",
    "continue",
    "else",
    "for",
    "function",
    "if",
    "import",
    "let",
    "loop",
    "package",
    "namespace",
    "return",
    "var",
    "void",
    "while",
];

/// A JSON property name as the apiserver's CEL environment names it, or
/// `None` when CEL cannot name it at all (empty, a leading digit, or a
/// character outside `[a-zA-Z0-9_.-/]`): such a property is invisible to
/// rules.
pub fn escape(name: &str) -> Option<String> {
    let first = name.chars().next()?;
    if first.is_ascii_digit() {
        return None;
    }
    if RESERVED.contains(&name) {
        return Some(format!("__{name}__"));
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-' | '/'))
    {
        return None;
    }
    Some(
        name.replace("__", "__underscores__")
            .replace('.', "__dot__")
            .replace('-', "__dash__")
            .replace('/', "__slash__"),
    )
}

/// A JSON property name as the apiserver's CEL environment names it (see
/// [`escape`]; a name CEL cannot express is escaped as far as possible, and
/// the apiserver then reports the rule).
pub fn ident(name: &str) -> String {
    escape(name).unwrap_or_else(|| {
        name.replace("__", "__underscores__")
            .replace('.', "__dot__")
            .replace('-', "__dash__")
            .replace('/', "__slash__")
    })
}

/// `s` as a CEL string literal.
pub fn literal(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// A path of JSON property names below `self`, every one nameable in CEL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Path(Vec<String>);

impl Path {
    /// The path, or `None` when CEL cannot name one of its properties.
    pub fn new<S: Into<String>>(names: impl IntoIterator<Item = S>) -> Option<Path> {
        let names: Vec<String> = names.into_iter().map(Into::into).collect();
        if names.is_empty() || names.iter().any(|n| escape(n).is_none()) {
            return None;
        }
        Some(Path(names))
    }

    /// The JSON property names.
    pub fn names(&self) -> &[String] {
        &self.0
    }

    /// `self.a.b`.
    fn render(&self) -> String {
        let mut out = String::from("self");
        for n in &self.0 {
            out.push('.');
            out.push_str(&ident(n));
        }
        out
    }
}

/// A CEL expression kubegen generates: enough of the language for presence
/// tests, tag comparisons, counting and messages.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// `true` / `false`.
    Bool(bool),
    /// An integer literal.
    Int(i64),
    /// A string literal.
    Str(String),
    /// `self.a.b`, a string property whose schema bounds its length (an
    /// `enum`: the apiserver estimates its size by the longest value).
    StrField {
        /// Where.
        path: Path,
        /// The longest value, in bytes.
        max_len: u64,
    },
    /// `has(self.a.b)`: `self.a` must be present.
    Has(Path),
    /// `!x`.
    Not(Box<Expr>),
    /// `a && b && ...` (`true` when empty).
    And(Vec<Expr>),
    /// `a || b || ...` (`false` when empty).
    Or(Vec<Expr>),
    /// `a == b`.
    Eq(Box<Expr>, Box<Expr>),
    /// `a != b`.
    Ne(Box<Expr>, Box<Expr>),
    /// `c ? t : f`.
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `a + b + ...` on integers.
    Sum(Vec<Expr>),
    /// `a + b + ...` on strings.
    Concat(Vec<Expr>),
    /// `s.substring(n)`.
    Substring(Box<Expr>, i64),
}

/// `!x`, simplifying constants and double negation.
impl std::ops::Not for Expr {
    type Output = Expr;

    fn not(self) -> Expr {
        match self {
            Expr::Bool(b) => Expr::Bool(!b),
            Expr::Not(inner) => *inner,
            Expr::Eq(a, b) => Expr::Ne(a, b),
            Expr::Ne(a, b) => Expr::Eq(a, b),
            x => Expr::Not(Box::new(x)),
        }
    }
}

/// Constructors that simplify as they build.
impl Expr {
    /// `a && b && ...`, dropping `true` and flattening.
    pub fn and(xs: impl IntoIterator<Item = Expr>) -> Expr {
        let mut out = Vec::new();
        for x in xs {
            match x {
                Expr::Bool(true) => {}
                Expr::Bool(false) => return Expr::Bool(false),
                Expr::And(inner) => out.extend(inner),
                x => out.push(x),
            }
        }
        match out.len() {
            0 => Expr::Bool(true),
            1 => out.pop().unwrap_or(Expr::Bool(true)),
            _ => Expr::And(out),
        }
    }

    /// `a || b || ...`, dropping `false` and flattening.
    pub fn or(xs: impl IntoIterator<Item = Expr>) -> Expr {
        let mut out = Vec::new();
        for x in xs {
            match x {
                Expr::Bool(false) => {}
                Expr::Bool(true) => return Expr::Bool(true),
                Expr::Or(inner) => out.extend(inner),
                x => out.push(x),
            }
        }
        match out.len() {
            0 => Expr::Bool(false),
            1 => out.pop().unwrap_or(Expr::Bool(false)),
            _ => Expr::Or(out),
        }
    }

    /// `c ? t : f`, simplifying a constant condition or equal branches.
    pub fn cond(c: Expr, t: Expr, f: Expr) -> Expr {
        match c {
            Expr::Bool(true) => t,
            Expr::Bool(false) => f,
            _ if t == f => t,
            c => Expr::Cond(Box::new(c), Box::new(t), Box::new(f)),
        }
    }

    /// CEL's precedence: `?:` binds loosest, then `||`, `&&`, relations,
    /// `+`, unary `!`, then atoms.
    pub(crate) fn precedence(&self) -> u8 {
        match self {
            Expr::Cond(..) => 0,
            Expr::Or(xs) | Expr::And(xs) if xs.is_empty() => 6,
            Expr::Or(_) => 1,
            Expr::And(_) => 2,
            Expr::Eq(..) | Expr::Ne(..) => 3,
            Expr::Sum(_) | Expr::Concat(_) => 4,
            Expr::Not(_) => 5,
            _ => 6,
        }
    }

    /// Renders as an operand that needs at least `precedence`.
    fn operand(&self, precedence: u8) -> String {
        let s = self.render();
        if self.precedence() < precedence {
            format!("({s})")
        } else {
            s
        }
    }

    /// The CEL source.
    pub fn render(&self) -> String {
        // `&&` inside `||` (and the reverse) is parenthesized for the reader.
        let join = |xs: &[Expr], op: &str, at: u8| {
            xs.iter()
                .map(|x| x.operand(at))
                .collect::<Vec<_>>()
                .join(&format!(" {op} "))
        };
        match self {
            Expr::Bool(b) => b.to_string(),
            Expr::Int(i) => i.to_string(),
            Expr::Str(s) => literal(s),
            Expr::StrField { path, .. } => path.render(),
            Expr::Has(path) => format!("has({})", path.render()),
            Expr::Not(x) => format!("!{}", x.operand(5)),
            Expr::And(xs) if xs.is_empty() => "true".into(),
            Expr::And(xs) => join(xs, "&&", 3),
            Expr::Or(xs) if xs.is_empty() => "false".into(),
            Expr::Or(xs) => join(xs, "||", 3),
            Expr::Eq(a, b) => format!("{} == {}", a.operand(4), b.operand(4)),
            Expr::Ne(a, b) => format!("{} != {}", a.operand(4), b.operand(4)),
            // Right-associative: `a ? b : c ? d : e` needs no parentheses.
            Expr::Cond(c, t, f) => format!("{} ? {} : {}", c.operand(1), t.operand(1), f.render()),
            Expr::Sum(xs) | Expr::Concat(xs) => join(xs, "+", 5),
            Expr::Substring(s, n) => format!("{}.substring({n})", s.operand(6)),
        }
    }

    /// The largest size the apiserver's estimator gives the value: bytes
    /// of a string, 1 for scalars.
    fn size(&self) -> u64 {
        match self {
            Expr::Str(s) => s.chars().count() as u64,
            Expr::StrField { max_len, .. } => *max_len,
            Expr::Cond(_, t, f) => t.size().max(f.size()),
            Expr::Concat(xs) => xs.iter().map(Expr::size).fold(0, u64::saturating_add),
            Expr::Substring(s, _) => s.size(),
            _ => 1,
        }
    }

    /// The worst-case cost of one evaluation, as the apiserver estimates it
    /// (cel-go's checker with the apiserver's options: `has()` is free, a
    /// property selection costs 1, string operations 0.1 per byte rounded
    /// up, `&&`/`||`/`?:` cost their operands, other calls 1 plus their
    /// arguments).
    pub fn cost(&self) -> u64 {
        let traverse = |bytes: u64| bytes.div_ceil(10);
        match self {
            Expr::Bool(_) | Expr::Int(_) | Expr::Str(_) => 0,
            // `self` (1) plus one per selected property.
            Expr::StrField { path, .. } => 1 + path.names().len() as u64,
            // The operand of the last selection; the test itself is free.
            Expr::Has(path) => path.names().len() as u64,
            Expr::Not(x) => 1 + x.cost(),
            Expr::And(xs) | Expr::Or(xs) => xs.iter().map(Expr::cost).sum(),
            Expr::Eq(a, b) | Expr::Ne(a, b) => {
                traverse(a.size().min(b.size())) + a.cost() + b.cost()
            }
            Expr::Cond(c, t, f) => c.cost() + t.cost().max(f.cost()),
            Expr::Sum(xs) => {
                xs.iter().map(Expr::cost).sum::<u64>() + xs.len().saturating_sub(1) as u64
            }
            // Left to right: each `+` traverses the string built so far.
            Expr::Concat(xs) => {
                let mut cost: u64 = xs.iter().map(Expr::cost).sum();
                let mut built = xs.first().map_or(0, Expr::size);
                for x in xs.iter().skip(1) {
                    built += x.size();
                    cost += traverse(built);
                }
                cost
            }
            Expr::Substring(s, _) => traverse(s.size()) + s.cost(),
        }
    }
}

/// The smallest JSON text a value of this schema can be, as the apiserver
/// reckons it (`MinSerializedSize`): it decides how many such values fit
/// in one request, which multiplies the cost of rules on them inside lists
/// and maps without a size limit.
pub fn min_serialized_size(s: &Map<String, Value>) -> Option<u64> {
    if s.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true)) {
        return Some(1);
    }
    match s.get("type").and_then(Value::as_str)? {
        "object" => {
            if s.contains_key("additionalProperties") {
                return Some(2);
            }
            let required: Vec<&str> = s
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let mut size = 2;
            if let Some(Value::Object(props)) = s.get("properties") {
                for (name, p) in props {
                    let Value::Object(p) = p else { continue };
                    if !required.contains(&name.as_str()) || p.contains_key("default") {
                        continue;
                    }
                    if let Some(inner) = min_serialized_size(p) {
                        size += name.len() as u64 + inner + 4;
                    }
                }
            }
            Some(size)
        }
        "array" => Some(2),
        "string" => Some(match s.get("format").and_then(Value::as_str) {
            Some("duration") => 3,
            Some("date") => 12,
            Some("date-time") => 21,
            _ => 2,
        }),
        "boolean" => Some(4),
        "integer" | "number" => Some(1),
        _ => None,
    }
}

/// How many times a rule on a value of schema `s` can run when the value
/// sits inside lists or maps, at least one of them without a size limit.
pub fn unbounded_cardinality(s: &Map<String, Value>) -> u64 {
    MAX_REQUEST_SIZE / (min_serialized_size(s).unwrap_or(0) + 1)
}

/// An evaluator of [`Expr`] over JSON, for tests: CEL's semantics for the
/// subset, including the error of selecting an absent property.
#[cfg(test)]
pub mod eval {
    use super::*;

    /// A CEL value of the subset.
    #[derive(Clone, Debug, PartialEq)]
    pub enum Val {
        /// A boolean.
        Bool(bool),
        /// An integer.
        Int(i64),
        /// A string.
        Str(String),
    }

    fn lookup<'a>(this: &'a Value, path: &Path) -> Result<Option<&'a Value>, String> {
        let (last, parents) = path.names().split_last().ok_or("empty path")?;
        let mut at = this;
        for p in parents {
            at = at.get(p).ok_or_else(|| format!("no such key: {p}"))?;
        }
        Ok(at.get(last))
    }

    fn boolean(v: Val) -> Result<bool, String> {
        match v {
            Val::Bool(b) => Ok(b),
            v => Err(format!("not a bool: {v:?}")),
        }
    }

    /// The JSON name of a CEL-escaped property name.
    fn unescape(ident: &str) -> String {
        if let Some(word) = ident.strip_prefix("__").and_then(|w| w.strip_suffix("__"))
            && RESERVED.contains(&word)
        {
            return word.to_owned();
        }
        ident
            .replace("__underscores__", "\u{0}")
            .replace("__dot__", ".")
            .replace("__dash__", "-")
            .replace("__slash__", "/")
            .replace('\u{0}', "__")
    }

    /// Parses the CEL subset [`Expr`] renders (a test oracle for the
    /// emitted rule text, precedence included).
    pub fn parse(src: &str) -> Result<Expr, String> {
        let mut p = Parser {
            s: src.as_bytes(),
            at: 0,
        };
        let e = p.expr()?;
        p.ws();
        if p.at != p.s.len() {
            return Err(format!("trailing input at {}: {src}", p.at));
        }
        Ok(e)
    }

    struct Parser<'a> {
        s: &'a [u8],
        at: usize,
    }

    impl Parser<'_> {
        fn ws(&mut self) {
            while self.s.get(self.at).is_some_and(u8::is_ascii_whitespace) {
                self.at += 1;
            }
        }

        fn eat(&mut self, tok: &str) -> bool {
            self.ws();
            if self.s[self.at..].starts_with(tok.as_bytes()) {
                self.at += tok.len();
                true
            } else {
                false
            }
        }

        fn expect(&mut self, tok: &str) -> Result<(), String> {
            if self.eat(tok) {
                Ok(())
            } else {
                Err(format!("expected `{tok}` at {}", self.at))
            }
        }

        fn expr(&mut self) -> Result<Expr, String> {
            let c = self.or()?;
            if self.eat("?") {
                let t = self.or()?;
                self.expect(":")?;
                let f = self.expr()?;
                return Ok(Expr::Cond(Box::new(c), Box::new(t), Box::new(f)));
            }
            Ok(c)
        }

        fn or(&mut self) -> Result<Expr, String> {
            let mut xs = vec![self.and()?];
            while self.eat("||") {
                xs.push(self.and()?);
            }
            Ok(if xs.len() == 1 {
                xs.remove(0)
            } else {
                Expr::Or(xs)
            })
        }

        fn and(&mut self) -> Result<Expr, String> {
            let mut xs = vec![self.rel()?];
            while self.eat("&&") {
                xs.push(self.rel()?);
            }
            Ok(if xs.len() == 1 {
                xs.remove(0)
            } else {
                Expr::And(xs)
            })
        }

        fn rel(&mut self) -> Result<Expr, String> {
            let a = self.add()?;
            if self.eat("==") {
                return Ok(Expr::Eq(Box::new(a), Box::new(self.add()?)));
            }
            if self.eat("!=") {
                return Ok(Expr::Ne(Box::new(a), Box::new(self.add()?)));
            }
            Ok(a)
        }

        fn add(&mut self) -> Result<Expr, String> {
            let mut xs = vec![self.unary()?];
            while self.eat("+") {
                xs.push(self.unary()?);
            }
            Ok(if xs.len() == 1 {
                xs.remove(0)
            } else {
                Expr::Sum(xs)
            })
        }

        fn unary(&mut self) -> Result<Expr, String> {
            self.ws();
            if self.s.get(self.at) == Some(&b'!') && self.s.get(self.at + 1) != Some(&b'=') {
                self.at += 1;
                return Ok(Expr::Not(Box::new(self.unary()?)));
            }
            let mut e = self.primary()?;
            while self.eat(".substring(") {
                let n = self.int()?;
                self.expect(")")?;
                e = Expr::Substring(Box::new(e), n);
            }
            Ok(e)
        }

        fn int(&mut self) -> Result<i64, String> {
            self.ws();
            let start = self.at;
            while self.s.get(self.at).is_some_and(u8::is_ascii_digit) {
                self.at += 1;
            }
            std::str::from_utf8(&self.s[start..self.at])
                .map_err(|e| e.to_string())?
                .parse()
                .map_err(|e| format!("{e} at {start}"))
        }

        fn path(&mut self) -> Result<Path, String> {
            self.expect("self")?;
            let mut names = Vec::new();
            while self.s.get(self.at) == Some(&b'.')
                && !self.s[self.at..].starts_with(b".substring(")
            {
                self.at += 1;
                let start = self.at;
                while self
                    .s
                    .get(self.at)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
                {
                    self.at += 1;
                }
                let ident =
                    std::str::from_utf8(&self.s[start..self.at]).map_err(|e| e.to_string())?;
                names.push(unescape(ident));
            }
            Path::new(names).ok_or_else(|| format!("bad path at {}", self.at))
        }

        fn primary(&mut self) -> Result<Expr, String> {
            self.ws();
            if self.eat("(") {
                let e = self.expr()?;
                self.expect(")")?;
                return Ok(e);
            }
            if self.eat("has(") {
                let p = self.path()?;
                self.expect(")")?;
                return Ok(Expr::Has(p));
            }
            if self.eat("true") {
                return Ok(Expr::Bool(true));
            }
            if self.eat("false") {
                return Ok(Expr::Bool(false));
            }
            if self.s[self.at..].starts_with(b"self") {
                return Ok(Expr::StrField {
                    path: self.path()?,
                    max_len: 0,
                });
            }
            if self.s.get(self.at) == Some(&b'\'') {
                self.at += 1;
                let mut out = Vec::new();
                loop {
                    match self.s.get(self.at) {
                        None => return Err("unterminated string".into()),
                        Some(b'\'') => break,
                        Some(b'\\') => {
                            self.at += 1;
                            out.push(match self.s.get(self.at) {
                                Some(b'n') => b'\n',
                                Some(b'r') => b'\r',
                                Some(b't') => b'\t',
                                Some(c) => *c,
                                None => return Err("bad escape".into()),
                            });
                        }
                        Some(c) => out.push(*c),
                    }
                    self.at += 1;
                }
                self.at += 1;
                return String::from_utf8(out)
                    .map(Expr::Str)
                    .map_err(|e| e.to_string());
            }
            Ok(Expr::Int(self.int()?))
        }
    }

    /// Evaluates `e` with `self` bound to `this`.
    pub fn eval(e: &Expr, this: &Value) -> Result<Val, String> {
        Ok(match e {
            Expr::Bool(b) => Val::Bool(*b),
            Expr::Int(i) => Val::Int(*i),
            Expr::Str(s) => Val::Str(s.clone()),
            Expr::StrField { path, .. } => match lookup(this, path)? {
                Some(Value::String(s)) => Val::Str(s.clone()),
                Some(v) => return Err(format!("not a string: {v}")),
                None => return Err(format!("no such key: {}", path.render())),
            },
            Expr::Has(path) => Val::Bool(lookup(this, path)?.is_some()),
            Expr::Not(x) => Val::Bool(!boolean(eval(x, this)?)?),
            // CEL's `&&`/`||` are commutative over errors; kubegen's
            // rules guard every selection, so left to right suffices.
            Expr::And(xs) => {
                for x in xs {
                    if !boolean(eval(x, this)?)? {
                        return Ok(Val::Bool(false));
                    }
                }
                Val::Bool(true)
            }
            Expr::Or(xs) => {
                for x in xs {
                    if boolean(eval(x, this)?)? {
                        return Ok(Val::Bool(true));
                    }
                }
                Val::Bool(false)
            }
            Expr::Eq(a, b) => Val::Bool(eval(a, this)? == eval(b, this)?),
            Expr::Ne(a, b) => Val::Bool(eval(a, this)? != eval(b, this)?),
            Expr::Cond(c, t, f) => {
                if boolean(eval(c, this)?)? {
                    eval(t, this)?
                } else {
                    eval(f, this)?
                }
            }
            // `+` adds integers or concatenates strings, as in CEL.
            Expr::Sum(xs) | Expr::Concat(xs) => {
                let mut vals = xs.iter().map(|x| eval(x, this));
                match vals.next().transpose()? {
                    Some(Val::Int(mut n)) => {
                        for v in vals {
                            match v? {
                                Val::Int(i) => n += i,
                                v => return Err(format!("not an int: {v:?}")),
                            }
                        }
                        Val::Int(n)
                    }
                    Some(Val::Str(mut s)) => {
                        for v in vals {
                            match v? {
                                Val::Str(p) => s.push_str(&p),
                                v => return Err(format!("not a string: {v:?}")),
                            }
                        }
                        Val::Str(s)
                    }
                    other => return Err(format!("cannot add {other:?}")),
                }
            }
            Expr::Substring(x, n) => match eval(x, this)? {
                Val::Str(s) => {
                    let n = usize::try_from(*n).map_err(|e| e.to_string())?;
                    if n > s.chars().count() {
                        return Err("substring out of range".into());
                    }
                    Val::Str(s.chars().skip(n).collect())
                }
                v => return Err(format!("not a string: {v:?}")),
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use std::ops::Not;

    use super::*;
    use serde_json::json;

    #[test]
    fn escaping() {
        assert_eq!(ident("replicas"), "replicas");
        assert_eq!(ident("max-size"), "max__dash__size");
        assert_eq!(ident("a.b"), "a__dot__b");
        assert_eq!(ident("a__b"), "a__underscores__b");
        assert_eq!(ident("namespace"), "__namespace__");
        assert_eq!(escape("a/b").as_deref(), Some("a__slash__b"));
        // What the apiserver cannot name at all.
        assert_eq!(escape(""), None);
        assert_eq!(escape("1st"), None);
        assert_eq!(escape("with space"), None);
        assert_eq!(escape("$ref"), None);
        assert!(Path::new(["ok", "not ok"]).is_none());
    }

    #[test]
    fn literals_are_quoted() {
        assert_eq!(literal("it's a\\b"), r"'it\'s a\\b'");
    }

    fn path(names: &[&str]) -> Path {
        Path::new(names.iter().copied()).unwrap()
    }

    #[test]
    fn rendering_parenthesizes_what_it_must() {
        let tag = Expr::StrField {
            path: path(&["type"]),
            max_len: 3,
        };
        let e = Expr::or([
            Expr::not(Expr::Has(path(&["type"]))),
            Expr::cond(
                Expr::Eq(Box::new(tag.clone()), Box::new(Expr::Str("Git".into()))),
                Expr::and([
                    Expr::not(Expr::Has(path(&["bucket"]))),
                    Expr::Has(path(&["url"])),
                ]),
                Expr::cond(
                    Expr::Eq(Box::new(tag), Box::new(Expr::Str("S3".into()))),
                    Expr::Has(path(&["bucket"])),
                    Expr::Bool(true),
                ),
            ),
        ]);
        assert_eq!(
            e.render(),
            "!has(self.type) || (self.type == 'Git' ? !has(self.bucket) && has(self.url) : self.type == 'S3' ? has(self.bucket) : true)"
        );
        // 2 (!has) + 3 (==, 1 per byte up to 3 plus `self.type`) + max(2 + 1, 3 + 1) = 9.
        assert_eq!(e.cost(), 9);
    }

    #[test]
    fn costs_follow_the_apiserver_estimator() {
        // `has(self.a.b)`: selecting `self.a` costs 2, the test nothing.
        assert_eq!(Expr::Has(path(&["a", "b"])).cost(), 2);
        // Counting: each term 1, each `+` 1, `== 1` 1.
        let count = Expr::Eq(
            Box::new(Expr::Sum(vec![
                Expr::cond(Expr::Has(path(&["a"])), Expr::Int(1), Expr::Int(0)),
                Expr::cond(Expr::Has(path(&["b"])), Expr::Int(1), Expr::Int(0)),
            ])),
            Box::new(Expr::Int(1)),
        );
        assert_eq!(count.cost(), 4);
        // Concatenation traverses what it builds.
        let s = Expr::Concat(vec![Expr::Str("x".repeat(25)), Expr::Str("y".repeat(5))]);
        assert_eq!(s.cost(), 3);
        assert_eq!(Expr::Substring(Box::new(s), 2).cost(), 6);
    }

    #[test]
    fn min_sizes() {
        let s = json!({"type": "object", "required": ["type", "n", "d"], "properties": {
            "type": {"type": "string"}, "n": {"type": "integer"},
            "d": {"type": "integer", "default": 1}, "o": {"type": "string"}}});
        // {} + "type":"" + "n":0 (the defaulted field does not count).
        assert_eq!(
            min_serialized_size(s.as_object().unwrap()),
            Some(2 + 4 + 2 + 4 + 1 + 1 + 4)
        );
        assert_eq!(
            unbounded_cardinality(json!({"type": "object"}).as_object().unwrap()),
            MAX_REQUEST_SIZE / 3
        );
    }

    #[test]
    fn rendered_rules_parse_back() {
        let tag = Expr::StrField {
            path: path(&["the-tag"]),
            max_len: 0,
        };
        let e = Expr::or([
            Expr::not(Expr::Has(path(&["the-tag"]))),
            Expr::cond(
                Expr::Eq(Box::new(tag), Box::new(Expr::Str("it's".into()))),
                Expr::and([
                    Expr::not(Expr::and([
                        Expr::Has(path(&["a"])),
                        Expr::Has(path(&["b"])),
                    ])),
                    Expr::Has(path(&["in"])),
                ]),
                Expr::Bool(true),
            ),
        ]);
        assert_eq!(eval::parse(&e.render()).unwrap(), e, "{}", e.render());
    }

    #[test]
    fn evaluation() {
        use eval::{Val, eval};
        let this = json!({"type": "Git", "url": "u"});
        let e = Expr::Concat(vec![
            Expr::Str("; a".into()),
            Expr::cond(
                Expr::Has(path(&["url"])),
                Expr::Str("; b".into()),
                Expr::Str(String::new()),
            ),
        ]);
        assert_eq!(
            eval(&Expr::Substring(Box::new(e), 2), &this),
            Ok(Val::Str("a; b".into()))
        );
        assert!(eval(&Expr::Has(path(&["content", "x"])), &this).is_err());
    }
}
