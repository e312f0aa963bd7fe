//! Parsing of label selector strings (`app=web,tier!=db,env in (a,b),!legacy`)
//! into kube's [`Selector`].

use kube_core::{Expression, Selector};

/// A label selector string that could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid label selector {input:?}: {reason}")]
pub struct SelectorError {
    /// The whole selector string.
    pub input: String,
    /// What is wrong with it.
    pub reason: String,
}

/// Parses a label selector in the Kubernetes string syntax: comma-separated
/// requirements `key`, `!key`, `key=value`, `key==value`, `key!=value`,
/// `key in (v1,v2)` and `key notin (v1,v2)`. The empty string selects
/// everything.
pub fn parse_selector(input: &str) -> Result<Selector, SelectorError> {
    let fail = |reason: String| SelectorError {
        input: input.to_string(),
        reason,
    };
    if input.trim().is_empty() {
        return Ok(Selector::default());
    }
    let mut expressions = Vec::new();
    for part in split_requirements(input).map_err(fail)? {
        expressions.push(parse_requirement(part.trim()).map_err(fail)?);
    }
    Ok(expressions.into_iter().collect())
}

/// Splits at the commas that are not inside parentheses.
fn split_requirements(input: &str) -> Result<Vec<&str>, String> {
    let mut parts = Vec::new();
    let mut depth = 0u32;
    let mut start = 0;
    for (i, c) in input.char_indices() {
        match c {
            '(' if depth == 0 => depth = 1,
            '(' => return Err("nested parentheses".into()),
            ')' if depth == 1 => depth = 0,
            ')' => return Err("unbalanced ')'".into()),
            ',' if depth == 0 => {
                parts.push(&input[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if depth != 0 {
        return Err("unclosed '('".into());
    }
    parts.push(&input[start..]);
    Ok(parts)
}

fn parse_requirement(req: &str) -> Result<Expression, String> {
    if req.is_empty() {
        return Err("empty requirement".into());
    }
    if let Some(key) = req.strip_prefix('!') {
        return Ok(Expression::DoesNotExist(key_of(key.trim())?));
    }
    if let Some((key, value)) = req.split_once("!=") {
        return Ok(Expression::NotEqual(
            key_of(key.trim())?,
            value_of(value.trim())?,
        ));
    }
    if let Some((key, value)) = req.split_once("==").or_else(|| req.split_once('=')) {
        return Ok(Expression::Equal(
            key_of(key.trim())?,
            value_of(value.trim())?,
        ));
    }
    if req.contains(['<', '>']) {
        return Err(format!("unsupported operator in {req:?}"));
    }
    match req.split_once(char::is_whitespace) {
        None => Ok(Expression::Exists(key_of(req)?)),
        Some((key, rest)) => {
            let key = key_of(key)?;
            let rest = rest.trim_start();
            let (negated, set) = if let Some(set) = rest.strip_prefix("notin") {
                (true, set)
            } else if let Some(set) = rest.strip_prefix("in") {
                (false, set)
            } else {
                return Err(format!("expected 'in' or 'notin' after {key:?}"));
            };
            let inner = set
                .trim()
                .strip_prefix('(')
                .and_then(|s| s.strip_suffix(')'))
                .ok_or_else(|| format!("expected a parenthesised value set for {key:?}"))?;
            if inner.trim().is_empty() {
                return Err(format!("empty value set for {key:?}"));
            }
            let values = inner
                .split(',')
                .map(|v| value_of(v.trim()))
                .collect::<Result<_, _>>()?;
            Ok(if negated {
                Expression::NotIn(key, values)
            } else {
                Expression::In(key, values)
            })
        }
    }
}

fn key_of(key: &str) -> Result<String, String> {
    let valid = !key.is_empty()
        && key.len() <= 317
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'))
        && key.matches('/').count() <= 1;
    if valid {
        Ok(key.to_string())
    } else {
        Err(format!("invalid label key {key:?}"))
    }
}

fn value_of(value: &str) -> Result<String, String> {
    let valid = value.len() <= 63
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if valid {
        Ok(value.to_string())
    } else {
        Err(format!("invalid label value {value:?}"))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use kube_core::SelectorExt;

    use super::*;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn matches(selector: &str, pairs: &[(&str, &str)]) -> bool {
        parse_selector(selector).unwrap().matches(&labels(pairs))
    }

    #[test]
    fn empty_selects_everything() {
        assert!(parse_selector("").unwrap().selects_all());
        assert!(matches("  ", &[("a", "b")]));
    }

    #[test]
    fn equality_operators() {
        assert!(matches("app=web", &[("app", "web")]));
        assert!(matches("app == web", &[("app", "web")]));
        assert!(!matches("app=web", &[("app", "db")]));
        assert!(!matches("app=web", &[]));
        assert!(matches("app!=web", &[("app", "db")]));
        assert!(matches("app!=web", &[]));
        assert!(!matches("app!=web", &[("app", "web")]));
        assert!(matches("app=", &[("app", "")]));
    }

    #[test]
    fn set_operators() {
        let sel = "env in (prod, staging)";
        assert!(matches(sel, &[("env", "prod")]));
        assert!(matches(sel, &[("env", "staging")]));
        assert!(!matches(sel, &[("env", "dev")]));
        assert!(!matches(sel, &[]));
        let sel = "env notin (prod,staging)";
        assert!(matches(sel, &[("env", "dev")]));
        assert!(matches(sel, &[]));
        assert!(!matches(sel, &[("env", "prod")]));
    }

    #[test]
    fn existence_operators() {
        assert!(matches(
            "app.kubernetes.io/name",
            &[("app.kubernetes.io/name", "x")]
        ));
        assert!(!matches("app", &[]));
        assert!(matches("!legacy", &[("app", "x")]));
        assert!(matches("! legacy", &[]));
        assert!(!matches("!legacy", &[("legacy", "")]));
    }

    #[test]
    fn conjunction_of_requirements() {
        let sel = "app=web,env in (prod,staging),!legacy,tier!=db,owner";
        assert!(matches(
            sel,
            &[("app", "web"), ("env", "prod"), ("owner", "me")]
        ));
        assert!(!matches(sel, &[("app", "web"), ("env", "prod")]));
        assert!(!matches(
            sel,
            &[
                ("app", "web"),
                ("env", "prod"),
                ("owner", "me"),
                ("tier", "db")
            ]
        ));
        let parsed = parse_selector(sel).unwrap();
        assert_eq!(
            parsed.to_string(),
            "app=web,env in (prod,staging),!legacy,tier!=db,owner"
        );
    }

    #[test]
    fn rejects_malformed_selectors() {
        for bad in [
            "a=b,",
            ",a",
            "a in (x",
            "a in x)",
            "a in ()",
            "a (x)",
            "a=b=c",
            "a>1",
            "a in ((x))",
            "=b",
            "a b",
            "a=in valid",
            "a/b/c=d",
        ] {
            assert!(parse_selector(bad).is_err(), "{bad:?} should not parse");
        }
    }
}
