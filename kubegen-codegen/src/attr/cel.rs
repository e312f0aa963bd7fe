//! CEL validation rules checked when they are parsed, as the apiserver
//! checks them when a CRD is created: the rule and the message expression
//! must parse, a message must be one non-empty line, a field path must be
//! a relative JSON path in the syntax the apiserver accepts.

/// Why `expr` (the value of `what`) is not a CEL expression the apiserver
/// accepts, if it is not (`kubegen_core::cel`, the apiserver's parser
/// rebuilt and proven equal to it).
pub fn expression(what: &str, expr: &str) -> Result<(), String> {
    if expr.trim().is_empty() {
        return Err(format!("`{what}` must not be empty"));
    }
    kubegen_core::cel::parse(expr).map(drop).map_err(|e| {
        let (line, column) = e.line_column(expr);
        format!(
            "`{what}` is not valid CEL: {} (line {line}, column {column} of the expression)",
            e.message
        )
    })
}

/// Why `message` is not a message the apiserver accepts, if it is not.
pub fn message(message: &str) -> Result<(), String> {
    if message.trim().is_empty() {
        return Err("`message` must not be empty or blank (leave it out to get the apiserver's default message)".into());
    }
    if message.contains(['\n', '\r']) {
        return Err("`message` must be a single line: the apiserver rejects line breaks".into());
    }
    Ok(())
}

/// Why `path` is not a field path the apiserver accepts, if it is not:
/// one or more `.name` or `['name']` steps, no numeric index.
pub fn field_path(path: &str) -> Result<(), String> {
    const HELP: &str = "`field_path` must be a relative JSON path such as \".spec.replicas\" or \".labels['app.kubernetes.io/name']\" (no numeric index)";
    if path.is_empty() {
        return Err(format!("{HELP}; it is empty"));
    }
    let mut rest = path;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("['") {
            let Some(end) = after.find("']") else {
                return Err(format!("{HELP}; `['` is not closed"));
            };
            if end == 0 {
                return Err(format!("{HELP}; `['']` names no field"));
            }
            rest = &after[end + 2..];
        } else if let Some(after) = rest.strip_prefix('.') {
            let end = after.find(['.', '[']).unwrap_or(after.len());
            let name = &after[..end];
            if name.is_empty() || name.contains([']', '\'', ' ']) {
                return Err(format!("{HELP}; `{rest}` has an empty or malformed name"));
            }
            rest = &after[end..];
        } else {
            return Err(format!("{HELP}; unexpected `{rest}`"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_parse_like_the_apiserver() {
        for ok in [
            "self.min <= self.max",
            "has(self.x) && self.x.matches('^[a-z]+$')",
            "self.all(x, x > 0)",
            "self == oldSelf",
            "self.?x.orValue(1) > 0",
            "quantity(self.q).isGreaterThan(quantity('1Gi'))",
            "size(self) <= 10 ? true : false",
        ] {
            assert_eq!(expression("rule", ok), Ok(()), "{ok}");
        }
        for (bad, says) in [
            ("self.min <=", "column 12"),
            ("1 +\n  -", "line 2, column 4"),
            ("self.x ==== 1", "not valid CEL"),
            ("has(self.x", "expecting ')'"),
            ("l.all(x.y, true)", "argument must be a simple name"),
            ("a.`b`", "unsupported syntax"),
            ("'unterminated", "not valid CEL"),
            ("  ", "must not be empty"),
        ] {
            let err = expression("rule", bad).unwrap_err();
            assert!(err.contains(says), "{bad}: {err}");
        }
    }

    #[test]
    fn messages_are_one_non_empty_line() {
        assert_eq!(message("min must not exceed max"), Ok(()));
        assert!(message("").is_err());
        assert!(message("  ").is_err());
        assert!(message("two\nlines").unwrap_err().contains("single line"));
        assert!(message("cr\rlf").is_err());
    }

    #[test]
    fn field_paths() {
        for ok in [
            ".spec",
            ".spec.replicas",
            ".labels['app.kubernetes.io/name']",
            "['a b'].c",
            ".a-b_c",
        ] {
            assert_eq!(field_path(ok), Ok(()), "{ok}");
        }
        for bad in [
            "", "spec", ".", ".a..b", ".a[0]", ".a['']", ".a['x'", ".a b",
        ] {
            assert!(field_path(bad).is_err(), "{bad:?}");
        }
    }

    /// The rules `max_name_length` and `name_pattern` become parse as CEL,
    /// backslashes in the pattern included.
    #[test]
    fn name_rules_are_cel() {
        let model = kubegen_core::model::ResourceModel {
            max_name_length: Some(55),
            name_pattern: Some(r"^[a-z](\.[a-z]|[-a-z0-9])*\d?$".into()),
            ..Default::default()
        };
        let root = kubegen_core::crd::root_schema(&model, serde_json::json!({}), None);
        let rules = root["x-kubernetes-validations"].as_array().unwrap();
        assert_eq!(rules.len(), 2);
        for rule in rules {
            let rule = rule["rule"].as_str().unwrap();
            assert_eq!(expression("rule", rule), Ok(()), "{rule}");
        }
    }
}
