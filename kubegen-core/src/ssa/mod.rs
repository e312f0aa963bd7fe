//! Server-side apply and field management exactly as kube-apiserver does
//! them (sigs.k8s.io/structured-merge-diff v6, apimachinery's
//! `managedfields`, the CRD handler's field manager), for the in-process
//! API server: plain functions over `serde_json::Value`s, no HTTP.
//!
//! - [`ObjectType`]: a resource version's type, built once from its
//!   schema ([`ObjectType::for_custom_resource`] as the CRD handler's type
//!   converter builds it, `metadata` typed as ObjectMeta);
//! - [`FieldManager`]: [`FieldManager::update`] (create, update and
//!   non-apply patches: managedFields brought up to date, never an
//!   error) and [`FieldManager::apply`] (server-side apply: the merged
//!   object, or an [`ApplyError`] the server turns into a `Status` with
//!   [`ApplyError::to_status`]), with every wrapper of the apiserver's
//!   default field manager (see [`field_manager`]);
//! - [`FieldSet`]: field sets and their fieldsV1 encoding
//!   ([`FieldSet::to_json`] byte for byte as the apiserver writes it);
//! - [`check_name`]: the patch handler's name and namespace check of an
//!   applied object.
//!
//! Times come in as a [`Timestamp`]; an object being created is passed
//! as `live` in the form [`empty_object`] gives.
//!
//! Proven against the Go code by `tests/ssa_differential.rs`. Where Go
//! is not deterministic this is: conflicts and their causes come
//! manager by manager in identifier order (Go takes managers in its map's
//! random order; the message sorts them in both), and of several
//! undeclared fields in one map the first in key order is the one
//! reported (Go reports a random one; the errors of one map's entries
//! come in key order where Go's come in its map order). Other served
//! versions ([`FieldManager::with_version`]) convert as the `None`
//! strategy converts; the differential test covers one version only.
//! The object's defaulting, which
//! the apiserver runs on an applied object (`objectDefaulter`), is the
//! server's to do, as are the handler's checks around the field manager
//! (the namespace, [`check_name`]). `fieldsV1` inside returned objects is
//! a JSON object whose keys serde_json keeps sorted, as the apiserver's
//! unstructured objects do; [`FieldSet::to_json`] gives the order
//! structured-merge-diff writes.

mod builtin;
mod error;
pub mod field_manager;
mod fields_v1;
mod fieldset;
mod managed_fields;
mod object_type;
mod openapi;
mod path;
mod schema;
mod typed;
mod updater;
mod value;

pub use builtin::builtin_type;
pub use error::{ApplyError, Cause};
pub use field_manager::{
    FieldManager, LAST_APPLIED_ANNOTATION, MAX_UPDATE_MANAGERS, ResetFields, check_name,
    empty_object,
};
pub use fields_v1::{FieldsV1Error, deserialize_path_element, serialize_path_element};
pub use fieldset::FieldSet;
pub use managed_fields::Timestamp;
pub use object_type::ObjectType;
pub use openapi::SchemaConversionError;
pub use path::{Path, PathElement};

#[cfg(test)]
mod tests {
    //! Unit tests: the fieldsV1 encoding, set operations, paths, and the
    //! core merge and ownership rules.

    use serde_json::{Value, json};

    use super::*;

    fn fields(v: Value) -> FieldSet {
        FieldSet::from_fields_v1(&v).unwrap()
    }

    #[test]
    fn fields_v1_is_written_in_path_element_order() {
        let set = fields(json!({
            "f:spec": {
                "f:tags": {"v:\"x\"": {}, "v:2": {}},
                "f:ports": {
                    "k:{\"name\":\"b\",\"port\":10}": {".": {}, "f:name": {}},
                    "k:{\"name\":\"b\",\"port\":9}": {}
                }
            },
            "f:metadata": {"f:labels": {".": {}, "f:a<b": {}}}
        }));
        // Keys by field list order (9 before 10), numbers before strings,
        // `.` first, HTML characters escaped as Go escapes them.
        assert_eq!(
            set.to_json(),
            r#"{"f:metadata":{"f:labels":{".":{},"f:a\u003cb":{}}},"f:spec":{"f:ports":{"k:{\"name\":\"b\",\"port\":9}":{},"k:{\"name\":\"b\",\"port\":10}":{".":{},"f:name":{}}},"f:tags":{"v:2":{},"v:\"x\"":{}}}}"#
        );
        // And back.
        let again: Value = serde_json::from_str(&set.to_json()).unwrap();
        assert_eq!(FieldSet::from_fields_v1(&again).unwrap(), set);
        assert_eq!(set.to_fields_v1(), again);
    }

    #[test]
    fn fields_v1_decoding_follows_go() {
        // A node with nothing under it is a member; unknown kinds are skipped.
        let set = fields(json!({"f:a": {}, "x:skipped": {}, "f:b": {"x:only": {}}}));
        assert_eq!(set.to_json(), r#"{"f:a":{},"f:b":{}}"#);
        assert!(FieldSet::from_fields_v1(&json!({"f": {}})).is_err());
        assert!(FieldSet::from_fields_v1(&json!({"fa": {}})).is_err());
        assert!(FieldSet::from_fields_v1(&json!({"i:x": {}})).is_err());
        assert_eq!(fields(json!({"i:3": {}})).to_json(), r#"{"i:3":{}}"#);
    }

    #[test]
    fn paths_print_as_go_prints_them() {
        let set = fields(json!({"f:spec": {
            "f:ports": {"k:{\"port\":80,\"name\":\"http\"}": {}},
            "f:tags": {"v:\"x\"": {}, "v:1.5": {}},
            "f:a": {}
        }}));
        let paths: Vec<String> = set.paths().iter().map(ToString::to_string).collect();
        assert_eq!(
            paths,
            [
                ".spec.a",
                ".spec.ports[name=\"http\",port=80]",
                ".spec.tags[=1.5]",
                ".spec.tags[=\"x\"]"
            ]
        );
    }

    #[test]
    fn difference_keeps_children_recursive_difference_drops_them() {
        let a = fields(json!({"f:spec": {".": {}, "f:x": {}}, "f:status": {"f:y": {}}}));
        let b = fields(json!({"f:spec": {}}));
        assert_eq!(
            a.difference(&b).to_json(),
            r#"{"f:spec":{"f:x":{}},"f:status":{"f:y":{}}}"#
        );
        assert_eq!(
            a.recursive_difference(&b).to_json(),
            r#"{"f:status":{"f:y":{}}}"#
        );
        assert_eq!(
            a.intersection(&fields(json!({"f:spec": {"f:x": {}}})))
                .to_json(),
            r#"{"f:spec":{"f:x":{}}}"#
        );
        assert_eq!(
            b.union(&fields(json!({"f:spec": {"f:z": {}}}))).to_json(),
            r#"{"f:spec":{".":{},"f:z":{}}}"#
        );
    }

    fn widget_type() -> ObjectType {
        ObjectType::for_custom_resource(
            &json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
                "a": {"type": "string"},
                "m": {"type": "object", "additionalProperties": {"type": "string"}},
                "atomic": {"type": "object", "x-kubernetes-map-type": "atomic",
                           "additionalProperties": {"type": "string"}},
                "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
                "ports": {"type": "array", "x-kubernetes-list-type": "map",
                          "x-kubernetes-list-map-keys": ["name"],
                          "items": {"type": "object", "properties": {
                              "name": {"type": "string"}, "port": {"type": "integer"}}}},
                "list": {"type": "array", "items": {"type": "string"}}}}}}),
            false,
        )
        .unwrap()
    }

    fn widget(spec: Value) -> Value {
        json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": spec})
    }

    fn at(minute: i64) -> Timestamp {
        Timestamp(1_577_836_800 + 60 * minute)
    }

    #[test]
    fn apply_merges_by_the_schema() {
        let ty = widget_type();
        let fm = FieldManager::new(&ty, "example.com/v1", "Widget");
        let live = empty_object("example.com/v1", "Widget");
        let live = fm
            .apply(
                &live,
                &widget(
                    json!({"m": {"x": "1"}, "atomic": {"x": "1"}, "tags": ["a", "b"],
                    "ports": [{"name": "a", "port": 1}, {"name": "b", "port": 2}], "list": ["a", "b"]}),
                ),
                "one",
                false,
                at(1),
            )
            .unwrap();
        let merged = fm
            .apply(
                &live,
                &widget(
                    json!({"m": {"y": "2"}, "atomic": {"y": "2"}, "tags": ["c", "a"],
                    "ports": [{"name": "c", "port": 3}, {"name": "a", "port": 9}], "list": ["c"]}),
                ),
                "two",
                true,
                at(2),
            )
            .unwrap();
        // Granular maps merge, atomic ones are replaced, sets and map lists
        // merge item by item (the live order, new items where the
        // configuration puts them), other lists are replaced.
        assert_eq!(
            merged["spec"],
            json!({"m": {"x": "1", "y": "2"}, "atomic": {"y": "2"}, "tags": ["c", "a", "b"],
                   "ports": [{"name": "c", "port": 3}, {"name": "a", "port": 9}, {"name": "b", "port": 2}],
                   "list": ["c"]})
        );
        // Forced: "two" took what it changed; "one" keeps the rest, and
        // shares what both set to the same value (the tag "a", the key "a").
        let entries = merged["metadata"]["managedFields"].as_array().unwrap();
        assert_eq!(entries[0]["manager"], "one");
        assert_eq!(
            FieldSet::from_fields_v1(&entries[0]["fieldsV1"])
                .unwrap()
                .to_json(),
            r#"{"f:spec":{"f:m":{"f:x":{}},"f:ports":{"k:{\"name\":\"a\"}":{".":{},"f:name":{}},"k:{\"name\":\"b\"}":{".":{},"f:name":{},"f:port":{}}},"f:tags":{"v:\"a\"":{},"v:\"b\"":{}}}}"#
        );
        assert_eq!(entries[1]["time"], "2020-01-01T00:02:00Z");
    }

    #[test]
    fn applies_conflict_and_prune() {
        let ty = widget_type();
        let fm = FieldManager::new(&ty, "example.com/v1", "Widget");
        let live = empty_object("example.com/v1", "Widget");
        let live = fm
            .apply(
                &live,
                &widget(json!({"a": "1", "tags": ["x"]})),
                "one",
                false,
                at(1),
            )
            .unwrap();
        let live = fm.update(
            &live,
            widget(json!({"a": "1", "tags": ["x"], "m": {"k": "v"}})),
            "kubectl-edit",
            at(2),
        );
        let err = fm
            .apply(
                &live,
                &widget(json!({"a": "2", "m": {"k": "w"}})),
                "two",
                false,
                at(3),
            )
            .unwrap_err();
        assert_eq!(err.code, 409);
        assert_eq!(
            err.message,
            "Apply failed with 2 conflicts: conflicts with \"kubectl-edit\" using example.com/v1:\n- .spec.m.k\nconflicts with \"one\":\n- .spec.a"
        );
        assert_eq!(err.causes[1].message, "conflict with \"one\"");
        assert_eq!(err.causes[1].field, ".spec.a");
        assert_eq!(err.to_status()["reason"], "Conflict");
        // "one" stops applying the tag: it goes, as no one else owns it.
        let pruned = fm
            .apply(&live, &widget(json!({"a": "1"})), "one", false, at(4))
            .unwrap();
        assert_eq!(pruned["spec"], json!({"a": "1", "m": {"k": "v"}}));
    }

    #[test]
    fn bad_configurations_are_refused_as_the_apiserver_refuses_them() {
        let ty = widget_type();
        let fm = FieldManager::new(&ty, "example.com/v1", "Widget");
        let live = empty_object("example.com/v1", "Widget");
        let wrong_kind = json!({"apiVersion": "example.com/v1", "kind": "Gadget"});
        let err = fm.apply(&live, &wrong_kind, "m", false, at(1)).unwrap_err();
        assert_eq!(
            (err.code, err.message.as_str()),
            (400, "invalid object type: example.com/v1, Kind=Gadget")
        );
        let unknown = widget(json!({"zz": 1}));
        let err = fm.apply(&live, &unknown, "m", false, at(1)).unwrap_err();
        assert_eq!(err.code, 500);
        assert_eq!(
            err.message,
            "failed to create typed patch object (/w; example.com/v1, Kind=Widget): .spec.zz: field not declared in schema"
        );
        let nameless = fm
            .apply(
                &live,
                &json!({"apiVersion": "example.com/v1", "kind": "Widget"}),
                "m",
                false,
                at(1),
            )
            .unwrap();
        assert_eq!(
            check_name(&nameless, "w", "default").unwrap_err().message,
            "the name of the object (w based on URL) was undeterminable: name must be provided"
        );
    }
}
