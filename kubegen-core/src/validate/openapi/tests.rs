//! The unit tests of [`super`] (openapi.rs).

use serde_json::json;

use super::*;

/// The error texts, sorted.
fn texts(schema: Value, value: Value) -> Vec<String> {
    let mut t: Vec<String> = validate(&schema, &value, "")
        .iter()
        .map(ToString::to_string)
        .collect();
    t.sort();
    t
}

fn obj(props: Value) -> Value {
    json!({"type": "object", "properties": props})
}

#[test]
fn type_validator() {
    let s = obj(json!({
        "i": {"type": "integer"}, "n": {"type": "number"}, "s": {"type": "string"},
        "b": {"type": "boolean"}, "a": {"type": "array"}, "o": {"type": "object"},
        "ios": {"x-kubernetes-int-or-string": true}, "z": {"type": "string", "nullable": true}
    }));
    assert_eq!(
        texts(
            s.clone(),
            json!({"i": "1", "n": true, "s": 1, "b": [], "a": {}, "o": 1.5, "ios": 1.5, "z": null})
        ),
        [
            "a: Invalid value: \"object\": a in body must be of type array: \"object\"",
            "b: Invalid value: \"array\": b in body must be of type boolean: \"array\"",
            "i: Invalid value: \"string\": i in body must be of type integer: \"string\"",
            "ios: Invalid value: \"number\": ios in body must be of type integer,string: \"number\"",
            "n: Invalid value: \"boolean\": n in body must be of type number: \"boolean\"",
            "o: Invalid value: \"number\": o in body must be of type object: \"number\"",
            "s: Invalid value: \"integer\": s in body must be of type string: \"integer\"",
        ]
    );
    // Integral floats are integers, integers numbers; null needs nullable.
    assert!(texts(s.clone(), json!({"i": 2.0, "n": 3, "ios": "x"})).is_empty());
    assert_eq!(
        texts(s, json!({"i": null})),
        ["i: Invalid value: \"null\": i in body must be of type integer: \"null\""]
    );
    // A value of a schema with a format is reported against the format.
    assert_eq!(
        texts(
            obj(json!({"d": {"type": "string", "format": "date"}})),
            json!({"d": 5})
        ),
        ["d: Invalid value: \"int64\": d in body must be of type date: \"int64\""]
    );
    assert_eq!(
        texts(
            obj(json!({"d": {"format": "date"}})),
            json!({"d": {"x": 1}})
        ),
        ["d: Invalid value: \"\": d in body must be of type date: \"\""]
    );
    assert_eq!(
        texts(
            obj(json!({"i": {"type": "integer", "format": "int32"}})),
            json!({"i": 1.5})
        ),
        [
            "<nil>: Invalid value: \"\": Checked value must be of type integer with format int32 in i",
            "i: Invalid value: \"float64\": i in body must be of type int32: \"float64\"",
        ]
    );
    // The root has no field: the apiserver's nil path.
    assert_eq!(
        texts(json!({"type": "object"}), json!([])),
        ["<nil>: Invalid value: \"array\":  in body must be of type object: \"array\""]
    );
}

#[test]
fn formats_are_stripped_and_checked() {
    let s = obj(json!({
        "d": {"type": "string", "format": "date-time"}, "u": {"type": "string", "format": "int32"},
        "i": {"type": "integer", "format": "uint32", "maximum": 1e10}, "n": {"type": "number", "format": "float"}
    }));
    assert_eq!(
        texts(
            s.clone(),
            json!({"d": "nope", "u": "x", "i": 5_000_000_000i64, "n": 1e39})
        ),
        [
            "<nil>: Invalid value: \"\": Checked value must be of type number with format float in n",
            "d: Invalid value: \"nope\": d in body must be of type date-time: \"nope\"",
        ]
    );
    assert!(texts(s, json!({"d": "2024-01-02T03:04:05Z"})).is_empty());
}

#[test]
fn string_validator() {
    let s = obj(json!({
        "a": {"type": "string", "maxLength": 3, "minLength": 2, "pattern": "^[a-z]+$"},
        "b": {"type": "string", "maxLength": 1},
        "c": {"type": "string", "pattern": "\\d"}
    }));
    assert_eq!(
        texts(s.clone(), json!({"a": "abcd", "b": "éé", "c": "٣"})),
        [
            "a: Too long: may not be more than 3 bytes",
            "b: Too long: may not be more than 1 byte",
            "c: Invalid value: \"٣\": c in body should match '\\d'",
        ]
    );
    assert_eq!(
        texts(s.clone(), json!({"a": "A", "c": "x1"})),
        ["a: Invalid value: \"A\": a in body should be at least 2 chars long"]
    );
    assert_eq!(
        texts(s, json!({"a": "AB", "b": "é"})),
        ["a: Invalid value: \"AB\": a in body should match '^[a-z]+$'"]
    );
}

#[test]
fn number_validator() {
    let s = obj(json!({
        "i": {"type": "integer", "minimum": 1, "maximum": 10, "multipleOf": 3},
        "x": {"type": "integer", "maximum": 10, "exclusiveMaximum": true, "minimum": 2.5},
        "n": {"type": "number", "multipleOf": 0.5, "maximum": 1e20},
        "m": {"type": "number", "minimum": 0, "exclusiveMinimum": true},
        "f": {"type": "integer", "format": "int32"}
    }));
    assert_eq!(
        texts(
            s.clone(),
            json!({"i": 11, "x": 10, "n": 3, "m": 0, "f": 3_000_000_000i64})
        ),
        [
            "<nil>: Invalid value: \"\": Checked value must be of type integer with format int32 in f",
            "<nil>: Invalid value: \"\": Minimum boundary value must be of type integer (default format) in x",
            "i: Invalid value: 11: i in body should be a multiple of 3",
            "i: Invalid value: 11: i in body should be less than or equal to 10",
            "m: Invalid value: 0: m in body should be greater than 0",
            "n: Invalid value: 0: factor MultipleOf declared for n must be positive: 0",
            // Go on amd64 converts 1e20 to int64 as the smallest int64.
            "n: Invalid value: 3: n in body should be less than or equal to -9223372036854775808",
            "x: Invalid value: 10: x in body should be less than 10",
        ]
    );
    assert_eq!(
        texts(s, json!({"i": 0, "x": 2, "n": 1.25, "m": 0.5})),
        [
            "<nil>: Invalid value: \"\": Minimum boundary value must be of type integer (default format) in x",
            "i: Invalid value: 0: i in body should be greater than or equal to 1",
            "n: Invalid value: 1.25: n in body should be a multiple of 0.5",
            "x: Invalid value: 2: x in body should be greater than or equal to 2.5",
        ]
    );
}

#[test]
fn slice_validator() {
    let s = obj(json!({
        "l": {"type": "array", "minItems": 2, "maxItems": 3, "items": {"type": "integer"}},
        "u": {"type": "array", "uniqueItems": true, "maxItems": 1}
    }));
    assert_eq!(
        texts(s.clone(), json!({"l": ["a"], "u": [1, 1.0, 1]})),
        [
            "l: Invalid value: 1: l in body should have at least 2 items",
            "l[0]: Invalid value: \"string\": l[0] in body must be of type integer: \"string\"",
            "u: Invalid value: \"\": u in body shouldn't contain duplicates",
            "u: Too many: 3: must have at most 1 item",
        ]
    );
    assert_eq!(
        texts(s, json!({"l": [1, 2, 3, 4]})),
        ["l: Too many: 4: must have at most 3 items"]
    );
}

#[test]
fn common_validator() {
    let s = obj(json!({
        "e": {"type": "string", "enum": ["a", "b"]},
        "n": {"type": "integer", "enum": [1, 2.5, "x", null, {"k": [1]}]},
        "z": {"type": "string", "nullable": true, "enum": ["a"]}
    }));
    assert_eq!(
        texts(s.clone(), json!({"e": "c", "n": 3, "z": null})),
        [
            "e: Unsupported value: \"c\": supported values: \"a\", \"b\"",
            "n: Unsupported value: 3: supported values: \"1\", \"2.5\", \"x\", \"null\", \"{\\\"k\\\":[1]}\"",
            "z: Unsupported value: null: supported values: \"a\"",
        ]
    );
    // Go converts the value to the enum value's type: 1.7 truncates to
    // 1, 120 is the string "x".
    assert_eq!(texts(s.clone(), json!({"n": 120})), Vec::<String>::new());
    assert_eq!(
        texts(s, json!({"n": 1.7})),
        [
            "<nil>: Invalid value: \"\": Checked value must be of type integer (default format) in n",
            "n: Invalid value: \"number\": n in body must be of type integer: \"number\"",
        ]
    );
    assert_eq!(
        validate_common(
            &Schema::from_json(&json!({"enum": [1, "a", 2.5, {"b": null}]})),
            "p",
            &json!(true)
        )
        .errors[0]
            .message(),
        "p in body should be one of [1 a 2.5 map[b:<nil>]]"
    );
}

#[test]
fn object_validator() {
    let s = json!({
        "type": "object", "required": ["a", "b"], "maxProperties": 2,
        "properties": {"a": {"type": "object", "minProperties": 1, "required": ["x"]}, "m": {
            "type": "object", "additionalProperties": {"type": "integer"}}}
    });
    assert_eq!(
        texts(s.clone(), json!({"a": {}, "m": {"k": "v"}, "c": 1})),
        [
            "<nil>: Too many: 3: must have at most 2 items",
            "a.x: Required value",
            "a: Invalid value: 0: a in body should have at least 1 properties",
            "b: Required value",
            "m.k: Invalid value: \"string\": m.k in body must be of type integer: \"string\"",
        ]
    );
    // A map at the root: kube-openapi's ".key" names, trimmed; a prefix.
    let m = json!({"type": "object", "additionalProperties": {"type": "string"}});
    let errs: Vec<String> = validate(&m, &json!({"k": 1}), "spec")
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        errs,
        ["spec.k: Invalid value: \"integer\": .k in body must be of type string: \"integer\""]
    );
    let f = json!({"type": "object", "properties": {"a": {}}, "additionalProperties": false,
        "patternProperties": {"^x-": {"type": "integer"}}});
    assert_eq!(
        texts(f, json!({"a": 1, "x-1": "s", "b": 2})),
        [
            "<nil>: Invalid value: \"b\": .b in body is a forbidden property",
            "x-1: Invalid value: \"string\": .x-1 in body must be of type integer: \"string\"",
        ]
    );
}

#[test]
fn schema_props_validator() {
    let s = obj(json!({
        "any": {"type": "string", "anyOf": [{"maxLength": 1}, {"pattern": "^a"}]},
        "one": {"type": "integer", "oneOf": [{"minimum": 0}, {"maximum": 10}]},
        "all": {"type": "string", "allOf": [{"minLength": 2}, {"maxLength": 3}]},
        "not": {"type": "string", "not": {"enum": ["x"]}}
    }));
    assert!(
        texts(
            s.clone(),
            json!({"any": "abc", "one": 20, "all": "ab", "not": "y"})
        )
        .is_empty()
    );
    assert_eq!(
        texts(
            s.clone(),
            json!({"any": "bcd", "one": 5, "all": "a", "not": "x"})
        ),
        [
            "<nil>: Invalid value: \"\": \"all\" must validate all the schemas (allOf)",
            "<nil>: Invalid value: \"\": \"any\" must validate at least one schema (anyOf)",
            "<nil>: Invalid value: \"\": \"not\" must not validate the schema (not)",
            "<nil>: Invalid value: \"\": \"one\" must validate one and only one schema (oneOf). Found 2 valid alternatives",
            "all: Invalid value: \"a\": all in body should be at least 2 chars long",
            "any: Too long: may not be more than 1 byte",
        ]
    );
    assert_eq!(
        texts(
            obj(json!({"all": {"allOf": [{"minLength": 5}, {"maxLength": 0}]}})),
            json!({"all": "ab"})
        ),
        [
            "<nil>: Invalid value: \"\": \"all\" must validate all the schemas (allOf). None validated",
            "all: Invalid value: \"ab\": all in body should be at least 5 chars long",
            "all: Too long: may not be more than 0 bytes",
        ]
    );
    let deps = json!({"type": "object", "dependencies": {"a": ["b"], "c": {"required": ["d"]}}});
    assert_eq!(
        texts(deps, json!({"a": 1, "c": 2})),
        [
            "<nil>: Invalid value: \"\": \"\" has a dependency on b",
            "c.d: Required value"
        ]
    );
}

#[test]
fn go_formatting() {
    for (f, go) in [
        (1e20, "1e+20"),
        (123456789.125, "1.23456789125e+08"),
        (100000.0, "100000"),
        (1e6, "1e+06"),
        (0.0001, "0.0001"),
        (0.00001, "1e-05"),
        (-2.5, "-2.5"),
    ] {
        assert_eq!(go_float(f), go);
    }
    assert_eq!(
        go_json(&json!([1.5, 1e21, 1e-7, "<\u{8}>"])),
        "[1.5,1e+21,1e-7,\"\\u003c\\b\\u003e\"]"
    );
    // Go's own answers.
    for (format, go) in [
        (
            "a %d %% %5.2f %",
            "a %!d(MISSING) % %!f(MISSING) %!(NOVERB)",
        ),
        ("x % 3836221195] y", "x %!(NOVERB)"),
        (
            "%[1]d %*d %.*d %[x]d %é",
            "%!d(BADINDEX) %!(BADWIDTH)%!d(MISSING) %!(BADPREC)%!d(MISSING) %!d(BADINDEX) %!é(MISSING)",
        ),
        ("%[", "%!(NOVERB)"),
        ("%[1", "%!(NOVERB)"),
        ("%[99999999]d", "%!d(BADINDEX)"),
        ("%.", "%!.(MISSING)"),
        ("%.5", "%!(NOVERB)"),
        ("%-+# 0v", "%!v(MISSING)"),
        ("%[1]2d", "%!d(BADINDEX)"),
        ("%3[1]d %[1].2d", "%!d(BADINDEX) %!d(BADINDEX)"),
        ("%.[1]d", "%!d(BADINDEX)"),
        ("100%", "100%!(NOVERB)"),
        ("%!", "%!!(MISSING)"),
        ("%[]d", "%!d(BADINDEX)"),
    ] {
        assert_eq!(go_sprintf_no_args(format), go, "{format}");
    }
    assert!(
        is_float64_json_integer(3.0)
            && !is_float64_json_integer(-1.5)
            && is_float64_json_integer(1e9 + 0.5)
    );
    assert_eq!(go_f64_to_i64(1e300), i64::MIN);
}

#[test]
fn go_regular_expressions() {
    let m = |p: &str, s: &str| go_regex(p).unwrap().is_match(s);
    assert!(m(r"\d", "a1") && !m(r"\d", "٣") && !m(r"^\w+$", "é") && m(r"\bx\b", "a x b"));
    assert!(m(r"a{,3}", "a{,3}") && m(r"\Q.*\E", "a.*") && !m(r"\Q.*\E", "ab") && m(r"[[a]", "["));
    assert!(m(r"[a&&b]", "&") && m(r"[[:alpha:]]", "q") && m(r"\<", "<") && m(r"x{2}", "xx"));
    assert!(m(r"[\d-]", "-") && m(r"[^\s]", "x") && !m(r"^[\S]$", " ") && m("(?i)K", "\u{212a}"));
    assert!(go_regex("(").is_err());
}
