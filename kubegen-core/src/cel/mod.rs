//! CEL, the language of `x-kubernetes-validations` rules, as the apiserver
//! reads it: [`lex`] and [`mod@parse`] accept exactly the expressions the
//! apiserver accepts, [`mod@check`] types them against the schema's declared
//! [`types`] and the environment's [`functions`] as the apiserver does
//! (both proven against the apiserver's own code by
//! `tests/cel_differential.rs`).

pub mod ast;
pub mod check;
pub mod checked;
pub mod cost;
#[cfg(feature = "validate")]
pub mod eval;
pub mod functions;
pub mod lex;
pub mod literals;
pub mod parse;
pub mod rules;
pub mod sizes;
pub mod types;

pub use ast::{Expr, ExprKind, Literal};
pub use check::{Checked, Purpose, RegexCheck, RuleError, TypeError, check_rule};
pub use parse::{ParseError, parse};
pub use rules::{RuleProblem, check_schema};
pub use types::Type;
