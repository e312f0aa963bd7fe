//! The parsed form of a CEL expression, shaped as cel-go's AST: operators
//! are calls named as cel-go names them (`_+_`, `!_`, `_[_]`, `_?._`, …),
//! and a macro stays the call it was written as (`self.all(x, x > 0)`),
//! marked as one, instead of the comprehension cel-go expands it to.

/// An expression and where it is in the source.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    /// Its byte range in the source.
    pub span: (usize, usize),
    /// The byte offset cel-go reports it at: an operator's token, the `.`
    /// of a selection, the `(` of a call, the `[` of an index or list, the
    /// `{` of a map or message, else its start.
    pub at: usize,
    /// What it is.
    pub kind: ExprKind,
}

impl Expr {
    /// `self` reported at byte offset `at`.
    pub fn at(mut self, at: usize) -> Expr {
        self.at = at;
        self
    }
}

/// The kinds of expression.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// A constant.
    Literal(Literal),
    /// A name; a leading `.` (the root scope) is part of it.
    Ident(String),
    /// `operand.field`.
    Select {
        /// What the field is read from.
        operand: Box<Expr>,
        /// The field's name.
        field: String,
    },
    /// A function, operator or macro call.
    Call {
        /// Its name (operators as cel-go names them: `_+_`, `@in`, …).
        function: String,
        /// The receiver of `target.function(args)`.
        target: Option<Box<Expr>>,
        /// Its arguments.
        args: Vec<Expr>,
        /// A macro (`has`, `all`, `map`, …) the apiserver expands.
        is_macro: bool,
    },
    /// `[a, ?b]`.
    List(Vec<Element>),
    /// `{k: v, ?k2: v2}`.
    Map(Vec<Entry>),
    /// `type.name{field: v}`.
    Struct {
        /// The message type's name, dots and a leading `.` included.
        name: String,
        /// Its field initializers.
        fields: Vec<Field>,
    },
}

/// A list element; `?e` includes it only when the optional `e` has a value.
#[derive(Clone, Debug, PartialEq)]
pub struct Element {
    /// The element.
    pub value: Expr,
    /// Written `?value`.
    pub optional: bool,
}

/// A map entry.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// The key.
    pub key: Expr,
    /// The value.
    pub value: Expr,
    /// Written `?key: value`.
    pub optional: bool,
}

/// A message field initializer.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    /// The field's name.
    pub name: String,
    /// Its value.
    pub value: Expr,
    /// Written `?name: value`.
    pub optional: bool,
}

/// A constant's value.
#[derive(Clone, Debug, PartialEq)]
pub enum Literal {
    /// `-1`, `0x10`
    Int(i64),
    /// `1u`
    Uint(u64),
    /// `1.5`
    Double(f64),
    /// `'text'`
    String(String),
    /// `b'bytes'`
    Bytes(Vec<u8>),
    /// `true`, `false`
    Bool(bool),
    /// `null`
    Null,
}
