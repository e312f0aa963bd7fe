//! Every `x-kubernetes-validations` rule of a schema checked as the
//! apiserver checks them when the CRD is created: each rule and
//! `messageExpression` against the type its schema node declares
//! (`self`, and `oldSelf` — optional with `optionalOldSelf`), the root and
//! embedded resources with `apiVersion`, `kind` and `metadata` — and
//! costed as the apiserver costs them: each expression's estimated cost
//! times the number of times it can run in one object within
//! `StaticEstimatedCostLimit`, all of them together within
//! `StaticEstimatedCRDCostLimit`.

use serde_json::Value;

use super::check::{Purpose, RegexCheck, RuleError, check_rule};
use super::cost::{self, PER_CRD_LIMIT, PER_EXPRESSION_LIMIT};
use super::parse::line_column;
use super::sizes::Sizes;
use super::types::Type;

/// A rule the apiserver would refuse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleProblem {
    /// The schema node's path below the root (`.spec.items[*]`, `` for the
    /// root itself).
    pub path: String,
    /// The rule, as written.
    pub rule: String,
    /// The expression that fails: the rule or its `messageExpression`.
    pub expression: String,
    /// Why.
    pub error: RuleError,
}

impl RuleProblem {
    /// One line: where, which expression, why, and the likely fix.
    pub fn describe(&self) -> String {
        let what = if self.expression == self.rule {
            format!("rule `{}`", self.rule)
        } else {
            format!(
                "messageExpression `{}` of rule `{}`",
                self.expression, self.rule
            )
        };
        let at = if self.path.is_empty() {
            "the root".to_string()
        } else {
            format!("`{}`", self.path)
        };
        if let RuleError::TotalCost { message, .. } = &self.error {
            return self.with_hint(format!(
                "the apiserver refuses the schema's rules: {message}"
            ));
        }
        self.with_hint(format!(
            "the apiserver refuses the {what} at {at}: {}",
            self.error.message()
        ))
    }

    fn with_hint(&self, mut out: String) -> String {
        match &self.error {
            RuleError::Type(t) => {
                if let Some(guess) = &t.did_you_mean {
                    out.push_str(&format!("; did you mean `{guess}`?"));
                }
            }
            RuleError::Cost { unbounded, .. } if !unbounded.is_empty() => {
                let bounds: Vec<String> = unbounded
                    .iter()
                    .map(|(path, keyword)| {
                        let node = if path.is_empty() { "the root" } else { path };
                        format!("`{node}` ({})", attribute(keyword))
                    })
                    .collect();
                out.push_str(&format!(
                    "; the estimate takes the size of {} from the request size: bound them where they are declared, or simplify the expression",
                    bounds.join(", ")
                ));
            }
            RuleError::TotalCost { most_expensive, .. } => {
                let rules: Vec<String> = most_expensive
                    .iter()
                    .map(|(path, _, expression)| format!("`{expression}` at `{path}`"))
                    .collect();
                out.push_str(&format!("; the most expensive: {}", rules.join(", ")));
            }
            _ => {}
        }
        out
    }
}

impl RuleProblem {
    /// [`describe`](Self::describe), with the position in the expression
    /// for a parse or type error.
    pub fn report(&self) -> String {
        match &self.error {
            RuleError::Parse(_) | RuleError::Type(_) => {
                let (line, column) = line_column(&self.expression, self.error.offset());
                format!(
                    "{} (line {line}, column {column} of the expression)",
                    self.describe()
                )
            }
            _ => self.describe(),
        }
    }
}

/// Every refused rule of `schema` (a CRD version's `openAPIV3Schema`
/// when `resource_root`), the schema's total cost included.
pub fn check_schema(schema: &Value, resource_root: bool, regex: RegexCheck) -> Vec<RuleProblem> {
    let mut walk = Walk::run(schema, resource_root, regex);
    if walk.total > PER_CRD_LIMIT && !walk.undecidable {
        let message = cost::over_budget_message(
            "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema",
            walk.total,
            PER_CRD_LIMIT,
        );
        walk.problems.push(RuleProblem {
            path: String::new(),
            rule: String::new(),
            expression: String::new(),
            error: RuleError::TotalCost {
                message,
                most_expensive: walk
                    .most_expensive
                    .into_iter()
                    .map(|(_, place)| place)
                    .collect(),
            },
        });
    }
    walk.problems
}

/// Every rule's and message expression's estimated cost, as the apiserver
/// adds them up toward the CRD's total (expressions that do not check
/// cost 0).
pub fn costs(schema: &Value, resource_root: bool, regex: RegexCheck) -> Vec<ExpressionCost> {
    Walk::run(schema, resource_root, regex).costs
}

/// `unbounded` (paths below a rule's node) as paths from the root.
fn below(path: &str, unbounded: &[(String, &'static str)]) -> Vec<(String, &'static str)> {
    unbounded
        .iter()
        .map(|(p, keyword)| (format!("{path}{p}"), *keyword))
        .collect()
}

/// The problems worth reporting first: the schema's total is left out
/// while a single expression is over its own budget (fixing that changes
/// the total).
pub fn first_fixes(problems: Vec<RuleProblem>) -> Vec<RuleProblem> {
    let single = problems
        .iter()
        .any(|p| matches!(p.error, RuleError::Cost { .. }));
    problems
        .into_iter()
        .filter(|p| !(single && matches!(p.error, RuleError::TotalCost { .. })))
        .collect()
}

/// The keyword's kubegen attribute.
fn attribute(keyword: &str) -> &'static str {
    match keyword {
        "maxItems" => "`max_items = …`",
        "maxProperties" => "`max_properties = …`",
        "items.maxItems" => "`items(max_items = …)` on the list",
        "items.maxProperties" => "`items(max_properties = …)` on the list",
        "items.maxLength" => "`items(max_length = …)` on the list",
        _ => "`max_length = …`",
    }
}

struct Walk {
    regex: RegexCheck,
    problems: Vec<RuleProblem>,
    /// Every expression's cost (times its cardinality for rules), summed.
    total: u64,
    /// The four most expensive expressions of at least 1% of the CRD
    /// budget: cost, and path, rule, expression.
    most_expensive: Vec<(u64, (String, String, String))>,
    /// Some cost read a type the code generator could not see.
    undecidable: bool,
    /// Every expression's cost, in the order the apiserver adds them up.
    costs: Vec<ExpressionCost>,
}

/// An expression's estimated cost, as the apiserver counts it toward the
/// CRD's total.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExpressionCost {
    /// The schema node's path (`.spec.items[*]`).
    pub path: String,
    /// The rule.
    pub rule: String,
    /// The rule, or its `messageExpression`.
    pub expression: String,
    /// One evaluation's estimated cost times the times it can run (a
    /// message's is not multiplied).
    pub cost: u64,
}

impl Walk {
    fn run(schema: &Value, resource_root: bool, regex: RegexCheck) -> Walk {
        let mut walk = Walk {
            regex,
            problems: Vec::new(),
            total: 0,
            most_expensive: Vec::new(),
            undecidable: false,
            costs: Vec::new(),
        };
        walk.node(schema, "", resource_root, Some(1));
        walk
    }

    /// `node` at `path`; `cardinality` is how many times it can occur in
    /// one object when every node above it bounds its children (`None`
    /// when one does not).
    fn node(&mut self, node: &Value, path: &str, resource_root: bool, cardinality: Option<u64>) {
        let Some(obj) = node.as_object() else {
            return;
        };
        let embedded = |v: &Value| {
            v.get("x-kubernetes-embedded-resource")
                .and_then(Value::as_bool)
                .unwrap_or(false)
        };
        // How many children each occurrence of this node has at most
        // (`extractMaxElements`).
        let count = |key: &str| {
            obj.get(key)
                .and_then(Value::as_i64)
                .map(|n| n.max(0) as u64)
        };
        let factor = match obj.get("type").and_then(Value::as_str) {
            Some("object") if obj.contains_key("additionalProperties") => count("maxProperties"),
            Some("array") => count("maxItems"),
            _ => Some(1),
        };
        let child = cardinality.zip(factor).map(|(c, f)| c.saturating_mul(f));
        if let Some(props) = obj.get("properties").and_then(Value::as_object) {
            for (name, sub) in props {
                self.node(sub, &format!("{path}.{name}"), embedded(sub), child);
            }
        }
        if let Some(items) = obj.get("items") {
            self.node(items, &format!("{path}[*]"), embedded(items), child);
        }
        if let Some(values) = obj.get("additionalProperties").filter(|v| v.is_object()) {
            self.node(values, &format!("{path}[*]"), embedded(values), child);
        }
        // As the apiserver: a node's own rules after those below it.
        if let Some(rules) = obj
            .get("x-kubernetes-validations")
            .and_then(Value::as_array)
            && let Some(self_type) = Type::of_schema(node, "selfType", resource_root)
            && let Some(sizes) = Sizes::of_schema(node, resource_root)
        {
            for r in rules {
                self.rule(r, path, &self_type, &sizes, cardinality);
            }
        }
    }

    fn rule(
        &mut self,
        r: &Value,
        path: &str,
        self_type: &Type,
        sizes: &Sizes,
        cardinality: Option<u64>,
    ) {
        let rule = r.get("rule").and_then(Value::as_str).unwrap_or_default();
        if rule.trim().is_empty() {
            return;
        }
        let optional = r
            .get("optionalOldSelf")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let problem = |expression: &str, error| RuleProblem {
            path: path.to_string(),
            rule: rule.to_string(),
            expression: expression.to_string(),
            error,
        };
        let checked = match check_rule(rule, self_type, optional, Purpose::Rule, self.regex) {
            Ok(c) => c,
            Err(error) => {
                self.problems.push(problem(rule, error));
                return;
            }
        };
        let estimate = cost::estimate(&checked.tree, sizes);
        // Beyond bounded ancestors, the most times data of this node's
        // smallest size fits in a request.
        let times = cardinality.unwrap_or_else(|| sizes.max_cardinality());
        let undecidable = estimate.undecidable || (cardinality.is_none() && sizes.unknown);
        let rule_cost = if estimate.estimate.max == 0 {
            0
        } else {
            estimate.estimate.max.saturating_mul(times)
        };
        self.undecidable |= undecidable;
        if !undecidable && rule_cost > PER_EXPRESSION_LIMIT {
            self.problems.push(problem(
                rule,
                RuleError::Cost {
                    message: cost::over_budget_message(
                        "estimated rule cost",
                        rule_cost,
                        PER_EXPRESSION_LIMIT,
                    ),
                    unbounded: below(path, &estimate.unbounded),
                },
            ));
        }
        self.observe(rule_cost, path, rule, rule);
        let Some(m) = r.get("messageExpression").and_then(Value::as_str) else {
            return;
        };
        match check_rule(m, self_type, optional, Purpose::Message, self.regex) {
            Err(error) => self.problems.push(problem(m, error)),
            Ok(checked) => {
                // The apiserver does not multiply a message's cost by the
                // rule's cardinality.
                let estimate = cost::estimate(&checked.tree, sizes);
                self.undecidable |= estimate.undecidable;
                let message_cost = estimate.estimate.max;
                if !estimate.undecidable && message_cost > PER_EXPRESSION_LIMIT {
                    self.problems.push(problem(
                        m,
                        RuleError::Cost {
                            message: cost::over_budget_message(
                                "estimated messageExpression cost",
                                message_cost,
                                PER_EXPRESSION_LIMIT,
                            ),
                            unbounded: below(path, &estimate.unbounded),
                        },
                    ));
                }
                self.observe(message_cost, path, rule, m);
            }
        }
    }

    /// `TotalCost.ObserveExpressionCost`.
    fn observe(&mut self, cost: u64, path: &str, rule: &str, expression: &str) {
        self.costs.push(ExpressionCost {
            path: path.to_string(),
            rule: rule.to_string(),
            expression: expression.to_string(),
            cost,
        });
        self.total = self.total.saturating_add(cost);
        if cost < PER_CRD_LIMIT / 100 {
            return;
        }
        let place = (path.to_string(), rule.to_string(), expression.to_string());
        self.most_expensive.push((cost, place));
        crate::sorting::sort_by_key(&mut self.most_expensive, |e| std::cmp::Reverse(e.0));
        self.most_expensive.truncate(4);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn every_node_with_rules_is_checked_against_its_own_type() {
        let schema = json!({
            "type": "object",
            "x-kubernetes-validations": [{"rule": "self.metadata.name.size() < 10"}],
            "properties": {
                "spec": {
                    "type": "object",
                    "x-kubernetes-validations": [
                        {"rule": "self.replica > 0"},
                        {"rule": "self.replicas > 0", "messageExpression": "self.replicas"},
                        {"rule": "self.other > 0"},
                    ],
                    "properties": {
                        "replicas": {"type": "integer"},
                        "other": {crate::cel::types::UNKNOWN: true},
                        "items": {"type": "array", "items": {
                            "type": "string",
                            "x-kubernetes-validations": [{"rule": "self.size() < 3"}, {"rule": "self < 3"}],
                        }},
                    },
                },
            },
        });
        let problems = check_schema(&schema, true, |_| true);
        let found: Vec<(&str, &str)> = problems
            .iter()
            .map(|p| (p.path.as_str(), p.error.message()))
            .collect();
        assert_eq!(
            found,
            [
                (
                    ".spec.items[*]",
                    "found no matching overload for '_<_' applied to '(string, int)'"
                ),
                (".spec", "undefined field 'replica'"),
                (".spec", "messageExpression must evaluate to a string"),
            ],
            "as the apiserver: a node's rules after those below it"
        );
        assert!(
            problems[1].describe().ends_with("did you mean `replicas`?"),
            "{}",
            problems[1].describe()
        );
    }

    #[test]
    fn expensive_rules_name_what_to_bound_and_the_total_waits_for_them() {
        let pairs = json!([{"rule": "self.all(x, self.exists_one(y, y == x))"}]);
        let schema = json!({"type": "object", "properties": {
            "unbounded": {"type": "array", "items": {"type": "string"}, "x-kubernetes-validations": pairs},
            "bounded": {"type": "array", "maxItems": 20, "items": {"type": "string", "maxLength": 10},
                "x-kubernetes-validations": pairs},
        }});
        let problems = check_schema(&schema, true, |_| true);
        let kinds: Vec<(&str, bool)> = problems
            .iter()
            .map(|p| {
                (
                    p.path.as_str(),
                    matches!(p.error, RuleError::TotalCost { .. }),
                )
            })
            .collect();
        assert_eq!(kinds, [(".unbounded", false), ("", true)]);
        let RuleError::Cost { unbounded, .. } = &problems[0].error else {
            panic!("{problems:?}")
        };
        assert_eq!(
            unbounded,
            &[
                (".unbounded".to_string(), "maxItems"),
                (".unbounded[*]".to_string(), "items.maxLength")
            ]
        );
        assert!(
            problems[0]
                .describe()
                .contains("`.unbounded[*]` (`items(max_length = …)` on the list)"),
            "{}",
            problems[0].describe()
        );
        let first = first_fixes(problems);
        assert_eq!(
            first.len(),
            1,
            "the total waits for the rule over its own budget"
        );
        let costs = costs(&schema, true, |_| true);
        let bounded = costs.iter().find(|c| c.path == ".bounded").unwrap();
        assert!(bounded.cost < PER_EXPRESSION_LIMIT, "{bounded:?}");
    }
}
