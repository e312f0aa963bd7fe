//! kubegen-crd: a CustomResourceDefinition as k8s-openapi's type, to and
//! from JSON. [`decode`] reads the JSON kubegen-core assembles (what every
//! derived `crd()` returns); [`to_json`] writes a CRD as the JSON text
//! `kubectl apply -f` reads. Operators reach both through `kubegen`
//! (`kubegen::crd_to_json`).
//!
//! A crate of its own, below the runtime (`kubegen-engine`), because of how
//! a debug build shares generic code: a crate that needs an instance of a
//! generic function — serde's code for the CRD's types — links it from an
//! upstream crate that compiled it, and the linker then takes every object
//! file that instance's file needs in turn. Compiled here, the CRD's
//! encoding and decoding are linked from this small crate: by the runtime,
//! which then compiles no copy of its own, and by a binary that only derives
//! a resource and prints its CRD, which then links neither the runtime nor
//! what the runtime alone needs.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kubegen_core::crd::CrdError;
use serde_json::Value;

/// A CRD's JSON (`CustomResourceExt::crd_json`) as k8s-openapi's type: what
/// each derived `crd()` returns. Not generic, so its decoder is compiled
/// here once rather than in every crate that derives a resource (and again
/// on each of its rebuilds).
pub fn decode(json: Value) -> Result<CustomResourceDefinition, CrdError> {
    serde_json::from_value(json).map_err(|e| CrdError::Decode(e.to_string()))
}

/// `crd` as indented JSON, the text `kubectl apply -f` reads (as
/// `serde_json::to_string_pretty` writes it; compiled here once).
pub fn to_json(crd: &CustomResourceDefinition) -> String {
    serde_json::to_string_pretty(crd).expect("a CRD serializes: its maps have string keys")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crd() -> Value {
        serde_json::json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": "webs.example.com"},
            "spec": {
                "group": "example.com",
                "names": {"kind": "Web", "plural": "webs"},
                "scope": "Namespaced",
                "versions": [{
                    "name": "v1", "served": true, "storage": true,
                    "schema": {"openAPIV3Schema": {
                        "type": "object",
                        "properties": {"replicas": {"type": "integer", "minimum": 0.1, "default": 3}}
                    }}
                }]
            }
        })
    }

    #[test]
    fn decodes_what_kubegen_core_assembles_and_writes_it_back_exactly() {
        let json = crd();
        let decoded = decode(json.clone()).unwrap();
        assert_eq!(decoded.spec.names.kind, "Web");
        let text = to_json(&decoded);
        assert_eq!(text, serde_json::to_string_pretty(&decoded).unwrap());
        assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), json);
    }

    #[test]
    fn refuses_what_is_not_a_crd_with_serdes_reason() {
        let error = decode(serde_json::json!({"spec": {"group": 7}})).unwrap_err();
        assert!(
            matches!(&error, CrdError::Decode(reason) if reason.contains("invalid type")),
            "{error:?}"
        );
    }
}
