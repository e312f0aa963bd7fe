//! The corpus types shared by the golden snapshot tests (`corpus.rs`) and
//! the apiserver acceptance tests (`apiserver.rs`). Their doc comments are
//! part of the snapshots: edit them together with the snapshots.

#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use k8s_openapi::api::core::v1::ResourceRequirements;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, LabelSelector, ObjectMeta, Time};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use kubegen::{CustomResource, KubeSchema};
use serde::{Deserialize, Serialize};

/// MyApplication describes an application deployment.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[kubegen(
    group = "stable.example.com",
    version = "v1",
    kind = "MyApplication",
    namespaced,
    shortname = "ma",
    status = "MyApplicationStatus",
    derive = "PartialEq",
    scale(
        spec_replicas_path = ".spec.replicas",
        status_replicas_path = ".status.availableReplicas",
        label_selector_path = ".status.selector"
    ),
    printcolumn(name = "Image", type = "string", json_path = ".spec.image"),
    printcolumn(name = "Age", type = "date", json_path = ".metadata.creationTimestamp")
)]
#[serde(rename_all = "camelCase")]
pub struct MyApplicationSpec {
    /// The container image to use for the application.
    #[kubegen(min_length = 1)]
    pub image: String,
    /// The desired number of application replicas.
    #[kubegen(minimum = 1, default = 1)]
    pub replicas: i32,
}

/// The observed state of a MyApplication.
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct MyApplicationStatus {
    /// Pods that are ready.
    pub available_replicas: i32,
    /// The label selector of the pods, for the scale subresource.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<String>,
    /// Standard conditions.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[kubegen(list_type = "map", list_map_keys = ["type"])]
    pub conditions: Vec<Condition>,
}

/// A port mapping.
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug)]
#[serde(rename_all = "camelCase")]
pub struct Port {
    /// The port name, unique in the list.
    #[kubegen(max_length = 15, pattern = "^[a-z0-9-]+$")]
    pub name: String,
    /// The port number.
    #[kubegen(minimum = 1, maximum = 65535)]
    pub container_port: u16,
    /// The protocol.
    #[kubegen(default = "TCP")]
    #[serde(default)]
    pub protocol: Protocol,
}

/// A transport protocol.
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug, Default)]
#[serde(rename_all = "UPPERCASE")]
pub enum Protocol {
    #[default]
    Tcp,
    Udp,
    #[serde(rename = "SCTP")]
    Sctp,
}

/// Every field keyword in one place.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
#[kubegen(group = "corpus.kubegen.dev", version = "v1alpha1", kind = "Everything", plural = "everythings",
          category = "all", category = "kubegen", shortname = "ev", shortname = "evr",
          selectable_field(json_path = ".spec.color"),
          crd_label(key = "app.kubernetes.io/part-of", value = "kubegen"),
          crd_annotation(key = "kubegen.dev/note", value = "corpus"),
          verbs(skip = ["delete_collection"]), served = true, storage = true,
          deprecated, deprecation_warning = "use v1",
          printcolumn(name = "Color", type = "string", json_path = ".spec.color", priority = 1, description = "the color"),
          validation(rule = "self.minSize <= self.maxSize", message = "minSize must not exceed maxSize", reason = "FieldValueInvalid", field_path = ".minSize"),
          at_most_one_of = ["hostName", "ipAddress"])]
#[serde(rename_all = "camelCase")]
pub struct EverythingSpec {
    /// Color, one of a fixed list.
    #[kubegen(enum_values = ["red", "green", "blue"], default = "red", example = "green", title = "Color")]
    #[serde(default)]
    pub color: String,
    #[kubegen(minimum = 0, maximum = 100, multiple_of = 5)]
    pub min_size: i64,
    #[kubegen(exclusive_minimum = 0, exclusive_maximum, maximum = 1000)]
    pub max_size: i64,
    pub small: i8,
    pub medium: i16,
    pub unsigned_small: u8,
    pub unsigned: u32,
    pub big: usize,
    pub flag: bool,
    pub letter: char,
    /// A fraction (floats need an opt-in).
    #[kubegen(allow_float, minimum = 0.0, maximum = 1.0)]
    pub ratio: f64,
    #[kubegen(format = "hostname", max_length = 253, immutable)]
    pub host: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[kubegen(immutable)]
    pub host_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[kubegen(format = "ipv4")]
    pub ip_address: Option<String>,
    #[kubegen(
        min_items = 1,
        max_items = 8,
        unique_items,
        items(min_length = 1, max_length = 20, pattern = "^[a-z]+$")
    )]
    pub words: Vec<String>,
    #[kubegen(items(minimum = 1, maximum = 9))]
    pub digits: Vec<u8>,
    pub tag_set: BTreeSet<String>,
    pub hash_set: HashSet<i32>,
    #[kubegen(list_type = "atomic")]
    pub ordered: Vec<String>,
    #[kubegen(list_type = "map", list_map_keys = ["name"])]
    pub ports: Vec<Port>,
    pub fixed: [i32; 3],
    #[kubegen(min_properties = 1, max_properties = 10, map_type = "atomic")]
    pub labels: BTreeMap<String, String>,
    pub hash_map: HashMap<String, Vec<i32>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[kubegen(nullable)]
    pub maybe: Option<String>,
    #[kubegen(default_json = r#"{"a": 1}"#)]
    #[serde(default)]
    pub defaults: BTreeMap<String, i32>,
    pub raw: serde_json::Value,
    #[kubegen(schemaless)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anything: Option<Box<Everything>>,
    #[kubegen(preserve_unknown_fields)]
    pub open: BTreeMap<String, serde_json::Value>,
    #[kubegen(embedded_resource, preserve_unknown_fields)]
    pub template: serde_json::Value,
    #[kubegen(int_or_string)]
    pub port_ref: serde_json::Value,
    pub int_or_str: IntOrString,
    pub quantity: Quantity,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started: Option<Time>,
    pub resources: ResourceRequirements,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<LabelSelector>,
    pub pod_metadata: ObjectMeta,
    #[kubegen(validation(
        rule = "self.size() <= 3",
        message_expression = "'too many: %d'.format([self.size()])"
    ))]
    pub few: Vec<String>,
    #[kubegen(struct_type = "atomic")]
    pub atomic_port: Port,
    #[kubegen(description = "Overrides the doc comment.", optional)]
    /// Hidden doc.
    pub described: String,
    #[serde(rename = "renamed-field")]
    pub original: String,
    #[serde(skip)]
    pub skipped: String,
    #[serde(flatten)]
    pub extra: Extra,
    pub boxed: Box<Port>,
    // Boxed collections are part of the type forms under test.
    #[allow(clippy::box_collection)]
    pub shared: Box<Vec<String>>,
    pub wrapper: Wrapper,
    /// Seconds written by serde code as a Go duration: the schema by hand.
    #[serde(with = "seconds_text")]
    #[kubegen(schema_type = "string", format = "duration")]
    pub timeout: u64,
    /// A schema given as JSON; the doc comment is its description.
    #[kubegen(schema_json = r#"{"type": "string", "enum": ["a", "b"]}"#)]
    pub choice: String,
    /// Items of a std type kubegen does not read.
    #[kubegen(items(schema_type = "string", format = "ipv4"))]
    pub addresses: Vec<std::net::Ipv4Addr>,
    /// Integer map keys.
    pub by_port: BTreeMap<u16, String>,
    /// A field keyword tightening its type's (`Wrapper`: `min_length = 2`).
    #[kubegen(min_length = 3)]
    pub tight_wrapper: Wrapper,
    pub stamp: Stamp,
    pub role: Role,
}

/// `u64` seconds as `"<n>s"`.
mod seconds_text {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{v}s"))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        let text = String::deserialize(d)?;
        text.strip_suffix('s')
            .and_then(|n| n.parse().ok())
            .ok_or_else(|| serde::de::Error::custom("expected seconds such as \"30s\""))
    }
}

/// A version written through `String`: its schema is given on the type.
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug)]
#[serde(into = "String", try_from = "String")]
#[kubegen(schema_type = "string", pattern = "^v[0-9]+$")]
pub struct Stamp {
    pub version: u32,
}

impl From<Stamp> for String {
    fn from(s: Stamp) -> String {
        format!("v{}", s.version)
    }
}

impl TryFrom<String> for Stamp {
    type Error = String;
    fn try_from(s: String) -> Result<Stamp, String> {
        let n = s.strip_prefix('v').ok_or("expected v<n>")?;
        Ok(Stamp {
            version: n.parse().map_err(|e| format!("{e}"))?,
        })
    }
}

/// Type-level keywords on a named string (controller-gen's markers on
/// `type Role string`).
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug)]
#[kubegen(enum_values = ["web", "db"], external_docs(url = "https://example.com/roles"))]
pub struct Role(pub String);

/// Flattened into the parent.
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug)]
#[serde(rename_all = "kebab-case")]
pub struct Extra {
    pub extra_one: String,
    #[serde(default)]
    pub extra_two: i32,
}

/// A newtype: serializes as its field.
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug)]
pub struct Wrapper(#[kubegen(min_length = 2)] pub String);

/// Every enum representation.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
#[kubegen(group = "corpus.kubegen.dev", version = "v1", kind = "Shape")]
pub struct ShapeSpec {
    pub external: External,
    pub internal: Internal,
    pub adjacent: Adjacent,
    pub untagged: Untagged,
    pub number_or_name: NumberOrName,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub optional_enum: Option<Protocol>,
    pub snake: SnakeEnum,
    pub tagged_units: TaggedUnits,
    #[serde(flatten)]
    pub flat: FlatUnion,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<Source>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fetch: Option<Fetch>,
    /// Enums in a list without a size limit.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<Source>,
    #[serde(flatten)]
    pub target: FlatTarget,
}

/// Externally tagged: `{"circle": {...}}`.
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug)]
#[serde(rename_all = "camelCase")]
pub enum External {
    /// A circle.
    Circle { radius: u32 },
    /// A square.
    Square(Side),
}

#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug)]
pub struct Side {
    pub side: u32,
}

/// Internally tagged: `{"type": "Circle", "radius": 1}`.
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug)]
#[serde(tag = "type", rename_all_fields = "camelCase")]
pub enum Internal {
    Circle { radius_size: u32 },
    Square(Side),
    Nothing,
}

/// Adjacently tagged: `{"kind": "Text", "value": "x"}`.
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug)]
#[serde(tag = "kind", content = "value")]
pub enum Adjacent {
    Text(String),
    Other(String),
    Empty,
}

/// Untagged objects.
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug)]
#[serde(untagged)]
pub enum Untagged {
    ByName { name: String },
    ById { id: i64 },
}

/// Untagged integer or string.
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug)]
#[serde(untagged)]
pub enum NumberOrName {
    Number(i32),
    Name(String),
}

#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug)]
#[serde(rename_all = "snake_case")]
pub enum SnakeEnum {
    VeryFast,
    Slow,
}

#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug)]
#[serde(tag = "mode")]
pub enum TaggedUnits {
    On,
    Off,
}

/// Flattened internally tagged enum.
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug)]
#[serde(tag = "strategy")]
pub enum FlatUnion {
    Recreate,
    RollingUpdate {
        #[serde(rename = "maxSurge")]
        max_surge: i32,
    },
}

/// Internally tagged, with optional and defaulted fields: `{"type": "Git",
/// "url": "..."}`.
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug)]
#[serde(tag = "type", rename_all_fields = "camelCase")]
pub enum Source {
    Git {
        url: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        branch: Option<String>,
        #[serde(default)]
        depth: i32,
    },
    S3 {
        bucket: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        region: Option<String>,
    },
}

/// Adjacently tagged with object contents: `{"kind": "Git", "spec": {...}}`.
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug)]
#[serde(tag = "kind", content = "spec")]
pub enum Fetch {
    Git { url: String },
    S3 { bucket: String },
    Skip,
}

/// Flattened untagged enum: `{"targetName": ...}` or `{"targetUid": ...}`.
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug)]
#[serde(untagged, rename_all_fields = "camelCase")]
pub enum FlatTarget {
    ByName {
        target_name: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        target_namespace: Option<String>,
    },
    ByUid {
        target_uid: String,
    },
}
