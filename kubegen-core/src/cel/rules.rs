//! Every `x-kubernetes-validations` rule of a schema checked as the
//! apiserver checks them when the CRD is created: each rule and
//! `messageExpression` against the type its schema node declares
//! (`self`, and `oldSelf` — optional with `optionalOldSelf`), the root and
//! embedded resources with `apiVersion`, `kind` and `metadata`.

use serde_json::Value;

use super::check::{Purpose, RegexCheck, RuleError, check_rule};
use super::parse::line_column;
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
        let mut out = format!(
            "the apiserver refuses the {what} at {at}: {}",
            self.error.message()
        );
        if let RuleError::Type(t) = &self.error
            && let Some(guess) = &t.did_you_mean
        {
            out.push_str(&format!("; did you mean `{guess}`?"));
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
/// when `resource_root`).
pub fn check_schema(schema: &Value, resource_root: bool, regex: RegexCheck) -> Vec<RuleProblem> {
    let mut out = Vec::new();
    walk(schema, "", resource_root, regex, &mut out);
    out
}

fn walk(
    node: &Value,
    path: &str,
    resource_root: bool,
    regex: RegexCheck,
    out: &mut Vec<RuleProblem>,
) {
    let Some(obj) = node.as_object() else {
        return;
    };
    if let Some(rules) = obj
        .get("x-kubernetes-validations")
        .and_then(Value::as_array)
        && let Some(self_type) = Type::of_schema(node, "selfType", resource_root)
    {
        for r in rules {
            let rule = r.get("rule").and_then(Value::as_str).unwrap_or_default();
            if rule.trim().is_empty() {
                continue;
            }
            let optional = r
                .get("optionalOldSelf")
                .and_then(Value::as_bool)
                .unwrap_or(false);
            let mut problem = |expression: &str, purpose| {
                if let Err(error) = check_rule(expression, &self_type, optional, purpose, regex) {
                    out.push(RuleProblem {
                        path: path.to_string(),
                        rule: rule.to_string(),
                        expression: expression.to_string(),
                        error,
                    });
                    return true;
                }
                false
            };
            if !problem(rule, Purpose::Rule)
                && let Some(m) = r.get("messageExpression").and_then(Value::as_str)
            {
                problem(m, Purpose::Message);
            }
        }
    }
    let embedded = |v: &Value| {
        v.get("x-kubernetes-embedded-resource")
            .and_then(Value::as_bool)
            .unwrap_or(false)
    };
    if let Some(props) = obj.get("properties").and_then(Value::as_object) {
        for (name, sub) in props {
            walk(sub, &format!("{path}.{name}"), embedded(sub), regex, out);
        }
    }
    if let Some(items) = obj.get("items") {
        walk(items, &format!("{path}[*]"), embedded(items), regex, out);
    }
    if let Some(values) = obj.get("additionalProperties").filter(|v| v.is_object()) {
        walk(values, &format!("{path}[*]"), embedded(values), regex, out);
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
                (".spec", "undefined field 'replica'"),
                (".spec", "messageExpression must evaluate to a string"),
                (
                    ".spec.items[*]",
                    "found no matching overload for '_<_' applied to '(string, int)'"
                ),
            ]
        );
        assert!(
            problems[0].describe().ends_with("did you mean `replicas`?"),
            "{}",
            problems[0].describe()
        );
    }
}
