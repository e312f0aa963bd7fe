//! CEL's types as the apiserver's checker sees them: the primitive and
//! aggregate types, the Kubernetes library's opaque types, type
//! parameters of the function table, and the object types a schema
//! declares (`SchemaDeclType` in k8s.io/apiserver: properties become
//! fields under their escaped names, `additionalProperties` a map,
//! `int-or-string` `dyn`, formats `byte`, `duration`, `date` and
//! `date-time` bytes, durations and timestamps).

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use serde_json::Value;

/// A schema marker for a type the code generator cannot see (a field of
/// another type while a derive runs): its CEL type is `dyn`, so a rule is
/// refused only for what is certain. Never written to a CRD.
pub const UNKNOWN: &str = "x-kubegen-unknown-type";

/// A CEL type.
#[derive(Clone, Debug, PartialEq)]
pub enum Type {
    /// `dyn`: any value, checked at run time.
    Dyn,
    /// A type the checker could not compute (after an error).
    Error,
    /// `null_type`
    Null,
    /// `bool`
    Bool,
    /// `int`
    Int,
    /// `uint`
    Uint,
    /// `double`
    Double,
    /// `string`
    String,
    /// `bytes`
    Bytes,
    /// `google.protobuf.Duration`
    Duration,
    /// `google.protobuf.Timestamp`
    Timestamp,
    /// `list(T)`
    List(Box<Type>),
    /// `map(K, V)`
    Map(Box<Type>, Box<Type>),
    /// `optional_type(T)`
    Optional(Box<Type>),
    /// `type(T)`: a type as a value (`int`, `type(x)`).
    Type(Box<Type>),
    /// A named type of a library (`kubernetes.Quantity`, `net.IP`, …).
    Opaque(String),
    /// An object a schema declares.
    Object(Arc<Object>),
    /// A type parameter of an overload (`A` in `size(list(A))`).
    Param(String),
}

/// An object type: its name (as the apiserver names it in messages) and
/// its fields.
#[derive(Debug, PartialEq)]
pub struct Object {
    /// `selfType`, `selfType.spec`, …
    pub name: String,
    /// Field types by escaped name.
    pub fields: BTreeMap<String, Type>,
}

/// A type as the apiserver's messages write it (cel-go's `FormatCELType`).
impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Dyn => f.write_str("dyn"),
            Type::Error => f.write_str("!error!"),
            Type::Null => f.write_str("null"),
            Type::Bool => f.write_str("bool"),
            Type::Int => f.write_str("int"),
            Type::Uint => f.write_str("uint"),
            Type::Double => f.write_str("double"),
            Type::String => f.write_str("string"),
            Type::Bytes => f.write_str("bytes"),
            Type::Duration => f.write_str("duration"),
            Type::Timestamp => f.write_str("timestamp"),
            Type::List(e) => write!(f, "list({e})"),
            Type::Map(k, v) => write!(f, "map({k}, {v})"),
            Type::Optional(t) => write!(f, "optional_type({t})"),
            Type::Type(t) => write!(f, "type({t})"),
            Type::Opaque(name) => f.write_str(name),
            Type::Object(o) => f.write_str(&o.name),
            Type::Param(p) => f.write_str(p),
        }
    }
}

impl Type {
    /// The type's name without parameters (cel-go's `TypeName`: `list`,
    /// `google.protobuf.Duration`, an object's name).
    pub fn type_name(&self) -> String {
        match self {
            Type::Dyn => "dyn".into(),
            Type::Error => "*error*".into(),
            Type::Null => "null_type".into(),
            Type::Duration => "google.protobuf.Duration".into(),
            Type::Timestamp => "google.protobuf.Timestamp".into(),
            Type::List(_) => "list".into(),
            Type::Map(..) => "map".into(),
            Type::Optional(_) => "optional_type".into(),
            Type::Type(_) => "type".into(),
            other => other.to_string(),
        }
    }

    /// A type of the function table (`tests/cel/main.go functions`): a
    /// name, `{"param": name}` or `{"name": …, "params": […]}`.
    pub fn from_table(v: &Value) -> Type {
        match v {
            Value::String(name) => Type::named(name, Vec::new()),
            Value::Object(o) => match o.get("param") {
                Some(p) => Type::Param(p.as_str().unwrap_or_default().to_string()),
                None => Type::named(
                    o.get("name").and_then(Value::as_str).unwrap_or_default(),
                    o.get("params")
                        .and_then(Value::as_array)
                        .map(|ps| ps.iter().map(Type::from_table).collect())
                        .unwrap_or_default(),
                ),
            },
            _ => Type::Error,
        }
    }

    fn named(name: &str, mut params: Vec<Type>) -> Type {
        let mut param = || {
            Box::new(if params.is_empty() {
                Type::Dyn
            } else {
                params.remove(0)
            })
        };
        match name {
            "dyn" => Type::Dyn,
            "null_type" => Type::Null,
            "bool" => Type::Bool,
            "int" => Type::Int,
            "uint" => Type::Uint,
            "double" => Type::Double,
            "string" => Type::String,
            "bytes" => Type::Bytes,
            "google.protobuf.Duration" => Type::Duration,
            "google.protobuf.Timestamp" => Type::Timestamp,
            "list" => Type::List(param()),
            "map" => {
                let k = param();
                Type::Map(k, param())
            }
            "optional_type" => Type::Optional(param()),
            "type" => Type::Type(param()),
            other => Type::Opaque(other.to_string()),
        }
    }

    /// The type a structural schema declares, as the apiserver declares it
    /// (`None` where it declares none: an array without items, a schema
    /// without a type); objects are named `name`, their object fields
    /// `name.field`, list elements `name.@idx`, map values `name.@elem`. `resource_root` adds `apiVersion`, `kind` and
    /// `metadata` (`name`, `generateName`) as for an embedded resource. A
    /// schema marked [`UNKNOWN`] is `dyn`.
    pub fn of_schema(schema: &Value, name: &str, resource_root: bool) -> Option<Type> {
        let s = schema.as_object()?;
        let flag = |key: &str| s.get(key).and_then(Value::as_bool).unwrap_or(false);
        if flag("x-kubernetes-int-or-string") || flag(UNKNOWN) {
            return Some(Type::Dyn);
        }
        let embedded = |v: &Value| {
            v.get("x-kubernetes-embedded-resource")
                .and_then(Value::as_bool)
                .unwrap_or(false)
        };
        match s.get("type").and_then(Value::as_str).unwrap_or("") {
            "array" => {
                let items = s.get("items")?;
                Some(Type::List(Box::new(Type::of_schema(
                    items,
                    &format!("{name}.@idx"),
                    embedded(items),
                )?)))
            }
            "object" => {
                if let Some(props) = s.get("additionalProperties").filter(|v| v.is_object()) {
                    let value = Type::of_schema(props, &format!("{name}.@elem"), embedded(props))?;
                    return Some(Type::Map(Box::new(Type::String), Box::new(value)));
                }
                let mut fields = BTreeMap::new();
                if let Some(props) = s.get("properties").and_then(Value::as_object) {
                    for (prop, sub) in props {
                        let Some(escaped) = crate::schema::cel::escape(prop) else {
                            continue;
                        };
                        if let Some(t) =
                            Type::of_schema(sub, &format!("{name}.{escaped}"), embedded(sub))
                        {
                            fields.insert(escaped, t);
                        }
                    }
                }
                if resource_root {
                    let meta = |field: &str| fields.get(field).cloned();
                    let is_string = |t: Option<Type>| t == Some(Type::String);
                    let complete = is_string(meta("kind"))
                        && is_string(meta("apiVersion"))
                        && matches!(meta("metadata"), Some(Type::Object(ref m))
                            if m.fields.get("name") == Some(&Type::String)
                                && m.fields.get("generateName") == Some(&Type::String));
                    if !complete {
                        fields.insert("kind".into(), Type::String);
                        fields.insert("apiVersion".into(), Type::String);
                        let metadata = crate::sorting::collect_map(
                            [("name", Type::String), ("generateName", Type::String)]
                                .into_iter()
                                .map(|(k, t)| (k.to_string(), t)),
                        );
                        fields.insert(
                            "metadata".into(),
                            Type::Object(Arc::new(Object {
                                name: format!("{name}.metadata"),
                                fields: metadata,
                            })),
                        );
                    }
                }
                Some(Type::Object(Arc::new(Object {
                    name: name.to_string(),
                    fields,
                })))
            }
            "string" => Some(match s.get("format").and_then(Value::as_str) {
                Some("byte") => Type::Bytes,
                Some("duration") => Type::Duration,
                Some("date" | "date-time") => Type::Timestamp,
                _ => Type::String,
            }),
            "boolean" => Some(Type::Bool),
            "number" => Some(Type::Double),
            "integer" => Some(Type::Int),
            _ => None,
        }
    }
}
