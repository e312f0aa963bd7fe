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
    assert!(rules.contains(&"(has(self.a) ? 1 : 0) + (has(self.b__dash__c) ? 1 : 0) == 1"));
    assert_eq!(
        s["properties"]["a"]["x-kubernetes-validations"][0]["rule"],
        "self == oldSelf"
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
        let s = schema_for(&m, &no_nested).unwrap();
        structural::check(&s).unwrap_or_else(|e| panic!("{repr:?}: {e:?}\n{s:#}"));
        assert_eq!(s["type"], "object", "{repr:?}");
    }
    let internal = model(Shape::Enum {
        repr: Repr::Internal { tag: "kind".into() },
        variants: variants.clone(),
    });
    let s = schema_for(&internal, &no_nested).unwrap();
    assert_eq!(s["properties"]["kind"]["enum"], json!(["A", "B"]));
    assert_eq!(
        s["oneOf"][0],
        json!({"properties": {"kind": {"enum": ["A"]}}, "required": ["x"]})
    );
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
