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
    check_rule(rule, &schema(), false, Purpose::Rule, |_| true).map_err(|e| e.message().to_string())
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

#[test]
fn message_expressions_must_be_strings() {
    assert_eq!(
        check_rule(
            "'too many: ' + string(self.replicas)",
            &schema(),
            false,
            Purpose::Message,
            |_| true
        ),
        Ok(())
    );
    let e = check_rule("self.replicas", &schema(), false, Purpose::Message, |_| {
        true
    })
    .unwrap_err();
    assert_eq!(e.message(), "messageExpression must evaluate to a string");
}
