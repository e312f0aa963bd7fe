//! A kubeconfig's YAML read into JSON values (kubeconfigs are YAML, JSON
//! being YAML too): mappings with string keys, sequences, and scalars as
//! YAML 1.2's core schema types them.

use serde_json::{Map, Number, Value};
use yaml_rust2::{Yaml, YamlLoader};

/// The first document of `text` as JSON (an empty file is `null`).
pub(crate) fn to_json(text: &str) -> Result<Value, String> {
    let documents = YamlLoader::load_from_str(text).map_err(|e| e.to_string())?;
    match documents.into_iter().next() {
        None => Ok(Value::Null),
        Some(document) => convert(document),
    }
}

fn convert(yaml: Yaml) -> Result<Value, String> {
    Ok(match yaml {
        Yaml::Null => Value::Null,
        Yaml::Boolean(b) => Value::Bool(b),
        Yaml::Integer(i) => Value::Number(i.into()),
        Yaml::Real(text) => match text.parse::<f64>().ok().and_then(Number::from_f64) {
            Some(n) => Value::Number(n),
            None => Value::String(text),
        },
        Yaml::String(s) => Value::String(s),
        Yaml::Array(items) => {
            Value::Array(items.into_iter().map(convert).collect::<Result<_, _>>()?)
        }
        Yaml::Hash(entries) => {
            let mut map = Map::new();
            for (key, value) in entries {
                let key = match key {
                    Yaml::String(s) | Yaml::Real(s) => s,
                    Yaml::Integer(i) => i.to_string(),
                    Yaml::Boolean(b) => b.to_string(),
                    Yaml::Null => "null".to_owned(),
                    other => return Err(format!("a mapping key must be a scalar, not {other:?}")),
                };
                map.insert(key, convert(value)?);
            }
            Value::Object(map)
        }
        Yaml::Alias(_) => return Err("aliases are not supported".to_owned()),
        Yaml::BadValue => return Err("invalid YAML value".to_owned()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_and_flow_collections_and_scalars_read_as_json() {
        let text = "a: 1\nb: [x, \"y\", 2.5]\nc:\n  d: true\n  e: ~\n  f: |\n    line\n";
        let value = to_json(text).unwrap();
        assert_eq!(
            value,
            serde_json::json!({"a": 1, "b": ["x", "y", 2.5], "c": {"d": true, "e": null, "f": "line\n"}})
        );
    }

    #[test]
    fn a_json_kubeconfig_reads_as_itself() {
        let json = serde_json::json!({"apiVersion": "v1", "clusters": [{"name": "c", "cluster": {"server": "https://h:6443"}}]});
        assert_eq!(to_json(&json.to_string()).unwrap(), json);
    }

    #[test]
    fn quoted_numbers_stay_strings_and_empty_is_null() {
        assert_eq!(
            to_json("v: \"1.10\"\n").unwrap(),
            serde_json::json!({"v": "1.10"})
        );
        assert_eq!(to_json("").unwrap(), Value::Null);
    }

    #[test]
    fn invalid_yaml_is_an_error() {
        assert!(to_json("a: [1, 2\n").is_err());
    }
}
