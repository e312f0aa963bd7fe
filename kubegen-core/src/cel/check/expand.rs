//! The checked tree of an expression that checked: each macro replaced by
//! the comprehension cel-go's parser expands it to (the standard macros,
//! the two-variable ones, `optMap`/`optFlatMap`, lists' `sortBy`), a
//! qualified name that names a type or a function resolved as cel-go's
//! checker resolves it, every node typed and every call carrying the
//! overloads it resolved to.

use super::unify::substitute;
use super::{Checker, key_of};
use crate::cel::ast::{Expr, ExprKind, Literal};
use crate::cel::checked::{Comprehension, Node, NodeKind};
use crate::cel::functions::{overloads, type_ident};
use crate::cel::types::Type;

/// The accumulator cel-go's macros fold into.
const ACCU: &str = "@result";

impl Checker {
    /// The checked tree of `e`.
    pub(super) fn expand(&mut self, e: &Expr) -> Node {
        let ty = self.final_type(e);
        match &e.kind {
            ExprKind::Literal(l) => self.node(ty, NodeKind::Literal(l.clone())),
            ExprKind::Ident(name) => self.node(ty, NodeKind::Ident(name.clone())),
            ExprKind::Select { operand, field } => {
                if let Some(q) = Self::qualified(e)
                    && type_ident(&q).is_some()
                {
                    return self.node(ty, NodeKind::Ident(q));
                }
                let operand = Box::new(self.expand(operand));
                self.node(
                    ty,
                    NodeKind::Select {
                        operand,
                        field: field.clone(),
                        test_only: false,
                    },
                )
            }
            ExprKind::Call {
                function,
                target,
                args,
                is_macro: true,
            } => self.expand_macro(e, ty, function, target.as_deref(), args),
            ExprKind::Call {
                function,
                target,
                args,
                is_macro: false,
            } => {
                let args: Vec<Node> = args.iter().map(|a| self.expand(a)).collect();
                if function == "_?._" {
                    return self.synth(ty, function, None, args, &["select_optional_field"]);
                }
                let (function, target) = match target.as_deref() {
                    Some(t)
                        if Self::qualified(t)
                            .is_some_and(|q| overloads(&format!("{q}.{function}")).is_some()) =>
                    {
                        let q = Self::qualified(t).unwrap_or_default();
                        (format!("{q}.{function}"), None)
                    }
                    Some(t) => (function.clone(), Some(Box::new(self.expand(t)))),
                    None => (function.clone(), None),
                };
                let overloads = self
                    .overloads
                    .get(&(std::ptr::from_ref(e) as usize))
                    .cloned()
                    .unwrap_or_default();
                self.node(
                    ty,
                    NodeKind::Call {
                        function,
                        target,
                        args,
                        overloads,
                    },
                )
            }
            ExprKind::List(elements) => {
                let items = elements.iter().map(|el| self.expand(&el.value)).collect();
                self.node(ty, NodeKind::List(items))
            }
            ExprKind::Map(entries) => {
                let entries = entries
                    .iter()
                    .map(|en| (self.expand(&en.key), self.expand(&en.value)))
                    .collect();
                self.node(ty, NodeKind::Map(entries))
            }
            // A message literal never checks in the apiserver's environment.
            ExprKind::Struct { .. } => self.node(ty, NodeKind::List(Vec::new())),
        }
    }

    fn node(&mut self, ty: Type, kind: NodeKind) -> Node {
        self.next_id += 1;
        Node {
            id: self.next_id,
            ty,
            kind,
        }
    }

    fn ident(&mut self, name: &str, ty: &Type) -> Node {
        self.node(ty.clone(), NodeKind::Ident(name.to_string()))
    }

    fn literal(&mut self, l: Literal) -> Node {
        let ty = match l {
            Literal::Bool(_) => Type::Bool,
            Literal::Int(_) => Type::Int,
            _ => Type::Dyn,
        };
        self.node(ty, NodeKind::Literal(l))
    }

    /// A call the expansion adds, with the overloads cel-go resolves it to.
    fn synth(
        &mut self,
        ty: Type,
        function: &str,
        target: Option<Node>,
        args: Vec<Node>,
        ids: &[&str],
    ) -> Node {
        self.node(
            ty,
            NodeKind::Call {
                function: function.to_string(),
                target: target.map(Box::new),
                args,
                overloads: ids.iter().map(|s| s.to_string()).collect(),
            },
        )
    }

    #[allow(clippy::too_many_arguments)]
    fn fold(
        &mut self,
        ty: Type,
        iter_range: Node,
        vars: (&str, Option<&str>),
        accu: (&str, Node),
        loop_condition: Node,
        loop_step: Node,
        result: Node,
    ) -> Node {
        self.node(
            ty,
            NodeKind::Comprehension(Box::new(Comprehension {
                iter_range,
                iter_var: vars.0.to_string(),
                iter_var2: vars.1.map(str::to_string),
                accu_var: accu.0.to_string(),
                accu_init: accu.1,
                loop_condition,
                loop_step,
                result,
            })),
        )
    }

    /// `cel.bind(name, init, result)` as the optional and lists libraries
    /// write it: a fold over an empty list.
    fn bind(&mut self, ty: Type, name: &str, init: Node, result: Node) -> Node {
        let empty = self.node(Type::List(Box::new(Type::Dyn)), NodeKind::List(Vec::new()));
        let never = self.literal(Literal::Bool(false));
        let step = self.ident(name, &init.ty);
        self.fold(
            ty,
            empty,
            ("#unused", None),
            (name, init),
            never,
            step,
            result,
        )
    }

    fn expand_macro(
        &mut self,
        e: &Expr,
        ty: Type,
        function: &str,
        target: Option<&Expr>,
        args: &[Expr],
    ) -> Node {
        let Some(target) = target else {
            // has(operand.field)
            let (operand, field) = match &args[0].kind {
                ExprKind::Select { operand, field } => (operand, field.clone()),
                _ => return self.literal(Literal::Bool(false)),
            };
            let operand = Box::new(self.expand(operand));
            return self.node(
                Type::Bool,
                NodeKind::Select {
                    operand,
                    field,
                    test_only: true,
                },
            );
        };
        match function {
            "optMap" | "optFlatMap" => return self.expand_opt_map(ty, function, target, args),
            "sortBy" => return self.expand_sort_by(e, ty, target, args),
            _ => {}
        }
        let name = |a: &Expr| match &a.kind {
            ExprKind::Ident(n) => n.clone(),
            _ => String::new(),
        };
        let two_vars = matches!(
            function,
            "transformList" | "transformMap" | "transformMapEntry"
        ) || (matches!(function, "all" | "exists" | "exists_one" | "existsOne")
            && args.len() == 3);
        let var = name(&args[0]);
        let var2 = two_vars.then(|| name(&args[1]));
        let body = &args[if two_vars { 2 } else { 1 }..];
        let range = self.expand(target);
        let range_type = range.ty.clone();
        let vars = (var.as_str(), var2.as_deref());
        match function {
            "all" | "exists" => {
                let all = function == "all";
                let init = self.literal(Literal::Bool(all));
                let accu = self.ident(ACCU, &Type::Bool);
                let accu = if all {
                    accu
                } else {
                    self.synth(Type::Bool, "!_", None, vec![accu], &["logical_not"])
                };
                let condition = self.synth(
                    Type::Bool,
                    "@not_strictly_false",
                    None,
                    vec![accu],
                    &["not_strictly_false"],
                );
                let accu = self.ident(ACCU, &Type::Bool);
                let p = self.expand(&body[0]);
                let (op, id) = if all {
                    ("_&&_", "logical_and")
                } else {
                    ("_||_", "logical_or")
                };
                let step = self.synth(Type::Bool, op, None, vec![accu, p], &[id]);
                let result = self.ident(ACCU, &Type::Bool);
                self.fold(
                    Type::Bool,
                    range,
                    vars,
                    (ACCU, init),
                    condition,
                    step,
                    result,
                )
            }
            "exists_one" | "existsOne" => {
                let init = self.literal(Literal::Int(0));
                let condition = self.literal(Literal::Bool(true));
                let p = self.expand(&body[0]);
                let accu = self.ident(ACCU, &Type::Int);
                let one = self.literal(Literal::Int(1));
                let plus = self.synth(Type::Int, "_+_", None, vec![accu, one], &["add_int64"]);
                let accu = self.ident(ACCU, &Type::Int);
                let step = self.synth(
                    Type::Int,
                    "_?_:_",
                    None,
                    vec![p, plus, accu],
                    &["conditional"],
                );
                let accu = self.ident(ACCU, &Type::Int);
                let one = self.literal(Literal::Int(1));
                let result = self.synth(Type::Bool, "_==_", None, vec![accu, one], &["equals"]);
                self.fold(
                    Type::Bool,
                    range,
                    vars,
                    (ACCU, init),
                    condition,
                    step,
                    result,
                )
            }
            _ => {
                // map, filter, transformList, transformMap, transformMapEntry.
                let filter = match function {
                    "filter" => Some(&body[0]),
                    _ if body.len() == 2 => Some(&body[0]),
                    _ => None,
                };
                let init_kind = match ty {
                    Type::Map(..) => NodeKind::Map(Vec::new()),
                    _ => NodeKind::List(Vec::new()),
                };
                let init = self.node(ty.clone(), init_kind);
                let condition = self.literal(Literal::Bool(true));
                let filter = filter.map(|f| self.expand(f));
                let accu = self.ident(ACCU, &ty);
                let mut step = match function {
                    "transformMap" => {
                        let key = self.ident(&var, &key_of(&range_type));
                        let t = self.expand(body.last().unwrap_or(&body[0]));
                        self.synth(
                            ty.clone(),
                            "cel.@mapInsert",
                            None,
                            vec![accu, key, t],
                            &["@mapInsert_map_key_value"],
                        )
                    }
                    "transformMapEntry" => {
                        let t = self.expand(body.last().unwrap_or(&body[0]));
                        self.synth(
                            ty.clone(),
                            "cel.@mapInsert",
                            None,
                            vec![accu, t],
                            &["@mapInsert_map_map"],
                        )
                    }
                    _ => {
                        let element = if function == "filter" {
                            let elem = match &range_type {
                                Type::List(t) => (**t).clone(),
                                other => key_of(other),
                            };
                            self.ident(&var, &elem)
                        } else {
                            self.expand(body.last().unwrap_or(&body[0]))
                        };
                        let single = self.node(ty.clone(), NodeKind::List(vec![element]));
                        self.synth(ty.clone(), "_+_", None, vec![accu, single], &["add_list"])
                    }
                };
                if let Some(filter) = filter {
                    let accu = self.ident(ACCU, &ty);
                    step = self.synth(
                        ty.clone(),
                        "_?_:_",
                        None,
                        vec![filter, step, accu],
                        &["conditional"],
                    );
                }
                let result = self.ident(ACCU, &ty);
                self.fold(ty, range, vars, (ACCU, init), condition, step, result)
            }
        }
    }

    /// `target.optMap(v, f)`: `target.hasValue() ? optional.of(bind(v,
    /// target.value(), f)) : optional.none()`; `optFlatMap` without the
    /// `optional.of`.
    fn expand_opt_map(&mut self, ty: Type, function: &str, target: &Expr, args: &[Expr]) -> Node {
        let ExprKind::Ident(var) = &args[0].kind else {
            return self.literal(Literal::Null);
        };
        let has = self.expand(target);
        let inner = match &has.ty {
            Type::Optional(t) => (**t).clone(),
            _ => Type::Dyn,
        };
        let has = self.synth(
            Type::Bool,
            "hasValue",
            Some(has),
            Vec::new(),
            &["optional_hasValue"],
        );
        let value = self.expand(target);
        let value = self.synth(inner, "value", Some(value), Vec::new(), &["optional_value"]);
        let f = self.expand(&args[1]);
        let mapped_type = f.ty.clone();
        let mut mapped = self.bind(mapped_type.clone(), var, value, f);
        if function == "optMap" {
            mapped = self.synth(
                Type::Optional(Box::new(mapped_type)),
                "optional.of",
                None,
                vec![mapped],
                &["optional_of"],
            );
        }
        let none = self.synth(
            Type::Optional(Box::new(Type::Dyn)),
            "optional.none",
            None,
            Vec::new(),
            &["optional_none"],
        );
        self.synth(ty, "_?_:_", None, vec![has, mapped, none], &["conditional"])
    }

    /// `target.sortBy(v, key)`: `bind(@__sortBy_input__, target,
    /// @__sortBy_input__.@sortByAssociatedKeys(@__sortBy_input__.map(v,
    /// key)))`.
    fn expand_sort_by(&mut self, e: &Expr, ty: Type, target: &Expr, args: &[Expr]) -> Node {
        const INPUT: &str = "@__sortBy_input__";
        let ExprKind::Ident(var) = &args[0].kind else {
            return self.literal(Literal::Null);
        };
        let list = self.expand(target);
        let list_type = list.ty.clone();
        let key = self.expand(&args[1]);
        let keys = Type::List(Box::new(key.ty.clone()));
        let range = self.ident(INPUT, &list_type);
        let init = self.node(keys.clone(), NodeKind::List(Vec::new()));
        let condition = self.literal(Literal::Bool(true));
        let accu = self.ident(ACCU, &keys);
        let single = self.node(keys.clone(), NodeKind::List(vec![key]));
        let step = self.synth(keys.clone(), "_+_", None, vec![accu, single], &["add_list"]);
        let result = self.ident(ACCU, &keys);
        let mapped = self.fold(
            keys,
            range,
            (var, None),
            (ACCU, init),
            condition,
            step,
            result,
        );
        let input = self.ident(INPUT, &list_type);
        let ids = self
            .overloads
            .get(&(std::ptr::from_ref(e) as usize))
            .cloned()
            .unwrap_or_default();
        let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
        let sorted = self.synth(
            ty.clone(),
            "@sortByAssociatedKeys",
            Some(input),
            vec![mapped],
            &ids,
        );
        self.bind(ty, INPUT, list, sorted)
    }
}

impl Checker {
    /// The type the checker gave `e`, type parameters left free as `dyn`.
    pub(super) fn final_type(&self, e: &Expr) -> Type {
        let t = self
            .types
            .get(&(std::ptr::from_ref(e) as usize))
            .cloned()
            .unwrap_or(Type::Dyn);
        substitute(&self.mapping, &t, true)
    }
}
