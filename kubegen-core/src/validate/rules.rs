//! `x-kubernetes-validations` rules evaluated on create as the apiserver
//! evaluates them (`Validator.Validate` in k8s.io/apiextensions-apiserver
//! `pkg/apiserver/schema/cel`): each non-null node's rules, then its
//! `allOf` entries' (typed by the node's schema; the apiserver refuses
//! them in a new CRD, but one that already had them keeps them), before
//! those of the nodes below it — none at all when every rule is under
//! `allOf`, where the apiserver builds no validator — `self` read through the node's schema, rules
//! reading `oldSelf` skipped unless `optionalOldSelf`, a failed rule
//! reported at its node (or its `fieldPath`) with the evaluated
//! `messageExpression`, its `message` or `failed rule: <rule>`, and the
//! `reason` it names; an evaluation error as `<error> evaluating rule:
//! <rule or message>`. Every evaluation's runtime cost is cel-go's
//! ([`evaluate_with_cost`]): one over the per-call limit, or over what is
//! left of the object's budget, ends validation with the apiserver's
//! error, word for word.
//!
//! A rule kubegen cannot evaluate exactly — one using what
//! [`cel::eval`](crate::cel::eval) does not implement yet — is listed as
//! not evaluated, never guessed. Later rules are still evaluated, as if the unevaluated one
//! had cost anything up to the per-call limit; where that leaves it open
//! whether the object's budget runs out, they are listed too.

use serde_json::{Value, json};

use super::correlate::{self, Correlated};
use super::field::{ErrorType, FieldError};
use crate::cel::check::{Purpose, check_rule};
use crate::cel::eval::value::{Val, with_type_and_object_meta};
use crate::cel::eval::{EvalError, Sets, evaluate_with_cost};
use crate::cel::types::Type;

/// The apiserver's runtime cost limit of one expression (`PerCallLimit`).
pub const PER_CALL_LIMIT: u64 = 1_000_000;

/// The apiserver's runtime cost budget of one object
/// (`RuntimeCELCostBudget`).
pub const PER_OBJECT_BUDGET: u64 = 10_000_000;

/// The longest message an evaluated `messageExpression` may give
/// (`MaxEvaluatedMessageExpressionSizeBytes`).
const MAX_MESSAGE_BYTES: usize = 5 * 1024;

/// What evaluating an object's rules found.
#[derive(Clone, Debug, Default)]
pub struct RulesOutcome {
    /// The failures and evaluation errors, as the apiserver words them.
    pub errors: Vec<FieldError>,
    /// Rules that apply but kubegen could not evaluate exactly.
    pub not_evaluated: Vec<Unevaluated>,
    /// How many rules were evaluated (transition rules, which do not run
    /// on create, counted as the apiserver skips them).
    pub evaluated: usize,
    /// The failed rules an update ratchets: they do not refuse it, the
    /// apiserver returns them as warnings.
    pub warnings: Vec<FieldError>,
    /// The runtime cost the rules charged to the object's budget, when
    /// kubegen finished every evaluation, the budget did not run out, and
    /// no macro stopped early over a map (whose entries the apiserver
    /// visits in Go's random order).
    pub cost: Option<u64>,
}

/// Whether `schema` has any rule outside `allOf` (`hasXValidations`: the
/// apiserver builds no rule validator otherwise, so rules only under
/// `allOf` never run).
pub fn has_rules(schema: &Value) -> bool {
    let Some(s) = schema.as_object() else {
        return false;
    };
    s.get("x-kubernetes-validations")
        .and_then(Value::as_array)
        .is_some_and(|r| !r.is_empty())
        || s.get("properties")
            .and_then(Value::as_object)
            .is_some_and(|p| p.values().any(has_rules))
        || s.get("items").is_some_and(has_rules)
        || s.get("additionalProperties").is_some_and(has_rules)
}

/// Evaluates every rule of `schema` (a CRD version's root schema) on
/// `object` as stored on create.
pub fn validate(schema: &Value, object: &Value) -> RulesOutcome {
    validate_update(schema, object, None)
}

/// Evaluates every rule of `schema` on `object` as stored by an update of
/// `old` (`None`: a create): transition rules run where a value has an
/// old one (a field both have, a `map` list's item of the same keys),
/// `oldSelf` bound to it, and a failed rule that does not read `oldSelf`
/// is ratcheted to a warning where the update left its value (or the
/// nearest value with an old one) unchanged.
pub fn validate_update(schema: &Value, object: &Value, old: Option<&Value>) -> RulesOutcome {
    if !has_rules(schema) {
        return RulesOutcome {
            cost: Some(0),
            ..RulesOutcome::default()
        };
    }
    let mut walk = Walk {
        out: RulesOutcome::default(),
        remaining: PER_OBJECT_BUDGET as i64,
        unsure: 0,
        state: Budget::Left,
        map_order: false,
    };
    let ratchet = Ratchet {
        current: old.map(|old| Correlated::root(object, old, schema)),
        parent: None,
    };
    walk.node(Here {
        rules: schema,
        schema,
        object,
        old,
        ratchet,
        at: "",
        path: &[],
        root: true,
    });
    if walk.unsure == 0 && walk.state == Budget::Left && !walk.map_order {
        walk.out.cost = u64::try_from(PER_OBJECT_BUDGET as i64 - walk.remaining).ok();
    }
    walk.out
}

/// The defaults that fail their own field's rules, as the apiserver finds
/// them when the CRD is created (`ValidateDefaults` runs each field's rules
/// on its default): the field's schema path (`.spec.size`), the field's
/// schema, and each error.
pub fn failing_defaults(schema: &Value) -> Vec<(String, Value, FieldError)> {
    let mut out = Vec::new();
    defaults_below(schema, "", &mut out);
    out
}

fn defaults_below(node: &Value, path: &str, out: &mut Vec<(String, Value, FieldError)>) {
    if let Some(default) = node.get("default")
        && has_rules(node)
    {
        for e in validate(node, default).errors {
            out.push((path.to_string(), node.clone(), e));
        }
    }
    if let Some(props) = node.get("properties").and_then(Value::as_object) {
        for (k, sub) in props {
            defaults_below(sub, &format!("{path}.{k}"), out);
        }
    }
    for key in ["items", "additionalProperties"] {
        if let Some(sub) = node.get(key).filter(|v| v.is_object()) {
            defaults_below(sub, &format!("{path}[*]"), out);
        }
    }
}

struct Walk {
    out: RulesOutcome,
    /// The object's budget left (`remainingBudget`), less the runtime
    /// cost of every evaluation so far…
    remaining: i64,
    /// …and less at most this much more, which the evaluations kubegen
    /// could not finish may have cost.
    unsure: i64,
    state: Budget,
    /// An evaluation's cost depended on the order of a map's entries.
    map_order: bool,
}

/// A node of the object being walked: the schema its rules come from
/// (its own, or an `allOf` entry's — the apiserver's `validationSchema`),
/// its own schema (`nodeSchema`, which types `self`), value and old value
/// (on update), its old-value pairing, its schema path (`.spec.items[*]`)
/// and field path, and whether it is a resource root (the object's, or an
/// embedded resource's).
#[derive(Clone, Copy)]
struct Here<'a> {
    rules: &'a Value,
    schema: &'a Value,
    object: &'a Value,
    old: Option<&'a Value>,
    ratchet: Ratchet<'a>,
    at: &'a str,
    path: &'a [String],
    root: bool,
}

/// A node's values for its rules: `self`, `oldSelf` if it has an old
/// value, and whether its failures are ratcheted.
#[derive(Clone, Copy)]
struct Vals<'v> {
    value: &'v Val,
    old: Option<&'v Val>,
    /// The old value's JSON.
    old_json: Option<&'v Value>,
    ratcheted: bool,
}

/// The apiserver's `ratchetingOptions`: the node's old value pairing (if
/// it has one) and the nearest ancestor's that has one.
#[derive(Clone, Copy)]
struct Ratchet<'a> {
    current: Option<Correlated<'a>>,
    parent: Option<Correlated<'a>>,
}

impl<'a> Ratchet<'a> {
    /// The field `field`'s (none for `apiVersion` and `kind` of the root).
    fn key(self, field: &str) -> Ratchet<'a> {
        let Some(current) = self.current else {
            return self;
        };
        if self.parent.is_none() && matches!(field, "apiVersion" | "kind") {
            return Ratchet {
                current: None,
                parent: None,
            };
        }
        Ratchet {
            current: current.key(field),
            parent: Some(current),
        }
    }

    /// Item `i`'s.
    fn index(self, i: usize) -> Ratchet<'a> {
        let Some(current) = self.current else {
            return self;
        };
        Ratchet {
            current: current.index(i),
            parent: Some(current),
        }
    }

    /// `shouldRatchetError`: the node's value, or (without an old one)
    /// the nearest ancestor's, is unchanged.
    fn ratchets(self) -> bool {
        self.current
            .or(self.parent)
            .is_some_and(Correlated::unchanged)
    }
}

/// A rule's errors, or why kubegen cannot evaluate it exactly.
type Verdict = Result<Vec<FieldError>, String>;

/// Why a rule is left unevaluated when its cost decides whether the
/// budget lasts.
fn undecided() -> String {
    "whether the object's cost budget lasts depends on a rule kubegen did not evaluate".into()
}

/// A rule kubegen left unevaluated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unevaluated {
    /// Its schema path (`.spec.items[*]`).
    pub at: String,
    /// The rule.
    pub rule: String,
    /// Why (`it uses the function isURL`, …).
    pub why: String,
}

/// Whether rules still run.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Budget {
    /// Within the budget.
    Left,
    /// Out of budget, or over a per-call limit: no further rule runs.
    Spent,
    /// Unknown (an unevaluated rule's cost decides it): later rules are
    /// listed as not evaluated.
    Undecided,
}

/// The apiserver's words when an object's budget runs out.
const OUT_OF_BUDGET: &str =
    "validation failed due to running out of cost budget, no further validation rules will be run";

/// A Go `field.Path` as it prints: `<nil>` for the root.
fn render(path: &[String]) -> String {
    if path.is_empty() {
        return "<nil>".into();
    }
    let mut s = String::new();
    for p in path {
        if p.starts_with('[') || s.is_empty() {
            s.push_str(p);
        } else {
            s.push('.');
            s.push_str(p);
        }
    }
    s
}

impl Walk {
    /// A node's rules, then those of the nodes below it.
    fn node(&mut self, here: Here<'_>) {
        let Here {
            rules,
            schema,
            object,
            old,
            ratchet,
            at,
            path,
            ..
        } = here;
        if object.is_null() || self.state == Budget::Spent {
            return;
        }
        let old = old.filter(|o| !o.is_null());
        self.rules(Here { old, ..here });
        // Then each `allOf` entry's rules, and those below it, on the
        // same node (`AllOfValidators`), their failures never ratcheted
        // by the node's own old value.
        if let Some(all_of) = rules.get("allOf").and_then(Value::as_array) {
            for entry in all_of {
                if self.state == Budget::Spent {
                    return;
                }
                let ratchet = Ratchet {
                    current: None,
                    parent: ratchet.parent,
                };
                self.node(Here {
                    rules: entry,
                    old,
                    ratchet,
                    ..here
                });
            }
        }
        let embedded = |v: &Value| {
            v.get("x-kubernetes-embedded-resource")
                .and_then(Value::as_bool)
                .unwrap_or(false)
        };
        // A map's old values by key (`MapIsCorrelatable`: unless an
        // unknown `x-kubernetes-map-type`), a `map` list's by item keys.
        let correlatable = matches!(
            schema.get("x-kubernetes-map-type").and_then(Value::as_str),
            None | Some("granular" | "atomic")
        );
        let old_field = |k: &str| old.filter(|_| correlatable).and_then(|o| o.get(k));
        // A child: where its rules come from, its schema, value, old
        // value, pairing, schema path and field path segment. Below an
        // `allOf` entry, only what both it and the node's schema have.
        let mut child = |rules: &Value,
                         schema: &Value,
                         object: &Value,
                         old: Option<&Value>,
                         ratchet: Ratchet<'_>,
                         at: String,
                         segment: String| {
            let mut p = path.to_vec();
            p.push(segment);
            self.node(Here {
                rules,
                schema,
                object,
                old,
                ratchet,
                at: &at,
                path: &p,
                root: embedded(schema),
            });
        };
        let both = |key: &str| {
            Some((
                rules.get(key).filter(|v| v.is_object())?,
                schema.get(key).filter(|v| v.is_object())?,
            ))
        };
        match object {
            Value::Object(map) => {
                if let Some((value_rules, values)) = both("additionalProperties") {
                    for (k, v) in map {
                        let (old, r) = (old_field(k), ratchet.key(k));
                        let at = format!("{at}[*]");
                        child(value_rules, values, v, old, r, at, format!("[{k}]"));
                    }
                }
                if let Some((prop_rules, props)) = both("properties") {
                    for (k, v) in map {
                        if let (Some(sub_rules), Some(sub)) = (prop_rules.get(k), props.get(k)) {
                            let (old, r) = (old_field(k), ratchet.key(k));
                            child(sub_rules, sub, v, old, r, format!("{at}.{k}"), k.clone());
                        }
                    }
                }
            }
            Value::Array(items) => {
                if let Some((item_rules, sub)) = both("items") {
                    let old_items = old.and_then(Value::as_array);
                    for (i, v) in items.iter().enumerate() {
                        let old_item =
                            old_items.and_then(|o| correlate::map_list_item(schema, o, v));
                        child(
                            item_rules,
                            sub,
                            v,
                            old_item,
                            ratchet.index(i),
                            format!("{at}[*]"),
                            format!("[{i}]"),
                        );
                    }
                }
            }
            _ => {}
        }
    }

    /// A node's own rules.
    fn rules(&mut self, here: Here<'_>) {
        let Here {
            rules,
            schema,
            object,
            old,
            ratchet,
            at,
            path,
            root,
        } = here;
        let Some(rules) = rules
            .get("x-kubernetes-validations")
            .and_then(Value::as_array)
        else {
            return;
        };
        let self_type = Type::of_schema(schema, "selfType", root);
        let read = |v: &Value| {
            if root {
                let mut resource = with_type_and_object_meta(schema, path.is_empty());
                if let Some(m) = resource.as_object_mut() {
                    m.remove("x-kubernetes-embedded-resource");
                }
                Val::from_json(v, &resource)
            } else {
                Val::from_json(v, schema)
            }
        };
        let value = read(object);
        let old_value = old.map(read);
        let ratcheted = ratchet.ratchets();
        if rules.is_empty() {
            return;
        }
        match self.over(0) {
            // The node's rules do not run once the budget is gone.
            _ if self.state == Budget::Spent => return,
            Some(true) if self.state == Budget::Left => {
                let sts_type = schema.get("type").and_then(Value::as_str).unwrap_or("");
                self.out.errors.push(FieldError::invalid(
                    render(path),
                    json!(sts_type),
                    OUT_OF_BUDGET,
                ));
                self.state = Budget::Spent;
                return;
            }
            Some(false) => {}
            _ => self.state = Budget::Undecided,
        }
        // One `self` for all the node's rules, as the apiserver's.
        let mut sets = Sets::default();
        for r in rules {
            let rule = r.get("rule").and_then(Value::as_str).unwrap_or_default();
            if rule.trim().is_empty() {
                continue;
            }
            if self.state == Budget::Spent {
                return;
            }
            if self.state == Budget::Undecided {
                self.skip(
                    at,
                    rule,
                    "whether the object's cost budget lasts depends on a rule kubegen did not evaluate",
                );
                continue;
            }
            let Some(self_type) = &self_type else {
                self.skip(at, rule, "the schema of self is not one kubegen types");
                continue;
            };
            let vals = Vals {
                value: &value,
                old: old_value.as_ref(),
                old_json: old,
                ratcheted,
            };
            match self.rule(r, rule, self_type, vals, &mut sets, schema, object, path) {
                Ok(errors) => {
                    self.out.evaluated += 1;
                    self.out.errors.extend(errors);
                }
                Err(why) => self.skip(at, rule, &why),
            }
        }
    }

    /// Whether `cost` is more than the budget left (`cost == 0`: whether
    /// none is left), when the unfinished evaluations leave it decided.
    fn over(&self, cost: u64) -> Option<bool> {
        let cost = i64::try_from(cost).unwrap_or(i64::MAX);
        let least = self.remaining.saturating_sub(self.unsure);
        let over = |left: i64| if cost == 0 { left <= 0 } else { cost > left };
        match (over(self.remaining), over(least)) {
            (true, _) => Some(true),
            (false, false) => Some(false),
            (false, true) => None,
        }
    }

    /// Charges an evaluation that ended with `cost` to the budget: `Err`
    /// with the error ending validation when the budget is out (or when
    /// that is undecided, `Err(None)`).
    fn charge(&mut self, cost: u64, error: FieldError) -> Result<(), Option<FieldError>> {
        match self.over(cost) {
            Some(false) => {
                self.remaining -= i64::try_from(cost).unwrap_or(i64::MAX);
                Ok(())
            }
            Some(true) => {
                self.state = Budget::Spent;
                Err(Some(error))
            }
            None => {
                self.state = Budget::Undecided;
                Err(None)
            }
        }
    }

    /// An evaluation kubegen could not finish after charging `cost`: it
    /// may have cost up to the per-call limit.
    fn unfinished(&mut self, cost: u64) {
        let cost = i64::try_from(cost).unwrap_or(i64::MAX);
        self.remaining = self.remaining.saturating_sub(cost);
        self.unsure = self
            .unsure
            .saturating_add((PER_CALL_LIMIT as i64).saturating_sub(cost).max(0));
    }

    /// `errors`, or none when `ratchet`: then they are warnings.
    fn ratcheted(&mut self, ratchet: bool, errors: Vec<FieldError>) -> Verdict {
        if ratchet {
            self.out.warnings.extend(errors);
            return Ok(Vec::new());
        }
        Ok(errors)
    }

    fn skip(&mut self, at: &str, rule: &str, why: &str) {
        self.out.not_evaluated.push(Unevaluated {
            at: at.to_string(),
            rule: rule.to_string(),
            why: why.to_string(),
        });
    }

    /// One rule: its errors, or `None` when it cannot be evaluated
    /// exactly.
    #[allow(clippy::too_many_arguments)]
    fn rule(
        &mut self,
        r: &Value,
        rule: &str,
        self_type: &Type,
        vals: Vals<'_>,
        sets: &mut Sets,
        schema: &Value,
        object: &Value,
        path: &[String],
    ) -> Verdict {
        let text = |key: &str| r.get(key).and_then(Value::as_str);
        let optional = r
            .get("optionalOldSelf")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let value = vals.value;
        let checked = check_rule(rule, self_type, optional, Purpose::Rule, |_| true)
            .map_err(|_| "it does not compile against its node's type".to_string())?;
        if checked.uses_old_self && !optional && vals.old.is_none() {
            // A transition rule: run only where there is an old value.
            return Ok(Vec::new());
        }
        let message_expression = match text("messageExpression") {
            Some(m) => {
                let checked = check_rule(m, self_type, optional, Purpose::Message, |_| true)
                    .map_err(|_| "its messageExpression does not compile".to_string())?;
                if checked.uses_old_self && vals.old.is_none() {
                    return Err("its messageExpression reads oldSelf on create".into());
                }
                Some(checked)
            }
            None => None,
        };
        // Failures of a rule not reading `oldSelf` on an unchanged value
        // are warnings.
        let ratchet = !checked.uses_old_self && vals.ratcheted;
        let field_path = text("fieldPath")
            .filter(|f| !f.is_empty())
            .and_then(|f| normalized_field_path(f, schema))
            .filter(|f| !f.is_empty());
        let old_self = match (optional, vals.old) {
            // `types.OptionalOf` of data the schema does not allow holds
            // Go's conversion error of it.
            (true, Some(Val::Error(e))) => Val::Optional(Some(std::rc::Rc::new(Val::Error(
                format!("unsupported conversion to ref.Val: (*errors.errorString){e}").into(),
            )))),
            // The apiserver unwraps it to the Go value (`Value()`): an
            // object, map or list becomes its raw JSON, read without the
            // schema; a scalar stays as it was read.
            (true, Some(old @ (Val::Object(..) | Val::Map(_) | Val::List(..)))) => {
                let raw = vals
                    .old_json
                    .map_or_else(|| old.clone(), Val::from_plain_json);
                Val::Optional(Some(std::rc::Rc::new(raw)))
            }
            (true, old) => Val::Optional(old.cloned().map(std::rc::Rc::new)),
            (false, Some(old)) => old.clone(),
            (false, None) => value.clone(),
        };
        let rule_vars = [("self", value.clone()), ("oldSelf", old_self)];
        let message = text("message").map(str::trim).filter(|m| !m.is_empty());
        let rule_text = message.unwrap_or(rule.trim()).to_string();
        let sts_type = schema.get("type").and_then(Value::as_str).unwrap_or("");
        let here = render(path);
        let invalid = |at: &str, detail: String| FieldError::invalid(at, json!(sts_type), detail);
        let run = evaluate_with_cost(&checked.tree, &rule_vars, sets, PER_CALL_LIMIT);
        self.map_order |= run.cost_depends_on_map_order;
        let (result, cost) = (run.result, run.cost);
        if let Err(EvalError::Unsupported(why)) = &result {
            self.unfinished(cost);
            return Err(format!("it uses {why}"));
        }
        if let Err(e) = self.charge(cost, invalid(&here, OUT_OF_BUDGET.into())) {
            return e.map(|e| vec![e]).ok_or_else(undecided);
        }
        match result {
            Ok(Val::Bool(true)) => return Ok(Vec::new()),
            Ok(Val::Bool(false)) => {}
            // A non-boolean result of a `dyn` rule.
            Ok(_) | Err(EvalError::Unsupported(_)) => {
                return Err("it gives a value that is not a bool".into());
            }
            Err(EvalError::CostLimit) => {
                self.state = Budget::Spent;
                return Ok(vec![invalid(
                    &here,
                    format!(
                        "'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: {rule_text}"
                    ),
                )]);
            }
            Err(EvalError::Error(e)) if e.starts_with("no such overload") => {
                return Ok(vec![invalid(
                    &here,
                    format!(
                        "'{e}': call arguments did not match a supported operator, function or macro signature for rule: {rule_text}"
                    ),
                )]);
            }
            Err(EvalError::Error(e) | EvalError::Internal(e)) => {
                return Ok(vec![invalid(
                    &here,
                    format!("{e} evaluating rule: {rule_text}"),
                )]);
            }
        }
        // `fldPath.Child(NormalizedRuleFieldPath)`.
        let at = match field_path {
            Some(f) if path.is_empty() => f,
            Some(f) => format!("{}.{f}", render(path)),
            None => render(path),
        };
        let mut detail = None;
        if let Some(m) = &message_expression {
            let mut vars = vec![("self", value.clone())];
            if let Some(old) = vals.old {
                vars.push(("oldSelf", old.clone()));
            }
            let run = evaluate_with_cost(&m.tree, &vars, sets, PER_CALL_LIMIT);
            self.map_order |= run.cost_depends_on_map_order;
            let (result, cost) = (run.result, run.cost);
            if let Err(EvalError::Unsupported(why)) = &result {
                self.unfinished(cost);
                return Err(format!("its messageExpression uses {why}"));
            }
            let out_of_budget = invalid(
                &at,
                "messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run".into(),
            );
            match self.charge(cost, out_of_budget) {
                Ok(()) => {}
                Err(Some(e)) => return self.ratcheted(ratchet, vec![e]),
                Err(None) => return Err(undecided()),
            }
            if matches!(result, Err(EvalError::CostLimit)) {
                self.state = Budget::Spent;
                let source = text("messageExpression").unwrap_or_default();
                return self.ratcheted(ratchet, vec![invalid(
                    &at,
                    format!(
                        "no further validation rules will be run due to call cost exceeds limit for messageExpression: {}",
                        crate::go::fmt::go_quote(source)
                    ),
                )]);
            }
            match result {
                Ok(Val::String(s)) => {
                    let s = s.trim();
                    if !s.is_empty() && s.len() <= MAX_MESSAGE_BYTES && !s.contains('\n') {
                        detail = Some(s.to_string());
                    }
                }
                Err(EvalError::Error(_) | EvalError::Internal(_)) => {}
                _ => return Err("its messageExpression gives a value that is not a string".into()),
            }
        }
        let detail = detail.unwrap_or_else(|| match message {
            Some(m) => m.to_string(),
            None => format!("failed rule: {}", rule.trim()),
        });
        let bad = if matches!(sts_type, "object" | "array") {
            None
        } else {
            Some(object.clone())
        };
        let error = match r.get("reason").and_then(Value::as_str) {
            Some("FieldValueForbidden") => FieldError::new(ErrorType::Forbidden, at, None, detail),
            Some("FieldValueRequired") => FieldError::required(at, detail),
            Some("FieldValueDuplicate") => FieldError::new(ErrorType::Duplicate, at, bad, ""),
            _ => FieldError::new(ErrorType::Invalid, at, bad, detail),
        };
        self.ratcheted(ratchet, vec![error])
    }
}

/// `ValidFieldPath`: a rule's `fieldPath` (`.a.b`, `.a['b.c']`, `['k']`)
/// followed through the node's `schema` — properties by name, a map's
/// keys — and written as Go's `field.Path` writes it (`a.b`, `a[k]`);
/// `None` where the apiserver finds it invalid (and reports the failure
/// at the node itself).
fn normalized_field_path(f: &str, schema: &Value) -> Option<String> {
    let tokens = field_path_tokens(f);
    let mut tokens = tokens.into_iter();
    let mut node = schema;
    let mut out = String::new();
    while let Some(tok) = tokens.next() {
        let name = match tok {
            "[" => {
                let quoted = tokens.next()?;
                let inner = quoted.strip_prefix('\'')?.strip_suffix('\'')?;
                let name = unescape_single_quote(inner)?;
                if tokens.next()? != "]" {
                    return None;
                }
                name
            }
            "." => tokens.next()?.to_string(),
            _ => return None,
        };
        let has_properties = node
            .get("properties")
            .and_then(Value::as_object)
            .is_some_and(|p| !p.is_empty());
        if has_properties {
            node = node.get("properties").and_then(|p| p.get(&name))?;
            // `field.Path.Child`: a dot before all but the first; an
            // empty name prints as `[]`.
            if name.is_empty() {
                out.push_str("[]");
            } else {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(&name);
            }
        } else {
            node = node.get("additionalProperties").filter(|a| a.is_object())?;
            out.push_str(&format!("[{name}]"));
        }
    }
    Some(out)
}

/// The tokens of a `fieldPath` as the apiserver's scanner splits it: `.`,
/// `[` and `]` alone, a single-quoted string whole, other text between
/// them.
fn field_path_tokens(f: &str) -> Vec<&str> {
    let b = f.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let end = if b[i] == b'\'' {
            (i + 1..b.len())
                .find(|&j| b[j] == b'\'' && b[j - 1] != b'\\')
                .map_or(b.len(), |j| j + 1)
        } else if matches!(b[i], b'.' | b'[' | b']') {
            i + 1
        } else {
            (i..b.len())
                .find(|&j| matches!(b[j], b'.' | b'[' | b']'))
                .unwrap_or(b.len())
        };
        out.push(&f[i..end]);
        i = end;
    }
    out
}

/// `unescapeSingleQuote`: `\'`, `\\` and the C escapes; `None` for any
/// other escape.
fn unescape_single_quote(s: &str) -> Option<String> {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        out.push(match chars.next()? {
            'a' => '\u{7}',
            'b' => '\u{8}',
            'f' => '\u{c}',
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            'v' => '\u{b}',
            '\'' => '\'',
            '\\' => '\\',
            _ => return None,
        });
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema() -> Value {
        json!({"type": "object", "properties": {"spec": {"type": "object",
            "x-kubernetes-validations": [
                {"rule": "self.n < 5", "message": "n too big", "fieldPath": ".n"},
                {"rule": "self.s.size() < 2", "messageExpression": "'s is ' + self.s",
                    "reason": "FieldValueForbidden"},
                {"rule": "self.n / self.z > 0"},
                {"rule": "self.n < 7", "fieldPath": "['n']"},
                {"rule": "self.n == oldSelf.n"},
            ],
            "properties": {"n": {"type": "integer", "x-kubernetes-validations": [{"rule": "self > 0"}]},
                "s": {"type": "string"}, "z": {"type": "integer"}}}}})
    }

    #[test]
    fn rules_fail_as_the_apiserver_words_them() {
        let out = validate(&schema(), &json!({"spec": {"n": 7, "s": "abc", "z": 0}}));
        let texts: Vec<String> = out.errors.iter().map(ToString::to_string).collect();
        assert_eq!(
            texts,
            [
                "spec.n: Invalid value: n too big",
                "spec: Forbidden: s is abc",
                "spec: Invalid value: \"object\": division by zero evaluating rule: self.n / self.z > 0",
                "spec.n: Invalid value: failed rule: self.n < 7",
            ]
        );
        assert!(out.not_evaluated.is_empty());
        assert_eq!(
            out.evaluated, 6,
            "the transition rule counts as skipped as the apiserver skips it"
        );
    }

    #[test]
    fn field_paths_normalize_as_the_apiservers() {
        let schema = json!({"type": "object", "properties": {
            "a": {"type": "object", "properties": {"b.c": {"type": "string"}}},
            "m": {"type": "object", "additionalProperties": {"type": "object",
                "properties": {"x": {"type": "integer"}}}}}});
        let n = |f: &str| normalized_field_path(f, &schema);
        assert_eq!(n(".a['b.c']").as_deref(), Some("a.b.c"));
        assert_eq!(n("['a']").as_deref(), Some("a"));
        assert_eq!(n(".m['k.1'].x").as_deref(), Some("m[k.1].x"));
        assert_eq!(n(".m['it\\'s']").as_deref(), Some("m[it's]"));
        for bad in [".nope", "a", ".a[b]", ".m['k'", ".a['\\q']", "."] {
            assert_eq!(n(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_set_union_changes_the_set_later_rules_see_as_the_apiservers() {
        let rule = "(self + ['t'])[self.size()] == 't'";
        let schema = json!({"type": "object", "properties": {"s": {"type": "array",
            "x-kubernetes-list-type": "set", "items": {"type": "string"},
            "x-kubernetes-validations": [{"rule": rule}, {"rule": rule},
                {"rule": "self == ['t'] && self != ['b']"}]}}});
        let out = validate(&schema, &json!({"s": ["a"]}));
        let texts: Vec<String> = out.errors.iter().map(ToString::to_string).collect();
        assert_eq!(
            texts,
            [format!(
                "s: Invalid value: \"array\": index out of bounds: 1 evaluating rule: {rule}"
            )]
        );
    }

    #[test]
    fn rules_under_all_of_run_on_their_node_after_its_own() {
        // An `allOf` entry's rules are typed by the node's schema; below
        // it, only properties the node's schema has are visited.
        let schema = json!({"type": "object",
            "properties": {"x": {"type": "integer"}, "y": {"type": "string"}},
            "x-kubernetes-validations": [{"rule": "self.x > 0", "message": "own"}],
            "allOf": [
                {"x-kubernetes-validations": [{"rule": "self.x > 1", "message": "first"}]},
                {"properties": {
                    "y": {"x-kubernetes-validations": [{"rule": "self.size() > 3", "message": "y"}]},
                    "z": {"x-kubernetes-validations": [{"rule": "false"}]}},
                 "allOf": [{"x-kubernetes-validations": [{"rule": "self.x > 2", "message": "nested"}]}]}]});
        let out = validate(&schema, &json!({"x": 0, "y": "ab", "z": 1}));
        let texts: Vec<String> = out.errors.iter().map(ToString::to_string).collect();
        assert_eq!(
            texts,
            [
                "<nil>: Invalid value: own",
                "<nil>: Invalid value: first",
                "<nil>: Invalid value: nested",
                "y: Invalid value: \"ab\": y",
            ]
        );
        assert_eq!(out.evaluated, 4);
        assert!(out.not_evaluated.is_empty());
        // Rules only under `allOf`: the apiserver builds no validator.
        assert!(!has_rules(
            &json!({"allOf": [{"x-kubernetes-validations": [{"rule": "false"}]}]})
        ));
    }

    #[test]
    fn nodes_below_and_absent_fields() {
        let out = validate(&schema(), &json!({"spec": {"n": 0, "s": "a"}}));
        let texts: Vec<String> = out.errors.iter().map(ToString::to_string).collect();
        assert_eq!(
            texts,
            [
                "spec: Invalid value: \"object\": no such key: z evaluating rule: self.n / self.z > 0",
                "spec.n: Invalid value: 0: failed rule: self > 0",
            ]
        );
        assert!(has_rules(&schema()));
        assert!(!has_rules(&json!({"type": "object"})));
        assert_eq!(render(&[]), "<nil>");
        assert_eq!(
            render(&["spec".into(), "[0]".into(), "a".into()]),
            "spec[0].a"
        );
    }
}
