//! Apply configurations of custom kinds, from a version's structural
//! `openAPIV3Schema` (no references): the root is `<Kind>Apply`, every
//! object node with properties a struct named by its path
//! (`<Parent><Field>Apply`; list and map elements `<Parent><Field>ItemApply`),
//! made unique in its module by a number (`...Apply2`) in walk order (kinds
//! sorted, fields sorted). Subtrees that are the same — the same fields of
//! the same shapes with the same docs, as every copy of one Go type a CRD
//! inlines is — share one struct, named by the first path met. The root's
//! `metadata`, and an embedded resource's, is the runtime's
//! `ObjectMetaApply`.

use std::collections::HashMap;

use serde_json::Value;

use super::shape::{Field, Modules, Scalar, Shape, Struct, leaf, paragraph, sentence};
use crate::names::{Namespace, apply_type, pascal_json};

/// Walks the schemas of one module's custom kinds.
pub(crate) struct Walker<'a> {
    module: String,
    /// Type names given out (or reserved for the kinds' roots).
    taken: &'a mut Namespace,
    out: &'a mut Modules,
    /// The struct already made for each (doc, fields).
    made: HashMap<String, String>,
}

impl<'a> Walker<'a> {
    /// A walker writing into `out[module]`, not giving out `taken` names.
    pub(crate) fn new(module: &str, taken: &'a mut Namespace, out: &'a mut Modules) -> Self {
        Walker {
            module: module.to_owned(),
            taken,
            out,
            made: HashMap::new(),
        }
    }

    /// The root struct `name` (reserved by the caller) of a kind whose
    /// types are named from `base`.
    pub(crate) fn root(&mut self, schema: &Value, base: &str, name: &str, what: &str) {
        let mut fields = self.fields(schema, base, true);
        for (json, shape) in [
            ("apiVersion", Shape::Scalar(Scalar::String)),
            ("kind", Shape::Scalar(Scalar::String)),
            ("metadata", Shape::Meta),
        ] {
            if !fields.iter().any(|f| f.json == json) {
                fields.push(Field {
                    json: json.to_owned(),
                    doc: None,
                    shape,
                });
            }
        }
        fields.sort_by(|a, b| a.json.cmp(&b.json));
        self.insert(name.to_owned(), schema, what, fields);
    }

    fn insert(&mut self, name: String, node: &Value, what: &str, fields: Vec<Field>) {
        self.out.entry(self.module.clone()).or_default().insert(
            name,
            Struct {
                doc: paragraph(node),
                what: what.to_owned(),
                fields,
            },
        );
    }

    /// The fields of an object node, sorted by JSON name; `metadata` is
    /// `ObjectMetaApply` when `with_meta`.
    fn fields(&mut self, node: &Value, base: &str, with_meta: bool) -> Vec<Field> {
        let mut props: Vec<(&String, &Value)> = node
            .get("properties")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .collect();
        props.sort_by(|a, b| a.0.cmp(b.0));
        props
            .into_iter()
            .map(|(json, child)| {
                let shape = if json == "metadata" && with_meta {
                    Shape::Meta
                } else {
                    self.node(child, &format!("{base}{}", pascal_json(json)))
                };
                Field {
                    json: json.clone(),
                    doc: sentence(child),
                    shape,
                }
            })
            .collect()
    }

    /// The shape of a node whose types are named from `base`.
    fn node(&mut self, node: &Value, base: &str) -> Shape {
        if let Some(scalar) = leaf(node) {
            return Shape::Scalar(scalar);
        }
        if node.get("type").and_then(Value::as_str) == Some("array") {
            let item = match node.get("items") {
                Some(items) => self.node(items, &format!("{base}Item")),
                None => Shape::Scalar(Scalar::Json),
            };
            return Shape::List(Box::new(item));
        }
        let has_properties = node
            .get("properties")
            .and_then(Value::as_object)
            .is_some_and(|p| !p.is_empty());
        if !has_properties {
            return match node.get("additionalProperties") {
                Some(values) if values.is_object() => {
                    Shape::Map(Box::new(self.node(values, &format!("{base}Item"))))
                }
                _ => Shape::Scalar(Scalar::Json),
            };
        }
        let embedded = node.get("x-kubernetes-embedded-resource") == Some(&Value::Bool(true));
        let fields = self.fields(node, base, embedded);
        let same = format!("{:?}{fields:?}", paragraph(node));
        let name = match self.made.get(&same) {
            Some(name) => name.clone(),
            None => {
                let name = self.unique(base);
                self.made.insert(same, name.clone());
                self.insert(name.clone(), node, base, fields);
                name
            }
        };
        Shape::Struct {
            module: self.module.clone(),
            name,
            boxed: false,
        }
    }

    /// `base` + `Apply`, or with the first number from 2 that makes it a
    /// name not yet given out.
    fn unique(&mut self, base: &str) -> String {
        self.taken.claim(&apply_type(base))
    }
}
