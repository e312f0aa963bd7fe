//! Apply configurations of built-in kinds, from kubegen-core's built-in
//! table *with its references*: every definition the requested kinds reach
//! that is a struct in Go becomes an apply struct of its own
//! (`io.k8s.api.core.v1.Container` → `ContainerApply` in `core_v1`),
//! embedded structs (`allOf`) lend it their fields, `ObjectMeta` is the
//! runtime's `ObjectMetaApply` and the definitions that are scalars in
//! JSON (`Time`, `Quantity`, `IntOrString`, string enums, ...) their
//! k8s-openapi types or Rust scalars.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use super::shape::{Field, Modules, Scalar, Shape, Struct, leaf, paragraph, sentence};
use crate::names::apply_type;

const REF_PREFIX: &str = "#/components/schemas/";
const META: &str = "io.k8s.apimachinery.pkg.apis.meta.v1";

/// Walks definitions from the roots asked for, collecting the structs they
/// reach.
pub(crate) struct Walker<'a> {
    definitions: &'a Map<String, Value>,
    /// A definition's module.
    module: &'a dyn Fn(&str) -> String,
    /// Every struct definition met so far, with its module and type name.
    seen: BTreeMap<String, (String, String)>,
    /// Definitions being walked, outermost first.
    stack: Vec<String>,
    pub(crate) out: Modules,
}

impl<'a> Walker<'a> {
    pub(crate) fn new(
        definitions: &'a Map<String, Value>,
        module: &'a dyn Fn(&str) -> String,
    ) -> Self {
        Walker {
            definitions,
            module,
            seen: BTreeMap::new(),
            stack: Vec::new(),
            out: Modules::new(),
        }
    }

    /// The struct of definition `name` (walked once), as a module and type
    /// name.
    pub(crate) fn root(&mut self, name: &str) -> Result<(String, String), String> {
        match self.definition(name)? {
            Shape::Struct { module, name, .. } => Ok((module, name)),
            other => Err(format!(
                "the built-in definition `{name}` is not an object with fields ({other:?})"
            )),
        }
    }

    /// A definition, with aliases (a definition that is only a `$ref`)
    /// followed.
    fn resolve(&self, mut name: &'a str) -> Result<(&'a str, &'a Value), String> {
        for _ in 0..16 {
            let (key, def) = self
                .definitions
                .get_key_value(name)
                .ok_or_else(|| format!("no built-in definition `{name}`"))?;
            match alias(def) {
                Some(target) => name = target,
                None => return Ok((key.as_str(), def)),
            }
        }
        Err(format!(
            "the built-in definition `{name}` aliases in a loop"
        ))
    }

    /// The shape of a reference to definition `name`.
    fn definition(&mut self, name: &str) -> Result<Shape, String> {
        let definitions = self.definitions;
        let name = definitions
            .get_key_value(name)
            .map(|(k, _)| k.as_str())
            .ok_or_else(|| format!("no built-in definition `{name}`"))?;
        let (name, def) = self.resolve(name)?;
        let special = match name.strip_prefix(META).unwrap_or("") {
            ".ObjectMeta" => Some(Shape::Meta),
            ".Time" => Some(Shape::Scalar(Scalar::Time)),
            ".MicroTime" => Some(Shape::Scalar(Scalar::MicroTime)),
            _ => match name {
                "io.k8s.apimachinery.pkg.api.resource.Quantity" => {
                    Some(Shape::Scalar(Scalar::Quantity))
                }
                "io.k8s.apimachinery.pkg.util.intstr.IntOrString" => {
                    Some(Shape::Scalar(Scalar::IntOrString))
                }
                _ => None,
            },
        };
        if let Some(shape) = special {
            return Ok(shape);
        }
        if def.get("properties").is_none() && def.get("allOf").is_none() {
            return self.node(def);
        }
        if let Some((module, ty)) = self.seen.get(name) {
            return Ok(Shape::Struct {
                module: module.clone(),
                name: ty.clone(),
                boxed: self.stack.iter().any(|s| s == name),
            });
        }
        let module = (self.module)(name);
        let ty = apply_type(name.rsplit('.').next().unwrap_or(name));
        self.seen
            .insert(name.to_owned(), (module.clone(), ty.clone()));
        self.stack.push(name.to_owned());
        let mut properties = BTreeMap::new();
        let collected = self.properties(def, &mut properties, &mut BTreeSet::new());
        let fields = collected.and_then(|()| {
            properties
                .into_iter()
                .map(|(json, node)| {
                    Ok(Field {
                        doc: sentence(node),
                        shape: self.node(node)?,
                        json,
                    })
                })
                .collect::<Result<Vec<_>, String>>()
        });
        self.stack.pop();
        let fields = fields?;
        self.out.entry(module.clone()).or_default().insert(
            ty.clone(),
            Struct {
                doc: paragraph(def),
                what: name.to_owned(),
                fields,
            },
        );
        Ok(Shape::Struct {
            module,
            name: ty,
            boxed: false,
        })
    }

    /// The properties of a struct definition and of the structs it embeds
    /// (`allOf`), the definition's own winning.
    fn properties(
        &self,
        def: &'a Value,
        into: &mut BTreeMap<String, &'a Value>,
        embedding: &mut BTreeSet<&'a str>,
    ) -> Result<(), String> {
        if let Some(props) = def.get("properties").and_then(Value::as_object) {
            for (json, node) in props {
                into.insert(json.clone(), node);
            }
        }
        for entry in def
            .get("allOf")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let embedded = match reference(entry) {
                Some(name) => self.resolve(name)?.1,
                None => entry,
            };
            let key = reference(entry).unwrap_or("");
            if !key.is_empty() && !embedding.insert(key) {
                continue;
            }
            let mut inner = BTreeMap::new();
            self.properties(embedded, &mut inner, embedding)?;
            for (json, node) in inner {
                into.entry(json).or_insert(node);
            }
        }
        Ok(())
    }

    /// The shape of a schema node inside a definition.
    fn node(&mut self, node: &Value) -> Result<Shape, String> {
        if let Some(name) = reference(node) {
            return self.definition(name);
        }
        if let Some(scalar) = leaf(node) {
            return Ok(Shape::Scalar(scalar));
        }
        if node.get("type").and_then(Value::as_str) == Some("array") {
            let item = match node.get("items") {
                Some(items) => self.node(items)?,
                None => Shape::Scalar(Scalar::Json),
            };
            return Ok(Shape::List(Box::new(item)));
        }
        match node.get("additionalProperties") {
            // Objects with properties inline are not in the table: every Go
            // struct is a definition of its own.
            Some(values) if node.get("properties").is_none() => {
                Ok(Shape::Map(Box::new(self.node(values)?)))
            }
            _ => Ok(Shape::Scalar(Scalar::Json)),
        }
    }
}

/// The definition a node refers to.
fn reference(node: &Value) -> Option<&str> {
    node.get("$ref")?.as_str()?.strip_prefix(REF_PREFIX)
}

/// The definition an alias stands for: a definition that is nothing but a
/// reference (with docs).
fn alias(def: &Value) -> Option<&str> {
    let object = def.as_object()?;
    let only_ref = object.keys().all(|k| k == "$ref" || k == "description");
    if only_ref { reference(def) } else { None }
}
