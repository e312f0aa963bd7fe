//! The functions of the apiserver's CEL environment for CRD rules, every
//! overload with its argument and result types: `functions.json`, written
//! by `go run ./tests/cel functions` from k8s.io/apiserver's environment
//! itself (the standard library, the Kubernetes libraries — lists, regex,
//! URLs, quantity, IP/CIDR, format, semver — strings v2, sets, lists v3,
//! optional types), and checked against it by `tests/cel_differential.rs`.

use std::collections::HashMap;
use std::sync::OnceLock;

use serde_json::Value;

use super::types::Type;

/// The table, as the apiserver's environment prints it.
pub const TABLE: &str = include_str!("functions.json");

/// One overload of a function.
#[derive(Debug)]
pub struct Overload {
    /// Its id (`size_string`, `list_sets_contains_list`, …).
    pub id: String,
    /// Called as `target.function(args)`; the target is the first argument.
    pub member: bool,
    /// Its argument types.
    pub args: Vec<Type>,
    /// Its result type.
    pub result: Type,
}

/// Every overload of `function`, or `None` when the environment does not
/// declare it.
pub fn overloads(function: &str) -> Option<&'static [Overload]> {
    static BY_NAME: OnceLock<HashMap<String, Vec<Overload>>> = OnceLock::new();
    BY_NAME
        .get_or_init(|| {
            let table: Vec<Value> =
                serde_json::from_str(TABLE).expect("functions.json is the table");
            let mut by_name: HashMap<String, Vec<Overload>> = HashMap::new();
            for o in table {
                let name = o["function"].as_str().unwrap_or_default().to_string();
                by_name.entry(name).or_default().push(Overload {
                    id: o["overload"].as_str().unwrap_or_default().to_string(),
                    member: o["member"].as_bool().unwrap_or(false),
                    args: o["args"]
                        .as_array()
                        .map(|a| a.iter().map(Type::from_table).collect())
                        .unwrap_or_default(),
                    result: Type::from_table(&o["result"]),
                });
            }
            by_name
        })
        .get(function)
        .map(Vec::as_slice)
}

/// The names the environment declares as values: the type identifiers
/// (`int`, `string`, …), each of type `type(T)`.
pub fn type_ident(name: &str) -> Option<Type> {
    let t = match name {
        "bool" => Type::Bool,
        "bytes" => Type::Bytes,
        "double" => Type::Double,
        "google.protobuf.Duration" => Type::Duration,
        "int" => Type::Int,
        "list" => Type::List(Box::new(Type::Param("A".into()))),
        "map" => Type::Map(
            Box::new(Type::Param("A".into())),
            Box::new(Type::Param("B".into())),
        ),
        "null_type" => Type::Null,
        "string" => Type::String,
        "google.protobuf.Timestamp" => Type::Timestamp,
        "type" => Type::Type(Box::new(Type::Dyn)),
        "uint" => Type::Uint,
        _ => return None,
    };
    Some(Type::Type(Box::new(t)))
}
