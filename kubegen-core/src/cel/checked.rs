//! A checked expression as cel-go's checker leaves it: macros expanded
//! into the comprehensions cel-go expands them to, qualified names
//! resolved, and every node carrying its type and (for a call) the
//! overloads it may dispatch to. This is what the apiserver estimates the
//! cost of, so [`cost`](super::cost) walks this, not the parsed form.

use super::ast::Literal;
use super::types::Type;

/// A node of a checked expression.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// Unique within its expression.
    pub id: u32,
    /// Its type, type parameters left free as `dyn`.
    pub ty: Type,
    /// What it is.
    pub kind: NodeKind,
}

/// The kinds of node.
#[derive(Clone, Debug, PartialEq)]
pub enum NodeKind {
    /// A constant.
    Literal(Literal),
    /// A variable, a type name, or a comprehension's variable.
    Ident(String),
    /// `operand.field`, or `has(operand.field)` when `test_only`.
    Select {
        /// What the field is read from.
        operand: Box<Node>,
        /// The field.
        field: String,
        /// A presence test.
        test_only: bool,
    },
    /// A function or operator call.
    Call {
        /// Its name (`_+_`, `sets.contains`, …).
        function: String,
        /// The receiver of a member call.
        target: Option<Box<Node>>,
        /// Its arguments.
        args: Vec<Node>,
        /// The ids of the overloads the checker found it may call.
        overloads: Vec<String>,
    },
    /// A list literal.
    List(Vec<Node>),
    /// A map literal.
    Map(Vec<(Node, Node)>),
    /// A fold: what every macro expands to.
    Comprehension(Box<Comprehension>),
}

/// `iter_range.fold(iter_var[, iter_var2], accu_var = accu_init,
/// loop_condition, loop_step, result)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Comprehension {
    /// What is iterated.
    pub iter_range: Node,
    /// The (first) iteration variable.
    pub iter_var: String,
    /// The second iteration variable of a two-variable macro.
    pub iter_var2: Option<String>,
    /// The accumulator.
    pub accu_var: String,
    /// Its initial value.
    pub accu_init: Node,
    /// Evaluated before each step; the fold stops when false.
    pub loop_condition: Node,
    /// The accumulator's next value.
    pub loop_step: Node,
    /// The fold's value.
    pub result: Node,
}
