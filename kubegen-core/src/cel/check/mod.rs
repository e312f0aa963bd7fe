//! CEL's type checker, as the apiserver's (cel-go's `checker` package with
//! the apiserver's environment): identifiers and fields resolved against
//! the declared variables and the schema's object types, every call
//! resolved against the overloads of [`functions`](super::functions) with
//! cel-go's type-parameter unification, macros typed as the
//! comprehensions cel-go expands them to, aggregate literals required to
//! be homogeneous. Errors carry cel-go's messages, so kubegen's verdict on
//! a rule can be compared with the apiserver's word for word
//! (`tests/cel_differential.rs`).

mod expand;
mod plan;
mod unify;
mod validate;

use std::collections::HashMap;

use crate::cel::ast::{Expr, ExprKind, Literal};
use crate::cel::checked::Node;
use crate::cel::functions::{overloads, type_ident};
use crate::cel::parse::{ParseError, parse};
use crate::cel::types::Type;
use unify::{Mapping, is_assignable, most_general, rename_params, substitute};

/// A type error: where, and cel-go's message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TypeError {
    /// The byte offset of the expression it is about.
    pub offset: usize,
    /// What is wrong, as the apiserver says it.
    pub message: String,
    /// For an undefined field: the declared field it is most likely a typo
    /// of.
    pub did_you_mean: Option<String>,
}

/// Why the apiserver would refuse a rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RuleError {
    /// It does not parse.
    Parse(ParseError),
    /// It does not type-check; the first error by position.
    Type(TypeError),
    /// It type-checks to something other than what it must be (`bool` for
    /// a rule, `string` for a message expression).
    Result(String),
    /// It checks, but the apiserver's interpreter refuses to plan it.
    Program(String),
    /// Its estimated cost, times the number of times it can run in one
    /// object, is over the per-expression budget.
    Cost {
        /// The apiserver's message.
        message: String,
        /// The schema nodes below the rule's whose size the estimate took
        /// from the request size, with the keyword that would bound them.
        unbounded: Vec<(String, &'static str)>,
    },
    /// All the schema's rules together are over the per-CRD budget.
    TotalCost {
        /// The apiserver's message.
        message: String,
        /// The most expensive expressions (path, rule, and the rule or
        /// its message expression), most expensive first.
        most_expensive: Vec<(String, String, String)>,
    },
}

impl RuleError {
    /// The message, as the apiserver words it.
    pub fn message(&self) -> &str {
        match self {
            RuleError::Parse(e) => &e.message,
            RuleError::Type(e) => &e.message,
            RuleError::Result(m) | RuleError::Program(m) => m,
            RuleError::Cost { message, .. } | RuleError::TotalCost { message, .. } => message,
        }
    }

    /// The byte offset in the expression the error is at.
    pub fn offset(&self) -> usize {
        match self {
            RuleError::Parse(e) => e.offset,
            RuleError::Type(e) => e.offset,
            _ => 0,
        }
    }
}

/// What an expression is checked as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    /// A validation rule: must be a `bool`.
    Rule,
    /// A `messageExpression`: must be a `string`.
    Message,
}

/// Whether a pattern is a regular expression Go's `regexp` compiles (the
/// apiserver refuses `matches()` with a literal pattern it does not);
/// kubegen-core has no RE2 parser of its own, the code generator passes
/// its own.
pub type RegexCheck = fn(&str) -> bool;

/// Checks `src` as the apiserver compiles a rule or message expression on
/// a schema whose declared type is `self_type`: `self` and `oldSelf` are
/// declared with it (`oldSelf` as `optional_type(self_type)` when
/// `optional_old_self`); the checked expression when it checks.
pub fn check_rule(
    src: &str,
    self_type: &Type,
    optional_old_self: bool,
    purpose: Purpose,
    regex: RegexCheck,
) -> Result<Checked, RuleError> {
    let expr = parse(src).map_err(RuleError::Parse)?;
    let old = if optional_old_self {
        Type::Optional(Box::new(self_type.clone()))
    } else {
        self_type.clone()
    };
    let vars = [
        ("self".to_string(), self_type.clone()),
        ("oldSelf".to_string(), old),
    ];
    let checked = check(&expr, &vars, regex).map_err(RuleError::Type)?;
    match purpose {
        Purpose::Rule if checked.result != Type::Bool => Err(RuleError::Result(
            "cel expression must evaluate to a bool".into(),
        )),
        Purpose::Message if checked.result != Type::String => Err(RuleError::Result(
            "messageExpression must evaluate to a string".into(),
        )),
        _ => plan::plan(&expr)
            .map(|()| checked)
            .map_err(RuleError::Program),
    }
}

/// An expression that checked.
#[derive(Clone, Debug)]
pub struct Checked {
    /// Its type, type parameters left free becoming `dyn`.
    pub result: Type,
    /// The expression as cel-go's checker leaves it (macros expanded,
    /// every node typed, calls resolved to their overloads).
    pub tree: Node,
    /// Whether it reads `oldSelf` (a transition rule).
    pub uses_old_self: bool,
}

/// `expr` checked with `vars` declared; or its first type error by
/// position.
pub fn check(
    expr: &Expr,
    vars: &[(String, Type)],
    regex: RegexCheck,
) -> Result<Checked, TypeError> {
    let mut c = Checker {
        regex,
        types: HashMap::new(),
        overloads: HashMap::new(),
        scopes: vec![vars.iter().cloned().collect()],
        mapping: HashMap::new(),
        next_var: 0,
        next_id: 0,
        uses_old_self: false,
        errors: Vec::new(),
    };
    let t = c.check(expr);
    if c.errors.is_empty() {
        c.validate(expr, false);
    }
    if let Some(first) = c.errors.iter().min_by_key(|e| e.offset) {
        return Err(first.clone());
    }
    let tree = c.expand(expr);
    Ok(Checked {
        result: substitute(&c.mapping, &t, true),
        tree,
        uses_old_self: c.uses_old_self,
    })
}

struct Checker {
    regex: RegexCheck,
    /// The type of every node checked, by address, for the validations
    /// after checking.
    types: HashMap<usize, Type>,
    /// The overloads each call node resolved to, by address.
    overloads: HashMap<usize, Vec<String>>,
    scopes: Vec<HashMap<String, Type>>,
    mapping: Mapping,
    next_var: u32,
    /// The next id of a node of the checked tree.
    next_id: u32,
    /// `oldSelf` resolved as the declared variable.
    uses_old_self: bool,
    errors: Vec<TypeError>,
}

/// What a macro's comprehension does with its range.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Macro {
    All,
    Exists,
    ExistsOne,
    Map,
    MapFilter,
    Filter,
    TransformList,
    TransformListFilter,
    TransformMap,
    TransformMapFilter,
    TransformMapEntry,
    TransformMapEntryFilter,
}

impl Checker {
    fn error(&mut self, at: usize, message: String) -> Type {
        self.errors.push(TypeError {
            offset: at,
            message,
            did_you_mean: None,
        });
        Type::Error
    }

    fn fresh(&mut self) -> Type {
        self.next_var += 1;
        Type::Param(format!("_var{}", self.next_var))
    }

    fn lookup(&mut self, name: &str) -> Option<Type> {
        let name = name.strip_prefix('.').unwrap_or(name);
        let depth = self.scopes.iter().rposition(|s| s.contains_key(name));
        // cel-go records every identifier resolved by that name, an
        // iteration variable named so included.
        if depth.is_some() && name == "oldSelf" {
            self.uses_old_self = true;
        }
        depth
            .map(|d| self.scopes[d][name].clone())
            .or_else(|| type_ident(name))
    }

    /// `a.b.c` as one name, when it is made of names only.
    fn qualified(e: &Expr) -> Option<String> {
        match &e.kind {
            ExprKind::Ident(n) => Some(n.clone()),
            ExprKind::Select { operand, field } => {
                Some(format!("{}.{field}", Self::qualified(operand)?))
            }
            _ => None,
        }
    }

    /// `t1` assignable to `t2`, binding type parameters on success.
    fn assignable(&mut self, t1: &Type, t2: &Type) -> bool {
        let mut m = self.mapping.clone();
        if is_assignable(&mut m, t1, t2) {
            self.mapping = m;
            true
        } else {
            false
        }
    }

    fn check(&mut self, e: &Expr) -> Type {
        let t = self.check_kind(e);
        self.types.insert(std::ptr::from_ref(e) as usize, t.clone());
        t
    }

    fn check_kind(&mut self, e: &Expr) -> Type {
        match &e.kind {
            ExprKind::Literal(l) => match l {
                Literal::Int(_) => Type::Int,
                Literal::Uint(_) => Type::Uint,
                Literal::Double(_) => Type::Double,
                Literal::String(_) => Type::String,
                Literal::Bytes(_) => Type::Bytes,
                Literal::Bool(_) => Type::Bool,
                Literal::Null => Type::Null,
            },
            ExprKind::Ident(name) => match self.lookup(name) {
                Some(t) => t,
                None => self.error(
                    e.at,
                    format!("undeclared reference to '{name}' (in container '')"),
                ),
            },
            ExprKind::Select { operand, field } => {
                if let Some(q) = Self::qualified(e)
                    && let Some(t) = type_ident(&q)
                {
                    return t;
                }
                let t = self.select(e.at, operand, field, false);
                substitute(&self.mapping, &t, false)
            }
            ExprKind::Call {
                function,
                target,
                args,
                is_macro,
            } => {
                if *is_macro {
                    return self.macro_call(e, function, target.as_deref(), args);
                }
                if function == "_?._" {
                    let ExprKind::Literal(Literal::String(field)) = &args[1].kind else {
                        return self
                            .error(args[1].at, "unsupported optional field selection".into());
                    };
                    let t = self.select(e.at, &args[0], field, true);
                    return substitute(&self.mapping, &t, false);
                }
                self.call(e, function, target.as_deref(), args)
            }
            ExprKind::List(elements) => {
                let mut joined: Option<Type> = None;
                for el in elements {
                    let t = self.check(&el.value);
                    let t = self.element(&el.value, t, el.optional);
                    joined = Some(self.join(joined, t));
                }
                let elem = joined.unwrap_or_else(|| self.fresh());
                Type::List(Box::new(elem))
            }
            ExprKind::Map(entries) => {
                let (mut keys, mut values): (Option<Type>, Option<Type>) = (None, None);
                for en in entries {
                    let k = self.check(&en.key);
                    keys = Some(self.join(keys, k));
                    let v = self.check(&en.value);
                    let v = self.element(&en.value, v, en.optional);
                    values = Some(self.join(values, v));
                }
                let k = keys.unwrap_or_else(|| self.fresh());
                let v = values.unwrap_or_else(|| self.fresh());
                Type::Map(Box::new(k), Box::new(v))
            }
            ExprKind::Struct { name, .. } => {
                match type_ident(name.strip_prefix('.').unwrap_or(name)) {
                    Some(_) => self.error(e.at, format!("'{name}' is not a message type")),
                    None => self.error(
                        e.at,
                        format!("undeclared reference to '{name}' (in container '')"),
                    ),
                }
            }
        }
    }

    /// The type an aggregate literal's element `e` (of type `t`) adds:
    /// an optional element (`?e`) adds what its optional holds, and must be
    /// one (or `dyn`).
    fn element(&mut self, e: &Expr, t: Type, optional: bool) -> Type {
        if !optional {
            return t;
        }
        match unwrap_optional(&t) {
            Some(inner) => inner,
            None => {
                if t != Type::Dyn {
                    let expected = Type::Optional(Box::new(t.clone()));
                    self.error(e.at, format!("expected type '{expected}' but found '{t}'"));
                }
                t
            }
        }
    }

    /// Joins a literal's element types: the more general of assignable
    /// ones, else `dyn` (the homogeneity of literals is a validation after
    /// checking, in `validate`).
    fn join(&mut self, previous: Option<Type>, current: Type) -> Type {
        let Some(previous) = previous else {
            return current;
        };
        if self.assignable(&previous, &current) {
            return most_general(&previous, &current);
        }
        Type::Dyn
    }

    /// `operand.field` (optional: `operand.?field`).
    fn select(&mut self, at: usize, operand: &Expr, field: &str, optional: bool) -> Type {
        let t = self.check(operand);
        let t = substitute(&self.mapping, &t, false);
        let (target, was_optional) = match unwrap_optional(&t) {
            Some(inner) => (inner, true),
            None => (t, false),
        };
        let result = match &target {
            Type::Map(_, v) => (**v).clone(),
            Type::Object(o) => match o.fields.get(field) {
                Some(f) => f.clone(),
                None => {
                    let guess = crate::suggest::suggest(field, o.fields.keys().map(String::as_str));
                    self.errors.push(TypeError {
                        offset: at,
                        message: format!("undefined field '{field}'"),
                        did_you_mean: guess.map(str::to_string),
                    });
                    Type::Error
                }
            },
            Type::Param(_) => {
                self.assignable(&Type::Dyn, &target);
                Type::Dyn
            }
            Type::Dyn | Type::Error => Type::Dyn,
            other => {
                self.error(
                    at,
                    format!("type '{other}' does not support field selection"),
                );
                Type::Dyn
            }
        };
        if was_optional || optional {
            Type::Optional(Box::new(result))
        } else {
            result
        }
    }

    /// A call that is not a macro.
    fn call(&mut self, e: &Expr, function: &str, target: Option<&Expr>, args: &[Expr]) -> Type {
        let arg_types: Vec<Type> = args.iter().map(|a| self.check(a)).collect();
        let Some(target) = target else {
            return match overloads(function) {
                Some(_) => self.resolve(e, function, None, arg_types),
                None => self.error(
                    e.at,
                    format!("undeclared reference to '{function}' (in container '')"),
                ),
            };
        };
        if let Some(q) = Self::qualified(target)
            && overloads(&format!("{q}.{function}")).is_some()
        {
            return self.resolve(e, &format!("{q}.{function}"), None, arg_types);
        }
        let t = self.check(target);
        match overloads(function) {
            Some(_) => self.resolve(e, function, Some(t), arg_types),
            None => self.error(
                e.at,
                format!("undeclared reference to '{function}' (in container '')"),
            ),
        }
    }

    /// cel-go's overload resolution: every overload whose arguments the
    /// call's are assignable to; their result (`dyn` when they differ).
    fn resolve(&mut self, e: &Expr, function: &str, target: Option<Type>, args: Vec<Type>) -> Type {
        let member = target.is_some();
        let mut all: Vec<Type> = target.into_iter().collect();
        all.extend(args);
        let id = std::ptr::from_ref(e) as usize;
        if function == "_&&_" || function == "_||_" {
            let logical = if function == "_&&_" {
                "logical_and"
            } else {
                "logical_or"
            };
            self.overloads.insert(id, vec![logical.to_string()]);
            let mut failed = false;
            for (i, t) in all.iter().enumerate() {
                if !self.assignable(t, &Type::Bool) {
                    let at = operand_at(e, i);
                    self.error(at, format!("expected type 'bool' but found '{t}'"));
                    failed = true;
                }
            }
            return if failed { Type::Error } else { Type::Bool };
        }
        let mut result: Option<Type> = None;
        let mut matched = Vec::new();
        for o in overloads(function).unwrap_or_default() {
            if o.member != member || o.args.len() != all.len() {
                continue;
            }
            let mut fresh = HashMap::new();
            let mut instantiate = |t: &Type| rename_params(t, &mut fresh, &mut self.next_var);
            let params: Vec<Type> = o.args.iter().map(&mut instantiate).collect();
            let out = instantiate(&o.result);
            let mut m = self.mapping.clone();
            if all
                .iter()
                .zip(&params)
                .all(|(a, p)| is_assignable(&mut m, a, p))
            {
                self.mapping = m;
                matched.push(o.id.clone());
                let out = substitute(&self.mapping, &out, false);
                result = Some(match result {
                    None => out,
                    Some(prev) if prev == Type::Dyn || prev == out => prev,
                    Some(_) => Type::Dyn,
                });
            }
        }
        self.overloads.insert(id, matched);
        match result {
            Some(t) => t,
            None => {
                let shown: Vec<String> = all
                    .iter()
                    .map(|t| substitute(&self.mapping, t, true).to_string())
                    .collect();
                let signature = if member {
                    format!("{}.({})", shown[0], shown[1..].join(", "))
                } else {
                    format!("({})", shown.join(", "))
                };
                self.error(
                    e.at,
                    format!("found no matching overload for '{function}' applied to '{signature}'"),
                )
            }
        }
    }

    /// A macro, typed as the comprehension cel-go expands it to.
    fn macro_call(
        &mut self,
        e: &Expr,
        function: &str,
        target: Option<&Expr>,
        args: &[Expr],
    ) -> Type {
        let Some(target) = target else {
            // has(x.f): a presence test.
            if let ExprKind::Select { operand, field } = &args[0].kind {
                self.select(args[0].at, operand, field, false);
            }
            return Type::Bool;
        };
        let kind = match (function, args.len()) {
            ("all", _) => Macro::All,
            ("exists", _) => Macro::Exists,
            ("exists_one" | "existsOne", _) => Macro::ExistsOne,
            ("map", 2) => Macro::Map,
            ("map", _) => Macro::MapFilter,
            ("filter", _) => Macro::Filter,
            ("transformList", 3) => Macro::TransformList,
            ("transformList", _) => Macro::TransformListFilter,
            ("transformMap", 3) => Macro::TransformMap,
            ("transformMap", _) => Macro::TransformMapFilter,
            ("transformMapEntry", 3) => Macro::TransformMapEntry,
            ("transformMapEntry", _) => Macro::TransformMapEntryFilter,
            ("optMap" | "optFlatMap", _) => {
                return self.opt_map(e, function == "optFlatMap", target, args);
            }
            _ => return self.sort_by(e, target, args),
        };
        let two_vars = matches!(
            function,
            "transformList" | "transformMap" | "transformMapEntry"
        ) || (matches!(kind, Macro::All | Macro::Exists | Macro::ExistsOne)
            && args.len() == 3);
        let range = self.check(target);
        let range = substitute(&self.mapping, &range, false);
        let (var, var2) = match &range {
            Type::List(elem) if two_vars => (Type::Int, Some((**elem).clone())),
            Type::List(elem) => ((**elem).clone(), None),
            Type::Map(k, v) => ((**k).clone(), two_vars.then(|| (**v).clone())),
            Type::Dyn | Type::Error | Type::Param(_) => {
                self.assignable(&Type::Dyn, &range);
                (Type::Dyn, two_vars.then_some(Type::Dyn))
            }
            other => {
                self.error(
                    target.at,
                    format!(
                        "expression of type '{other}' cannot be range of a comprehension (must be list, map, or dynamic)"
                    ),
                );
                (Type::Error, two_vars.then_some(Type::Error))
            }
        };
        let mut scope = HashMap::new();
        let names: Vec<&str> = args
            .iter()
            .take(if two_vars { 2 } else { 1 })
            .filter_map(|a| match &a.kind {
                ExprKind::Ident(n) => Some(n.as_str()),
                _ => None,
            })
            .collect();
        scope.insert(names[0].to_string(), var.clone());
        if let (Some(v2), Some(n2)) = (var2, names.get(1)) {
            scope.insert((*n2).to_string(), v2);
        }
        self.scopes.push(scope);
        let body: Vec<Type> = args[names.len()..].iter().map(|a| self.check(a)).collect();
        self.scopes.pop();
        let first_body = &args[names.len()];
        match kind {
            Macro::All | Macro::Exists => {
                let t = &body[0];
                if !self.assignable(t, &Type::Bool) {
                    self.error(
                        first_body.at,
                        format!("expected type 'bool' but found '{t}'"),
                    );
                }
                Type::Bool
            }
            Macro::ExistsOne => {
                self.conditional(e.at, &body[0], &Type::Int);
                Type::Bool
            }
            Macro::Map | Macro::TransformList => Type::List(Box::new(body[0].clone())),
            Macro::MapFilter | Macro::TransformListFilter => {
                let out = Type::List(Box::new(body[1].clone()));
                self.conditional(e.at, &body[0], &out);
                out
            }
            Macro::Filter => {
                let out = Type::List(Box::new(var));
                self.conditional(e.at, &body[0], &out);
                out
            }
            Macro::TransformMap => Type::Map(Box::new(key_of(&range)), Box::new(body[0].clone())),
            Macro::TransformMapFilter => {
                let out = Type::Map(Box::new(key_of(&range)), Box::new(body[1].clone()));
                self.conditional(e.at, &body[0], &out);
                out
            }
            Macro::TransformMapEntry | Macro::TransformMapEntryFilter => {
                let entry = body.last().cloned().unwrap_or(Type::Dyn);
                if kind == Macro::TransformMapEntryFilter {
                    self.conditional(e.at, &body[0], &Type::Dyn);
                }
                match entry {
                    Type::Map(..) => entry,
                    Type::Dyn | Type::Error => Type::Map(Box::new(Type::Dyn), Box::new(Type::Dyn)),
                    other => self.error(
                        e.at,
                        format!("found no matching overload for 'cel.@mapInsert' applied to '(map(dyn, dyn), {other})'"),
                    ),
                }
            }
        }
    }

    /// The `_?_:_` of a macro's step: its condition must be a `bool`.
    fn conditional(&mut self, at: usize, condition: &Type, branches: &Type) {
        if !self.assignable(condition, &Type::Bool) {
            let condition = substitute(&self.mapping, condition, true);
            let b = substitute(&self.mapping, branches, true);
            self.error(
                at,
                format!(
                    "found no matching overload for '_?_:_' applied to '({condition}, {b}, {b})'"
                ),
            );
        }
    }

    /// `target.optMap(v, f)` / `target.optFlatMap(v, f)`.
    fn opt_map(&mut self, e: &Expr, flat: bool, target: &Expr, args: &[Expr]) -> Type {
        let t = self.check(target);
        let t = substitute(&self.mapping, &t, false);
        let inner = match unwrap_optional(&t) {
            Some(inner) => inner,
            None if matches!(t, Type::Dyn | Type::Error) => Type::Dyn,
            None => {
                return self.error(
                    e.at,
                    format!("found no matching overload for 'hasValue' applied to '{t}.()'"),
                );
            }
        };
        let ExprKind::Ident(name) = &args[0].kind else {
            return Type::Error;
        };
        self.scopes.push(HashMap::from([(name.clone(), inner)]));
        let body = self.check(&args[1]);
        self.scopes.pop();
        if !flat {
            return Type::Optional(Box::new(body));
        }
        match unwrap_optional(&body) {
            Some(inner) => Type::Optional(Box::new(inner)),
            None if matches!(body, Type::Dyn | Type::Error) => Type::Optional(Box::new(Type::Dyn)),
            None => self.error(
                e.at,
                format!("found no matching overload for '_?_:_' applied to '(bool, {body}, optional_type(dyn))'"),
            ),
        }
    }

    /// `target.sortBy(v, key)`: the list, sorted by the keys.
    fn sort_by(&mut self, e: &Expr, target: &Expr, args: &[Expr]) -> Type {
        let list = self.check(target);
        let list = substitute(&self.mapping, &list, false);
        let elem = match &list {
            Type::List(elem) => (**elem).clone(),
            Type::Dyn | Type::Error | Type::Param(_) => Type::Dyn,
            other => {
                return self.error(
                    e.at,
                    format!(
                        "expression of type '{other}' cannot be range of a comprehension (must be list, map, or dynamic)"
                    ),
                );
            }
        };
        let ExprKind::Ident(name) = &args[0].kind else {
            return Type::Error;
        };
        self.scopes.push(HashMap::from([(name.clone(), elem)]));
        let key = self.check(&args[1]);
        self.scopes.pop();
        let keys = Type::List(Box::new(key));
        self.resolve(e, "@sortByAssociatedKeys", Some(list), vec![keys])
    }
}

/// Where the `i`th operand of a binary call is.
fn operand_at(e: &Expr, i: usize) -> usize {
    match &e.kind {
        ExprKind::Call { args, .. } => args.get(i).map_or(e.at, |a| a.at),
        _ => e.at,
    }
}

fn key_of(range: &Type) -> Type {
    match range {
        Type::Map(k, _) => (**k).clone(),
        Type::List(_) => Type::Int,
        _ => Type::Dyn,
    }
}

fn unwrap_optional(t: &Type) -> Option<Type> {
    match t {
        Type::Optional(inner) => Some((**inner).clone()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn schema() -> Type {
        let s = json!({
            "type": "object",
            "properties": {
                "replicas": {"type": "integer"},
                "name": {"type": "string", "maxLength": 10},
                "items": {"type": "array", "items": {"type": "string"}},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "ttl": {"type": "string", "format": "duration"},
                "port": {"x-kubernetes-int-or-string": true},
                "nested": {"type": "object", "properties": {"on": {"type": "boolean"}}},
            }
        });
        Type::of_schema(&s, "selfType", false).unwrap()
    }

    fn verdict(rule: &str) -> Result<(), String> {
        check_rule(rule, &schema(), false, Purpose::Rule, |_| true)
            .map(|_| ())
            .map_err(|e| e.message().to_string())
    }

    #[test]
    fn rules_type_check_against_the_schema() {
        for ok in [
            "self.replicas > 0",
            "self.name.size() <= 10 && self.name.startsWith('a')",
            "self.items.all(i, i.size() < 5)",
            "self.labels.exists(k, k == 'app')",
            "self.labels['app'] == 'x'",
            "self.ttl < duration('1h')",
            "has(self.nested.on) ? self.nested.on : true",
            "self.items.map(i, i.size()).all(n, n > 0)",
            "self.?name.orValue('') != ''",
            "self.port == 80 || self.port == 'http'",
            "self == oldSelf",
            "sets.contains(self.items, ['a'])",
            "self.items.filter(i, i != '').size() >= 0",
            "[1, 2].size() == 2",
            "quantity('1Gi').isGreaterThan(quantity('1Mi'))",
            "self.labels.all(k, v, k != v)",
        ] {
            assert_eq!(verdict(ok), Ok(()), "{ok}");
        }
    }

    #[test]
    fn type_errors_say_what_the_apiserver_says() {
        for (bad, says) in [
            ("self.replica > 0", "undefined field 'replica'"),
            (
                "self.name + 1 == 2",
                "found no matching overload for '_+_' applied to '(string, int)'",
            ),
            ("self.items", "cel expression must evaluate to a bool"),
            (
                "self.replicas.x",
                "type 'int' does not support field selection",
            ),
            (
                "self.items.all(i, i)",
                "expected type 'bool' but found 'string'",
            ),
            (
                "self.replicas.all(i, true)",
                "expression of type 'int' cannot be range of a comprehension (must be list, map, or dynamic)",
            ),
            ("nope", "undeclared reference to 'nope' (in container '')"),
            (
                "[1, 'a'].size() == 2",
                "expected type 'int' but found 'string'",
            ),
            (
                "self.name.contains(1)",
                "found no matching overload for 'contains' applied to 'string.(int)'",
            ),
            (
                "self.replicas && true",
                "expected type 'bool' but found 'int'",
            ),
        ] {
            assert_eq!(verdict(bad), Err(says.to_string()), "{bad}");
        }
    }

    #[test]
    fn an_undefined_field_suggests_the_declared_one() {
        let e = check_rule("self.replica > 0", &schema(), false, Purpose::Rule, |_| {
            true
        })
        .unwrap_err();
        let RuleError::Type(t) = e else {
            panic!("{e:?}")
        };
        assert_eq!(t.did_you_mean.as_deref(), Some("replicas"));
        assert_eq!(t.offset, 4, "at the '.'");
    }

    /// The strings library checks a literal format string against its
    /// arguments, which may mix types.
    #[test]
    fn format_strings_are_checked_against_their_arguments() {
        let message = |m: &str| {
            check_rule(m, &schema(), false, Purpose::Message, |_| true)
                .map(|_| ())
                .map_err(|e| e.message().to_string())
        };
        assert_eq!(
            message("'%s has %d'.format([self.name, self.replicas])"),
            Ok(())
        );
        assert_eq!(message("'%.2f%%'.format([1.5])"), Ok(()));
        assert_eq!(
            message("'%d items'.format([self.name])"),
            Err("error during formatting: decimal clause can only be used on integers, was given string".into())
        );
        assert_eq!(
            message("'%s'.format([self.name, 1])"),
            Err("too many arguments supplied to string.format (expected 1, got 2)".into())
        );
        assert_eq!(
            message("'%v'.format([1])"),
            Err("could not parse formatting clause: unrecognized formatting clause \"v\"".into())
        );
        assert_eq!(
            message("'%s and %s'.format([1])"),
            Err("index 1 out of range".into())
        );
        assert_eq!(
            message("'%.99999999999999999999f'.format([1.5])"),
            Err("could not parse formatting clause: error while parsing precision: error while converting precision to integer: strconv.Atoi: parsing \"99999999999999999999\": value out of range".into())
        );
    }

    #[test]
    fn message_expressions_must_be_strings() {
        assert_eq!(
            check_rule(
                "'too many: ' + string(self.replicas)",
                &schema(),
                false,
                Purpose::Message,
                |_| true
            )
            .map(|c| c.result),
            Ok(Type::String)
        );
        let e = check_rule("self.replicas", &schema(), false, Purpose::Message, |_| {
            true
        })
        .unwrap_err();
        assert_eq!(e.message(), "messageExpression must evaluate to a string");
    }
}
