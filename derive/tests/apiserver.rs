//! Acceptance tests against a real kube-apiserver (kubegen-testenv): every
//! corpus CRD is accepted and Established, and every schema keyword behaves
//! on the apiserver as documented — a table of rows, each with an object the
//! apiserver must accept and one it must reject with HTTP 422, the field path
//! and the apiserver's wording for that keyword.
//!
//! Run with `cargo test -p kubegen-derive --test apiserver`. The first run
//! builds the control plane (see `tests/control-plane/build.sh`).

#![allow(missing_docs)]

#[path = "support/cluster.rs"]
mod cluster;
#[path = "support/corpus_types.rs"]
mod corpus_types;

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use anyhow::{Context, Result};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use kube::api::{Api, ApiResource, DynamicObject, Patch, PatchParams, PostParams};
use kubegen::{CustomResource, CustomResourceExt, KubeSchema};
use kubegen_testenv::TestEnv;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use cluster::{check_rejection, describe, dynamic_api, install_crd, object, wait_served};
use corpus_types::*;

// ---------------------------------------------------------------------------
// The acceptance kind: one optional field per keyword, so that each row sets
// only the field it is about. `owner` is the one required field.
// ---------------------------------------------------------------------------

/// Probe exercises every schema keyword on the apiserver.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default)]
#[kubegen(
    group = "accept.kubegen.dev",
    version = "v1",
    kind = "Probe",
    namespaced,
    validation(
        rule = "!has(self.low) || !has(self.high) || self.low <= self.high",
        message = "low must not exceed high",
        reason = "FieldValueForbidden",
        field_path = ".low"
    ),
    validation(
        rule = "!has(self.mode) || self.mode != 'locked' || has(self.lockReason)",
        message_expression = "'mode ' + self.mode + ' needs a lockReason'",
        reason = "FieldValueRequired",
        field_path = ".lockReason"
    )
)]
#[serde(rename_all = "camelCase")]
pub struct ProbeSpec {
    /// Required: the only field every object must set.
    #[kubegen(min_length = 1)]
    pub owner: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[kubegen(minimum = 1, maximum = 10)]
    pub replicas: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[kubegen(exclusive_minimum = 0, exclusive_maximum = 100)]
    pub percent: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[kubegen(multiple_of = 5)]
    pub step: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[kubegen(min_length = 2, max_length = 5)]
    pub code: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[kubegen(pattern = "^[a-z]+$")]
    pub slug: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[kubegen(format = "date-time")]
    pub since: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[kubegen(format = "ipv4")]
    pub address: Option<String>,
    /// An `i32`: `format: int32` is automatic.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<i32>,
    /// A `u32`: `minimum: 0` is automatic.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unsigned: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[kubegen(min_items = 1, max_items = 3)]
    pub tags: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[kubegen(items(min_length = 2, max_length = 5, pattern = "^[a-z]+$"))]
    pub words: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[kubegen(items(minimum = 1, maximum = 9))]
    pub digits: Option<Vec<u8>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[kubegen(min_properties = 1, max_properties = 2)]
    pub selector: Option<BTreeMap<String, String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[kubegen(enum_values = ["red", "green", "blue"])]
    pub color: Option<String>,
    /// A unit-only enum: `enum` is automatic.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<Protocol>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[kubegen(nullable)]
    pub maybe: Option<String>,
    /// Not nullable: a null is pruned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plain: Option<String>,
    /// A set type: `x-kubernetes-list-type: set` is automatic.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub members: Option<BTreeSet<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[kubegen(list_type = "set")]
    pub flags: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[kubegen(list_type = "map", list_map_keys = ["name"])]
    pub ports: Option<Vec<Port>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<IntOrString>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[kubegen(int_or_string)]
    pub port_ref: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[kubegen(embedded_resource, preserve_unknown_fields)]
    pub template: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[kubegen(preserve_unknown_fields)]
    pub open: Option<BTreeMap<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nested: Option<Nested>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_metadata: Option<ObjectMeta>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[kubegen(validation(
        rule = "self.size() <= 3",
        message_expression = "'too many entries: %d'.format([self.size()])"
    ))]
    pub few: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[kubegen(validation(
        rule = "self.startsWith('img-')",
        message = "image must start with img-"
    ))]
    pub image: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[kubegen(validation = "self != 'forbidden'")]
    pub word: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[kubegen(validation(
        rule = "self != 'taken'",
        message = "this name is taken",
        reason = "FieldValueDuplicate"
    ))]
    pub unique_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub low: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub high: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[kubegen(max_length = 16)]
    pub mode: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lock_reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exactly: Option<ExactlyOne>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_most: Option<AtMostOne>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_least: Option<AtLeastOne>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[kubegen(immutable, max_length = 63)]
    pub region: Option<String>,
    /// A transition rule: never decreases once set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[kubegen(validation(rule = "self >= oldSelf", message = "level may not decrease"))]
    pub level: Option<i32>,
    /// A transition rule with `optionalOldSelf`: it also runs on create.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[kubegen(validation(
        rule = "oldSelf.hasValue() ? self >= oldSelf.value() : self == 0",
        message = "epoch starts at 0 and never decreases",
        optional_old_self
    ))]
    pub epoch: Option<i32>,
    /// Scalar default.
    #[serde(default)]
    #[kubegen(default = 3)]
    pub workers: i32,
    /// Object default; `Settings` defaults its own fields too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[kubegen(default_json = r#"{"interval": "30s"}"#)]
    pub settings: Option<Settings>,
    /// List default.
    #[serde(default)]
    #[kubegen(default_json = r#"["build", "test"]"#)]
    pub stages: Vec<String>,
}

/// Pruned: unknown fields are dropped.
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Nested {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub known: Option<String>,
}

/// Nested defaults.
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Settings {
    pub interval: String,
    #[serde(default)]
    #[kubegen(default = 3)]
    pub threshold: i32,
}

#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug, Default)]
#[kubegen(exactly_one_of = ["a", "b"])]
pub struct ExactlyOne {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub a: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub b: Option<String>,
}

#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug, Default)]
#[kubegen(at_most_one_of = ["a", "b"])]
pub struct AtMostOne {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub a: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub b: Option<String>,
}

#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug, Default)]
#[kubegen(at_least_one_of = ["a", "b"])]
pub struct AtLeastOne {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub a: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub b: Option<String>,
}

/// Two versions of one kind, merged with `kubegen::merge_crds`.
mod gadget_v1 {
    use kubegen::CustomResource;
    use serde::{Deserialize, Serialize};

    /// Gadget, the old version.
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
    #[kubegen(
        group = "accept.kubegen.dev",
        version = "v1",
        kind = "Gadget",
        namespaced,
        storage = false,
        deprecated,
        deprecation_warning = "accept.kubegen.dev/v1 Gadget is deprecated; use v2"
    )]
    pub struct GadgetSpec {
        #[kubegen(minimum = 1)]
        pub size: i32,
    }
}

mod gadget_v2 {
    use kubegen::CustomResource;
    use serde::{Deserialize, Serialize};

    /// Gadget, the storage version.
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
    #[kubegen(
        group = "accept.kubegen.dev",
        version = "v2",
        kind = "Gadget",
        namespaced
    )]
    pub struct GadgetSpec {
        #[kubegen(minimum = 1)]
        pub size: i32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub color: Option<String>,
    }
}

async fn setup(prefix: &str) -> Result<(&'static TestEnv, String, kube::Client)> {
    let env = TestEnv::shared().await?;
    let ns = env.namespace(prefix).await?;
    let client = env.client().await?;
    Ok((env, ns, client))
}

/// Installs the CRD of `K` and returns a dynamic client once it is served.
async fn served<K>(
    client: &kube::Client,
    ns: Option<&str>,
) -> Result<(ApiResource, Api<DynamicObject>)>
where
    K: CustomResourceExt + kube::Resource<DynamicType = ()>,
{
    let crd: CustomResourceDefinition = serde_json::from_value(K::crd_json()?)?;
    install_crd(client, &crd).await?;
    let resource = ApiResource::erase::<K>(&());
    let api = dynamic_api(client, &resource, ns);
    wait_served(&api).await?;
    Ok((resource, api))
}
