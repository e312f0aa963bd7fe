//! The typed, serde-serializable model of resources and types that every
//! later phase (checks, schema, CRD, code generation) reads.

pub mod case;
pub mod resource;
pub mod ty;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

pub use resource::{
    Admission, Conversion, PrinterColumn, ResourceModel, Scale, Verb, Verbs, WebhookTarget,
};
pub use ty::Ty;

/// A struct or enum as the schema builder sees it.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct TypeModel {
    /// The Rust identifier.
    pub name: String,
    /// The doc comment (or `description` override).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Fields or variants.
    pub shape: Shape,
    /// Type-level schema keywords.
    #[serde(default, skip_serializing_if = "Constraints::is_empty")]
    pub constraints: Constraints,
}

impl TypeModel {
    /// Every field the type holds, in declaration order: a struct's fields,
    /// a newtype's one field, then each variant's fields, variant by variant.
    pub fn fields(&self) -> Vec<&Field> {
        match &self.shape {
            Shape::Struct { fields } => fields.iter().collect(),
            Shape::Transparent { field } => vec![field],
            Shape::Enum { variants, .. } => variants
                .iter()
                .flat_map(|v| match &v.data {
                    VariantData::Unit => Vec::new(),
                    VariantData::Newtype(field) => vec![&**field],
                    VariantData::Struct(fields) => fields.iter().collect(),
                })
                .collect(),
        }
    }
}

/// The data layout of a type after serde attributes are applied.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "snake_case")]
pub enum Shape {
    /// A struct with named fields serialized as a JSON object.
    Struct {
        /// Serialized fields, in declaration order.
        fields: Vec<Field>,
    },
    /// A newtype or `#[serde(transparent)]` struct serialized as its one field.
    Transparent {
        /// The single serialized field.
        field: Box<Field>,
    },
    /// An enum in one of serde's representations.
    Enum {
        /// How serde writes the enum.
        repr: Repr,
        /// Serialized variants, in declaration order.
        variants: Vec<Variant>,
    },
}

/// serde's enum representations.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Repr {
    /// `{"Variant": data}` or `"Variant"`.
    External,
    /// `#[serde(tag = "t")]`: `{"t": "Variant", ...fields}`.
    Internal {
        /// The tag field name.
        tag: String,
    },
    /// `#[serde(tag = "t", content = "c")]`: `{"t": "Variant", "c": data}`.
    Adjacent {
        /// The tag field name.
        tag: String,
        /// The content field name.
        content: String,
    },
    /// `#[serde(untagged)]`: the variant's data alone.
    Untagged,
}

/// One enum variant.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Variant {
    /// The serialized name.
    pub name: String,
    /// The doc comment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The variant's data.
    pub data: VariantData,
    /// `#[default]`: the enum's `Default` (unit variants only).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub default: bool,
}

/// What a variant carries.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "snake_case")]
pub enum VariantData {
    /// No data.
    Unit,
    /// One unnamed field.
    Newtype(Box<Field>),
    /// Named fields.
    Struct(Vec<Field>),
}

/// One serialized field.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Field {
    /// The JSON property name after renames.
    pub name: String,
    /// The doc comment (or `description` override).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The field type.
    pub ty: Ty,
    /// Whether the property is listed in `required`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub required: bool,
    /// `#[serde(flatten)]`: properties are hoisted into the parent.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub flatten: bool,
    /// Field-level schema keywords.
    #[serde(default, skip_serializing_if = "Constraints::is_empty")]
    pub constraints: Constraints,
    /// `#[serde(default)]` on a field of a nested type: the schema default
    /// is that type's `Default`, which the nested schema must know (a unit
    /// enum with a `#[default]` variant); an error otherwise.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub default_from_type: bool,
}

/// One `validation(...)` entry, emitted under `x-kubernetes-validations`.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct Validation {
    /// The CEL rule.
    pub rule: String,
    /// The message on failure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// A CEL expression producing the message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_expression: Option<String>,
    /// The reason code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The field path reported on failure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field_path: Option<String>,
    /// Whether the transition rule also runs when the old value is absent.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub optional_old_self: bool,
}

/// Which member rule a type-level `*_one_of` key sets.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum OneOfKind {
    /// Exactly one member is set.
    ExactlyOne,
    /// Zero or one member is set.
    AtMostOne,
    /// One or more members are set.
    AtLeastOne,
}

/// A type-level member rule over optional fields.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct OneOf {
    /// The rule.
    pub kind: OneOfKind,
    /// JSON names of the member fields.
    pub fields: Vec<String>,
}

/// A JSON type named by `schema_type` (controller-gen's
/// `+kubebuilder:validation:Type`).
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum SchemaType {
    /// `string`.
    String,
    /// `integer`.
    Integer,
    /// `number`.
    Number,
    /// `boolean`.
    Boolean,
    /// `object`.
    Object,
    /// `array`.
    Array,
}

impl SchemaType {
    /// Every type, in the order messages list them.
    pub const ALL: [SchemaType; 6] = [
        SchemaType::String,
        SchemaType::Integer,
        SchemaType::Number,
        SchemaType::Boolean,
        SchemaType::Object,
        SchemaType::Array,
    ];

    /// The OpenAPI name.
    pub fn as_str(self) -> &'static str {
        match self {
            SchemaType::String => "string",
            SchemaType::Integer => "integer",
            SchemaType::Number => "number",
            SchemaType::Boolean => "boolean",
            SchemaType::Object => "object",
            SchemaType::Array => "array",
        }
    }

    /// The type of an OpenAPI name.
    pub fn parse(name: &str) -> Option<SchemaType> {
        SchemaType::ALL.into_iter().find(|t| t.as_str() == name)
    }
}

/// `externalDocs`: a link to documentation beyond the description.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct ExternalDocs {
    /// The documentation's URL.
    pub url: String,
    /// What the link leads to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// Schema keywords set by attributes on a type, field or list items.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
#[serde(default)]
pub struct Constraints {
    /// `minimum`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub minimum: Option<serde_json::Number>,
    /// `maximum`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub maximum: Option<serde_json::Number>,
    /// `exclusiveMinimum`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub exclusive_minimum: bool,
    /// `exclusiveMaximum`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub exclusive_maximum: bool,
    /// `multipleOf`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub multiple_of: Option<serde_json::Number>,
    /// `minLength`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_length: Option<u64>,
    /// `maxLength`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_length: Option<u64>,
    /// `pattern` (RE2 syntax).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    /// `format`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// `minItems`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_items: Option<u64>,
    /// `maxItems`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u64>,
    /// `uniqueItems`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub unique_items: bool,
    /// Keywords applied to list items.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub items: Option<Box<Constraints>>,
    /// `minProperties`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_properties: Option<u64>,
    /// `maxProperties`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_properties: Option<u64>,
    /// `enum`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enum_values: Option<Vec<Value>>,
    /// `nullable`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub nullable: bool,
    /// `default`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default: Option<Value>,
    /// `example`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub example: Option<Value>,
    /// `title`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// `x-kubernetes-validations`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub validations: Vec<Validation>,
    /// Adds `self == oldSelf`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub immutable: bool,
    /// `exactly_one_of` / `at_most_one_of` / `at_least_one_of`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub one_of: Vec<OneOf>,
    /// `x-kubernetes-list-type`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub list_type: Option<String>,
    /// `x-kubernetes-list-map-keys`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub list_map_keys: Vec<String>,
    /// `x-kubernetes-map-type`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub map_type: Option<String>,
    /// `x-kubernetes-map-type` on a struct (controller-gen's structType).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub struct_type: Option<String>,
    /// `x-kubernetes-preserve-unknown-fields`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub preserve_unknown_fields: bool,
    /// `x-kubernetes-embedded-resource`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub embedded_resource: bool,
    /// `x-kubernetes-int-or-string`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub int_or_string: bool,
    /// Replace the schema by `x-kubernetes-preserve-unknown-fields` alone.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub schemaless: bool,
    /// Floats are allowed for this field.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub allow_float: bool,
    /// `schema_type`: the node's `type` is this one, not the Rust type's
    /// (whose shape is then not described: no properties, no items).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schema_type: Option<SchemaType>,
    /// `schema_json`: the node's schema is exactly this JSON object.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schema_json: Option<Map<String, Value>>,
    /// `externalDocs`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub external_docs: Option<ExternalDocs>,
    /// Values of the keys the vocabulary keeps by name
    /// ([`crate::vocabulary::Store::ByName`]), such as `neq`.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub by_name: BTreeMap<String, Value>,
}

impl Constraints {
    /// Whether no keyword is set.
    pub fn is_empty(&self) -> bool {
        *self == Constraints::default()
    }

    /// Whether the node's schema is given by an attribute (`schema_type`,
    /// `schema_json` or `schemaless`) rather than by the Rust type.
    pub fn overrides_schema(&self) -> bool {
        self.schema_type.is_some() || self.schema_json.is_some() || self.schemaless
    }
}

impl TypeModel {
    /// Serializes the model for embedding in generated code.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}
