//! CEL, the language of `x-kubernetes-validations` rules, as the apiserver
//! reads it: [`lex`] and [`parse`] accept exactly the expressions the
//! apiserver accepts (proven against cel-go by `tests/cel_differential.rs`)
//! and give the [`ast`] that checking a rule works on.

pub mod ast;
pub mod lex;
pub mod parse;

pub use ast::{Expr, ExprKind, Literal};
pub use parse::{ParseError, parse};
