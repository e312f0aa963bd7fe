//! Twins of `../shapes/v1/types.go`: one field of every shape and one per
//! attribute with a controller-gen marker. Same names, docs and meaning.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use k8s_openapi::api::batch::v1::JobTemplateSpec;
use k8s_openapi::api::core::v1::{
    Affinity, ObjectReference, PodTemplateSpec, ResourceRequirements, ServiceSpec, Volume,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use k8s_openapi::ByteString;
use kubegen::{CustomResource, KubeSchema};
use serde::{Deserialize, Serialize};

/// Shapes holds one field of every shape.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
#[kubegen(
    group = "shapes.cgdiff.example.com",
    version = "v1",
    kind = "Shapes",
    namespaced,
    shortname = "sh",
    shortname = "shp",
    category = "cgdiff",
    category = "all",
    status = "ShapesStatus",
    scale(
        spec_replicas_path = ".spec.replicas",
        status_replicas_path = ".status.replicas",
        label_selector_path = ".status.selector"
    ),
    selectable_field(json_path = ".spec.color")
)]
#[kubegen(printcolumn(name = "Color", type = "string", json_path = ".spec.color"))]
#[kubegen(printcolumn(
    name = "Replicas",
    type = "integer",
    json_path = ".spec.replicas",
    description = "Desired replicas",
    priority = 1
))]
#[kubegen(printcolumn(name = "Ratio", type = "number", json_path = ".spec.ratio", format = "double"))]
#[kubegen(printcolumn(name = "Age", type = "date", json_path = ".metadata.creationTimestamp"))]
#[serde(rename_all = "camelCase")]
pub struct ShapesSpec {
    /// A 32-bit integer.
    pub replicas: i32,
    /// An optional 32-bit integer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maybe_replicas: Option<i32>,
    /// A 64-bit integer.
    pub count: i64,
    /// An optional 64-bit integer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maybe_count: Option<i64>,
    /// An unsigned 32-bit integer.
    pub small: u32,
    /// A boolean.
    pub enabled: bool,
    /// An optional boolean.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paused: Option<bool>,
    /// A string.
    pub name: String,
    /// An optional string.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nickname: Option<String>,
    /// A double-precision float.
    #[kubegen(allow_float)]
    pub ratio: f64,
    /// An optional single-precision float.
    #[kubegen(allow_float)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<f32>,
    /// A colour, a string enum.
    pub color: Color,
    /// An optional colour.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accent: Option<Color>,
    /// A colour narrowed by the field.
    #[kubegen(enum_values = ["Red", "Green"])]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub primary: Option<Color>,
    /// A list of strings.
    pub tags: Vec<String>,
    /// An optional list of integers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub numbers: Option<Vec<i64>>,
    /// A list of objects.
    pub items: Vec<Item>,
    /// A list of lists.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matrix: Option<Vec<Vec<i32>>>,
    /// A map of strings.
    pub labels: BTreeMap<String, String>,
    /// An optional map of objects.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub items_by_name: Option<BTreeMap<String, Item>>,
    /// A map of lists.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub groups: Option<BTreeMap<String, Vec<String>>>,
    /// A nested object.
    pub item: Item,
    /// An optional nested object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra: Option<Item>,
    /// An integer or a string.
    pub port: IntOrString,
    /// An optional integer or string.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_surge: Option<IntOrString>,
    /// A quantity.
    pub memory: Quantity,
    /// An optional quantity.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<Quantity>,
    /// A map of quantities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limits: Option<BTreeMap<String, Quantity>>,
    /// A time.
    pub since: Time,
    /// An optional time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<Time>,
    /// Bytes, base64 in JSON.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<ByteString>,
    /// An embedded resource.
    #[kubegen(embedded_resource, preserve_unknown_fields)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub template: Option<serde_json::Value>,
    /// Any JSON value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw: Option<serde_json::Value>,
    /// An object that keeps unknown fields.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open: Option<Open>,
    /// Conditions, keyed by type.
    #[kubegen(list_type = "map", list_map_keys = ["type"])]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conditions: Option<Vec<Condition>>,
    /// A 16-bit integer.
    pub tiny: i16,
    /// An unsigned 64-bit integer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub big: Option<u64>,
    /// An unsigned 8-bit integer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub octet: Option<u8>,
    /// A set of strings, by type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub members: Option<BTreeSet<String>>,
    /// A value left out when empty.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub alias: String,
    /// A count left out when zero.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub spare: i32,
    /// A list left out when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extras: Vec<String>,
    /// Never serialized.
    #[serde(skip)]
    pub cache: Option<String>,
    #[serde(flatten)]
    pub common: Common,
}

/// Fields shared by several specs, embedded.
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug)]
#[serde(rename_all = "camelCase")]
pub struct Common {
    /// Where it came from.
    pub origin: String,
    /// A remark.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remark: Option<String>,
}

/// A colour.
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug)]
pub enum Color {
    Red,
    Green,
    Blue,
}

/// One item.
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug)]
pub struct Item {
    /// The item's name.
    pub name: String,
    /// How many.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quantity: Option<i32>,
}

/// An object that keeps unknown fields.
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug)]
#[kubegen(preserve_unknown_fields)]
pub struct Open {
    /// A known field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub known: Option<String>,
}

/// The observed state of a Shapes.
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug, Default)]
pub struct ShapesStatus {
    /// Observed replicas.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i32>,
    /// The label selector, for the scale subresource.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<String>,
}

fn is_zero(n: &i32) -> bool {
    *n == 0
}

fn three() -> i32 {
    3
}

fn info() -> String {
    "info".to_owned()
}

/// Constraints holds one field per validation marker.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
#[kubegen(
    group = "shapes.cgdiff.example.com",
    version = "v1",
    kind = "Constraints",
    plural = "constraintsets",
    singular = "constraintset"
)]
#[kubegen(validation(rule = "self.low <= self.high", message = "low must not exceed high"))]
#[kubegen(exactly_one_of = ["fromName", "fromNumber"], min_properties = 2)]
#[serde(rename_all = "camelCase")]
pub struct ConstraintsSpec {
    /// Bounded below and above.
    #[kubegen(minimum = 1, maximum = 10)]
    pub low: i32,
    /// Bounded exclusively, a multiple of 5.
    #[kubegen(exclusive_minimum = 0, exclusive_maximum = 100, multiple_of = 5)]
    pub high: i32,
    /// A string with lengths and a pattern.
    #[kubegen(min_length = 1, max_length = 63, pattern = "^[a-z][a-z0-9-]*$")]
    pub slug: String,
    /// An e-mail address.
    #[kubegen(format = "email")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    /// A default integer.
    #[kubegen(default = 3)]
    #[serde(default = "three")]
    pub retries: i32,
    /// A default string.
    #[kubegen(default = "info")]
    #[serde(default = "info")]
    pub level: String,
    /// A default list.
    #[kubegen(default_json = r#"["a", "b"]"#)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub letters: Option<Vec<String>>,
    /// A default object.
    #[kubegen(default_json = r#"{"name": "first", "quantity": 1}"#)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_item: Option<Item>,
    /// A default boolean.
    #[kubegen(default = true)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verbose: Option<bool>,
    /// A list with bounds and item constraints.
    #[kubegen(min_items = 1, max_items = 8, items(min_length = 2, pattern = "^[a-z]+$"))]
    pub words: Vec<String>,
    /// A set of strings.
    #[kubegen(list_type = "set")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unique: Option<Vec<String>>,
    /// An atomic list.
    #[kubegen(list_type = "atomic")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub whole: Option<Vec<String>>,
    /// A list map keyed by name.
    #[kubegen(list_type = "map", list_map_keys = ["name"])]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entries: Option<Vec<Item>>,
    /// An atomic map.
    #[kubegen(map_type = "atomic", max_properties = 4)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<BTreeMap<String, String>>,
    /// An atomic struct.
    #[kubegen(struct_type = "atomic")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pinned: Option<Item>,
    /// A field with a CEL rule.
    #[kubegen(validation(
        rule = "self.startsWith('v')",
        message = "must start with v",
        reason = "FieldValueInvalid"
    ))]
    #[kubegen(validation(rule = "size(self) < 10", message_expression = "'too long: ' + self"))]
    pub version: String,
    /// Set once.
    #[kubegen(immutable)]
    pub owner: String,
    /// A pointer made required.
    #[kubegen(required)]
    pub must: Option<String>,
    /// A value made optional.
    #[kubegen(optional)]
    pub maybe: String,
    /// A nullable value.
    #[kubegen(nullable)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nothing: Option<String>,
    /// A titled value.
    #[kubegen(title = "The title", example = "sample")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub titled: Option<String>,
    /// One of two sources.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_name: Option<String>,
    /// The other source.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_number: Option<i32>,
    /// Anything at all.
    #[kubegen(schemaless, preserve_unknown_fields)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anything: Option<serde_json::Value>,
    /// With external documentation.
    #[kubegen(external_docs(url = "https://example.com/docs", description = "More"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub documented: Option<String>,
    /// A list of enums.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub palette: Option<Vec<Color>>,
    /// A list of quantities with a rule on each item.
    #[kubegen(
        max_items = 4,
        items(validation(
            rule = "quantity(self).isGreaterThan(quantity('0'))",
            message = "must be positive"
        ))
    )]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sizes: Option<Vec<Quantity>>,
}

/// Workload holds built-in Kubernetes types, as an operator's API does.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
#[kubegen(group = "shapes.cgdiff.example.com", version = "v1", kind = "Workload", namespaced)]
#[serde(rename_all = "camelCase")]
pub struct WorkloadSpec {
    /// The pods to run.
    pub template: PodTemplateSpec,
    /// A job to run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job_template: Option<JobTemplateSpec>,
    /// Which pods are the workload's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<LabelSelector>,
    /// Resources of the workload as a whole.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<ResourceRequirements>,
    /// A Service in front of the pods.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service: Option<ServiceSpec>,
    /// Extra volumes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub volumes: Option<Vec<Volume>>,
    /// Where the pods may run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub affinity: Option<Affinity>,
    /// What the workload refers to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<ObjectReference>,
}

/// Extras holds the markers the other kinds leave out.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
#[kubegen(
    group = "shapes.cgdiff.example.com",
    version = "v1",
    kind = "Extras",
    plural = "extras",
    deprecated,
    deprecation_warning = "shapes v1 Extras is going away",
    crd_annotation(key = "example.com/owner", value = "team-a"),
    crd_label(key = "example.com/tier", value = "test"),
    status = "ExtrasStatus",
    status_subresource = false,
    kind_description = "Extras holds the markers whose CRDs are not installed on the plane (the\napiserver refuses controller-gen's uniqueItems) and the resource markers\nthe other kinds leave out."
)]
#[kubegen(printcolumn(name = "Mode", json_path = ".spec.mode"))]
#[kubegen(printcolumn(name = "Count", json_path = ".spec.count", priority = 1))]
#[kubegen(printcolumn(name = "When", json_path = ".spec.when"))]
#[kubegen(printcolumn(name = "Share", json_path = ".spec.share"))]
#[kubegen(printcolumn(name = "On", json_path = ".spec.on"))]
#[kubegen(printcolumn(name = "Seen", json_path = ".status.seen"))]
#[kubegen(validation(
    rule = "!has(self.note) || self.note != 'bad'",
    message = "the note is bad",
    field_path = ".note",
    reason = "FieldValueForbidden"
))]
pub struct ExtrasSpec {
    /// A mode.
    #[kubegen(validation(
        rule = "!oldSelf.hasValue() || oldSelf.value() != 'frozen' || self == 'frozen'",
        message = "a frozen mode stays frozen",
        optional_old_self
    ))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// A count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<i32>,
    /// When.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<Time>,
    /// A share.
    #[kubegen(allow_float)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub share: Option<f64>,
    /// Whether on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on: Option<bool>,
    /// A note.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Unique items.
    #[kubegen(unique_items)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unique: Option<Vec<String>>,
    /// A duration, a string by its own marker.
    #[kubegen(schema_type = "string", format = "duration")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<String>,
    /// An integer or a string, by marker.
    #[kubegen(int_or_string)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<serde_json::Value>,
    /// A percentage or a count, its string form constrained.
    #[kubegen(
        pattern = "^[0-9]+%$",
        max_length = 4,
        validation(rule = "type(self) == int ? self >= 0 : true", message = "not negative")
    )]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub surge: Option<IntOrString>,
    /// Choices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub choice: Option<Choice>,
    /// A code whose field narrows the type's length.
    #[kubegen(max_length = 8)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub short: Option<Code>,
    /// A code whose field adds a pattern to the type's.
    #[kubegen(pattern = "^[a-z]+$")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub letters: Option<Code>,
    /// A list whose items carry a rule and bounds.
    #[kubegen(items(minimum = 1, exclusive_maximum = 9, multiple_of = 3))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steps: Option<Vec<i64>>,
    /// A map whose values carry bounds.
    #[kubegen(min_properties = 1)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weights: Option<BTreeMap<String, i32>>,
}

/// A code.
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug)]
#[kubegen(max_length = 12, pattern = "^[a-z0-9]+$")]
pub struct Code(pub String);

/// What was observed (a status without the status subresource).
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug, Default)]
pub struct ExtrasStatus {
    /// How often.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seen: Option<i64>,
}

/// Choices: at most one of a and b, at least one of c and d.
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug)]
#[kubegen(at_most_one_of = ["a", "b"], at_least_one_of = ["c", "d"])]
pub struct Choice {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub a: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub b: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub c: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub d: Option<String>,
}

/// Legacy's versions: v1 stored and served, v1beta1 neither.
pub mod legacy {
    use std::collections::BTreeMap;

    use kubegen::{CustomResource, KubeSchema};
    use serde::{Deserialize, Serialize};

    /// Legacy has an unserved old version.
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
    #[kubegen(
        group = "shapes.cgdiff.example.com",
        version = "v1",
        kind = "Legacy",
        namespaced
    )]
    pub struct LegacySpec {
        /// A phase, a +k8s:enum type.
        pub phase: Phase,
        /// A default given as JSON.
        #[kubegen(default_json = r#"{"a": 1}"#)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub tuning: Option<BTreeMap<String, i32>>,
    }

    /// A phase.
    #[derive(KubeSchema, Serialize, Deserialize, Clone, Debug)]
    pub enum Phase {
        /// Starting up.
        Pending,
        /// Up.
        Running,
    }

    /// The unserved old version.
    pub mod v1beta1 {
        use std::collections::BTreeMap;

        use kubegen::CustomResource;
        use serde::{Deserialize, Serialize};

        pub use super::Phase;

        /// Legacy has an unserved old version.
        #[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
        #[kubegen(
            group = "shapes.cgdiff.example.com",
            version = "v1beta1",
            kind = "Legacy",
            namespaced,
            served = false,
            storage = false
        )]
        pub struct LegacySpec {
            /// A phase, a +k8s:enum type.
            pub phase: Phase,
            /// A default given as JSON.
            #[kubegen(default_json = r#"{"a": 1}"#)]
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub tuning: Option<BTreeMap<String, i32>>,
        }
    }
}
