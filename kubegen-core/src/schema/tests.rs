//! Unit tests of the schema builder on hand-written models.

use serde_json::{Value, json};

use super::*;
use crate::model::{Field, OneOf};

fn field(name: &str, ty: Ty) -> Field {
    Field {
        name: name.into(),
        description: None,
        required: !ty.is_option(),
        ty,
        flatten: false,
        constraints: Constraints::default(),
        default_from_type: false,
    }
}

fn no_nested(_: usize) -> Result<Value, SchemaError> {
    Err(SchemaError {
        path: String::new(),
        message: "none".into(),
    })
}

fn model(shape: Shape) -> TypeModel {
    TypeModel {
        name: "T".into(),
        description: Some("A type.".into()),
        shape,
        constraints: Constraints::default(),
    }
}

#[test]
fn struct_forms() {
    let mut replicas = field(
        "replicas",
        Ty::Int {
            bits: 32,
            signed: true,
        },
    );
    replicas.constraints.minimum = Some(1.into());
    let m = model(Shape::Struct {
        fields: vec![
            replicas,
            field("name", Ty::Option(Box::new(Ty::String { char: false }))),
            field(
                "count",
                Ty::Int {
                    bits: 64,
                    signed: false,
                },
            ),
            field(
                "tags",
                Ty::List {
                    item: Box::new(Ty::String { char: false }),
                    set: true,
                    len: None,
                },
            ),
            field("labels", Ty::Map(Box::new(Ty::String { char: false }))),
            field("raw", Ty::Json),
            field("port", Ty::IntOrString),
            field("at", Ty::DateTime),
            field("meta", Ty::ObjectMeta),
        ],
    });
    let s = schema_for(&m, &no_nested).unwrap();
    assert_eq!(
        s["required"],
        json!([
            "replicas", "count", "tags", "labels", "raw", "port", "at", "meta"
        ])
    );
    assert_eq!(
        s["properties"]["replicas"],
        json!({"type": "integer", "format": "int32", "minimum": 1})
    );
    assert_eq!(s["properties"]["count"]["minimum"], 0);
    assert_eq!(s["properties"]["tags"]["x-kubernetes-list-type"], "set");
    assert_eq!(
        s["properties"]["labels"]["additionalProperties"]["type"],
        "string"
    );
    assert_eq!(
        s["properties"]["raw"]["x-kubernetes-preserve-unknown-fields"],
        true
    );
    assert_eq!(s["properties"]["port"]["x-kubernetes-int-or-string"], true);
    assert_eq!(
        s["properties"]["meta"]["properties"]["labels"]["type"],
        "object"
    );
    assert_eq!(s["description"], "A type.");
    structural::check(&s).unwrap();
}

#[test]
fn one_of_and_immutable_rules() {
    let mut a = field("a", Ty::Option(Box::new(Ty::String { char: false })));
    a.constraints.immutable = true;
    let b = field("b-c", Ty::Option(Box::new(Ty::String { char: false })));
    let mut m = model(Shape::Struct { fields: vec![a, b] });
    m.constraints.one_of.push(OneOf {
        kind: OneOfKind::ExactlyOne,
        fields: vec!["a".into(), "b-c".into()],
    });
    let s = schema_for(&m, &no_nested).unwrap();
    let rules: Vec<&str> = s["x-kubernetes-validations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["rule"].as_str().unwrap())
        .collect();
    assert!(rules.contains(&"!has(oldSelf.a) || has(self.a)"));
    assert!(rules.contains(&"(has(self.a)?1:0)+(has(self.b__dash__c)?1:0) == 1"));
    assert_eq!(
        s["properties"]["a"]["x-kubernetes-validations"][0]["rule"],
        "self == oldSelf"
    );
}

/// controller-gen's `AtMostOneOf`, `ExactlyOneOf`, `AtLeastOneOf`: the same
/// rule text and message, ordered by kind after the type's own rules.
#[test]
fn one_of_rules_are_controller_gens() {
    let opt = |n: &str| field(n, Ty::Option(Box::new(Ty::String { char: false })));
    let mut m = model(Shape::Struct {
        fields: vec![opt("a"), opt("b"), opt("c")],
    });
    let one = |kind, fields: &[&str]| OneOf {
        kind,
        fields: fields.iter().map(|f| (*f).to_owned()).collect(),
    };
    m.constraints.one_of = vec![
        one(OneOfKind::AtLeastOne, &["b", "c"]),
        one(OneOfKind::ExactlyOne, &["a", "b"]),
        one(OneOfKind::AtMostOne, &["a", "c"]),
    ];
    m.constraints.validations.push(Validation {
        rule: "true".into(),
        message: None,
        message_expression: None,
        reason: None,
        field_path: None,
        optional_old_self: false,
    });
    let s = schema_for(&m, &no_nested).unwrap();
    assert_eq!(
        s["x-kubernetes-validations"],
        json!([
            {"rule": "true"},
            {"rule": "(has(self.a)?1:0)+(has(self.c)?1:0) <= 1",
             "message": "at most one of the fields in [a c] may be set"},
            {"rule": "(has(self.a)?1:0)+(has(self.b)?1:0) == 1",
             "message": "exactly one of the fields in [a b] must be set"},
            {"rule": "has(self.b)||has(self.c)",
             "message": "at least one of the fields in [b c] must be set"},
        ])
    );
}

/// `schema_type` replaces the Rust shape's type (an object keeps unknown
/// fields, an array's items come from `items(...)`); `schema_json` is the
/// node's schema, the doc comment added only where it has no description.
#[test]
fn schema_overrides() {
    let mut t = field("t", Ty::Json);
    t.constraints.schema_type = Some(SchemaType::String);
    t.constraints.format = Some("duration".into());
    t.description = Some("A duration.".into());
    let mut o = field("o", Ty::Json);
    o.constraints.schema_type = Some(SchemaType::Object);
    o.constraints.min_properties = Some(1);
    let mut a = field("a", Ty::Json);
    a.constraints.schema_type = Some(SchemaType::Array);
    a.constraints.items = Some(Box::new(Constraints {
        schema_type: Some(SchemaType::Integer),
        minimum: Some(1.into()),
        ..Constraints::default()
    }));
    let mut j = field("j", Ty::Json);
    j.constraints.schema_json = Some(obj(json!({"type": "string", "enum": ["x"]})));
    j.description = Some("Doc.".into());
    let mut jd = field("jd", Ty::Json);
    jd.constraints.schema_json = Some(obj(json!({"type": "string", "description": "Own."})));
    jd.description = Some("Doc.".into());
    let mut items = field(
        "items",
        Ty::List {
            item: Box::new(Ty::Json),
            set: false,
            len: None,
        },
    );
    items.constraints.items = Some(Box::new(Constraints {
        schema_json: Some(obj(json!({"type": "string", "format": "ipv4"}))),
        ..Constraints::default()
    }));
    let mut m = model(Shape::Struct {
        fields: vec![t, o, a, j, jd, items],
    });
    let s = schema_for(&m, &no_nested).unwrap();
    let p = &s["properties"];
    assert_eq!(
        p["t"],
        json!({"type": "string", "format": "duration", "description": "A duration."})
    );
    assert_eq!(
        p["o"],
        json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true, "minProperties": 1})
    );
    assert_eq!(
        p["a"],
        json!({"type": "array", "items": {"type": "integer", "minimum": 1}})
    );
    assert_eq!(
        p["j"],
        json!({"type": "string", "enum": ["x"], "description": "Doc."})
    );
    assert_eq!(p["jd"], json!({"type": "string", "description": "Own."}));
    assert_eq!(
        p["items"]["items"],
        json!({"type": "string", "format": "ipv4"})
    );
    // On a type: its fields are not described.
    m.constraints.schema_type = Some(SchemaType::String);
    m.constraints.pattern = Some("^v".into());
    let s = schema_for(&m, &no_nested).unwrap();
    assert_eq!(
        s,
        json!({"type": "string", "pattern": "^v", "description": "A type."})
    );
}

/// A field's keywords only tighten its nested type's: a different value
/// goes under `allOf` (both apply), an equal one is not repeated, rules add
/// up, and keywords that cannot hold two values are refused, naming the
/// field and the type.
#[test]
fn field_keywords_tighten_nested_types() {
    let nested = || {
        Ok(
            json!({"type": "string", "minLength": 4, "pattern": "^[a-z]+$", "format": "hostname",
            "x-kubernetes-validations": [{"rule": "self != 'x'"}]}),
        )
    };
    let named = || Ty::Named {
        name: "Name".into(),
        resolver: 0,
    };
    let mut f = field("name", named());
    f.constraints.min_length = Some(2);
    f.constraints.max_length = Some(8);
    f.constraints.pattern = Some("^[a-z]+$".into());
    f.constraints.validations.push(Validation {
        rule: "self != 'y'".into(),
        message: None,
        message_expression: None,
        reason: None,
        field_path: None,
        optional_old_self: false,
    });
    let m = model(Shape::Struct { fields: vec![f] });
    let s = schema_for(&m, &|_| nested()).unwrap();
    assert_eq!(
        s["properties"]["name"],
        json!({"type": "string", "maxLength": 8, "pattern": "^[a-z]+$",
            "format": "hostname", "allOf": [{"minLength": 4}, {"minLength": 2}],
            "x-kubernetes-validations": [{"rule": "self != 'x'"}, {"rule": "self != 'y'"}]})
    );
    structural::check(&s).unwrap();

    // A bound moves into `allOf` with its exclusive flag, beside the type's.
    let num = || Ok(json!({"type": "integer", "minimum": 1}));
    let mut f = field("n", named());
    f.constraints.minimum = Some(5.into());
    f.constraints.exclusive_minimum = true;
    let m = model(Shape::Struct { fields: vec![f] });
    let s = schema_for(&m, &|_| num()).unwrap();
    assert_eq!(
        s["properties"]["n"],
        json!({"type": "integer",
            "allOf": [{"minimum": 1}, {"minimum": 5, "exclusiveMinimum": true}]})
    );

    // Items of a nested type, and a newtype over one, tighten too.
    let mut items = field(
        "names",
        Ty::List {
            item: Box::new(named()),
            set: false,
            len: None,
        },
    );
    items.constraints.items = Some(Box::new(Constraints {
        min_length: Some(6),
        ..Constraints::default()
    }));
    let m = model(Shape::Struct {
        fields: vec![items],
    });
    let s = schema_for(&m, &|_| nested()).unwrap();
    assert_eq!(
        s["properties"]["names"]["items"]["allOf"],
        json!([{"minLength": 4}, {"minLength": 6}])
    );
    let mut newtype = model(Shape::Transparent {
        field: Box::new(field("", named())),
    });
    newtype.constraints.min_length = Some(1);
    let s = schema_for(&newtype, &|_| nested()).unwrap();
    assert_eq!(s["allOf"], json!([{"minLength": 4}, {"minLength": 1}]));

    // Refused: two formats, two list types, int-or-string over a schema.
    for (c, words) in [
        (
            Constraints {
                format: Some("email".into()),
                ..Constraints::default()
            },
            "it has format: \"hostname\", this field asks for \"email\"",
        ),
        (
            Constraints {
                int_or_string: true,
                ..Constraints::default()
            },
            "`int_or_string` would replace its schema",
        ),
    ] {
        let mut f = field("name", named());
        f.constraints = c;
        let m = model(Shape::Struct { fields: vec![f] });
        let e = schema_for(&m, &|_| nested()).unwrap_err();
        assert_eq!(e.path, "T.name");
        assert!(e.message.contains("its type `Name`"), "{e}");
        assert!(e.message.contains(words), "{e}");
    }
    let list = || {
        Ok(json!({"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"}))
    };
    let mut f = field("tags", named());
    f.constraints.list_type = Some("atomic".into());
    let m = model(Shape::Struct { fields: vec![f] });
    let e = schema_for(&m, &|_| list()).unwrap_err();
    assert!(e.message.contains("x-kubernetes-list-type"), "{e}");
}

/// Type-level keys on a newtype apply to its field's schema, `items(...)`
/// to its list's items (controller-gen's markers on `type Names []string`).
#[test]
fn type_level_keys_on_a_newtype() {
    let mut m = model(Shape::Transparent {
        field: Box::new(field(
            "",
            Ty::List {
                item: Box::new(Ty::String { char: false }),
                set: false,
                len: None,
            },
        )),
    });
    m.constraints.max_items = Some(3);
    m.constraints.items = Some(Box::new(Constraints {
        pattern: Some("^[a-z]+$".into()),
        ..Constraints::default()
    }));
    let s = schema_for(&m, &no_nested).unwrap();
    assert_eq!(
        s,
        json!({"type": "array", "maxItems": 3, "description": "A type.",
            "items": {"type": "string", "pattern": "^[a-z]+$"}})
    );
}

/// Integer map keys: an object of the values with a rule that every key
/// is what serde_json reads back as the key type.
#[test]
fn integer_map_keys() {
    let m = model(Shape::Struct {
        fields: vec![field(
            "byPort",
            Ty::IntKeyMap {
                bits: 8,
                signed: true,
                value: Box::new(Ty::String { char: false }),
            },
        )],
    });
    let s = schema_for(&m, &no_nested).unwrap();
    let p = &s["properties"]["byPort"];
    assert_eq!(p["additionalProperties"], json!({"type": "string"}));
    assert_eq!(
        p["x-kubernetes-validations"][0]["rule"],
        "self.all(k, k.matches('^-?(0|[1-9][0-9]*)$') && (k.startsWith('-') ? (size(k) < 4 || (size(k) == 4 && k <= '-128')) : (size(k) < 3 || (size(k) == 3 && k <= '127'))))"
    );
    let rule = int_key_rule(64, false);
    assert_eq!(
        rule["rule"],
        "self.all(k, k.matches('^(0|[1-9][0-9]*)$') && (size(k) < 20 || (size(k) == 20 && k <= '18446744073709551615')))"
    );
}

fn unit(name: &str) -> Variant {
    Variant {
        default: false,
        name: name.into(),
        description: None,
        data: VariantData::Unit,
    }
}

fn data(name: &str, fields: Vec<Field>) -> Variant {
    Variant {
        default: false,
        name: name.into(),
        description: None,
        data: VariantData::Struct(fields),
    }
}

#[test]
fn enum_representations() {
    let s_ty = || Ty::String { char: false };
    let unit_enum = model(Shape::Enum {
        repr: Repr::External,
        variants: vec![unit("A"), unit("B")],
    });
    assert_eq!(
        schema_for(&unit_enum, &no_nested).unwrap()["enum"],
        json!(["A", "B"])
    );

    let variants = vec![
        data("A", vec![field("x", s_ty())]),
        data("B", vec![field("y", s_ty())]),
    ];
    for repr in [
        Repr::External,
        Repr::Internal { tag: "kind".into() },
        Repr::Adjacent {
            tag: "t".into(),
            content: "c".into(),
        },
        Repr::Untagged,
    ] {
        let m = model(Shape::Enum {
            repr: repr.clone(),
            variants: variants.clone(),
        });
        let s = strip_marker(schema_for(&m, &no_nested).unwrap());
        structural::check(&s).unwrap_or_else(|e| panic!("{repr:?}: {e:?}\n{s:#}"));
        assert_eq!(s["type"], "object", "{repr:?}");
    }
    let internal = model(Shape::Enum {
        repr: Repr::Internal { tag: "kind".into() },
        variants: variants.clone(),
    });
    let s = schema_for(&internal, &no_nested).unwrap();
    assert_eq!(s["properties"]["kind"]["enum"], json!(["A", "B"]));
    // Exclusivity is a rule, not `oneOf` branches (whose errors named the
    // tag when a field was missing).
    assert!(s.get("oneOf").is_none(), "{s:#}");
    assert_eq!(s["required"], json!(["kind"]));
}

#[test]
fn untagged_scalars_become_int_or_string() {
    let v = |n: &str, ty: Ty| Variant {
        default: false,
        name: n.into(),
        description: None,
        data: VariantData::Newtype(Box::new(field("", ty))),
    };
    let m = model(Shape::Enum {
        repr: Repr::Untagged,
        variants: vec![
            v(
                "I",
                Ty::Int {
                    bits: 32,
                    signed: true,
                },
            ),
            v("S", Ty::String { char: false }),
        ],
    });
    let s = schema_for(&m, &no_nested).unwrap();
    assert_eq!(s["x-kubernetes-int-or-string"], true);
    structural::check(&s).unwrap();
}

#[test]
fn conflicting_untagged_is_an_error_not_a_panic() {
    let v = |n: &str, ty: Ty| Variant {
        default: false,
        name: n.into(),
        description: None,
        data: VariantData::Newtype(Box::new(field("", ty))),
    };
    let m = model(Shape::Enum {
        repr: Repr::Untagged,
        variants: vec![
            v("B", Ty::Bool),
            v(
                "L",
                Ty::List {
                    item: Box::new(Ty::Bool),
                    set: false,
                    len: None,
                },
            ),
        ],
    });
    assert!(
        schema_for(&m, &no_nested)
            .unwrap_err()
            .message
            .contains("cannot describe")
    );
}

#[test]
fn nested_and_flatten() {
    let nested = |_: usize| {
        Ok(
            json!({"type": "object", "properties": {"inner": {"type": "string"}}, "required": ["inner"]}),
        )
    };
    let mut flat = field(
        "",
        Ty::Named {
            name: "N".into(),
            resolver: 0,
        },
    );
    flat.flatten = true;
    let m = model(Shape::Struct {
        fields: vec![field("own", Ty::Bool), flat],
    });
    let s = schema_for(&m, &nested).unwrap();
    assert_eq!(s["required"], json!(["own", "inner"]));
    assert_eq!(s["properties"]["inner"]["type"], "string");
}

#[test]
fn unique_items_become_a_set_list_type() {
    // The apiserver forbids `uniqueItems: true`; `x-kubernetes-list-type: set`
    // is how it enforces unique items.
    let mut words = field(
        "words",
        Ty::List {
            item: Box::new(Ty::String { char: false }),
            set: false,
            len: None,
        },
    );
    words.constraints.unique_items = true;
    let s = schema_for(
        &model(Shape::Struct {
            fields: vec![words],
        }),
        &no_nested,
    )
    .unwrap();
    let words = &s["properties"]["words"];
    assert_eq!(words["x-kubernetes-list-type"], "set");
    assert!(words.get("uniqueItems").is_none(), "{words}");
    assert!(structural::check(&s).is_ok(), "{s}");
}

#[test]
fn serde_defaults_of_nested_enums_come_from_their_default_variant() {
    let mut fast = unit("Fast");
    fast.default = true;
    let mode = TypeModel {
        name: "Mode".into(),
        description: None,
        shape: Shape::Enum {
            repr: Repr::External,
            variants: vec![unit("Slow"), fast],
        },
        constraints: Constraints::default(),
    };
    let nested = |_: usize| schema_for(&mode, &no_nested);
    let mut f = field(
        "mode",
        Ty::Named {
            name: "Mode".into(),
            resolver: 0,
        },
    );
    f.required = false;
    f.default_from_type = true;
    let parent = TypeModel {
        name: "P".into(),
        description: None,
        shape: Shape::Struct {
            fields: vec![f.clone()],
        },
        constraints: Constraints::default(),
    };
    let s = schema_for(&parent, &nested).unwrap();
    assert_eq!(s["properties"]["mode"]["default"], "Fast");
    // The marker never reaches output, with or without a default asked for.
    assert!(!s.to_string().contains(SERDE_DEFAULT_KEY), "{s}");
    assert!(
        !strip_marker(schema_for(&mode, &no_nested).unwrap())
            .to_string()
            .contains(SERDE_DEFAULT_KEY)
    );

    // A nested type whose default is unknown is an error naming the field.
    let plain = TypeModel {
        name: "Plain".into(),
        description: None,
        shape: Shape::Enum {
            repr: Repr::External,
            variants: vec![unit("A")],
        },
        constraints: Constraints::default(),
    };
    let nested = |_: usize| schema_for(&plain, &no_nested);
    let e = schema_for(&parent, &nested).unwrap_err();
    assert!(e.to_string().contains("serde(default)"), "{e}");
}

// ---------------------------------------------------------------------------
// Enums with data: the exclusivity checks, measured against serde itself.
//
// Each test pairs a serde enum with the model the derive would build for it
// and runs every object over the enum's fields through both: serde's
// *lossless* reading (it reads the object and writing it back keeps every
// field) and the apiserver's verdict on the finished schema (its defaults,
// `required`, `enum`, junctors and the emitted CEL rules, parsed and
// evaluated as text). The verdicts must agree, once with the CEL rules and
// once with the structural junctors they fall back to.
// ---------------------------------------------------------------------------

mod enums {
    use std::collections::BTreeMap;

    use serde::de::DeserializeOwned;
    use serde::{Deserialize, Serialize};
    use serde_json::{Map, Value, json};

    use super::*;
    use crate::schema::cel::eval::{Val, eval, parse};
    use crate::schema::union::{self, UNION_RULES_KEY};

    fn string() -> Ty {
        Ty::String { char: false }
    }

    fn int() -> Ty {
        Ty::Int {
            bits: 64,
            signed: true,
        }
    }

    fn opt(name: &str, ty: Ty) -> Field {
        field(name, Ty::Option(Box::new(ty)))
    }

    fn newtype(name: &str, ty: Ty) -> Variant {
        Variant {
            default: false,
            name: name.into(),
            description: None,
            data: VariantData::Newtype(Box::new(field("", ty))),
        }
    }

    fn named(resolver: usize) -> Ty {
        Ty::Named {
            name: format!("N{resolver}"),
            resolver,
        }
    }

    fn enum_model(name: &str, repr: Repr, variants: Vec<Variant>) -> TypeModel {
        TypeModel {
            name: name.into(),
            description: None,
            shape: Shape::Enum { repr, variants },
            constraints: Constraints::default(),
        }
    }

    /// The schema a CRD would carry: markers settled, structural.
    fn finished(m: &TypeModel, resolve: Resolve<'_>) -> Value {
        let s = strip_marker(schema_for(m, resolve).unwrap());
        structural::check(&s).unwrap_or_else(|e| panic!("{e:?}\n{s:#}"));
        assert!(!s.to_string().contains(UNION_RULES_KEY), "{s:#}");
        s
    }

    /// The same, with every enum rule priced out of the budget: the
    /// structural junctors instead.
    fn junctors_only(m: &TypeModel, resolve: Resolve<'_>) -> Value {
        fn price_out(v: &mut Value) {
            match v {
                Value::Object(m) => {
                    if let Some(Value::Array(es)) = m.get_mut(UNION_RULES_KEY) {
                        for e in es {
                            e["cost"] = u64::MAX.into();
                        }
                    }
                    m.values_mut().for_each(price_out);
                }
                Value::Array(a) => a.iter_mut().for_each(price_out),
                _ => {}
            }
        }
        let mut s = schema_for(m, resolve).unwrap();
        price_out(&mut s);
        let s = strip_marker(s);
        structural::check(&s).unwrap_or_else(|e| panic!("{e:?}\n{s:#}"));
        assert!(!s.to_string().contains("x-kubernetes-validations"), "{s:#}");
        s
    }

    /// Every object over `fields`: each absent or one of its values.
    fn objects(fields: &[(&str, Vec<Value>)]) -> Vec<Value> {
        let mut out = vec![Map::new()];
        for (name, values) in fields {
            let mut next = Vec::new();
            for o in &out {
                next.push(o.clone());
                for v in values {
                    let mut o = o.clone();
                    o.insert((*name).into(), v.clone());
                    next.push(o);
                }
            }
            out = next;
        }
        out.into_iter().map(Value::Object).collect()
    }

    fn strings(vs: &[&str]) -> Vec<Value> {
        vs.iter().map(|v| json!(v)).collect()
    }

    /// Whether `big` holds everything `small` does.
    fn keeps(big: &Value, small: &Value) -> bool {
        match (big, small) {
            (Value::Object(b), Value::Object(s)) => s
                .iter()
                .all(|(k, v)| b.get(k).is_some_and(|bv| keeps(bv, v))),
            (b, s) => b == s,
        }
    }

    /// serde reads `obj` and writes back every field it had.
    fn serde_keeps<T: DeserializeOwned + Serialize>(obj: &Value) -> bool {
        serde_json::from_value::<T>(obj.clone())
            .is_ok_and(|t| keeps(&serde_json::to_value(t).unwrap(), obj))
    }

    /// The object as the apiserver stores it: top-level defaults filled in.
    fn defaulted(s: &Value, obj: &Value) -> Value {
        let mut obj = obj.clone();
        if let (Some(Value::Object(props)), Value::Object(o)) = (s.get("properties"), &mut obj) {
            for (k, p) in props {
                if let Some(d) = p.get("default") {
                    o.entry(k.clone()).or_insert_with(|| d.clone());
                }
            }
        }
        obj
    }

    /// The apiserver's verdict on a (defaulted) object: the presence
    /// keywords and junctors, then every rule at the top, as emitted.
    fn apiserver(s: &Value, obj: &Value) -> Result<(), Vec<String>> {
        let mut errors = Vec::new();
        if !union::eval::validates(s, obj) {
            errors.push("<structural>".to_owned());
        }
        for r in s["x-kubernetes-validations"]
            .as_array()
            .into_iter()
            .flatten()
        {
            let rule = parse(r["rule"].as_str().unwrap()).unwrap_or_else(|e| panic!("{e}: {r}"));
            match eval(&rule, obj) {
                Ok(Val::Bool(true)) => {}
                Ok(Val::Bool(false)) => {
                    let message = match r.get("messageExpression") {
                        Some(m) => {
                            let m = parse(m.as_str().unwrap()).unwrap();
                            match eval(&m, obj) {
                                Ok(Val::Str(text)) => text,
                                other => panic!("message of {r} on {obj}: {other:?}"),
                            }
                        }
                        None => r["message"].as_str().unwrap().to_owned(),
                    };
                    assert!(!message.trim().is_empty(), "{r} on {obj}");
                    errors.push(message);
                }
                other => panic!("rule {r} on {obj}: {other:?}"),
            }
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }

    /// Runs every object through serde and the schema (with rules, then
    /// junctors only); returns the rules' messages for each object refused.
    fn agree<T: DeserializeOwned + Serialize>(
        m: &TypeModel,
        resolve: Resolve<'_>,
        objs: &[Value],
    ) -> BTreeMap<String, String> {
        let with_rules = finished(m, resolve);
        let with_junctors = junctors_only(m, resolve);
        let mut messages = BTreeMap::new();
        for obj in objs {
            let obj = defaulted(&with_rules, obj);
            let serde = serde_keeps::<T>(&obj);
            let ours = apiserver(&with_rules, &obj);
            assert_eq!(
                serde,
                ours.is_ok(),
                "{obj}: serde {}, the rules say {ours:?}\n{with_rules:#}",
                if serde { "reads it" } else { "does not" }
            );
            let structural = apiserver(&with_junctors, &obj);
            assert_eq!(
                serde,
                structural.is_ok(),
                "{obj}: serde {}, the junctors say {structural:?}\n{with_junctors:#}",
                if serde { "reads it" } else { "does not" }
            );
            if let Err(e) = ours {
                messages.insert(obj.to_string(), e.join(" | "));
            }
        }
        messages
    }

    fn said(messages: &BTreeMap<String, String>, obj: Value) -> &str {
        messages
            .get(&obj.to_string())
            .unwrap_or_else(|| panic!("{obj} was accepted"))
    }

    #[derive(Serialize, Deserialize)]
    #[serde(tag = "type")]
    enum Source {
        Git {
            url: String,
            #[serde(default, skip_serializing_if = "Option::is_none")]
            branch: Option<String>,
        },
        S3 {
            bucket: String,
            #[serde(default, skip_serializing_if = "Option::is_none")]
            region: Option<String>,
            #[serde(default, skip_serializing_if = "Option::is_none")]
            url: Option<String>,
        },
        Empty,
    }

    fn source() -> TypeModel {
        enum_model(
            "Source",
            Repr::Internal { tag: "type".into() },
            vec![
                data("Git", vec![field("url", string()), opt("branch", string())]),
                data(
                    "S3",
                    vec![
                        field("bucket", string()),
                        opt("region", string()),
                        opt("url", string()),
                    ],
                ),
                unit("Empty"),
            ],
        )
    }

    #[test]
    fn internally_tagged_variants_are_exclusive() {
        let objs = objects(&[
            ("type", strings(&["Git", "S3", "Empty", "Bogus"])),
            ("url", strings(&["u"])),
            ("branch", strings(&["b"])),
            ("bucket", strings(&["k"])),
            ("region", strings(&["r"])),
        ]);
        let said_for = agree::<Source>(&source(), &no_nested, &objs);
        let says = |o| said(&said_for, o).to_owned();
        // The measured data loss: another variant's field is refused.
        assert_eq!(
            says(json!({"type": "Git", "url": "u", "bucket": "k"})),
            "variant Git does not allow field bucket"
        );
        // The missing field is what is reported, not the tag.
        assert_eq!(
            says(json!({"type": "S3", "url": "u"})),
            "variant S3 requires field bucket"
        );
        assert_eq!(
            says(json!({"type": "S3", "branch": "b"})),
            "variant S3 requires field bucket; variant S3 does not allow field branch"
        );
        assert_eq!(
            says(json!({"type": "Empty", "url": "u"})),
            "variant Empty does not allow field url"
        );
        // A field both variants have is nobody's stray.
        assert!(
            !said_for.contains_key(&json!({"type": "S3", "bucket": "k", "url": "u"}).to_string())
        );
        // An absent or unknown tag is the structural schema's to report.
        assert_eq!(says(json!({"url": "u"})), "<structural>");
        assert_eq!(says(json!({"type": "Bogus"})), "<structural>");

        let s = finished(&source(), &no_nested);
        assert_eq!(s["required"], json!(["type"]));
        let rules = s["x-kubernetes-validations"].as_array().unwrap();
        assert_eq!(rules.len(), 1, "one rule per enum: {s:#}");
        assert_eq!(
            rules[0]["rule"],
            "!has(self.type) || (self.type == 'Git' ? has(self.url) && !has(self.bucket) && !has(self.region) : self.type == 'S3' ? has(self.bucket) && !has(self.branch) : self.type != 'Empty' || (!has(self.branch) && !has(self.url) && !has(self.bucket) && !has(self.region)))"
        );
    }

    #[derive(Serialize, Deserialize)]
    #[serde(tag = "kind", content = "spec")]
    enum Step {
        Git {
            url: String,
            #[serde(default, skip_serializing_if = "Option::is_none")]
            branch: Option<String>,
        },
        S3 {
            bucket: String,
        },
        Pause,
    }

    #[test]
    fn adjacently_tagged_variants_are_exclusive() {
        let m = enum_model(
            "Step",
            Repr::Adjacent {
                tag: "kind".into(),
                content: "spec".into(),
            },
            vec![
                data("Git", vec![field("url", string()), opt("branch", string())]),
                data("S3", vec![field("bucket", string())]),
                unit("Pause"),
            ],
        );
        let specs = objects(&[
            ("url", strings(&["u"])),
            ("branch", strings(&["b"])),
            ("bucket", strings(&["k"])),
        ]);
        let objs = objects(&[
            ("kind", strings(&["Git", "S3", "Pause", "Bogus"])),
            ("spec", specs),
        ]);
        let said_for = agree::<Step>(&m, &no_nested, &objs);
        let says = |o| said(&said_for, o).to_owned();
        assert_eq!(
            says(json!({"kind": "Git", "spec": {"url": "u", "bucket": "k"}})),
            "variant Git does not allow field spec.bucket"
        );
        assert_eq!(
            says(json!({"kind": "S3", "spec": {"url": "u"}})),
            "variant S3 requires field spec.bucket; variant S3 does not allow field spec.url"
        );
        assert_eq!(
            says(json!({"kind": "S3"})),
            "variant S3 requires field spec"
        );
        assert_eq!(
            says(json!({"kind": "Pause", "spec": {}})),
            "variant Pause does not allow field spec"
        );
    }

    #[derive(Serialize, Deserialize)]
    #[serde(tag = "kind", content = "value")]
    enum Note {
        Text(String),
        Maybe(Option<String>),
        Blank,
    }

    #[test]
    fn adjacently_tagged_scalars_need_their_content() {
        let m = enum_model(
            "Note",
            Repr::Adjacent {
                tag: "kind".into(),
                content: "value".into(),
            },
            vec![
                newtype("Text", string()),
                newtype("Maybe", Ty::Option(Box::new(string()))),
                unit("Blank"),
            ],
        );
        let objs = objects(&[
            ("kind", strings(&["Text", "Maybe", "Blank"])),
            ("value", strings(&["v"])),
        ]);
        let said_for = agree::<Note>(&m, &no_nested, &objs);
        assert_eq!(
            said(&said_for, json!({"kind": "Text"})),
            "variant Text requires field value"
        );
        assert_eq!(
            said(&said_for, json!({"kind": "Blank", "value": "v"})),
            "variant Blank does not allow field value"
        );
    }

    #[derive(Serialize, Deserialize)]
    #[serde(rename_all = "camelCase")]
    enum Figure {
        Circle { radius: i64 },
        Square { side: i64 },
        Dot {},
    }

    #[test]
    fn externally_tagged_variants_are_exclusive() {
        let m = enum_model(
            "Figure",
            Repr::External,
            vec![
                data("circle", vec![field("radius", int())]),
                data("square", vec![field("side", int())]),
                data("dot", vec![]),
            ],
        );
        let objs = objects(&[
            ("circle", vec![json!({"radius": 1})]),
            ("square", vec![json!({"side": 2})]),
            ("dot", vec![json!({})]),
        ]);
        let said_for = agree::<Figure>(&m, &no_nested, &objs);
        assert_eq!(
            said(
                &said_for,
                json!({"circle": {"radius": 1}, "square": {"side": 2}})
            ),
            "variant circle does not allow field square"
        );
        assert_eq!(
            said(
                &said_for,
                json!({"circle": {"radius": 1}, "square": {"side": 2}, "dot": {}})
            ),
            "variant circle does not allow field square; variant circle does not allow field dot"
        );
        assert_eq!(
            said(&said_for, json!({"square": {"side": 2}, "dot": {}})),
            "variant square does not allow field dot"
        );
        assert_eq!(
            said(&said_for, json!({})),
            "exactly one of the variants circle, square, dot must be set"
        );
        // The old `oneOf` of `required` is the junctor form.
        let s = junctors_only(&m, &no_nested);
        assert_eq!(
            s["allOf"],
            json!([{"oneOf": [{"required": ["circle"]}, {"required": ["square"]}, {"required": ["dot"]}]}])
        );
    }

    #[derive(Serialize, Deserialize)]
    #[serde(untagged)]
    enum Who {
        ByName {
            name: String,
            #[serde(default, skip_serializing_if = "Option::is_none")]
            namespace: Option<String>,
        },
        ById {
            id: String,
        },
        Both {
            name: String,
            id: String,
            extra: String,
        },
    }

    fn who() -> TypeModel {
        enum_model(
            "Who",
            Repr::Untagged,
            vec![
                data(
                    "ByName",
                    vec![field("name", string()), opt("namespace", string())],
                ),
                data("ById", vec![field("id", string())]),
                data(
                    "Both",
                    vec![
                        field("name", string()),
                        field("id", string()),
                        field("extra", string()),
                    ],
                ),
            ],
        )
    }

    #[test]
    fn untagged_objects_match_the_variant_serde_picks() {
        let objs = objects(&[
            ("name", strings(&["n"])),
            ("namespace", strings(&["s"])),
            ("id", strings(&["i"])),
            ("extra", strings(&["e"])),
        ]);
        let said_for = agree::<Who>(&who(), &no_nested, &objs);
        let says = |o| said(&said_for, o).to_owned();
        // serde picks ByName for anything with a name and drops the rest:
        // `Both` can never be read, and the schema says why.
        assert_eq!(
            says(json!({"name": "n", "id": "i"})),
            "variant ByName does not allow field id"
        );
        assert_eq!(
            says(json!({"name": "n", "id": "i", "extra": "e"})),
            "variant ByName does not allow field id; variant ByName does not allow field extra"
        );
        // No variant's required fields: the variant the fields point to.
        assert_eq!(
            says(json!({"namespace": "s"})),
            "variant ByName requires field name"
        );
        assert_eq!(
            says(json!({"extra": "e"})),
            "variant Both requires field name; variant Both requires field id"
        );
        assert_eq!(
            says(json!({})),
            "no variant matches: variant ByName requires field name; variant ById requires field id; variant Both requires fields name, id, extra"
        );
    }

    #[derive(Serialize, Deserialize)]
    #[serde(untagged)]
    enum Key {
        Named { key: String },
        Numbered { key: i64, count: i64 },
    }

    #[test]
    fn untagged_variants_sharing_a_field_of_another_type_never_refuse_serde() {
        let m = enum_model(
            "Key",
            Repr::Untagged,
            vec![
                data("Named", vec![field("key", string())]),
                data("Numbered", vec![field("key", int()), field("count", int())]),
            ],
        );
        let s = finished(&m, &no_nested);
        let mut lenient = Vec::new();
        for obj in objects(&[
            ("key", vec![json!("s"), json!(5)]),
            ("count", vec![json!(7)]),
        ]) {
            let serde = serde_keeps::<Key>(&obj);
            let ours = apiserver(&s, &obj).is_ok();
            assert!(ours || !serde, "{obj} is read by serde but refused: {s:#}");
            if ours && !serde {
                lenient.push(obj);
            }
        }
        // Presence cannot tell `"s"` from `5`: what the rule lets through.
        assert_eq!(
            lenient,
            [json!({"key": "s", "count": 7}), json!({"key": 5})]
        );
    }

    #[derive(Serialize, Deserialize)]
    struct Holder {
        own: String,
        #[serde(flatten)]
        pick: Pick,
        #[serde(flatten)]
        mode: Option<Mode>,
    }

    #[derive(Serialize, Deserialize)]
    #[serde(untagged)]
    enum Pick {
        ByName { name: String },
        ById { id: String },
    }

    #[derive(Serialize, Deserialize)]
    #[serde(tag = "mode")]
    enum Mode {
        Fast { speed: String },
        Slow,
    }

    #[test]
    fn flattened_enums_are_exclusive_and_an_absent_option_is_fine() {
        let pick = enum_model(
            "Pick",
            Repr::Untagged,
            vec![
                data("ByName", vec![field("name", string())]),
                data("ById", vec![field("id", string())]),
            ],
        );
        let mode = enum_model(
            "Mode",
            Repr::Internal { tag: "mode".into() },
            vec![data("Fast", vec![field("speed", string())]), unit("Slow")],
        );
        let resolve = |i: usize| schema_for(if i == 0 { &pick } else { &mode }, &no_nested);
        let mut flat_pick = field("", named(0));
        flat_pick.flatten = true;
        flat_pick.required = false;
        let mut flat_mode = field("", Ty::Option(Box::new(named(1))));
        flat_mode.flatten = true;
        let holder = model(Shape::Struct {
            fields: vec![field("own", string()), flat_pick, flat_mode],
        });
        let objs = objects(&[
            ("own", strings(&["o"])),
            ("name", strings(&["n"])),
            ("id", strings(&["i"])),
            ("mode", strings(&["Fast", "Slow"])),
            ("speed", strings(&["v"])),
        ]);
        let said_for = agree::<Holder>(&holder, &resolve, &objs);
        let says = |o| said(&said_for, o).to_owned();
        assert_eq!(
            says(json!({"own": "o", "name": "n", "id": "i"})),
            "variant ByName does not allow field id"
        );
        assert_eq!(
            says(json!({"own": "o", "name": "n", "mode": "Fast"})),
            "variant Fast requires field speed"
        );
        // serde would read `None` and drop `speed`.
        assert_eq!(
            says(json!({"own": "o", "name": "n", "speed": "v"})),
            "field mode is required"
        );
        assert!(!said_for.contains_key(&json!({"own": "o", "id": "i"}).to_string()));
    }

    #[derive(Serialize, Deserialize)]
    #[serde(tag = "type")]
    enum Tuned {
        Git {
            url: String,
            #[serde(default = "one")]
            depth: i64,
            #[serde(default = "three")]
            retries: i64,
        },
        S3 {
            bucket: String,
            #[serde(default = "three")]
            retries: i64,
        },
    }

    fn one() -> i64 {
        1
    }

    fn three() -> i64 {
        3
    }

    #[test]
    fn defaults_of_one_variants_fields_are_not_added_to_the_others() {
        let defaulted = |name: &str, v: i64| {
            let mut f = field(name, int());
            f.required = false;
            f.constraints.default = Some(v.into());
            f
        };
        let m = enum_model(
            "Tuned",
            Repr::Internal { tag: "type".into() },
            vec![
                data(
                    "Git",
                    vec![
                        field("url", string()),
                        defaulted("depth", 1),
                        defaulted("retries", 3),
                    ],
                ),
                data(
                    "S3",
                    vec![field("bucket", string()), defaulted("retries", 3)],
                ),
            ],
        );
        let s = finished(&m, &no_nested);
        // The apiserver would add `depth` to every S3 object.
        assert!(s["properties"]["depth"].get("default").is_none(), "{s:#}");
        assert_eq!(s["properties"]["retries"]["default"], 3);
        let objs = objects(&[
            ("type", strings(&["Git", "S3"])),
            ("url", strings(&["u"])),
            ("bucket", strings(&["k"])),
            ("depth", vec![json!(2)]),
        ]);
        let said_for = agree::<Tuned>(&m, &no_nested, &objs);
        assert!(
            !said_for.contains_key(&json!({"type": "S3", "bucket": "k", "retries": 3}).to_string())
        );
    }

    #[test]
    fn a_variants_own_rules_apply_only_to_it() {
        let sized = |_: usize| {
            Ok(
                json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"],
                "x-kubernetes-validations": [{"rule": "self.n > 0"}]}),
            )
        };
        let m = enum_model(
            "E",
            Repr::Internal { tag: "type".into() },
            vec![newtype("Sized", named(0)), unit("Other")],
        );
        let s = finished(&m, &sized);
        let rules: Vec<&str> = s["x-kubernetes-validations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["rule"].as_str().unwrap())
            .collect();
        assert!(
            rules.contains(&"!has(self.type) || self.type != 'Sized' || (self.n > 0)"),
            "{rules:?}"
        );
    }

    #[test]
    fn properties_cel_cannot_name_use_junctors() {
        let m = enum_model(
            "E",
            Repr::Internal { tag: "type".into() },
            vec![
                data("A", vec![field("a b", string())]),
                data("B", vec![field("c", string())]),
            ],
        );
        let s = finished(&m, &no_nested);
        assert!(s.get("x-kubernetes-validations").is_none(), "{s:#}");
        for (obj, ok) in [
            (json!({"type": "A", "a b": "x"}), true),
            (json!({"type": "A", "a b": "x", "c": "y"}), false),
            (json!({"type": "B", "a b": "x", "c": "y"}), false),
            (json!({"type": "B"}), false),
        ] {
            assert_eq!(apiserver(&s, &obj).is_ok(), ok, "{obj}: {s:#}");
        }
        // A `serde_json::Value` field has no CEL type either.
        let m = enum_model(
            "E",
            Repr::Internal { tag: "type".into() },
            vec![
                data("A", vec![field("raw", Ty::Json)]),
                data("B", vec![field("c", string())]),
            ],
        );
        let s = finished(&m, &no_nested);
        assert!(s.get("x-kubernetes-validations").is_none(), "{s:#}");
        assert!(s.get("allOf").is_some(), "{s:#}");
    }

    /// An enum of `n` variants with three fields each: a rule that costs
    /// more the larger `n` is.
    fn wide(n: usize) -> TypeModel {
        let variants = (0..n)
            .map(|i| {
                data(
                    &format!("V{i}"),
                    (0..3)
                        .map(|j| field(&format!("f{i}x{j}"), string()))
                        .collect(),
                )
            })
            .collect();
        enum_model("Wide", Repr::Internal { tag: "type".into() }, variants)
    }

    fn in_lists(max_items: Option<u64>) -> TypeModel {
        let list = |name: &str, max: Option<u64>| {
            let mut f = field(
                name,
                Ty::List {
                    item: Box::new(named(0)),
                    set: false,
                    len: None,
                },
            );
            f.constraints.max_items = max;
            f
        };
        model(Shape::Struct {
            fields: vec![field("one", named(0)), list("many", max_items)],
        })
    }

    fn rules_at(s: &Value, pointer: &str) -> bool {
        s.pointer(pointer)
            .and_then(|n| n.get("x-kubernetes-validations"))
            .is_some()
    }

    #[test]
    fn enum_rules_stay_within_the_apiservers_cost_budget() {
        // A small enum in a list without a limit keeps its rule: one
        // evaluation costs 19, and an object of at least 12 bytes repeats
        // at most 3145728 / 13 times.
        let small = source();
        let s = finished(&in_lists(None), &|_| schema_for(&small, &no_nested));
        assert!(rules_at(&s, "/properties/one"), "{s:#}");
        assert!(rules_at(&s, "/properties/many/items"), "{s:#}");

        // A wide one costs too much there and uses its junctors; at the top
        // level, or with `max_items`, it keeps its rule.
        let wide = wide(12);
        let resolve = |_: usize| schema_for(&wide, &no_nested);
        let s = finished(&in_lists(None), &resolve);
        assert!(rules_at(&s, "/properties/one"), "{s:#}");
        assert!(!rules_at(&s, "/properties/many/items"));
        assert!(s.pointer("/properties/many/items/allOf").is_some());
        let s = finished(&in_lists(Some(100)), &resolve);
        assert!(rules_at(&s, "/properties/many/items"), "{s:#}");
    }

    #[test]
    fn a_rules_recorded_cost_is_the_estimate_of_its_text() {
        let s = schema_for(&wide(12), &no_nested).unwrap();
        let entry = &s[UNION_RULES_KEY][0];
        let text = entry["rule"]["rule"].as_str().unwrap();
        let cost = entry["cost"].as_u64().unwrap();
        // Parsed back, the text has the same estimate (tag sizes aside,
        // which the parser cannot know: each `==` costs 1 either way here).
        let parsed = parse(text).unwrap();
        assert_eq!(
            parsed.render(),
            text,
            "the text round-trips through the test parser"
        );
        assert!(cost > 30, "{cost}");
        let small = schema_for(&source(), &no_nested).unwrap();
        assert_eq!(small[UNION_RULES_KEY][0]["cost"], 19);
        let runs = cel::unbounded_cardinality(s.as_object().unwrap());
        assert!(cost * runs > union::UNION_RULE_BUDGET, "{cost} x {runs}");
    }
}

/// Integers take no number serde cannot read back: the apiserver checks a
/// number only against its format's range, so narrower types get their
/// bounds and a `u32` is `int64` (under `int32` half its values would be
/// refused). `ByteString` is base64 in a string.
#[test]
fn integer_widths_and_bytes() {
    let int = |bits, signed| Ty::Int { bits, signed };
    let fields = vec![
        field("a", int(8, true)),
        field("b", int(8, false)),
        field("c", int(16, true)),
        field("d", int(16, false)),
        field("e", int(32, true)),
        field("f", int(32, false)),
        field("g", int(64, true)),
        field("h", int(64, false)),
        field("bytes", Ty::Bytes),
    ];
    let s = schema_for(&model(Shape::Struct { fields }), &|_| unreachable!()).unwrap();
    let p = &s["properties"];
    let expect = [
        (
            "a",
            json!({"type": "integer", "format": "int32", "minimum": -128, "maximum": 127}),
        ),
        (
            "b",
            json!({"type": "integer", "format": "int32", "minimum": 0, "maximum": 255}),
        ),
        (
            "c",
            json!({"type": "integer", "format": "int32", "minimum": -32768, "maximum": 32767}),
        ),
        (
            "d",
            json!({"type": "integer", "format": "int32", "minimum": 0, "maximum": 65535}),
        ),
        ("e", json!({"type": "integer", "format": "int32"})),
        (
            "f",
            json!({"type": "integer", "format": "int64", "minimum": 0, "maximum": 4294967295_u64}),
        ),
        ("g", json!({"type": "integer", "format": "int64"})),
        (
            "h",
            json!({"type": "integer", "format": "int64", "minimum": 0}),
        ),
        ("bytes", json!({"type": "string", "format": "byte"})),
    ];
    for (name, want) in expect {
        assert_eq!(p[name], want, "{name}");
    }
    structural::check(&s).unwrap();
}
