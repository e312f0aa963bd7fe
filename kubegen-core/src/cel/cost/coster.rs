//! cel-go's `checker.Cost` walk (checker/cost.go), node for node: the
//! cost of each kind of expression, the sizes it derives for literals,
//! concatenations and comprehension results, the field paths by which it
//! asks the schema for a value's size, and its built-in estimates of the
//! standard library's functions.

use std::collections::HashMap;

use super::library;
use super::slice::Path;
use super::{AstNode, Cost, Estimate, SizeEstimator};
use crate::cel::ast::Literal;
use crate::cel::checked::{Comprehension, Node, NodeKind};
use crate::cel::sizes::Sizes;
use crate::cel::types::Type;

const STRING_TRAVERSAL: f64 = 0.1;
const REGEX_STRING_LENGTH: f64 = 0.25;
const SELECT_AND_IDENT: Estimate = Estimate::fixed(1);
const LIST_CREATE: Estimate = Estimate::fixed(10);
const MAP_CREATE: Estimate = Estimate::fixed(30);

/// The container kind and the key and value sizes of a list or map.
#[derive(Clone, Copy, Debug)]
struct EntrySize {
    list: bool,
    key: Estimate,
    val: Estimate,
}

impl EntrySize {
    fn union(a: Option<EntrySize>, b: Option<EntrySize>) -> Option<EntrySize> {
        let (a, b) = (a?, b?);
        Some(EntrySize {
            list: a.list,
            key: a.key.union(b.key),
            val: a.val.union(b.val),
        })
    }
}

#[derive(Clone)]
struct LocalVar {
    path: Path,
    size: Option<Estimate>,
    entry: Option<EntrySize>,
}

pub(super) struct Coster<'s> {
    sizes: &'s Sizes,
    paths: HashMap<u32, Path>,
    locals: HashMap<String, Vec<LocalVar>>,
    computed: HashMap<u32, Estimate>,
    entries: HashMap<u32, EntrySize>,
    unbounded: Vec<(String, &'static str)>,
    undecidable: bool,
}

impl<'s> Coster<'s> {
    pub fn new(sizes: &'s Sizes) -> Coster<'s> {
        Coster {
            sizes,
            paths: HashMap::new(),
            locals: HashMap::new(),
            computed: HashMap::new(),
            entries: HashMap::new(),
            unbounded: Vec::new(),
            undecidable: false,
        }
    }

    pub fn run(mut self, tree: &Node) -> Cost {
        let estimate = self.cost(tree);
        crate::sorting::sort(&mut self.unbounded);
        self.unbounded.dedup();
        Cost {
            estimate,
            unbounded: self.unbounded,
            undecidable: self.undecidable,
        }
    }
}

impl SizeEstimator for Coster<'_> {
    /// The schema's size for the value at `node.path` (the apiserver's
    /// `sizeEstimator`): the variable's own node, then fields, `@items`,
    /// `@values`, `@keys`.
    fn estimate_size(&mut self, node: &AstNode<'_>) -> Option<Estimate> {
        if node.path.len() == 0 {
            return None;
        }
        let steps = node.path.elements();
        let found = self.sizes.at(&steps[1..])?;
        if found.unknown {
            self.undecidable = true;
        }
        if found.bounded_by.is_none() && found.max_elements > 0 {
            let keyword = match found.kind {
                "array" => "maxItems",
                "map" => "maxProperties",
                _ => "maxLength",
            };
            // A list's items are bounded by the list's `items(...)`.
            let keyword = match (steps.last().map(String::as_str), keyword) {
                (Some("@items"), "maxItems") => "items.maxItems",
                (Some("@items"), "maxProperties") => "items.maxProperties",
                (Some("@items"), _) => "items.maxLength",
                _ => keyword,
            };
            self.unbounded.push((schema_path(&steps[1..]), keyword));
        }
        Some(Estimate {
            min: 0,
            max: found.max_elements as u64,
        })
    }
}

impl Coster<'_> {
    fn cost(&mut self, e: &Node) -> Estimate {
        match &e.kind {
            NodeKind::Literal(_) => Estimate::fixed(0),
            NodeKind::Ident(name) => {
                let path = match self.peek(name) {
                    Some(v) => v.path.clone(),
                    None => Path::one(name),
                };
                self.paths.insert(e.id, path);
                SELECT_AND_IDENT
            }
            NodeKind::Select {
                operand,
                field,
                test_only,
            } => {
                if *test_only {
                    // The apiserver's environment: a presence test is free.
                    return self.cost(operand);
                }
                let mut sum = self.cost(operand);
                if matches!(operand.ty, Type::Map(..) | Type::Param(_)) || is_struct(&operand.ty) {
                    sum = sum.plus(SELECT_AND_IDENT);
                }
                let path = self.path(operand).append(field);
                self.paths.insert(e.id, path);
                sum
            }
            NodeKind::Call { .. } => self.cost_call(e),
            NodeKind::List(items) => {
                let mut sum = Estimate::default();
                let mut item = Estimate {
                    min: if items.is_empty() { 0 } else { u64::MAX },
                    max: 0,
                };
                for i in items {
                    sum = sum.plus(self.cost(i));
                    item = item.union(self.size_or_unknown(i));
                }
                self.entries.insert(
                    e.id,
                    EntrySize {
                        list: true,
                        key: Estimate::fixed(1),
                        val: item,
                    },
                );
                sum.plus(LIST_CREATE)
            }
            NodeKind::Map(entries) => {
                let mut sum = Estimate::default();
                let empty = if entries.is_empty() { 0 } else { u64::MAX };
                let mut key = Estimate { min: empty, max: 0 };
                let mut val = Estimate { min: empty, max: 0 };
                for (k, v) in entries {
                    sum = sum.plus(self.cost(k));
                    sum = sum.plus(self.cost(v));
                    key = key.union(self.size_or_unknown(k));
                    val = val.union(self.size_or_unknown(v));
                }
                self.entries.insert(
                    e.id,
                    EntrySize {
                        list: false,
                        key,
                        val,
                    },
                );
                sum.plus(MAP_CREATE)
            }
            NodeKind::Comprehension(c) => {
                if is_bind(c) {
                    self.cost_bind(e, c)
                } else {
                    self.cost_comprehension(e, c)
                }
            }
        }
    }

    fn cost_comprehension(&mut self, e: &Node, c: &Comprehension) -> Estimate {
        let mut sum = self.cost(&c.iter_range);
        sum = sum.plus(self.cost(&c.accu_init));
        self.push_local(&c.accu_var, &c.accu_init);
        match &c.iter_var2 {
            Some(v2) => {
                self.push_iter(&c.iter_var, &c.iter_range, Iter::Key);
                self.push_iter(v2, &c.iter_range, Iter::Value);
            }
            None => self.push_iter(&c.iter_var, &c.iter_range, Iter::Single),
        }
        let loop_cost = self.cost(&c.loop_condition);
        let step_cost = self.cost(&c.loop_step);
        self.pop(&c.iter_var);
        if let Some(v2) = &c.iter_var2 {
            self.pop(v2);
        }
        sum = sum.plus(self.cost(&c.result));
        self.pop(&c.accu_var);
        let range = self.size_or_unknown(&c.iter_range);
        sum = sum.plus(range.times(step_cost.plus(loop_cost)));
        match &c.accu_init.kind {
            NodeKind::Literal(_) => {
                if let Some(s) = self.compute_size(&c.accu_init) {
                    self.computed.insert(e.id, s);
                }
            }
            NodeKind::List(_) | NodeKind::Map(_) => {
                self.computed.insert(e.id, range);
                if let Some(entry) = self.entry_size(&c.loop_step) {
                    self.entries.insert(e.id, entry);
                }
            }
            _ => {}
        }
        sum
    }

    fn cost_bind(&mut self, e: &Node, c: &Comprehension) -> Estimate {
        let mut sum = self.cost(&c.iter_range);
        sum = sum.plus(self.cost(&c.accu_init));
        self.push_local(&c.accu_var, &c.accu_init);
        sum = sum.plus(self.cost(&c.result));
        self.pop(&c.accu_var);
        if let Some(s) = self.compute_size(&c.result) {
            self.computed.insert(e.id, s);
        }
        if let Some(entry) = self.entry_size(&c.result) {
            self.entries.insert(e.id, entry);
        }
        sum
    }

    fn cost_call(&mut self, e: &Node) -> Estimate {
        let NodeKind::Call {
            function,
            target,
            args,
            overloads,
        } = &e.kind
        else {
            return Estimate::default();
        };
        if function == "dyn" && args.len() == 1 {
            let arg = self.cost(&args[0]);
            if let Some(s) = self.compute_size(&args[0]) {
                self.computed.insert(e.id, s);
            }
            if let Some(entry) = self.entry_size(&args[0]) {
                self.entries.insert(e.id, entry);
            }
            return Estimate::fixed(1).plus(arg);
        }
        let mut arg_costs = Vec::with_capacity(args.len());
        let mut arg_nodes = Vec::with_capacity(args.len());
        for a in args {
            arg_costs.push(self.cost(a));
            arg_nodes.push(self.ast_node(a));
        }
        if overloads.is_empty() {
            return Estimate::default();
        }
        let mut sum = Estimate::default();
        let target_node = match target {
            Some(t) => {
                sum = sum.plus(self.cost(t));
                Some(self.ast_node(t))
            }
            None => None,
        };
        let mut fn_cost = Estimate {
            min: u64::MAX,
            max: 0,
        };
        let mut result_size: Option<Estimate> = None;
        for overload in overloads {
            let (cost, size) = self.function_cost(
                e,
                function,
                overload,
                target_node.as_ref(),
                &arg_nodes,
                &arg_costs,
            );
            fn_cost = fn_cost.union(cost);
            if let Some(s) = size {
                result_size = Some(match result_size {
                    None => s,
                    Some(r) => r.union(s),
                });
            }
            match overload.as_str() {
                "index_list" | "index_map" if !args.is_empty() => {
                    result_size = self.entry_size(&args[0]).map(|en| en.val);
                    let step = if overload == "index_list" {
                        "@items"
                    } else {
                        "@values"
                    };
                    let path = self.path(&args[0]).append(step);
                    self.paths.insert(e.id, path);
                }
                _ => {}
            }
            if result_size.is_none() {
                result_size = self.compute_size(e);
            }
        }
        if let Some(s) = result_size {
            self.computed.insert(e.id, s);
        }
        sum.plus(fn_cost)
    }

    /// cel-go's `functionCost`: an extension's estimator for the overload,
    /// else the Kubernetes libraries', else the standard library's.
    fn function_cost(
        &mut self,
        e: &Node,
        function: &str,
        overload: &str,
        target: Option<&AstNode<'_>>,
        args: &[AstNode<'_>],
        arg_costs: &[Estimate],
    ) -> (Estimate, Option<Estimate>) {
        let arg_sum = || {
            arg_costs
                .iter()
                .fold(Estimate::default(), |s, c| s.plus(*c))
        };
        if let Some((cost, size)) = library::extension(self, overload, target, args) {
            return (cost.plus(arg_sum()), size);
        }
        if let Some((cost, size)) = library::kubernetes(self, function, overload, target, args) {
            return (cost.plus(arg_sum()), size);
        }
        let size_of = |c: &Self, n: &AstNode<'_>| c.node_size_or_unknown(n);
        let traversal = |s: Estimate| s.factor(STRING_TRAVERSAL);
        match overload {
            "string_format" => {
                if let Some(t) = target {
                    return (traversal(size_of(self, t)).plus(arg_sum()), None);
                }
            }
            "string_to_bytes" if args.len() == 1 => {
                let sz = size_of(self, &args[0]);
                let result = Estimate {
                    min: sz.min,
                    max: sz.max.wrapping_mul(4),
                };
                return (traversal(sz).plus(arg_sum()), Some(result));
            }
            "bytes_to_string" if args.len() == 1 => {
                let sz = size_of(self, &args[0]);
                let result = Estimate {
                    min: sz.min / 4,
                    max: sz.max,
                };
                return (traversal(sz).plus(arg_sum()), Some(result));
            }
            "strings_quote" if args.len() == 1 => {
                let sz = size_of(self, &args[0]);
                let result = Estimate {
                    min: sz.min.wrapping_add(2),
                    max: sz.max.wrapping_mul(2).wrapping_add(2),
                };
                return (traversal(sz).plus(arg_sum()), Some(result));
            }
            "starts_with_string" | "ends_with_string" if args.len() == 1 => {
                return (traversal(size_of(self, &args[0])).plus(arg_sum()), None);
            }
            "in_list" if args.len() == 2 => {
                return (size_of(self, &args[1]).factor(1.0).plus(arg_sum()), None);
            }
            "matches_string" if args.len() == 1 => {
                if let Some(t) = target {
                    let s = traversal(size_of(self, t).plus(Estimate::fixed(1)));
                    let r = size_of(self, &args[0]).factor(REGEX_STRING_LENGTH);
                    return (s.times(r).plus(arg_sum()), None);
                }
            }
            "contains_string" if args.len() == 1 => {
                if let Some(t) = target {
                    let s = traversal(size_of(self, t));
                    let sub = traversal(size_of(self, &args[0]));
                    return (s.times(sub).plus(arg_sum()), None);
                }
            }
            "logical_or" | "logical_and" => {
                let (l, r) = (arg_costs[0], arg_costs[1]);
                return (
                    Estimate {
                        min: l.min,
                        max: l.plus(r).max,
                    },
                    None,
                );
            }
            "conditional" => {
                let size = size_of(self, &args[1]).union(size_of(self, &args[2]));
                let entry = EntrySize::union(
                    args[1].expr.and_then(|n| self.entry_size(n)),
                    args[2].expr.and_then(|n| self.entry_size(n)),
                );
                if let Some(entry) = entry {
                    self.entries.insert(e.id, entry);
                }
                let cost = arg_costs[0].plus(arg_costs[1].union(arg_costs[2]));
                return (cost, Some(size));
            }
            "add_string" | "add_bytes" | "add_list" if args.len() == 2 => {
                let result = size_of(self, &args[0]).plus(size_of(self, &args[1]));
                let entry = EntrySize::union(
                    args[0].expr.and_then(|n| self.entry_size(n)),
                    args[1].expr.and_then(|n| self.entry_size(n)),
                );
                if let Some(entry) = entry {
                    self.entries.insert(e.id, entry);
                }
                if overload == "add_list" {
                    return (Estimate::fixed(1).plus(arg_sum()), Some(result));
                }
                return (traversal(result).plus(arg_sum()), Some(result));
            }
            "less_string"
            | "greater_string"
            | "less_equals_string"
            | "greater_equals_string"
            | "less_bytes"
            | "greater_bytes"
            | "less_equals_bytes"
            | "greater_equals_bytes"
            | "equals"
            | "not_equals" => {
                let l = size_of(self, &args[0]);
                let r = size_of(self, &args[1]);
                let smallest = l.max.min(r.max);
                let min = u64::from(smallest > 0);
                let cost = traversal(Estimate { min, max: smallest });
                return (cost.plus(arg_sum()), None);
            }
            _ => {}
        }
        (Estimate::fixed(1).plus(arg_sum()), None)
    }

    fn path(&self, e: &Node) -> Path {
        if let NodeKind::Ident(name) = &e.kind
            && let Some(v) = self.peek(name)
        {
            return v.path.clone();
        }
        self.paths.get(&e.id).cloned().unwrap_or_default()
    }

    pub(super) fn ast_node<'n>(&mut self, e: &'n Node) -> AstNode<'n> {
        let mut path = self.path(e);
        if path
            .first()
            .is_some_and(|p| p == "__result__" || p == "@result")
        {
            path = Path::default();
        }
        let computed = self.compute_size(e);
        AstNode {
            path,
            ty: e.ty.clone(),
            expr: Some(e),
            computed,
        }
    }

    fn size_or_unknown(&mut self, e: &Node) -> Estimate {
        self.compute_size(e).unwrap_or_else(Estimate::unknown)
    }

    fn node_size_or_unknown(&self, n: &AstNode<'_>) -> Estimate {
        n.computed.unwrap_or_else(Estimate::unknown)
    }

    fn compute_size(&mut self, e: &Node) -> Option<Estimate> {
        if let Some(s) = self.computed.get(&e.id) {
            return Some(*s);
        }
        if let Some(s) = expr_size(e) {
            return Some(s);
        }
        let node = AstNode {
            path: self.path(e),
            ty: e.ty.clone(),
            expr: Some(e),
            computed: None,
        };
        if let Some(s) = self.estimate_size(&node) {
            self.computed.insert(e.id, s);
            return Some(s);
        }
        if is_scalar(&e.ty) {
            return Some(Estimate::fixed(1));
        }
        if let NodeKind::Ident(name) = &e.kind
            && let Some(v) = self.peek(name)
        {
            return v.size;
        }
        None
    }

    fn entry_size(&self, e: &Node) -> Option<EntrySize> {
        if let Some(s) = self.entries.get(&e.id) {
            return Some(*s);
        }
        if let NodeKind::Ident(name) = &e.kind
            && let Some(v) = self.peek(name)
        {
            return v.entry;
        }
        None
    }

    fn peek(&self, name: &str) -> Option<&LocalVar> {
        self.locals.get(name).and_then(|s| s.last())
    }

    fn pop(&mut self, name: &str) {
        if let Some(s) = self.locals.get_mut(name) {
            s.pop();
        }
    }

    fn push(&mut self, name: &str, var: LocalVar) {
        self.locals.entry(name.to_string()).or_default().push(var);
    }

    fn push_local(&mut self, name: &str, e: &Node) {
        let path = self.path(e);
        let entry = self.entry_size(e);
        let size = self.compute_size(e);
        self.push(name, LocalVar { path, size, entry });
    }

    fn push_iter(&mut self, name: &str, range: &Node, iter: Iter) {
        let entry = self.entry_size(range);
        let list = match entry {
            Some(en) => en.list,
            None => matches!(range.ty, Type::List(_)),
        };
        let (size, step) = match (iter, list) {
            (Iter::Key, true) => (entry.map(|en| en.key), "@indices"),
            (Iter::Key, false) => (entry.map(|en| en.key), "@keys"),
            (Iter::Value, true) => (entry.map(|en| en.val), "@items"),
            (Iter::Value, false) => (entry.map(|en| en.val), "@values"),
            (Iter::Single, true) => (entry.map(|en| en.val), "@items"),
            (Iter::Single, false) => (entry.map(|en| en.key), "@keys"),
        };
        let path = self.path(range).append(step);
        self.push(
            name,
            LocalVar {
                path,
                size,
                entry: None,
            },
        );
    }
}

#[derive(Clone, Copy)]
enum Iter {
    Key,
    Value,
    Single,
}

/// A fold over an empty list that never loops: `cel.bind` as the optional
/// and lists libraries write it.
fn is_bind(c: &Comprehension) -> bool {
    matches!(&c.iter_range.kind, NodeKind::List(items) if items.is_empty())
        && matches!(
            c.loop_condition.kind,
            NodeKind::Literal(Literal::Bool(false))
        )
        && c.accu_var != "__result__"
}

/// The size a literal shows: a string's characters, bytes' length, 1 for
/// other constants; a list or map literal's element count.
fn expr_size(e: &Node) -> Option<Estimate> {
    let n = match &e.kind {
        NodeKind::Literal(Literal::String(s)) => s.chars().count() as u64,
        NodeKind::Literal(Literal::Bytes(b)) => b.len() as u64,
        NodeKind::Literal(_) => 1,
        NodeKind::List(items) => items.len() as u64,
        NodeKind::Map(entries) => entries.len() as u64,
        _ => return None,
    };
    Some(Estimate::fixed(n))
}

/// Of a constant size at compile time.
pub(super) fn is_scalar(t: &Type) -> bool {
    match t {
        Type::Bool | Type::Double | Type::Duration | Type::Int | Type::Timestamp | Type::Uint => {
            true
        }
        Type::Optional(inner) => is_scalar(inner),
        _ => false,
    }
}

/// Of cel-go's struct kind: a schema's object, or a library type declared
/// as an object (`kubernetes.Quantity`, …) rather than opaque (`net.IP`).
fn is_struct(t: &Type) -> bool {
    match t {
        Type::Object(_) => true,
        Type::Opaque(name) => name.starts_with("kubernetes."),
        _ => false,
    }
}

/// `.a[*].b` for the estimator's path `a, @items, b`.
fn schema_path(steps: &[String]) -> String {
    let mut out = String::new();
    for s in steps {
        match s.as_str() {
            "@items" | "@values" | "@keys" => out.push_str("[*]"),
            field => {
                out.push('.');
                out.push_str(field);
            }
        }
    }
    out
}
