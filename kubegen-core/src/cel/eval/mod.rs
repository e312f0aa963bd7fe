//! CEL evaluation of a checked rule as the apiserver's interpreter
//! (cel-go v0.26) evaluates it: over the [`checked`](super::checked) tree,
//! with cel-go's error absorption in `&&`, `||` and the macros'
//! comprehensions, its overflow and lookup errors worded as cel-go words
//! them, the standard library's operators, conversions and string
//! functions, durations and timestamps ([`time`]), IP addresses and
//! prefixes ([`net`]), versions ([`semver`]), quantities ([`quantity`]),
//! URLs ([`url`]), named formats ([`format`](mod@format)), the strings extension's
//! `format` and `strings.quote` ([`formatting`]), and the extensions of
//! [`library`]. Whatever is not implemented yet — and any value kubegen
//! cannot represent ([`value::Val::Unsupported`]) — ends evaluation with
//! [`EvalError::Unsupported`], so a caller can leave the rule unevaluated
//! instead of guessing.

pub mod cost;
pub mod format;
pub mod formatting;
pub mod guard;
pub mod library;
pub mod net;
pub mod opaque;
pub mod quantity;
pub mod semver;
pub mod time;
pub mod url;
pub mod value;

use std::cmp::Ordering;
use std::rc::Rc;

use super::ast::Literal;
use super::checked::{Comprehension, Node, NodeKind};
use value::{ListKind, Val, equal, numeric_cmp};

/// Why evaluation stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EvalError {
    /// An error of the expression itself, worded as cel-go words it
    /// (`no such key: x`, `integer overflow`, …).
    Error(String),
    /// Something kubegen does not evaluate yet: the outcome is unknown.
    Unsupported(String),
    /// The runtime cost went over the limit (cel-go's
    /// `operation cancelled: actual cost limit exceeded`).
    CostLimit,
    /// cel-go panicked (a cost tracker given an error where it expects a
    /// list), which its program recovers as `internal error: <panic>`.
    Internal(String),
}

impl EvalError {
    /// An [`EvalError::Unsupported`] naming what.
    pub fn unsupported(what: &str) -> EvalError {
        EvalError::Unsupported(what.to_string())
    }

    fn err(message: impl Into<String>) -> EvalError {
        EvalError::Error(message.into())
    }
}

/// A value or an error, as cel-go carries errors as values.
pub type Res = Result<Val, EvalError>;

/// Evaluates `tree` with the variables `vars` (`self`, `oldSelf`), with
/// no cost limit.
pub fn evaluate(tree: &Node, vars: &[(&str, Val)]) -> Res {
    evaluate_with_cost(tree, vars, &mut Sets::default(), u64::MAX).result
}

/// The elements `X + Y` put into the set cached by a set list `X` of the
/// object (`unstructuredSetList.Add` adds `Y`'s new elements to the set
/// of `X` itself, and the apiserver evaluates all the rules of a node
/// with one `self`, so a later rule sees them: `self + ['t']` appends
/// `'t'` only the first time). Keep one for the rules of one node.
#[derive(Clone, Default)]
pub struct Sets {
    extra: Vec<(Rc<Vec<Val>>, Vec<Val>)>,
}

impl Sets {
    /// Whether a union added to `list`'s cached set.
    fn touched(&self, list: &Rc<Vec<Val>>) -> bool {
        self.extra
            .iter()
            .any(|(l, e)| Rc::ptr_eq(l, list) && !e.is_empty())
    }

    fn of(&mut self, list: &Rc<Vec<Val>>) -> &mut Vec<Val> {
        let at = match self.extra.iter().position(|(l, _)| Rc::ptr_eq(l, list)) {
            Some(i) => i,
            None => {
                self.extra.push((list.clone(), Vec::new()));
                self.extra.len() - 1
            }
        };
        &mut self.extra[at].1
    }
}

/// [`evaluate`], with `sets` kept across the evaluations of one node's
/// rules, and the runtime cost cel-go's tracker charges for it (with the
/// apiserver's options: a presence test is free; constant lists, maps,
/// conversions and `in` a constant list planned as cel-go's optimizer
/// plans them). Evaluation stops with [`EvalError::CostLimit`] as soon
/// as the cost is over `limit`, and the cost returned is the cost then.
pub fn evaluate_with_cost(
    tree: &Node,
    vars: &[(&str, Val)],
    sets: &mut Sets,
    limit: u64,
) -> Evaluation {
    let before = sets.clone();
    let forward = run(tree, vars, sets, limit, false);
    if forward.maps_visited {
        // Go visits a map's entries in random order: an outcome another
        // order changes is not one to report.
        let backward = run(tree, vars, &mut before.clone(), limit, true);
        if !same_outcome(&forward.evaluation.result, &backward.evaluation.result) {
            return Evaluation {
                result: Err(EvalError::unsupported(
                    "an outcome that depends on the order Go visits a map's entries in",
                )),
                ..forward.evaluation
            };
        }
    }
    forward.evaluation
}

/// One evaluation, and whether it iterated a map of two or more entries.
struct Run {
    evaluation: Evaluation,
    maps_visited: bool,
}

fn run(tree: &Node, vars: &[(&str, Val)], sets: &mut Sets, limit: u64, reverse: bool) -> Run {
    let mut env = Env {
        scope: vars
            .iter()
            .map(|(n, v)| (n.to_string(), Ok(v.clone())))
            .collect(),
        cost: 0,
        limit,
        aborted: None,
        free: 0,
        map_order: false,
        maps_visited: false,
        reverse,
        sets,
    };
    let out = eval(tree, &mut env);
    Run {
        evaluation: Evaluation {
            result: match env.aborted {
                Some(e) => Err(e),
                None => out,
            },
            cost: env.cost,
            cost_depends_on_map_order: env.map_order,
        },
        maps_visited: env.maps_visited,
    }
}

/// Whether two evaluations of a rule or message came out the same.
fn same_outcome(a: &Res, b: &Res) -> bool {
    match (a, b) {
        (Ok(Val::Bool(x)), Ok(Val::Bool(y))) => x == y,
        (Ok(Val::String(x)), Ok(Val::String(y))) => x == y,
        (Err(EvalError::Error(x)), Err(EvalError::Error(y)))
        | (Err(EvalError::Internal(x)), Err(EvalError::Internal(y))) => x == y,
        (Err(EvalError::CostLimit), Err(EvalError::CostLimit)) => true,
        (Err(EvalError::Unsupported(_)), _) | (_, Err(EvalError::Unsupported(_))) => true,
        _ => false,
    }
}

/// What [`evaluate_with_cost`] found.
#[derive(Debug)]
pub struct Evaluation {
    /// The value or error.
    pub result: Res,
    /// The runtime cost charged.
    pub cost: u64,
    /// A macro over a map of two or more entries stopped, or would have
    /// stopped at its last entry: the apiserver visits a map's entries in
    /// Go's random order, so its cost differs from run to run.
    pub cost_depends_on_map_order: bool,
}

/// The variables in scope, the cost so far, and the sets' state.
struct Env<'s> {
    scope: Vec<(String, Res)>,
    cost: u64,
    limit: u64,
    /// Why cel-go panicked out of the evaluation: the cost went over the
    /// limit, or a cost tracker failed.
    aborted: Option<EvalError>,
    /// Inside a constant cel-go folds when it plans: nothing is charged.
    free: u32,
    /// A fold over a map stopped, or would have by its last entry.
    map_order: bool,
    /// A fold iterated a map of two or more entries.
    maps_visited: bool,
    /// Iterate maps last entry first.
    reverse: bool,
    sets: &'s mut Sets,
}

impl Env<'_> {
    /// Charges `n` (a negative `n` as cel-go's unsigned arithmetic does),
    /// and cancels the evaluation when the cost is over the limit.
    fn charge(&mut self, n: i64) {
        if self.aborted.is_some() || self.free > 0 {
            return;
        }
        self.cost = self.cost.wrapping_add_signed(n);
        if self.cost > self.limit {
            self.aborted = Some(EvalError::CostLimit);
        }
    }

    /// Charges a call's cost, or passes on why it cannot be priced (a
    /// tracker's panic aborts the evaluation).
    fn charge_call(&mut self, cost: Result<u64, EvalError>) -> Result<(), EvalError> {
        match cost {
            Ok(c) => {
                self.charge(i64::try_from(c).unwrap_or(i64::MAX));
                Ok(())
            }
            Err(e @ EvalError::Internal(_)) => {
                if self.free == 0 && self.aborted.is_none() {
                    self.aborted = Some(e.clone());
                }
                Err(e)
            }
            Err(e) => Err(e),
        }
    }

    /// The error that aborted the evaluation, if one did.
    fn abort(&self) -> Option<EvalError> {
        self.aborted.clone()
    }
}

/// A value read out of the object: as `UnstructuredToVal` makes a new
/// one at each read, a set list gets a new identity.
fn fresh(v: &Val) -> Val {
    match v {
        Val::List(items, ListKind::Set) => Val::List(Rc::new(items.to_vec()), ListKind::Set),
        other => other.clone(),
    }
}

fn lookup(scope: &[(String, Res)], name: &str) -> Option<Res> {
    scope
        .iter()
        .rev()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.clone())
}

/// The type conversions cel-go folds when their argument is a constant
/// (`overloads.IsTypeConversionFunction`).
const CONVERSIONS: [&str; 10] = [
    "bool",
    "bytes",
    "double",
    "duration",
    "dyn",
    "int",
    "string",
    "timestamp",
    "type",
    "uint",
];

/// Whether cel-go plans `node` as a constant: a literal, a type name,
/// a list or map of constants, a conversion of a constant, `x in []`.
fn is_const(node: &Node) -> bool {
    match &node.kind {
        NodeKind::Literal(_) => true,
        NodeKind::Ident(name) => super::functions::type_ident(name).is_some(),
        NodeKind::List(items) => items.iter().all(is_const),
        NodeKind::Map(entries) => entries.iter().all(|(k, v)| is_const(k) && is_const(v)),
        NodeKind::Call {
            function,
            target: None,
            args,
            overloads,
        } => {
            (CONVERSIONS.contains(&function.as_str()) && args.len() == 1 && is_const(&args[0]))
                || (in_list(function, overloads)
                    && matches!(&args[1].kind, NodeKind::List(items) if items.is_empty()))
        }
        _ => false,
    }
}

/// `x in list` dispatched to `in_list` alone.
fn in_list(function: &str, overloads: &[String]) -> bool {
    matches!(function, "@in" | "_in_" | "in") && overloads.len() == 1 && overloads[0] == "in_list"
}

/// Whether cel-go plans `node` as an attribute: a variable, a field
/// selection, an index, an optional selection or index, a conditional.
fn is_attribute(node: &Node, env: &Env<'_>) -> bool {
    match &node.kind {
        NodeKind::Ident(name) => {
            env.scope.iter().any(|(n, _)| n == name) || super::functions::type_ident(name).is_none()
        }
        NodeKind::Select { .. } => true,
        NodeKind::Call {
            function,
            target: None,
            ..
        } => matches!(function.as_str(), "_[_]" | "_[?_]" | "_?._" | "_?_:_"),
        _ => false,
    }
}

/// Whether the attribute `node` qualifies starts at a conditional (the
/// tracker charges nothing for evaluating such an attribute).
fn conditional_root(node: &Node, env: &Env<'_>) -> bool {
    match &node.kind {
        NodeKind::Select { operand, .. } => {
            is_attribute(operand, env) && conditional_root(operand, env)
        }
        NodeKind::Call { function, .. } if function == "_?_:_" => true,
        NodeKind::Call { args, .. } => {
            is_attribute(&args[0], env) && conditional_root(&args[0], env)
        }
        _ => false,
    }
}

fn eval(node: &Node, env: &mut Env<'_>) -> Res {
    if let Some(e) = env.abort() {
        return Err(e);
    }
    // A value that is an error (or not representable) is one wherever it
    // is read.
    let out = if is_const(node) {
        env.free += 1;
        let v = eval_node(node, env);
        env.free -= 1;
        v
    } else if is_attribute(node, env) {
        let v = resolve(node, env);
        // The attribute's own evaluation: 1, none for a conditional, and
        // a presence test's 1 taken back.
        let (operand, test_only) = match &node.kind {
            NodeKind::Select {
                operand, test_only, ..
            } => (Some(&**operand), *test_only),
            _ => (None, false),
        };
        let root = match (operand, test_only) {
            (Some(o), true) => is_attribute(o, env) && conditional_root(o, env),
            _ => conditional_root(node, env),
        };
        env.charge(i64::from(!root) - i64::from(test_only));
        v
    } else {
        eval_node(node, env)
    };
    if let Some(e) = env.abort() {
        return Err(e);
    }
    out.and_then(Val::usable)
}

/// The value of the attribute `node` as cel-go resolves it: the value it
/// starts from, then each qualifier applied, each charged 1 when the
/// tracker observes it.
fn resolve(node: &Node, env: &mut Env<'_>) -> Res {
    match &node.kind {
        NodeKind::Ident(name) => match lookup(&env.scope, name) {
            Some(v) => v,
            None => Err(EvalError::Unsupported(format!("the identifier {name}"))),
        },
        NodeKind::Select {
            operand,
            field,
            test_only,
        } => {
            let v = base(operand, env)?.usable()?;
            let optional = matches!(v, Val::Optional(_));
            let out = select(&v, field, *test_only);
            if *test_only || !optional || present(&out) {
                env.charge(1);
            }
            out
        }
        NodeKind::Call { function, args, .. } if function == "_?_:_" => {
            match eval(&args[0], env)?.usable()? {
                Val::Bool(true) => base(&args[1], env),
                Val::Bool(false) => base(&args[2], env),
                _ => Err(no_overload()),
            }
        }
        NodeKind::Call { function, args, .. } => {
            let v = base(&args[0], env)?.usable()?;
            let key = if is_const(&args[1]) {
                env.free += 1;
                let k = eval(&args[1], env);
                env.free -= 1;
                k
            } else {
                base(&args[1], env)
            };
            if let Some(e) = env.abort() {
                return Err(e);
            }
            let optional = function != "_[_]" || matches!(v, Val::Optional(_));
            let out = key
                .and_then(Val::usable)
                .and_then(|k| apply(function, &[], &[v, k]));
            if !optional || present(&out) {
                env.charge(1);
            }
            out
        }
        _ => eval_node(node, env),
    }
}

/// Whether an optional qualification found its field or element.
fn present(v: &Res) -> bool {
    matches!(v, Ok(Val::Optional(Some(_))))
}

/// What an attribute starts from: the attribute `node` resolved, or any
/// other expression evaluated (cel-go's relative attribute).
fn base(node: &Node, env: &mut Env<'_>) -> Res {
    if is_attribute(node, env) {
        resolve(node, env)
    } else {
        eval(node, env)
    }
}

fn eval_node(node: &Node, env: &mut Env<'_>) -> Res {
    match &node.kind {
        NodeKind::Literal(l) => Ok(match l {
            Literal::Int(i) => Val::Int(*i),
            Literal::Uint(u) => Val::Uint(*u),
            Literal::Double(d) => Val::Double(*d),
            Literal::String(s) => Val::str(s),
            Literal::Bytes(b) => Val::Bytes(Rc::from(b.as_slice())),
            Literal::Bool(b) => Val::Bool(*b),
            Literal::Null => Val::Null,
        }),
        NodeKind::Ident(name) => {
            if let Some(v) = lookup(&env.scope, name) {
                return v;
            }
            if super::functions::type_ident(name).is_some() {
                return Ok(Val::Type(Rc::from(name.as_str())));
            }
            Err(EvalError::Unsupported(format!("the identifier {name}")))
        }
        NodeKind::Select { .. } => resolve(node, env),
        NodeKind::List(items) => {
            let mut out = Vec::with_capacity(items.len());
            let mut failed = None;
            for i in items {
                match eval(i, env) {
                    Ok(v) => out.push(v),
                    Err(e) => {
                        failed = Some(e);
                        break;
                    }
                }
            }
            env.charge(cost::LIST_CREATE as i64);
            match failed {
                Some(e) => Err(e),
                None => Ok(Val::list(out)),
            }
        }
        NodeKind::Map(entries) => {
            let out = map_literal(entries, env);
            env.charge(cost::MAP_CREATE as i64);
            out
        }
        NodeKind::Comprehension(c) => fold(c, env),
        NodeKind::Call {
            function,
            target,
            args,
            overloads,
        } => call(function, target.as_deref(), args, overloads, env),
    }
}

fn map_literal(entries: &[(Node, Node)], env: &mut Env<'_>) -> Res {
    let mut out: Vec<(Val, Val)> = Vec::with_capacity(entries.len());
    for (k, v) in entries {
        let k = eval(k, env)?.usable()?;
        let v = eval(v, env)?;
        if !matches!(
            k,
            Val::Bool(_) | Val::Int(_) | Val::Uint(_) | Val::String(_)
        ) {
            return Err(EvalError::unsupported("a map key of this type"));
        }
        for (seen, _) in &out {
            if equal(seen, &k)? {
                return Err(EvalError::unsupported("a repeated map key"));
            }
        }
        out.push((k, v));
    }
    Ok(Val::Map(Rc::new(out)))
}

fn select(v: &Val, field: &str, test_only: bool) -> Res {
    match v {
        Val::Object(fields, ..) => match fields.get(field) {
            // The apiserver reads the field to test it: data its schema
            // does not allow is an error.
            Some(f) if test_only => f.clone().usable().map(|_| Val::Bool(true)),
            Some(f) => Ok(fresh(f)),
            None if test_only => Ok(Val::Bool(false)),
            None => Err(EvalError::err(format!("no such key: {field}"))),
        },
        Val::Map(entries) => {
            let found = entries
                .iter()
                .find(|(k, _)| matches!(k, Val::String(s) if &**s == field));
            match (found, test_only) {
                (Some((_, f)), true) => f.clone().usable().map(|_| Val::Bool(true)),
                (None, true) => Ok(Val::Bool(false)),
                (Some((_, v)), false) => Ok(fresh(v)),
                (None, false) => Err(EvalError::err(format!("no such key: {field}"))),
            }
        }
        Val::Optional(None) if !test_only => Ok(Val::Optional(None)),
        Val::Optional(Some(inner)) if !test_only => optional_select(inner, field),
        _ => Err(EvalError::unsupported("selecting a field of this value")),
    }
}

fn fold(c: &Comprehension, env: &mut Env<'_>) -> Res {
    let range = eval(&c.iter_range, env)?.usable()?;
    let pairs: Vec<(Val, Val)> = match &range {
        Val::List(items, _) => items
            .iter()
            .enumerate()
            .map(|(i, v)| (Val::Int(i as i64), fresh(v)))
            .collect(),
        Val::Map(entries) => {
            env.maps_visited |= entries.len() > 1;
            let pairs = entries.iter().map(|(k, v)| (k.clone(), fresh(v)));
            if env.reverse {
                pairs.rev().collect()
            } else {
                pairs.collect()
            }
        }
        _ => return Err(EvalError::unsupported("iterating this value")),
    };
    let accu = eval(&c.accu_init, env);
    let base = env.scope.len();
    env.scope.push((c.accu_var.clone(), accu));
    let two = c.iter_var2.is_some();
    for (first, second) in pairs {
        env.scope.truncate(base + 1);
        match (&range, two) {
            (Val::List(..), false) => env.scope.push((c.iter_var.clone(), Ok(second))),
            (Val::Map(_), false) => env.scope.push((c.iter_var.clone(), Ok(first))),
            _ => {
                env.scope.push((c.iter_var.clone(), Ok(first)));
                if let Some(v2) = &c.iter_var2 {
                    env.scope.push((v2.clone(), Ok(second)));
                }
            }
        }
        let cond = eval(&c.loop_condition, env);
        if matches!(cond, Ok(Val::Bool(false))) {
            break;
        }
        if let Err(
            e @ (EvalError::Unsupported(_) | EvalError::CostLimit | EvalError::Internal(_)),
        ) = cond
        {
            env.scope.truncate(base);
            return Err(e);
        }
        let next = eval(&c.loop_step, env);
        if let Some(e) = env.abort() {
            env.scope.truncate(base);
            return Err(e);
        }
        env.scope[base].1 = next;
    }
    if matches!(&range, Val::Map(entries) if entries.len() > 1) {
        // Stopped, or would have been by the last entry: in another order
        // it stops at another step.
        env.free += 1;
        let cond = eval(&c.loop_condition, env);
        env.free -= 1;
        env.map_order |= matches!(cond, Ok(Val::Bool(false)));
    }
    env.scope.truncate(base + 1);
    let out = eval(&c.result, env);
    env.scope.truncate(base);
    out
}

/// `_&&_` (`and`) or `_||_`: the first decisive operand wins over errors.
fn logic(and: bool, lhs: &Node, rhs: &Node, env: &mut Env<'_>) -> Res {
    let decisive = !and;
    let l = eval(lhs, env);
    if matches!(l, Ok(Val::Bool(b)) if b == decisive) {
        return Ok(Val::Bool(decisive));
    }
    if let Some(e) = env.abort() {
        return Err(e);
    }
    let r = eval(rhs, env);
    if matches!(r, Ok(Val::Bool(b)) if b == decisive) {
        return Ok(Val::Bool(decisive));
    }
    let as_err = |v: &Res| match v {
        Ok(Val::Bool(_)) => None,
        Ok(_) => Some(EvalError::unsupported("no such overload")),
        Err(e) => Some(e.clone()),
    };
    match (as_err(&l), as_err(&r)) {
        (None, None) => Ok(Val::Bool(!decisive)),
        (Some(EvalError::Unsupported(w)), _) | (_, Some(EvalError::Unsupported(w))) => {
            Err(EvalError::Unsupported(w))
        }
        (Some(e), _) | (None, Some(e)) => Err(e),
    }
}

/// Whether cel-go calls `function` with its arguments evaluated one by
/// one, stopping at the first error (`evalVarArgs`: three or more
/// arguments, or a regular expression it compiled when planning), rather
/// than all of them (`evalUnary`, `evalBinary`, `evalEq`).
fn one_by_one(function: &str, target: Option<&Node>, args: &[Node]) -> bool {
    let all: Vec<&Node> = target.into_iter().chain(args).collect();
    let pattern = match function {
        "matches" | "find" | "findAll" => all.get(1),
        _ => None,
    };
    all.len() >= 3
        || pattern.is_some_and(|p| matches!(&p.kind, NodeKind::Literal(Literal::String(_))))
}

fn call(
    function: &str,
    target: Option<&Node>,
    args: &[Node],
    overloads: &[String],
    env: &mut Env<'_>,
) -> Res {
    match function {
        "_&&_" if args.len() == 2 => return logic(true, &args[0], &args[1], env),
        "_||_" if args.len() == 2 => return logic(false, &args[0], &args[1], env),
        "or" | "orValue"
            if target.is_some()
                && args.len() == 1
                && (overloads.len() != 1
                    || ["optional_or_optional", "optional_orValue_value"]
                        .contains(&overloads[0].as_str())) =>
        {
            // cel-go's evalOptionalOr(Value): not a call the tracker prices.
            return match eval(target.unwrap_or(&args[0]), env)? {
                Val::Optional(Some(v)) if function == "or" => Ok(Val::Optional(Some(v))),
                Val::Optional(Some(v)) => Ok((*v).clone()),
                Val::Optional(None) => eval(&args[0], env),
                other => Ok(other),
            };
        }
        _ => {}
    }
    if in_list(function, overloads)
        && let [x, list] = args
        && is_const(list)
    {
        env.free += 1;
        let items = eval(list, env);
        env.free -= 1;
        if let Ok(Val::List(items, _)) = &items
            && items.iter().all(|i| {
                matches!(
                    i,
                    Val::Bool(_) | Val::Int(_) | Val::Uint(_) | Val::Double(_) | Val::String(_)
                )
            })
        {
            // Planned as a set membership test: no call to price.
            let x = eval(x, env)?;
            return apply(
                function,
                overloads,
                &[x, Val::List(items.clone(), ListKind::Plain)],
            );
        }
    }
    let one_by_one = one_by_one(function, target, args);
    let count = args.len() + usize::from(target.is_some());
    let mut vals: Vec<Res> = Vec::with_capacity(count);
    for a in target.into_iter().chain(args) {
        let v = eval(a, env);
        if let Some(e) = env.abort() {
            return Err(e);
        }
        let failed = v.is_err();
        vals.push(v);
        if failed && one_by_one {
            break;
        }
    }
    let result = if function == "@not_strictly_false" || function == "__not_strictly_false__" {
        match &vals[0] {
            Ok(Val::Bool(b)) => Ok(Val::Bool(*b)),
            Err(EvalError::Unsupported(w)) => Err(EvalError::Unsupported(w.clone())),
            _ => Ok(Val::Bool(true)),
        }
    } else {
        match vals.iter().find_map(|v| v.as_ref().err()) {
            Some(e) => Err(e.clone()),
            None => {
                let vals: Vec<Val> = vals
                    .iter()
                    .filter_map(|v| v.as_ref().ok().cloned())
                    .collect();
                strict_call(function, overloads, &vals, env)
            }
        }
    };
    if vals.len() == count {
        let overload = match function {
            "_==_" => "equals",
            "_!=_" => "not_equals",
            _ if overloads.len() == 1 => overloads[0].as_str(),
            _ => "",
        };
        env.charge_call(cost::call(function, overload, &vals, &result))?;
    }
    result
}

/// A call on its evaluated arguments, with the object's set lists'
/// unions.
fn strict_call(function: &str, overloads: &[String], vals: &[Val], env: &mut Env<'_>) -> Res {
    guard::check(function, overloads, vals)?;
    if let ("_+_", [Val::List(x, ListKind::Set), Val::List(y, _)]) = (function, vals) {
        return set_union(x, y, env.sets);
    }
    if let ("_==_" | "_!=_", [Val::List(x, ListKind::Set), Val::List(y, kind)]) = (function, vals)
        && !matches!(kind, ListKind::Map(_))
        && env.sets.touched(x)
    {
        // `unstructuredSetList.Equal` reads the set a union added to.
        if x.len() != y.len() {
            return Ok(Val::Bool(function == "_!=_"));
        }
        let extra = env.sets.of(x).clone();
        let mut all = true;
        for e in y.iter() {
            let mut found = false;
            for s in x.iter().chain(extra.iter()) {
                found |= same_scalar(s, e)?;
            }
            all &= found;
        }
        return Ok(Val::Bool(all == (function == "_==_")));
    }
    apply(function, overloads, vals)
}

/// `x.?f`: the field or key if present, else `optional.none()`.
fn optional_select(x: &Val, f: &str) -> Res {
    match select(x, f, true)? {
        Val::Bool(true) => Ok(Val::Optional(Some(Rc::new(select(x, f, false)?)))),
        _ => Ok(Val::Optional(None)),
    }
}

/// `x[?i]`: the element or entry if there is one, else `optional.none()`.
fn optional_index(x: &Val, i: &Val) -> Res {
    match (x, i) {
        (Val::List(items, _), Val::Int(i)) => Ok(Val::Optional(
            usize::try_from(*i)
                .ok()
                .and_then(|i| items.get(i))
                .map(|v| Rc::new(fresh(v))),
        )),
        (Val::Map(_), Val::String(k)) => optional_select(x, k),
        _ => Err(EvalError::unsupported("this optional index")),
    }
}

/// `unstructuredSetList.Add`: `x`'s elements in their order, then those
/// of `y` not in `x`'s cached set — which they are added to.
fn set_union(x: &Rc<Vec<Val>>, y: &[Val], sets: &mut Sets) -> Res {
    let mut out: Vec<Val> = x.to_vec();
    let extra = sets.of(x);
    for e in y {
        let mut found = false;
        for s in x.iter().chain(extra.iter()) {
            if same_scalar(s, e)? {
                found = true;
                break;
            }
        }
        if !found {
            extra.push(e.clone());
            out.push(e.clone());
        }
    }
    Ok(Val::List(Rc::new(out), ListKind::Set))
}

fn int_overflow() -> EvalError {
    EvalError::err("integer overflow")
}

fn uint_overflow() -> EvalError {
    EvalError::err("unsigned integer overflow")
}

fn no_overload() -> EvalError {
    EvalError::unsupported("no such overload")
}

fn conversion(from: &str, to: &str) -> EvalError {
    EvalError::err(format!("type conversion error from '{from}' to '{to}'"))
}

/// A call on evaluated arguments (the target first).
pub(super) fn apply(function: &str, overloads: &[String], v: &[Val]) -> Res {
    if let Some(r) = time::apply(function, v)
        .or_else(|| net::apply(function, v))
        .or_else(|| library::semver(function, v))
        .or_else(|| quantity::apply(function, v))
        .or_else(|| formatting::apply(function, v))
        .or_else(|| url::apply(function, v))
        .or_else(|| format::apply(function, v))
    {
        return r;
    }
    use Val::*;
    let b = Bool;
    match (function, v) {
        ("!_", [Bool(x)]) => Ok(b(!x)),
        ("-_", [Int(x)]) => x.checked_neg().map(Int).ok_or_else(int_overflow),
        ("-_", [Double(x)]) => Ok(Double(-x)),
        ("_==_", [x, y]) => Ok(b(equal(x, y)?)),
        // cel-go: `!=` is true unless the equality is `true`, an error too.
        ("_!=_", [x, y]) => match equal(x, y) {
            Err(EvalError::Error(_)) => Ok(b(true)),
            e => Ok(b(!e?)),
        },
        ("_<_" | "_<=_" | "_>_" | "_>=_", [x, y]) => {
            let o = compare(x, y)?;
            Ok(b(match (function, o) {
                (_, None) => false,
                ("_<_", Some(o)) => o == Ordering::Less,
                ("_<=_", Some(o)) => o != Ordering::Greater,
                ("_>_", Some(o)) => o == Ordering::Greater,
                (_, Some(o)) => o != Ordering::Less,
            }))
        }
        ("_+_", [Int(x), Int(y)]) => x.checked_add(*y).map(Int).ok_or_else(int_overflow),
        ("_-_", [Int(x), Int(y)]) => x.checked_sub(*y).map(Int).ok_or_else(int_overflow),
        ("_*_", [Int(x), Int(y)]) => x.checked_mul(*y).map(Int).ok_or_else(int_overflow),
        ("_/_", [Int(_), Int(0)]) => Err(EvalError::err("division by zero")),
        ("_/_", [Int(x), Int(y)]) => x.checked_div(*y).map(Int).ok_or_else(int_overflow),
        ("_%_", [Int(_), Int(0)]) => Err(EvalError::err("modulus by zero")),
        ("_%_", [Int(x), Int(y)]) => x.checked_rem(*y).map(Int).ok_or_else(int_overflow),
        ("_+_", [Uint(x), Uint(y)]) => x.checked_add(*y).map(Uint).ok_or_else(uint_overflow),
        ("_-_", [Uint(x), Uint(y)]) => x.checked_sub(*y).map(Uint).ok_or_else(uint_overflow),
        ("_*_", [Uint(x), Uint(y)]) => x.checked_mul(*y).map(Uint).ok_or_else(uint_overflow),
        ("_/_", [Uint(_), Uint(0)]) => Err(EvalError::err("division by zero")),
        ("_/_", [Uint(x), Uint(y)]) => Ok(Uint(x / y)),
        ("_%_", [Uint(_), Uint(0)]) => Err(EvalError::err("modulus by zero")),
        ("_%_", [Uint(x), Uint(y)]) => Ok(Uint(x % y)),
        ("_+_", [Double(x), Double(y)]) => Ok(Double(x + y)),
        ("_-_", [Double(x), Double(y)]) => Ok(Double(x - y)),
        ("_*_", [Double(x), Double(y)]) => Ok(Double(x * y)),
        ("_/_", [Double(x), Double(y)]) => Ok(Double(x / y)),
        ("_+_", [String(x), String(y)]) => Ok(Val::str(&format!("{x}{y}"))),
        ("_+_", [Bytes(x), Bytes(y)]) => Ok(Bytes(Rc::from([&x[..], &y[..]].concat()))),
        ("_+_", [List(x, k), List(y, l)])
            if !matches!(k, ListKind::Set | ListKind::Map(_))
                && !matches!(l, ListKind::Set | ListKind::Map(_)) =>
        {
            // A list of the object stays one (`unstructuredList.Add`).
            Ok(List(
                Rc::new(x.iter().chain(y.iter()).cloned().collect()),
                k.clone(),
            ))
        }
        ("@in" | "_in_" | "in", [x, List(items, _)]) => {
            // cel-go's `Contains`: an element whose equality is an error
            // is no match.
            for i in items.iter() {
                match equal(x, i) {
                    Ok(true) => return Ok(b(true)),
                    Ok(false) | Err(EvalError::Error(_)) => {}
                    Err(e) => return Err(e),
                }
            }
            Ok(b(false))
        }
        ("@in" | "_in_" | "in", [x, Map(entries)]) => {
            for (k, v) in entries.iter() {
                if equal(x, k)? {
                    // `Contains` reads the value: data its schema does
                    // not allow is an error.
                    return v.clone().usable().map(|_| b(true));
                }
            }
            Ok(b(false))
        }
        ("_[_]", [List(items, _), i]) => match i {
            // The interpreter's `refQualify`.
            Int(i) => match usize::try_from(*i).ok().and_then(|i| items.get(i)) {
                Some(v) => fresh(v).usable(),
                None => Err(EvalError::err(format!("index out of bounds: {i}"))),
            },
            _ => Err(EvalError::unsupported("a list index of another type")),
        },
        ("_[_]", [Map(entries), k]) => {
            for (key, v) in entries.iter() {
                if equal(key, k)? {
                    return fresh(v).usable();
                }
            }
            let shown = match k {
                String(s) => s.to_string(),
                Int(i) => i.to_string(),
                Uint(u) => u.to_string(),
                Bool(x) => x.to_string(),
                _ => return Err(no_overload()),
            };
            Err(EvalError::err(format!("no such key: {shown}")))
        }
        ("size", [String(s)]) => Ok(Int(s.chars().count() as i64)),
        ("size", [Bytes(x)]) => Ok(Int(x.len() as i64)),
        ("size", [List(x, _)]) => Ok(Int(x.len() as i64)),
        ("size", [Map(x)]) => Ok(Int(x.len() as i64)),
        ("size", [Object(..)]) => Err(no_overload()),
        ("contains", [String(s), String(t)]) => Ok(b(s.contains(&**t))),
        ("startsWith", [String(s), String(t)]) => Ok(b(s.starts_with(&**t))),
        ("endsWith", [String(s), String(t)]) => Ok(b(s.ends_with(&**t))),
        ("matches", [String(s), String(p)]) => library::go_regex(p).map(|re| b(re.is_match(s))),
        ("dyn", [x]) => Ok(x.clone()),
        ("type", [x]) => Ok(Type(Rc::from(x.type_name()?))),
        ("int", [x]) => to_int(x),
        ("uint", [x]) => to_uint(x),
        ("double", [x]) => to_double(x),
        ("string", [x]) => to_string(x),
        ("bool", [Bool(x)]) => Ok(b(*x)),
        ("bool", [String(s)]) => match &**s {
            "1" | "t" | "T" | "TRUE" | "true" | "True" => Ok(b(true)),
            "0" | "f" | "F" | "FALSE" | "false" | "False" => Ok(b(false)),
            _ => Err(conversion("string", "bool")),
        },
        ("bytes", [Bytes(x)]) => Ok(Bytes(x.clone())),
        ("bytes", [String(s)]) => Ok(Bytes(Rc::from(s.as_bytes()))),
        ("_?._", [Optional(None), _]) => Ok(Optional(None)),
        ("_?._", [Optional(Some(x)), String(f)]) => optional_select(x, f),
        ("_?._", [x, String(f)]) => optional_select(x, f),
        ("_[?_]" | "_[_]", [Optional(None), _]) => Ok(Optional(None)),
        ("_[?_]" | "_[_]", [Optional(Some(x)), i]) => optional_index(x, i),
        ("_[?_]", [x, i]) => optional_index(x, i),
        _ => match library::apply(function, overloads, v) {
            Some(r) => r,
            None => Err(EvalError::Unsupported(format!("the function {function}"))),
        },
    }
}

/// Go's `==` of two scalars as `interface{}` (a set's elements): the same
/// type and value.
fn same_scalar(a: &Val, b: &Val) -> Result<bool, EvalError> {
    value::go_scalar_eq(a, b).ok_or_else(|| {
        EvalError::unsupported("a set element that is not a scalar its schema allows")
    })
}

/// `<`, `<=`, `>`, `>=`: numbers across types (as the apiserver enables),
/// or two values of one ordered type.
pub(super) fn compare(x: &Val, y: &Val) -> Result<Option<Ordering>, EvalError> {
    Ok(match (x, y) {
        (Val::String(a), Val::String(b)) => Some(a.cmp(b)),
        (Val::Bytes(a), Val::Bytes(b)) => Some(a.cmp(b)),
        (Val::Bool(a), Val::Bool(b)) => Some(a.cmp(b)),
        (Val::Duration(a), Val::Duration(b)) | (Val::Timestamp(a), Val::Timestamp(b)) => {
            Some(a.cmp(b))
        }
        (
            Val::Int(_) | Val::Uint(_) | Val::Double(_),
            Val::Int(_) | Val::Uint(_) | Val::Double(_),
        ) => match numeric_cmp(x, y) {
            Some(o) => Some(o),
            None => return Err(EvalError::unsupported("comparing NaN")),
        },
        _ => return Err(no_overload()),
    })
}

/// A double within (-2^63, 2^63) truncated, as cel-go's
/// `doubleToInt64Checked`.
fn double_to_int(d: f64) -> Option<i64> {
    if d.is_nan() || d <= -9_223_372_036_854_775_808.0 || d >= 9_223_372_036_854_775_807.0 {
        return None;
    }
    Some(d as i64)
}

fn to_int(x: &Val) -> Res {
    match x {
        Val::Int(i) => Ok(Val::Int(*i)),
        Val::Uint(u) => i64::try_from(*u).map(Val::Int).map_err(|_| int_overflow()),
        Val::Double(d) => double_to_int(*d).map(Val::Int).ok_or_else(int_overflow),
        Val::String(s) => go_parse_int(s)
            .map(Val::Int)
            .ok_or_else(|| conversion("string", "int")),
        Val::Duration(n) => i64::try_from(*n).map(Val::Int).map_err(|_| int_overflow()),
        Val::Timestamp(n) => Ok(Val::Int(n.div_euclid(1_000_000_000) as i64)),
        _ => Err(no_overload()),
    }
}

fn to_uint(x: &Val) -> Res {
    match x {
        Val::Uint(u) => Ok(Val::Uint(*u)),
        Val::Int(i) => u64::try_from(*i)
            .map(Val::Uint)
            .map_err(|_| uint_overflow()),
        Val::Double(d) => {
            if d.is_nan() || *d < 0.0 || *d >= 18_446_744_073_709_551_615.0 {
                Err(uint_overflow())
            } else {
                Ok(Val::Uint(*d as u64))
            }
        }
        Val::String(s) => {
            if s.is_empty() || !s.bytes().all(|c| c.is_ascii_digit()) {
                return Err(conversion("string", "uint"));
            }
            s.parse()
                .map(Val::Uint)
                .map_err(|_| conversion("string", "uint"))
        }
        _ => Err(no_overload()),
    }
}

fn to_double(x: &Val) -> Res {
    match x {
        Val::Double(d) => Ok(Val::Double(*d)),
        Val::Int(i) => Ok(Val::Double(*i as f64)),
        Val::Uint(u) => Ok(Val::Double(*u as f64)),
        Val::String(s) => {
            let plain = !s.is_empty()
                && s.bytes()
                    .all(|c| c.is_ascii_digit() || matches!(c, b'+' | b'-' | b'.' | b'e' | b'E'));
            if !plain {
                return Err(EvalError::unsupported("Go's ParseFloat of this text"));
            }
            match s.parse::<f64>() {
                Ok(d) if d.is_finite() => Ok(Val::Double(d)),
                _ => Err(EvalError::unsupported("Go's ParseFloat of this text")),
            }
        }
        _ => Err(no_overload()),
    }
}

fn to_string(x: &Val) -> Res {
    Ok(match x {
        Val::String(s) => Val::String(s.clone()),
        Val::Int(i) => Val::str(&i.to_string()),
        Val::Uint(u) => Val::str(&u.to_string()),
        Val::Bool(b) => Val::str(&b.to_string()),
        Val::Double(d) if d.is_finite() => Val::str(&go_float(*d)),
        Val::Bytes(b) => match std::str::from_utf8(b) {
            Ok(s) => Val::str(s),
            Err(_) => {
                return Err(EvalError::err(
                    "invalid UTF-8 in bytes, cannot convert to string",
                ));
            }
        },
        _ => return Err(EvalError::unsupported("this string conversion")),
    })
}

/// Go's `%g` of a float64.
fn go_float(d: f64) -> String {
    crate::go::fmt::go_float(d)
}

/// Go's `strconv.ParseInt(s, 10, 64)`.
fn go_parse_int(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let s = s.strip_prefix('+').unwrap_or(s);
    s.parse().ok()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::cel::check::{Purpose, check_rule};
    use crate::cel::types::Type;

    fn run(rule: &str, schema: serde_json::Value, object: serde_json::Value) -> Res {
        let t = Type::of_schema(&schema, "selfType", false).unwrap();
        let checked = check_rule(rule, &t, false, Purpose::Rule, |_| true).unwrap();
        evaluate(&checked.tree, &[("self", Val::from_json(&object, &schema))])
    }

    fn spec() -> serde_json::Value {
        json!({"type": "object", "properties": {
            "n": {"type": "integer"}, "s": {"type": "string"},
            "l": {"type": "array", "items": {"type": "integer"}},
            "t": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
            "m": {"type": "object", "additionalProperties": {"type": "string"}},
        }})
    }

    #[test]
    fn core_operators_and_errors_as_cel_go() {
        let obj = json!({"n": 3, "s": "abc", "l": [1, 2, 3], "m": {"a": "x"}, "t": ["a", "b"]});
        for (rule, want) in [
            ("self.n + 1 == 4", Ok(true)),
            ("self.l.all(x, x > 0)", Ok(true)),
            ("self.l.exists_one(x, x > 2)", Ok(true)),
            ("self.l.map(x, x * 2)[2] == 6", Ok(true)),
            ("self.l.filter(x, x > 1).size() == 2", Ok(true)),
            ("has(self.m) && !has(self.x)", Err("undefined")),
            ("self.s.matches('b') && self.s.startsWith('a')", Ok(true)),
            ("self.n / 0 == 1", Err("division by zero")),
            ("self.n * 9223372036854775807 > 0", Err("integer overflow")),
            ("self.l[5] == 1", Err("index out of bounds: 5")),
            (
                "self.t == ['b', 'a'] && ['b', 'a'] != self.t && self.t == ['a', 'a']",
                Ok(true),
            ),
            ("[1, 2][5] == 1", Err("index out of bounds: 5")),
            (
                "(self.l + [4])[3] == 4 && (self.l + [4])[4] == 1",
                Err("index out of bounds: 4"),
            ),
            ("self.m.b == 'x'", Err("no such key: b")),
            ("self.m.b == 'x' || true", Ok(true)),
            ("self.l.all(x, 3 / (x - 1) > 0) || self.n == 3", Ok(true)),
            ("int('12') + 1 == 13 && string(1.5) == '1.5'", Ok(true)),
            ("1 < 1.5 && 2u > 1", Ok(true)),
            ("type(self.n) == int", Ok(true)),
            ("'a' in self.m && 2 in self.l", Ok(true)),
            (
                "self.s.upperAscii().lowerAscii().charAt(1) == 'b'",
                Ok(true),
            ),
            (
                "self.l.sum() == 6 && self.l.max() == 3 && self.l.isSorted()",
                Ok(true),
            ),
            (
                "sets.contains(self.l, [1, 2]) && self.l.indexOf(3) == 2",
                Ok(true),
            ),
            ("self.s.split('b').join('-') == 'a-c'", Ok(true)),
            (
                "self.s.substring(2, 1) == ''",
                Err("invalid substring range. start: 2, end: 1"),
            ),
            (
                "self.?x.orValue(5) == 5 && self.?n.orValue(5) == 3",
                Err("undefined"),
            ),
            (
                "self.?n.orValue(5) == 3 && self.m.?z.orValue('q') == 'q'",
                Ok(true),
            ),
            ("optional.of(1).or(optional.none()).value() == 1", Ok(true)),
            (
                "optional.none().value() == 1",
                Err("optional.none() dereference"),
            ),
            (
                "self.l[?7].hasValue() || self.m[?'a'].value() == 'x'",
                Ok(true),
            ),
        ] {
            let got = match check_rule(
                rule,
                &Type::of_schema(&spec(), "selfType", false).unwrap(),
                false,
                Purpose::Rule,
                |_| true,
            ) {
                Err(_) => Err(EvalError::err("undefined")),
                Ok(_) => run(rule, spec(), obj.clone()),
            };
            let got = match got {
                Ok(Val::Bool(b)) => Ok(b),
                Err(EvalError::Error(e)) => Err(e),
                other => panic!("{rule}: {other:?}"),
            };
            assert_eq!(got, want.map_err(str::to_string), "{rule}");
        }
    }

    #[test]
    fn absent_fields_select_with_an_error_and_test_false() {
        let obj = json!({"n": 1});
        assert!(matches!(
            run("!has(self.s)", spec(), obj.clone()),
            Ok(Val::Bool(true))
        ));
        assert_eq!(
            run("self.s == 'a'", spec(), obj).unwrap_err(),
            EvalError::err("no such key: s")
        );
    }

    #[test]
    fn unimplemented_is_unsupported() {
        let r = run(
            "optional.unwrap([optional.of(self.s)]).size() == 1",
            spec(),
            json!({"s": "A"}),
        );
        assert!(matches!(r, Err(EvalError::Unsupported(_))), "{r:?}");
    }
}
