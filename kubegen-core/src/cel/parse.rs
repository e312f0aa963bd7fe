//! CEL's parser, accepting exactly what the apiserver's accepts for a
//! CustomResourceDefinition's rules (cel-go's ANTLR grammar with the
//! options and macros of k8s.io/apiserver's base environment: optional
//! syntax on, backtick identifiers off), proven by
//! `tests/cel_differential.rs` against the real one.
//!
//! A recursive descent over the grammar's rules, in the grammar's order,
//! so that the apiserver's two nesting limits can be counted as it counts
//! them: no grammar rule may be nested more than 250 times inside itself
//! (ANTLR's listener, left-recursive rules counting each operator), and no
//! expression may nest more than 250 operators, selections, member calls
//! and index operations (cel-go's visitor).

use super::ast::{Element, Entry, Expr, ExprKind, Field, Literal};
use super::lex::{self, Tok, Token};

/// The apiserver's nesting limit (cel-go's `maxRecursionDepth`).
const MAX_DEPTH: u32 = 250;

/// The longest expression, in code points (cel-go's
/// `expressionSizeCodePointLimit`).
const MAX_CODE_POINTS: usize = 100_000;

/// Names a variable or global function may not have (cel-go's
/// `reservedIds`); they remain valid field names.
const RESERVED: &[&str] = &[
    "as",
    "break",
    "const",
    "continue",
    "else",
    "false",
    "for",
    "function",
    "if",
    "import",
    "in",
    "let",
    "loop",
    "package",
    "namespace",
    "null",
    "return",
    "true",
    "var",
    "void",
    "while",
];

/// The accumulator variable of an expanded macro, which an iteration
/// variable may not shadow.
const ACCUMULATOR: &str = "__result__";

/// Why an expression does not parse, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// The byte offset the problem is at.
    pub offset: usize,
    /// What is wrong.
    pub message: String,
}

impl ParseError {
    /// The 1-based line and column (in characters) of the problem in `src`.
    pub fn line_column(&self, src: &str) -> (usize, usize) {
        line_column(src, self.offset)
    }
}

/// The 1-based line and column (in characters) of byte `offset` in `src`.
pub fn line_column(src: &str, offset: usize) -> (usize, usize) {
    let before = &src[..offset.min(src.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    (line, column)
}

/// The stack a deeply nested expression is parsed on: the nesting limits
/// bound the recursion to [`MAX_DEPTH`] levels of each of the grammar's
/// sixteen rules, which would overflow a test thread's (or a proc macro's)
/// stack in a debug build.
const DEEP_STACK: usize = 256 << 20;

/// The parsed form of `src`, or the first reason the apiserver refuses it.
pub fn parse(src: &str) -> Result<Expr, ParseError> {
    let nesting = src
        .bytes()
        .filter(|b| b"([{.!-+*/%<>=&|?".contains(b))
        .count();
    if nesting <= 32 {
        return parse_here(src);
    }
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .name("cel-parse".into())
            .stack_size(DEEP_STACK)
            .spawn_scoped(s, || parse_here(src))
            .expect("a thread to parse a deeply nested CEL expression on")
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

/// [`parse`] on the current thread's stack.
fn parse_here(src: &str) -> Result<Expr, ParseError> {
    let size = src.chars().count();
    if size > MAX_CODE_POINTS {
        return Err(ParseError {
            offset: 0,
            message: format!(
                "expression code point size exceeds limit: size: {size}, limit {MAX_CODE_POINTS}"
            ),
        });
    }
    let toks = lex::tokens(src).map_err(|e| ParseError {
        offset: e.offset,
        message: format!("Syntax error: token recognition error at: '{}'", e.found),
    })?;
    let mut p = Parser {
        src,
        toks,
        pos: 0,
        depth: [0; Rule::COUNT],
    };
    let e = p.expr()?;
    p.expect(Tok::Eof, "the end of the expression")?;
    if visit_depth(&e) > MAX_DEPTH {
        return Err(ParseError {
            offset: 0,
            message: "max recursion depth exceeded".into(),
        });
    }
    Ok(e)
}

/// The grammar's rules, each with its own nesting count.
#[derive(Clone, Copy)]
enum Rule {
    Expr,
    ConditionalOr,
    ConditionalAnd,
    Relation,
    Calc,
    Unary,
    Member,
    Primary,
    ExprList,
    ListInit,
    FieldInitializerList,
    OptField,
    MapInitializerList,
    EscapeIdent,
    OptExpr,
    Literal,
}

impl Rule {
    const COUNT: usize = 16;
}

/// The parser's state.
struct Parser<'a> {
    src: &'a str,
    toks: Vec<Token>,
    pos: usize,
    depth: [u32; Rule::COUNT],
}

type Parsed = Result<Expr, ParseError>;

/// The precedence of a binary operator of `calc` (higher binds tighter) and
/// the name cel-go gives it.
fn calc_op(t: Tok) -> Option<(u8, &'static str)> {
    Some(match t {
        Tok::Star => (2, "_*_"),
        Tok::Slash => (2, "_/_"),
        Tok::Percent => (2, "_%_"),
        Tok::Plus => (1, "_+_"),
        Tok::Minus => (1, "_-_"),
        _ => return None,
    })
}

/// The name cel-go gives a relational operator.
fn relation_op(t: Tok) -> Option<&'static str> {
    Some(match t {
        Tok::Lt => "_<_",
        Tok::Le => "_<=_",
        Tok::Ge => "_>=_",
        Tok::Gt => "_>_",
        Tok::Eq => "_==_",
        Tok::Ne => "_!=_",
        Tok::In => "@in",
        _ => return None,
    })
}

fn describe(t: Tok) -> &'static str {
    match t {
        Tok::Eof => "end of the expression",
        Tok::Ident => "a name",
        Tok::EscIdent => "a backtick-quoted name",
        Tok::Int | Tok::Uint | Tok::Float => "a number",
        Tok::String => "a string",
        Tok::Bytes => "a bytes literal",
        _ => "",
    }
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Tok {
        self.toks[self.pos].kind
    }

    fn peek_at(&self, n: usize) -> Tok {
        self.toks[(self.pos + n).min(self.toks.len() - 1)].kind
    }

    fn text(&self, t: Token) -> &'a str {
        &self.src[t.start..t.end]
    }

    /// The current token's text, moving past it.
    fn take_text(&mut self) -> &'a str {
        let t = self.bump();
        &self.src[t.start..t.end]
    }

    fn bump(&mut self) -> Token {
        let t = self.toks[self.pos];
        if t.kind != Tok::Eof {
            self.pos += 1;
        }
        t
    }

    fn error<T>(&self, offset: usize, message: impl Into<String>) -> Result<T, ParseError> {
        Err(ParseError {
            offset,
            message: message.into(),
        })
    }

    /// A syntax error at the current token.
    fn unexpected<T>(&self, wanted: &str) -> Result<T, ParseError> {
        let t = self.toks[self.pos];
        let found = match describe(t.kind) {
            "" => format!("'{}'", self.text(t)),
            d if t.kind == Tok::Eof => d.to_string(),
            d => format!("{d} '{}'", self.text(t)),
        };
        self.error(
            t.start,
            format!("Syntax error: unexpected {found}, expecting {wanted}"),
        )
    }

    fn expect(&mut self, kind: Tok, wanted: &str) -> Result<Token, ParseError> {
        if self.peek() == kind {
            Ok(self.bump())
        } else {
            self.unexpected(wanted)
        }
    }

    /// Enters `rule` once more; ANTLR's recursion listener refuses a rule
    /// nested more than [`MAX_DEPTH`] times in itself.
    fn enter(&mut self, rule: Rule) -> Result<(), ParseError> {
        let d = &mut self.depth[rule as usize];
        *d += 1;
        if *d > MAX_DEPTH {
            return self.error(
                self.toks[self.pos].start,
                format!("expression recursion limit exceeded: {MAX_DEPTH}"),
            );
        }
        Ok(())
    }

    fn exit(&mut self, rule: Rule, times: u32) {
        self.depth[rule as usize] -= times;
    }

    fn node(&self, start: usize, kind: ExprKind) -> Expr {
        let end = self.toks[self.pos.saturating_sub(1)].end.max(start);
        Expr {
            span: (start, end),
            at: start,
            kind,
        }
    }

    fn call(&self, start: usize, function: &str, target: Option<Expr>, args: Vec<Expr>) -> Expr {
        self.node(
            start,
            ExprKind::Call {
                function: function.into(),
                target: target.map(Box::new),
                args,
                is_macro: false,
            },
        )
    }

    /// `expr : conditionalOr ('?' conditionalOr ':' expr)?`
    fn expr(&mut self) -> Parsed {
        self.enter(Rule::Expr)?;
        let start = self.toks[self.pos].start;
        let cond = self.conditional_or()?;
        let out = if self.peek() == Tok::Question {
            let at = self.bump().start;
            let yes = self.conditional_or()?;
            self.expect(Tok::Colon, "':'")?;
            let no = self.expr()?;
            self.call(start, "_?_:_", None, vec![cond, yes, no]).at(at)
        } else {
            cond
        };
        self.exit(Rule::Expr, 1);
        Ok(out)
    }

    /// `conditionalOr : conditionalAnd ('||' conditionalAnd)*` and the same
    /// for `&&` over `relation`.
    fn logical(&mut self, or: bool) -> Parsed {
        let (rule, op, function) = if or {
            (Rule::ConditionalOr, Tok::Or, "_||_")
        } else {
            (Rule::ConditionalAnd, Tok::And, "_&&_")
        };
        self.enter(rule)?;
        let start = self.toks[self.pos].start;
        let operand = |p: &mut Self| if or { p.logical(false) } else { p.relation(0) };
        let mut out = operand(self)?;
        while self.peek() == op {
            let at = self.bump().start;
            let rhs = operand(self)?;
            out = self.call(start, function, None, vec![out, rhs]).at(at);
        }
        self.exit(rule, 1);
        Ok(out)
    }

    fn conditional_or(&mut self) -> Parsed {
        self.logical(true)
    }

    /// `relation : calc | relation op relation` (left-recursive: ANTLR
    /// enters the rule once more for every operator).
    fn relation(&mut self, min: u8) -> Parsed {
        self.enter(Rule::Relation)?;
        let start = self.toks[self.pos].start;
        let mut out = self.calc(0)?;
        while let Some(function) = relation_op(self.peek()).filter(|_| min <= 1) {
            let at = self.bump().start;
            let rhs = self.relation(2)?;
            out = self.call(start, function, None, vec![out, rhs]).at(at);
        }
        self.exit(Rule::Relation, 1);
        Ok(out)
    }

    /// `calc : unary | calc ('*'|'/'|'%') calc | calc ('+'|'-') calc`.
    fn calc(&mut self, min: u8) -> Parsed {
        self.enter(Rule::Calc)?;
        let start = self.toks[self.pos].start;
        let mut out = self.unary()?;
        while let Some((prec, function)) = calc_op(self.peek()).filter(|(prec, _)| *prec >= min) {
            let at = self.bump().start;
            let rhs = self.calc(prec + 1)?;
            out = self.call(start, function, None, vec![out, rhs]).at(at);
        }
        self.exit(Rule::Calc, 1);
        Ok(out)
    }

    /// `unary : member | '!'+ member | '-'+ member`; `-` before a number is
    /// the number's sign (the first alternative wins).
    fn unary(&mut self) -> Parsed {
        self.enter(Rule::Unary)?;
        let start = self.toks[self.pos].start;
        let op = self.peek();
        let signed_number = op == Tok::Minus && matches!(self.peek_at(1), Tok::Int | Tok::Float);
        let out = if (op == Tok::Bang || op == Tok::Minus) && !signed_number {
            let mut count = 0;
            while self.peek() == op {
                self.bump();
                count += 1;
            }
            let operand = self.member()?;
            if count % 2 == 0 {
                operand
            } else {
                self.call(
                    start,
                    if op == Tok::Bang { "!_" } else { "-_" },
                    None,
                    vec![operand],
                )
            }
        } else {
            self.member()?
        };
        self.exit(Rule::Unary, 1);
        Ok(out)
    }

    /// `member : primary | member '.' '?'? escapeIdent | member '.' IDENT
    /// '(' exprList? ')' | member '[' '?'? expr ']'`.
    fn member(&mut self) -> Parsed {
        self.enter(Rule::Member)?;
        let start = self.toks[self.pos].start;
        let mut out = self.primary()?;
        loop {
            match self.peek() {
                Tok::Dot => {
                    let dot = self.bump().start;
                    let optional = self.peek() == Tok::Question;
                    if optional {
                        self.bump();
                    }
                    if !optional && self.peek() == Tok::Ident && self.peek_at(1) == Tok::LParen {
                        let name = self.take_text().to_string();
                        let open = self.bump().start;
                        let args = self.arguments()?;
                        out = self.receiver_call(start, name, out, args)?.at(open);
                        continue;
                    }
                    let field_at = self.toks[self.pos].start;
                    let field = self.escape_ident()?;
                    out = if optional {
                        let name = self.node(field_at, ExprKind::Literal(Literal::String(field)));
                        self.call(start, "_?._", None, vec![out, name]).at(dot)
                    } else {
                        self.node(
                            start,
                            ExprKind::Select {
                                operand: Box::new(out),
                                field,
                            },
                        )
                        .at(dot)
                    };
                }
                Tok::LBracket => {
                    let bracket = self.bump().start;
                    let optional = self.peek() == Tok::Question;
                    if optional {
                        self.bump();
                    }
                    let index = self.expr()?;
                    self.expect(Tok::RBracket, "']'")?;
                    out = self
                        .call(
                            start,
                            if optional { "_[?_]" } else { "_[_]" },
                            None,
                            vec![out, index],
                        )
                        .at(bracket);
                }
                _ => break,
            }
        }
        self.exit(Rule::Member, 1);
        Ok(out)
    }

    /// `escapeIdent : IDENTIFIER | ESC_IDENTIFIER` (the latter refused: the
    /// apiserver does not enable backtick identifiers).
    fn escape_ident(&mut self) -> Result<String, ParseError> {
        self.enter(Rule::EscapeIdent)?;
        let t = self.toks[self.pos];
        let name = match t.kind {
            Tok::Ident => self.take_text().to_string(),
            Tok::EscIdent => return self.error(t.start, "unsupported syntax: '`'"),
            _ => return self.unexpected("a name"),
        };
        self.exit(Rule::EscapeIdent, 1);
        Ok(name)
    }

    /// `'(' exprList? ')'` after the `(`.
    fn arguments(&mut self) -> Result<Vec<Expr>, ParseError> {
        let mut args = Vec::new();
        if self.peek() != Tok::RParen {
            self.enter(Rule::ExprList)?;
            args.push(self.expr()?);
            while self.peek() == Tok::Comma {
                self.bump();
                args.push(self.expr()?);
            }
            self.exit(Rule::ExprList, 1);
        }
        self.expect(Tok::RParen, "')' or ','")?;
        Ok(args)
    }

    /// `primary`: a name, a call, a nested expression, a list, a map, a
    /// message or a literal.
    fn primary(&mut self) -> Parsed {
        self.enter(Rule::Primary)?;
        let start = self.toks[self.pos].start;
        let out = match self.peek() {
            Tok::Dot | Tok::Ident => self.name(start)?,
            Tok::LParen => {
                self.bump();
                let e = self.expr()?;
                self.expect(Tok::RParen, "')'")?;
                e
            }
            Tok::LBracket => {
                self.bump();
                let elements = self.list_init()?;
                self.expect(Tok::RBracket, "']'")?;
                self.node(start, ExprKind::List(elements))
            }
            Tok::LBrace => {
                self.bump();
                let entries = self.map_init()?;
                self.expect(Tok::RBrace, "'}'")?;
                self.node(start, ExprKind::Map(entries))
            }
            _ => self.literal()?,
        };
        self.exit(Rule::Primary, 1);
        Ok(out)
    }

    /// `'.'? IDENT`, `'.'? IDENT '(' exprList? ')'` or `'.'? IDENT ('.'
    /// IDENT)* '{' fieldInitializerList? ','? '}'`.
    fn name(&mut self, start: usize) -> Parsed {
        let dot = self.peek() == Tok::Dot;
        let first = self.pos + usize::from(dot);
        let mut k = first;
        let mut qualified = self.toks[k].kind == Tok::Ident;
        while qualified && self.toks[k + 1].kind == Tok::Dot && self.toks[k + 2].kind == Tok::Ident
        {
            k += 2;
        }
        qualified = qualified && self.toks[k + 1].kind == Tok::LBrace;
        if dot {
            self.bump();
        }
        if qualified {
            let mut name = if dot { ".".to_string() } else { String::new() };
            while self.pos <= k {
                name.push_str(self.take_text());
            }
            let brace = self.bump().start;
            let fields = self.field_init()?;
            self.expect(Tok::RBrace, "'}'")?;
            return Ok(self
                .node(start, ExprKind::Struct { name, fields })
                .at(brace));
        }
        let t = self.expect(Tok::Ident, "a name")?;
        let id = self.text(t);
        if RESERVED.contains(&id) {
            return self.error(start, format!("reserved identifier: {id}"));
        }
        let name = if dot {
            format!(".{id}")
        } else {
            id.to_string()
        };
        if self.peek() == Tok::LParen {
            let open = self.bump().start;
            let args = self.arguments()?;
            return Ok(self.global_call(start, name, args)?.at(open));
        }
        Ok(self.node(start, ExprKind::Ident(name)).at(t.start))
    }

    /// `listInit? ','?` inside `[` `]`.
    fn list_init(&mut self) -> Result<Vec<Element>, ParseError> {
        self.initializers(Tok::RBracket, Rule::ListInit, |p| {
            let (value, optional) = p.opt_expr()?;
            Ok(Element { value, optional })
        })
    }

    /// `optExpr : '?'? expr`.
    fn opt_expr(&mut self) -> Result<(Expr, bool), ParseError> {
        self.enter(Rule::OptExpr)?;
        let optional = self.peek() == Tok::Question;
        if optional {
            self.bump();
        }
        let e = self.expr()?;
        self.exit(Rule::OptExpr, 1);
        Ok((e, optional))
    }

    /// `mapInitializerList? ','?` inside `{` `}`.
    fn map_init(&mut self) -> Result<Vec<Entry>, ParseError> {
        self.initializers(Tok::RBrace, Rule::MapInitializerList, |p| {
            let (key, optional) = p.opt_expr()?;
            p.expect(Tok::Colon, "':'")?;
            let value = p.expr()?;
            Ok(Entry {
                key,
                value,
                optional,
            })
        })
    }

    /// `fieldInitializerList? ','?` inside a message's `{` `}`.
    fn field_init(&mut self) -> Result<Vec<Field>, ParseError> {
        self.initializers(Tok::RBrace, Rule::FieldInitializerList, |p| {
            p.enter(Rule::OptField)?;
            let optional = p.peek() == Tok::Question;
            if optional {
                p.bump();
            }
            let name = p.escape_ident()?;
            p.exit(Rule::OptField, 1);
            p.expect(Tok::Colon, "':'")?;
            let value = p.expr()?;
            Ok(Field {
                name,
                value,
                optional,
            })
        })
    }

    /// The grammar's initializer lists: `rule` (items joined by `,`), if
    /// any, then an optional trailing `,`, before `close`.
    fn initializers<T>(
        &mut self,
        close: Tok,
        rule: Rule,
        mut item: impl FnMut(&mut Self) -> Result<T, ParseError>,
    ) -> Result<Vec<T>, ParseError> {
        let mut out = Vec::new();
        if self.peek() != close && self.peek() != Tok::Comma {
            self.enter(rule)?;
            loop {
                out.push(item(self)?);
                if !(self.peek() == Tok::Comma && self.peek_at(1) != close) {
                    break;
                }
                self.bump();
            }
            self.exit(rule, 1);
        }
        if self.peek() == Tok::Comma {
            self.bump();
        }
        Ok(out)
    }

    /// `literal`: a signed int or double, a uint, a string, bytes, a bool
    /// or null.
    fn literal(&mut self) -> Parsed {
        self.enter(Rule::Literal)?;
        let start = self.toks[self.pos].start;
        let negative =
            self.peek() == Tok::Minus && matches!(self.peek_at(1), Tok::Int | Tok::Float);
        if negative {
            self.bump();
        }
        let t = self.toks[self.pos];
        let sign = if negative { "-" } else { "" };
        let text = self.text(t);
        let value = match t.kind {
            Tok::Int => {
                let (digits, radix) = match text.strip_prefix("0x") {
                    Some(hex) => (hex, 16),
                    None => (text, 10),
                };
                match i64::from_str_radix(&format!("{sign}{digits}"), radix) {
                    Ok(v) => Literal::Int(v),
                    Err(_) => return self.error(start, "invalid int literal"),
                }
            }
            Tok::Uint => {
                let text = &text[..text.len() - 1];
                let (digits, radix) = match text.strip_prefix("0x") {
                    Some(hex) => (hex, 16),
                    None => (text, 10),
                };
                match u64::from_str_radix(digits, radix) {
                    Ok(v) => Literal::Uint(v),
                    Err(_) => return self.error(start, "invalid uint literal"),
                }
            }
            Tok::Float => match format!("{sign}{text}").parse::<f64>() {
                Ok(v) if v.is_finite() => Literal::Double(v),
                _ => return self.error(start, "invalid double literal"),
            },
            Tok::String => match unescape(text, false) {
                Ok(bytes) => Literal::String(
                    String::from_utf8(bytes).expect("CEL strings unescape to UTF-8"),
                ),
                Err(e) => return self.error(start, e),
            },
            Tok::Bytes => match unescape(&text[1..], true) {
                Ok(bytes) => Literal::Bytes(bytes),
                Err(e) => return self.error(start, e),
            },
            Tok::True => Literal::Bool(true),
            Tok::False => Literal::Bool(false),
            Tok::Null => Literal::Null,
            _ => return self.unexpected("an expression"),
        };
        self.bump();
        self.exit(Rule::Literal, 1);
        Ok(self.node(start, ExprKind::Literal(value)))
    }

    /// `name(args)`: a call, or the `has` macro.
    fn global_call(&mut self, start: usize, name: String, args: Vec<Expr>) -> Parsed {
        let is_macro = name == "has" && args.len() == 1;
        if is_macro && !matches!(args[0].kind, ExprKind::Select { .. }) {
            return self.error(args[0].span.0, "invalid argument to has() macro");
        }
        Ok(self.node(
            start,
            ExprKind::Call {
                function: name,
                target: None,
                args,
                is_macro,
            },
        ))
    }

    /// `target.name(args)`: a call, or one of the receiver macros of the
    /// apiserver's environment, whose arguments are checked as cel-go's
    /// expanders check them.
    fn receiver_call(
        &mut self,
        start: usize,
        name: String,
        target: Expr,
        args: Vec<Expr>,
    ) -> Parsed {
        let simple = |e: &Expr| match &e.kind {
            ExprKind::Ident(n) => Some(n.clone()),
            _ => None,
        };
        let iteration = |p: &Self, e: &Expr, not_simple: &str| -> Result<String, ParseError> {
            let Some(v) = simple(e) else {
                return p.error(e.span.0, not_simple);
            };
            if v == ACCUMULATOR {
                return p.error(
                    e.span.0,
                    "iteration variable overwrites accumulator variable",
                );
            }
            Ok(v)
        };
        let two_variables = |p: &Self, args: &[Expr]| -> Result<(), ParseError> {
            let first = simple(&args[0])
                .ok_or(())
                .or_else(|_| p.error(args[0].span.0, "argument must be a simple name"))?;
            let second = simple(&args[1])
                .ok_or(())
                .or_else(|_| p.error(args[1].span.0, "argument must be a simple name"))?;
            if first == second {
                return p.error(args[1].span.0, format!("duplicate variable name: {first}"));
            }
            iteration(p, &args[0], "")?;
            iteration(p, &args[1], "")?;
            Ok(())
        };
        let is_macro = match (name.as_str(), args.len()) {
            ("all" | "exists" | "exists_one", 2) => {
                iteration(self, &args[0], "argument must be a simple name")?;
                true
            }
            ("map", 2 | 3) | ("filter", 2) => {
                iteration(self, &args[0], "argument is not an identifier")?;
                true
            }
            ("optMap" | "optFlatMap", 2) => {
                if simple(&args[0]).is_none() {
                    return self.error(
                        args[0].span.0,
                        format!("{name}() variable name must be a simple identifier"),
                    );
                }
                true
            }
            ("sortBy", 2) => {
                if matches!(
                    target.kind,
                    ExprKind::Literal(_) | ExprKind::Map(_) | ExprKind::Struct { .. }
                ) {
                    return self.error(
                        target.span.0,
                        "sortBy can only be applied to a list, identifier, comprehension, call or select expression",
                    );
                }
                iteration(self, &args[0], "argument is not an identifier")?;
                true
            }
            (
                "all" | "exists" | "exists_one" | "existsOne" | "transformList" | "transformMap"
                | "transformMapEntry",
                3,
            )
            | ("transformList" | "transformMap" | "transformMapEntry", 4) => {
                two_variables(self, &args)?;
                true
            }
            _ => false,
        };
        Ok(self.node(
            start,
            ExprKind::Call {
                function: name,
                target: Some(Box::new(target)),
                args,
                is_macro,
            },
        ))
    }
}

/// How deeply cel-go's visitor nests while building `e`: one level for
/// each conditional, relational and arithmetic operator, selection, member
/// call and index operation on the way down.
fn visit_depth(e: &Expr) -> u32 {
    let children: u32 = match &e.kind {
        ExprKind::Literal(_) | ExprKind::Ident(_) => 0,
        ExprKind::Select { operand, .. } => visit_depth(operand),
        ExprKind::Call { target, args, .. } => {
            let t = target.as_deref().map_or(0, visit_depth);
            args.iter().map(visit_depth).max().unwrap_or(0).max(t)
        }
        ExprKind::List(elements) => elements
            .iter()
            .map(|el| visit_depth(&el.value))
            .max()
            .unwrap_or(0),
        ExprKind::Map(entries) => entries
            .iter()
            .map(|en| visit_depth(&en.key).max(visit_depth(&en.value)))
            .max()
            .unwrap_or(0),
        ExprKind::Struct { fields, .. } => fields
            .iter()
            .map(|f| visit_depth(&f.value))
            .max()
            .unwrap_or(0),
    };
    let counted = match &e.kind {
        ExprKind::Select { .. } => true,
        ExprKind::Call {
            function, target, ..
        } => {
            target.is_some()
                || relation_op_name(function)
                || matches!(
                    function.as_str(),
                    "_?_:_" | "_*_" | "_/_" | "_%_" | "_+_" | "_-_" | "_[_]" | "_[?_]" | "_?._"
                )
        }
        _ => false,
    };
    children + u32::from(counted)
}

fn relation_op_name(function: &str) -> bool {
    matches!(
        function,
        "_<_" | "_<=_" | "_>=_" | "_>_" | "_==_" | "_!=_" | "@in"
    )
}

/// The value of a string literal's text (`quoted` without a `b` prefix,
/// raw or not), as cel-go's `unescape` reads it: line ends normalized to
/// `\n`, escapes decoded (in bytes, `\x` and octal escapes are bytes and
/// `\u` is refused; in strings they are code points).
fn unescape(quoted: &str, bytes: bool) -> Result<Vec<u8>, String> {
    let text = quoted.replace("\r\n", "\n").replace('\r', "\n");
    let (raw, text) = match text.strip_prefix(['r', 'R']) {
        Some(rest) => (true, rest),
        None => (false, text.as_str()),
    };
    let quote = if text.starts_with("'''") || text.starts_with("\"\"\"") {
        3
    } else {
        1
    };
    let body = &text[quote..text.len() - quote];
    if raw || !body.contains('\\') {
        return Ok(body.as_bytes().to_vec());
    }
    let b = body.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    let push_char = |out: &mut Vec<u8>, v: u32| -> Result<(), String> {
        let c = char::from_u32(v).ok_or_else(|| "invalid unicode code point".to_string())?;
        out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
        Ok(())
    };
    while i < b.len() {
        if b[i] != b'\\' {
            out.push(b[i]);
            i += 1;
            continue;
        }
        let c = b[i + 1];
        i += 2;
        let simple = match c {
            b'a' => Some(0x07),
            b'b' => Some(0x08),
            b'f' => Some(0x0c),
            b'n' => Some(b'\n'),
            b'r' => Some(b'\r'),
            b't' => Some(b'\t'),
            b'v' => Some(0x0b),
            b'\\' | b'\'' | b'"' | b'`' | b'?' => Some(c),
            _ => None,
        };
        if let Some(v) = simple {
            out.push(v);
            continue;
        }
        let (n, radix) = match c {
            b'x' | b'X' => (2, 16),
            b'u' | b'U' if bytes => return Err("unable to unescape string".into()),
            b'u' => (4, 16),
            b'U' => (8, 16),
            _ => (2, 8),
        };
        let digits = if radix == 8 {
            &body[i - 1..i + n]
        } else {
            &body[i..i + n]
        };
        let v = u32::from_str_radix(digits, radix)
            .map_err(|_| "unable to unescape string".to_string())?;
        i += n;
        if bytes && matches!(c, b'x' | b'X' | b'0'..=b'3') {
            out.push(v as u8);
        } else {
            push_char(&mut out, v)?;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
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
            ("", "unexpected end of the expression"),
            ("a +", "unexpected end of the expression"),
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
}
