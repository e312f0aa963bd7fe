//! Derive macros for kubegen. Every macro converts `proc_macro` tokens to
//! `proc_macro2`, calls `kubegen-codegen` (the compile-time library the CLI
//! shares) and converts back; no logic lives here.

use proc_macro::TokenStream;

/// Derives `kubegen::KubeSchema`: a Kubernetes *structural* OpenAPI v3
/// schema for a struct or enum, honouring serde attributes exactly.
///
/// ```
/// use kubegen::KubeSchema;
/// use serde::{Deserialize, Serialize};
///
/// /// How the application is exposed.
/// #[derive(KubeSchema, Serialize, Deserialize, Clone, Debug)]
/// #[serde(rename_all = "camelCase")]
/// #[kubegen(at_most_one_of = ["hostName", "ipAddress"])]
/// pub struct Exposure {
///     /// The port to listen on.
///     #[kubegen(minimum = 1, maximum = 65535)]
///     pub port: u16,
///     #[serde(default, skip_serializing_if = "Option::is_none")]
///     pub host_name: Option<String>,
///     #[serde(default, skip_serializing_if = "Option::is_none")]
///     pub ip_address: Option<String>,
/// }
///
/// let schema = <Exposure as kubegen::KubeSchema>::kube_schema().unwrap();
/// assert_eq!(schema["properties"]["port"]["maximum"], 65535);
/// ```
///
/// Field-level keys (also accepted inside `items(...)` where they make sense)
/// and type-level keys are listed on [`CustomResource`].
#[proc_macro_derive(KubeSchema, attributes(kubegen))]
pub fn derive_kube_schema(input: TokenStream) -> TokenStream {
    kubegen_codegen::expand::derive_kube_schema(input.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// Derives a Kubernetes custom resource from its spec struct.
///
/// Generates the root type `Kind { metadata, spec, status }` (with
/// `Kind::new(name, spec)` and `Kind::crd()`), `k8s_openapi::Resource`,
/// `ListableResource` and `Metadata` (so `kubegen::Api<Kind>` works),
/// `kubegen::CustomResourceExt`, and `KubeSchema` for the spec.
///
/// ```
/// use kubegen::{CustomResource, KubeSchema};
/// use serde::{Deserialize, Serialize};
///
/// /// MyApplication describes an application deployment.
/// #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, PartialEq)]
/// #[kubegen(group = "stable.example.com", version = "v1", kind = "MyApplication", namespaced,
///           shortname = "ma", status = "MyApplicationStatus", derive = "PartialEq",
///           printcolumn(name = "Image", type = "string", json_path = ".spec.image"))]
/// #[serde(rename_all = "camelCase")]
/// pub struct MyApplicationSpec {
///     /// The container image to use for the application.
///     #[kubegen(min_length = 1)]
///     pub image: String,
///     /// The desired number of application replicas.
///     #[kubegen(minimum = 1, default = 1)]
///     pub replicas: i32,
/// }
///
/// #[derive(KubeSchema, Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
/// #[serde(rename_all = "camelCase")]
/// pub struct MyApplicationStatus {
///     pub available_replicas: i32,
/// }
///
/// let crd = MyApplication::crd().unwrap();
/// assert_eq!(crd.metadata.name.as_deref(), Some("myapplications.stable.example.com"));
/// let app = MyApplication::new("web", MyApplicationSpec { image: "nginx".into(), replicas: 2 });
/// assert_eq!(serde_json::to_value(&app).unwrap()["kind"], "MyApplication");
/// ```
///
/// Every key lives in one closed `#[kubegen(...)]` namespace: an unknown key is
/// a compile error with a "did you mean" suggestion, and a key used in the
/// wrong place says where it belongs. `docs/markers.md` lists every
/// controller-gen CRD marker with its kubegen spelling.
///
/// # Resource keys (on the spec struct)
///
/// ## `#[kubegen(group = "stable.example.com")]`, `version = "v1"`, `kind = "MyApplication"`
/// Required. The group must be a DNS subdomain with a dot; the spec struct
/// must not be named like the kind (the root type takes that name).
/// ## `#[kubegen(namespaced)]`
/// Namespace scope; without it the resource is cluster-scoped.
/// ## `#[kubegen(plural = "...", singular = "...")]`, `list_kind = "..."`
/// Override the names; the default plural follows Kubernetes conventions
/// (`policy` → `policies`, `ingress` → `ingresses`, `endpoints` → `endpoints`),
/// the default list kind is the kind with `List` appended.
/// ## `#[kubegen(shortname = "ma")]`, `#[kubegen(category = "all")]`
/// Repeatable.
/// ## `#[kubegen(allow_breaking = "field-removed v1 .spec.legacy: why")]`
/// A breaking change `kubegen check --against <release>` accepts (the CRD
/// build is unaffected): the change's id exactly as `kubegen check` prints
/// it (`<rule> [<version>] [<path>]`), `: `, and the reason, which the
/// report shows. Repeatable; an allowance that names no change found is
/// reported, one without a reason or naming no rule is an error.
///
/// ```ignore
/// #[kubegen(allow_breaking = "field-removed v1 .spec.legacy: replaced by .spec.modern, announced in v0.4")]
/// ```
///
/// ## `#[kubegen(status = "MyApplicationStatus")]`
/// The status type (must implement `KubeSchema`); enables the status subresource.
/// ## `#[kubegen(scale(spec_replicas_path = ".spec.replicas", status_replicas_path = ".status.replicas", label_selector_path = ".status.selector"))]`
/// The scale subresource; needs a status.
/// ## `#[kubegen(printcolumn(name = "Age", type = "date", json_path = ".metadata.creationTimestamp", description = "...", format = "...", priority = 1))]`
/// Repeatable. `type` is one of integer, number, string, boolean, date; when
/// left out it is inferred from the field's schema (`date` for date-time
/// strings and `.metadata.creationTimestamp`). Put each column in its own
/// `#[kubegen(...)]`: clippy's `duplicated_attributes` lint flags a repeated
/// `type = "..."` within one attribute, and inference avoids repeating it.
/// Paths are checked at compile time: the first field under `.spec` against
/// the spec struct, `.metadata.*` against `ObjectMeta`, and the first field
/// under `.status` against the status type's fields (a `const` check). Deeper
/// segments are checked by `crd()`, where every nested schema is known.
/// ## `#[kubegen(selectable_field(json_path = ".spec.color"))]`
/// Repeatable; the field must be a string, integer or boolean.
/// ## `#[kubegen(storage = false)]`, `served = false`, `deprecated`, `deprecation_warning = "..."`
/// Version flags; `kubegen::merge_crds` merges versions and demands exactly
/// one storage version (and a `conversion` when served versions hold
/// different fields).
/// ## `#[kubegen(crd_label(key = "k", value = "v"))]`, `crd_annotation(key = "k", value = "v")`
/// Labels and annotations on the CRD object. Repeatable.
/// ## `#[kubegen(verbs(only = ["get", "list", "watch"]))]`, `verbs(skip = ["delete"])`, `no_status`
/// Typed-client verbs, recorded in the resource model for the CLI.
/// ## `#[kubegen(max_description_len = 200)]`
/// Cuts long descriptions to keep the CRD small, as controller-gen's
/// `crd:maxDescLen=200` does: back to the last sentence end within the
/// limit, or to the last word end followed by `...`; `0` removes them.
/// ## `#[kubegen(max_name_length = 55, name_pattern = "^[a-z]([-a-z0-9]*[a-z0-9])?$")]`
/// Refuse, at admission, objects whose names could never work — typically
/// because the operator derives child names from them (`<name>-service`
/// must be a DNS-1035 label of at most 63 characters). Each becomes a CEL
/// rule at the schema's root, the one place a rule sees `metadata.name`:
/// `size(self.metadata.name) <= 55` with the message "metadata.name must
/// be at most 55 characters long", and `self.metadata.name.matches('…')`
/// with "metadata.name must match …". `max_name_length` is between 1 and
/// 253; `name_pattern` is an RE2 pattern (checked at compile time).
/// ## `#[kubegen(conversion(service = "shop-webhook", namespace = "shop-system", path = "/convert", port = 443, hub = "v2"))]`
/// The kind's versions convert through a webhook: the CRD gets
/// `spec.conversion.strategy: Webhook` with this Service (`path` defaults to
/// `/convert`, `port` to 443; `url = "https://..."` instead of
/// `service`/`namespace` for a webhook outside the cluster) and
/// `conversionReviewVersions: [v1]`; the `caBundle` is injected at deploy
/// time (cert-manager, or `kubegen::conversion::inject_ca_bundle`). Write it
/// on one version of the kind. The hub — the version every other converts
/// through — is the storage version unless `hub` names another. Each other
/// version implements `From` (or `TryFrom`) to and from the hub's root type;
/// `kubegen generate` writes the `converter()` that serves them
/// (`kubegen::server::WebhookServer`) and a round-trip property test. What a
/// version cannot hold is kept in an annotation and restored, so nothing is
/// lost; see `kubegen::conversion`.
///
/// `conversion(..., external)` records a webhook someone else serves (what
/// `kubegen import` writes for a published CRD): the CRD keeps its
/// `conversion`, and no converter or `From` impls are asked for.
/// `review_versions = ["v1", "v1beta1"]` sets `conversionReviewVersions`
/// (default `["v1"]`; it must include `v1`).
///
/// Without `conversion`, versions whose fields differ are refused by
/// `kubegen::merge_crds` and `kubegen generate`: the apiserver would
/// convert by rewriting `apiVersion` and drop what the other version lacks.
///
/// ```ignore
/// // v2.rs (the storage version, so the hub)
/// #[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
/// #[kubegen(group = "shop.example.com", version = "v2", kind = "Cart", namespaced,
///           conversion(service = "shop-webhook", namespace = "shop-system"))]
/// pub struct CartSpec { pub lines: Vec<Line> }
///
/// // v1.rs
/// #[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
/// #[kubegen(group = "shop.example.com", version = "v1", kind = "Cart", namespaced, storage = false)]
/// pub struct CartSpec { pub items: Vec<String> }
///
/// impl From<v1::Cart> for v2::Cart { /* items → lines of quantity 1 */ }
/// impl From<v2::Cart> for v1::Cart { /* lines → their SKUs */ }
/// ```
/// ## `#[kubegen(admission(validate, default, service = "shop-webhook", namespace = "shop-system", port = 443, failure_policy = "Fail", timeout_seconds = 10, operations = ["CREATE", "UPDATE"]))]`
/// Admission webhooks for this version: `validate` registers a
/// `ValidatingWebhookConfiguration` entry on `/validate-<group>-<version>-<kind>`,
/// `default` a `MutatingWebhookConfiguration` entry on `/mutate-…`, both
/// written by `kubegen generate` to `config/webhook/manifests.yaml` (set
/// `webhook-dir` to move it) with `sideEffects: None`,
/// `admissionReviewVersions: [v1]`, `matchPolicy: Equivalent` (requests at
/// other versions are converted and checked too) and the defaults
/// `failurePolicy: Fail` (nothing unchecked is stored while the webhook is
/// down; only this kind is affected) and `timeoutSeconds: 10`.
/// `url = "https://host:port"` replaces `service`/`namespace` for a webhook
/// outside the cluster (paths are appended). Serve them with
/// `kubegen::server::WebhookServer::builder(cert).validate::<Cart>(f)` and
/// `.default::<Cart>(f)`: a validator returns `Ok(warnings)` or
/// `Err(message)` (403 with the message), a defaulter edits the typed
/// object and the webhook answers with the JSON patch of its edits only.
///
/// ```ignore
/// #[kubegen(group = "shop.example.com", version = "v2", kind = "Cart", namespaced,
///           admission(validate, default, service = "shop-webhook", namespace = "shop-system"))]
/// pub struct CartSpec { pub lines: Vec<Line>, pub note: Option<String> }
///
/// let server = WebhookServer::builder(ServingCert::from_dir(dir))
///     .validate::<Cart>(|r| match &r.object {
///         Some(c) if c.spec.lines.is_empty() => Err("a cart needs a line".into()),
///         _ => Ok(vec![]),
///     })
///     .default::<Cart>(|c| { c.spec.note.get_or_insert_with(|| "new".into()); });
/// ```
/// ## `#[kubegen(kind_description = "...")]`, `optional_spec`, `required_metadata`, `flatten_spec`, `type_meta_schema_json = r#"{...}"#`
/// The shape of the schema's root, for kinds published elsewhere (what
/// `kubegen import` writes; controller-gen's CRDs differ in these ways).
/// `kind_description` is the root's description (by default the spec
/// struct's doc; `""` for none). `optional_spec` drops `spec` from the
/// root's `required` (Go's `spec,omitempty`), and the root type holds
/// `spec: Option<Spec>`. `required_metadata` lists `metadata` as required.
/// `flatten_spec` makes the struct's fields the object's top-level fields
/// next to `apiVersion`, `kind` and `metadata` — for kinds without a `spec`
/// (`PolicyReport`'s `results`) or with more than `spec` and `status`
/// (Argo CD's `operation`); the struct then holds `status` too and
/// `status_subresource` enables its subresource. `type_meta_schema_json`
/// gives the root's `apiVersion`, `kind` and `metadata` schemas verbatim
/// (those left out are absent), for hand-written CRDs without kubegen's.
/// ```
/// # use kubegen::{CustomResource, KubeSchema};
/// # use serde::{Deserialize, Serialize};
/// /// PolicyReport is the Schema for the policyreports API.
/// #[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
/// #[kubegen(group = "wgpolicyk8s.io", version = "v1alpha2", kind = "PolicyReport",
///           namespaced, flatten_spec)]
/// pub struct PolicyReportSpec {
///     #[serde(default, skip_serializing_if = "Option::is_none")]
///     pub results: Option<Vec<String>>,
///     #[serde(default, skip_serializing_if = "Option::is_none")]
///     pub summary: Option<PolicyReportSummary>,
/// }
///
/// #[derive(KubeSchema, Serialize, Deserialize, Clone, Debug)]
/// pub struct PolicyReportSummary {
///     pub pass: i32,
/// }
///
/// let crd = <PolicyReport as kubegen::CustomResourceExt>::crd_json().unwrap();
/// let root = &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
/// assert_eq!(root["properties"]["summary"]["properties"]["pass"]["type"], "integer");
/// assert!(root["properties"].get("spec").is_none());
/// ```
/// ## `#[kubegen(status_subresource = false)]`
/// The status subresource follows `status = "..."`; this overrides it (a
/// `status` field without the subresource, or — `status_subresource` — the
/// subresource on a kind whose status type is not declared).
/// ## `#[kubegen(allow_lossy_versions)]`
/// Lets versions whose fields differ be served without a conversion
/// webhook, as some published CRDs do (the apiserver then drops what a
/// version lacks when it converts). Without it such versions are refused;
/// prefer `conversion(...)`.
/// ## `#[kubegen(derive = "PartialEq")]`
/// Extra derives on the generated root type (repeatable).
/// ## `#[kubegen(crate = "::kubegen")]`
/// Path of the `kubegen` crate in generated code (also on `KubeSchema` types).
///
/// # Type keys (on any struct or enum)
///
/// ## `#[kubegen(apply)]`
/// Derives the type's apply configuration for server-side apply: `FooApply`
/// for a struct `Foo`, every serialized field an `Option` under the same
/// JSON name holding the field type's apply configuration
/// (`kubegen::apply::Applicable`), with `with_<field>` builders (lists
/// append, maps insert). Every type such a field holds needs `apply` too;
/// enums, newtypes, k8s-openapi types and fields whose schema a key
/// replaces are applied whole. On a resource's spec it also makes
/// `<Kind>Apply` with `new`, `extract`, `extract_status` and the metadata
/// builders, which the clients' `apply` verbs take. Generic types are
/// refused. `kubegen generate` writes apply configurations from the CRD
/// schema for every kind it serves, built-in types field by field; this
/// key is for crates that do not run it.
///
/// ```
/// use kubegen::{CustomResource, KubeSchema};
/// use serde::{Deserialize, Serialize};
///
/// #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, PartialEq)]
/// #[kubegen(group = "example.com", version = "v1", kind = "Cache", namespaced, apply)]
/// pub struct CacheSpec {
///     pub size: u32,
///     pub tiers: Vec<Tier>,
/// }
///
/// #[derive(KubeSchema, Serialize, Deserialize, Clone, Debug, PartialEq)]
/// #[kubegen(apply)]
/// pub struct Tier {
///     pub name: String,
/// }
///
/// let cache = CacheApply::new("c", "default").with_spec(CacheSpecApply::default().with_size(2u32));
/// assert_eq!(serde_json::to_value(&cache).unwrap()["spec"], serde_json::json!({"size": 2}));
/// ```
/// ## `#[kubegen(validation(rule = "self.min <= self.max", message = "...", message_expression = "...", reason = "FieldValueInvalid", field_path = ".min", optional_old_self))]`
/// CEL rules in `x-kubernetes-validations`; repeatable; also on fields and
/// `items(...)`. `validation = "rule"` is the short form. Each rule and
/// `message_expression` is parsed and type-checked at compile time as the
/// apiserver checks it when the CRD is created — against the fields the
/// derive sees (a field of another type is `dyn` here), with the
/// apiserver's function library (strings, lists, sets, regex, URLs,
/// quantity, IP/CIDR, format, semver, optionals): an unknown field, a call
/// on the wrong type or a rule that is not a `bool` is a compile error at
/// the rule, with the CEL position and a did-you-mean; `kubegen generate`
/// then checks every rule against the whole CRD. The apiserver also
/// estimates each rule's cost and refuses costly ones (kubegen does not
/// estimate it yet): build messages with
/// `'%d'.format([...])` rather than `'...' + string(...)`, and bound lists and
/// strings with `max_items` / `max_length`. With
/// `reason = "FieldValueDuplicate"` the apiserver reports the value, not the
/// message.
/// ## `#[kubegen(exactly_one_of = ["a", "b"])]`, `at_most_one_of`, `at_least_one_of`
/// Member rules over optional fields (JSON names), compiled to the CEL
/// controller-gen writes for `ExactlyOneOf` / `AtMostOneOf` /
/// `AtLeastOneOf` (v0.23): `(has(self.a)?1:0)+(has(self.b)?1:0) == 1` (`<= 1`;
/// `has(self.a)||has(self.b)` for at least one) with the message "exactly one of the fields in [a b] must be set" ("at
/// most one of the fields in [a b] may be set", "at least one of …
/// must be set"), after the type's own `validation` rules.
/// ## `#[kubegen(min_properties = 1, max_properties = 3)]`, `struct_type = "atomic"`, `preserve_unknown_fields`, `title = "..."`, `description = "..."`, `example = ...`
/// ## Value keys on a type
/// Every value key of fields (`minimum`, `min_length`, `pattern`,
/// `format`, `enum_values`, `min_items`, `items(...)`, `list_type`,
/// `int_or_string`, `embedded_resource`, `schema_type`, `schema_json`,
/// `schemaless`, …) is accepted on a type too, as controller-gen accepts
/// its validation markers on `type Role string`: it applies to the type's
/// schema wherever the type is used, and is checked against what the type
/// serializes as (a newtype: its field; a unit enum: a string; a struct:
/// an object).
/// ```
/// # use kubegen::KubeSchema;
/// # use serde::{Deserialize, Serialize};
/// /// A role name.
/// #[derive(KubeSchema, Serialize, Deserialize)]
/// #[kubegen(enum_values = ["web", "db"], max_length = 3)]
/// pub struct Role(pub String);
///
/// let schema = <Role as kubegen::KubeSchema>::kube_schema().unwrap();
/// assert_eq!(schema["maxLength"], 3);
/// ```
/// ## `#[kubegen(optional)]` on a type
/// Every field is optional unless marked `required` (controller-gen's
/// package-level `+kubebuilder:validation:Optional`). Only the schema
/// changes: serde still needs fields that are not `Option` or defaulted.
/// ## `#[kubegen(external_docs(url = "https://...", description = "..."))]`
/// `externalDocs` on the type's (or, on a field, the field's) schema;
/// the URL must be absolute (controller-gen's `+kubebuilder:externalDocs`).
///
/// # Field keys
///
/// ## `#[kubegen(minimum = 1, maximum = 10, exclusive_minimum, exclusive_maximum, multiple_of = 2)]`
/// Numbers. `exclusive_minimum = 0` sets the bound and makes it exclusive.
/// Unsigned integers get `minimum: 0` automatically. The apiserver refuses
/// numbers outside a `format`'s range (`int32`, `int64`) and no others, so
/// 8- and 16-bit integers and `u32` also get their type's bounds (`u8`:
/// `maximum: 255`, `i16`: `-32768..=32767`) and a `u32` is `format: int64`
/// (`int32` would refuse half its values): no object holds a number serde
/// cannot read back.
/// ## `#[kubegen(min_length = 1, max_length = 63, pattern = "^[a-z]+$", format = "...")]`
/// Strings. Patterns are compiled at build time; the apiserver uses RE2, so
/// look-around and backreferences are rejected. A `format` the apiserver
/// knows must fit the field's JSON type (`int32`/`int64` on integers,
/// `float`/`double` on numbers, `date-time`, `email`, `ipv4`, … on strings;
/// none on booleans) — a mismatch is a compile error, since the apiserver
/// would silently ignore it.
/// ## `#[kubegen(min_items = 1, max_items = 10, unique_items, items(min_length = 1, pattern = "..."))]`
/// Lists; `items(...)` applies value keywords to each item. The apiserver
/// forbids `uniqueItems`, so `unique_items` is emitted as
/// `x-kubernetes-list-type: set` (scalar items only), which it enforces.
/// ## `#[kubegen(list_type = "map", list_map_keys = ["name"])]`
/// List topology (`atomic`, `set`, `map`). Map keys must be required or
/// defaulted scalar fields of the item type (checked at compile time); a
/// field whose type is a unit-only enum deriving `KubeSchema` counts as
/// scalar (it serializes as a string).
/// Sets (`BTreeSet`, `HashSet`) are `list_type = "set"` automatically.
/// ## `#[kubegen(map_type = "atomic")]`, `struct_type = "atomic"`, `min_properties`, `max_properties`
/// ## `#[kubegen(enum_values = ["a", "b"])]`
/// An explicit `enum`; unit-only Rust enums get one automatically.
/// ## `#[kubegen(default = 1)]`, `default_json = r#"{"a": 1}"#`
/// Checked at compile time against the field type and its own constraints.
///
/// `#[serde(default)]` fills the schema default from the field type when
/// it is known — `0`, `false`, `""`, `[]`, `{}`; `Option`, JSON values and
/// `ObjectMeta` need none (absent already reads as their default) — so
/// kubectl, Go clients and Rust readers see the same value. Where serde's
/// default cannot be known (`#[serde(default = "function")]`, a nested
/// type's `Default`, a hand-written container `Default`), the derive asks
/// for the value: write it with `default`, or opt out with
/// `no_schema_default`.
///
/// `#[serde(default, skip_serializing_if = "...")]` — Rust's spelling of Go's
/// `omitempty` — gives no schema default: serde never writes the value the
/// predicate skips (the type's default, for `Vec::is_empty`,
/// `String::is_empty`, `BTreeMap::is_empty`, `Option::is_none`), so an
/// object holds the field only when it is set, and Rust readers see
/// `Default::default()` when it is absent, as controller-gen writes no
/// default for an `omitempty` Go field (and schemars none for a skipped
/// one). Such a field can carry `min_items`/`min_length` without an
/// annotation; `#[kubegen(default = ...)]` still sets a default on purpose.
/// ```
/// # use kubegen::KubeSchema;
/// # use serde::{Deserialize, Serialize};
/// fn one() -> i32 { 1 }
/// #[derive(KubeSchema, Serialize, Deserialize)]
/// pub struct Scaling {
///     /// Schema default 0, from `i32::default()`.
///     #[serde(default)]
///     pub min: i32,
///     /// serde calls `one()`; the schema says the same.
///     #[kubegen(default = 1)]
///     #[serde(default = "one")]
///     pub replicas: i32,
///     /// Optional, no schema default: absent unless it has a name.
///     #[kubegen(min_items = 1)]
///     #[serde(default, skip_serializing_if = "Vec::is_empty")]
///     pub names: Vec<String>,
/// }
/// ```
/// ## `#[kubegen(no_schema_default)]`
/// A `#[serde(default)]` or `#[serde(default = "...")]` field whose schema
/// has no default, on purpose: the apiserver stores objects without it.
/// ## `#[kubegen(example = "x")]`, `example_json = "..."`, `title = "..."`, `description = "..."`, `nullable`
/// ## `#[kubegen(immutable)]`
/// `self == oldSelf`; for optional fields the parent also forbids removal.
/// ## `#[kubegen(neq = "forbidden")]`
/// A value the field (or type, or list item) may not hold — Kubernetes'
/// declarative-validation tag `+k8s:neq` — on strings, numbers and
/// booleans: the rule `self != "forbidden"` with the message "must not be
/// equal to forbidden". The value must fit the node's type.
///
/// ```
/// # use kubegen::KubeSchema;
/// # use serde::{Deserialize, Serialize};
/// #[derive(KubeSchema, Serialize, Deserialize)]
/// struct Route {
///     #[kubegen(neq = "default")]
///     name: String,
///     #[kubegen(neq = 0)]
///     weight: u8,
/// }
/// ```
/// ## `#[kubegen(required)]`, `#[kubegen(optional)]`
/// Override requiredness (fields are required unless `Option`, defaulted,
/// `#[serde(default)]` or `skip_serializing_if`).
/// ## `#[kubegen(preserve_unknown_fields)]`, `embedded_resource`, `int_or_string`, `schemaless`
/// Kubernetes extensions; `schemaless` accepts any JSON.
/// ## `#[kubegen(allow_float)]`
/// Floats are refused unless allowed (they do not round-trip exactly).
/// ## `#[kubegen(schemars)]`
/// Take the field type's schema from `schemars::JsonSchema`, converted to a
/// structural schema, for types that implement only that (the CLI cannot
/// evaluate it). An `Option` around the type is an optional field as
/// anywhere else. Needs kubegen's `schemars` feature (off by default, so
/// that an operator without the mark builds no schemars); without it the
/// mark is a compile error at the field naming the feature:
/// ```toml
/// kubegen = { package = "kubegen-runtime", version = "0.1", features = ["schemars"] }
/// ```
/// k8s-openapi types need no mark: they implement
/// `KubeSchema` with the schema controller-gen embeds for the same Go type,
/// however the field names them (`use`, rename, alias): list types and map
/// keys (server-side apply merges `containers` by name, as for Pods),
/// `x-kubernetes-map-type: atomic` where `k8s.io/api` says
/// `+structType=atomic`, the defaults `k8s.io/api` declares with `+default`
/// (`ContainerPort.protocol: TCP`) and no Go zero values (a container
/// without a `name` is refused, a minimal template is stored as written),
/// and a template's `metadata` as name, namespace, labels, annotations and
/// finalizers (controller-gen's `crd:generateEmbeddedObjectMeta=true`; the
/// rest is pruned). A type whose schema the apiserver would refuse in a CRD
/// (`ServiceAccount`: its `secrets` list is keyed by an optional field), or
/// that controller-gen cannot generate, is a compile error naming why;
/// `schemaless` accepts any JSON there instead.
/// ## `#[kubegen(schema_type = "string")]`
/// controller-gen's `+kubebuilder:validation:Type`, on a field, inside
/// `items(...)` or on a type: the node's `type` is the one given
/// (`string`, `integer`, `number`, `boolean`, `object`, `array`) instead of
/// the Rust type's, whose shape is then not read at all (any Rust type
/// works: `std::time::Duration`, `std::net::IpAddr`, a type serialized
/// through another). An `object` keeps unknown fields
/// (`{type: object, x-kubernetes-preserve-unknown-fields: true}`); an
/// `array`'s items are what `items(...)` says (any value otherwise). The
/// node's other keys apply and are checked against the given type:
/// `format` must fit it, `min_length` needs a `string`, a `default` must
/// be one. `number` needs no `allow_float`: the type is explicit.
/// ```
/// # use kubegen::KubeSchema;
/// # use serde::{Deserialize, Serialize};
/// mod seconds {
///     use serde::{Deserialize, Deserializer, Serializer};
///     pub fn serialize<S: Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
///         s.serialize_str(&format!("{v}s"))
///     }
///     pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
///         let t = String::deserialize(d)?;
///         t.trim_end_matches('s').parse().map_err(serde::de::Error::custom)
///     }
/// }
///
/// /// Written as `"v<n>"` through `String`.
/// #[derive(KubeSchema, Serialize, Deserialize, Clone)]
/// #[serde(into = "String", try_from = "String")]
/// #[kubegen(schema_type = "string", pattern = "^v[0-9]+$")]
/// pub struct Version { pub n: u32 }
/// # impl From<Version> for String { fn from(v: Version) -> String { format!("v{}", v.n) } }
/// # impl TryFrom<String> for Version {
/// #     type Error = std::num::ParseIntError;
/// #     fn try_from(s: String) -> Result<Version, Self::Error> {
/// #         Ok(Version { n: s.trim_start_matches('v').parse()? })
/// #     }
/// # }
///
/// #[derive(KubeSchema, Serialize, Deserialize)]
/// pub struct Rollout {
///     #[serde(with = "seconds")]
///     #[kubegen(schema_type = "string", format = "duration")]
///     pub timeout: u64,
///     #[kubegen(items(schema_type = "string", format = "ipv4"))]
///     pub addresses: Vec<std::net::Ipv4Addr>,
///     pub version: Version,
/// }
///
/// let schema = <Rollout as kubegen::KubeSchema>::kube_schema().unwrap();
/// assert_eq!(schema["properties"]["timeout"]["format"], "duration");
/// assert_eq!(schema["properties"]["addresses"]["items"]["type"], "string");
/// assert_eq!(schema["properties"]["version"]["pattern"], "^v[0-9]+$");
/// ```
/// ## `#[kubegen(schema_json = r#"{...}"#)]`
/// On a field, inside `items(...)` or on a type: the node's schema is
/// exactly this JSON object, checked at compile time (valid JSON, an
/// object, structural by the apiserver's rules, RE2 patterns and CEL rules
/// that parse; what depends on where it is used is checked when the CRD is
/// built). The doc comment (or `description`) is added only when the JSON
/// has no `description`. Every other key that shapes the same node
/// (`min_length`, `enum_values`, `list_type`, `default`, `validation`,
/// `immutable`, `title`, …) is a compile error naming both: write it into
/// the JSON. Keys about the field rather than its schema stay:
/// `required`, `optional`, `description`, `no_schema_default`. A
/// `#[serde(default)]` field needs `"default"` in the JSON (or
/// `no_schema_default`), since what `Default` serializes to is unknown.
/// ```
/// # use kubegen::KubeSchema;
/// # use serde::{Deserialize, Serialize};
/// #[derive(KubeSchema, Serialize, Deserialize)]
/// pub struct Settings {
///     /// One of two letters.
///     #[kubegen(schema_json = r#"{"type": "string", "enum": ["a", "b"]}"#)]
///     pub letter: String,
/// }
///
/// let schema = <Settings as kubegen::KubeSchema>::kube_schema().unwrap();
/// assert_eq!(schema["properties"]["letter"]["description"], "One of two letters.");
/// ```
/// ## Custom serde needs an explicit schema
/// A field with `#[serde(with = ...)]`, `serialize_with` or
/// `deserialize_with`, and a type with `#[serde(from = ...)]`, `into`,
/// `try_from` or `remote`, is written by code kubegen cannot read: it is
/// a compile error, at the serde attribute, unless the node says what its
/// JSON is with `schema_type` (and `format`), `schema_json`, `schemaless`
/// (or `int_or_string`). Without it the schema would describe the Rust
/// type, not the JSON. A `#[serde(default)]` field among them needs its
/// schema default written out (`default = ...`, or in the JSON).
/// ## Field keys only tighten their type's
/// Keys on a field (or in `items(...)`, or on a newtype) whose type is
/// another `KubeSchema` type add to that type's schema, as controller-gen
/// combines field and type markers: a value key the type already has with
/// another value (`min_length`, `maximum`, `pattern`, …) moves, with the
/// type's, under `allOf: [{type's}, {field's}]` as controller-gen writes it,
/// so both apply and a field can only tighten its type (a field's
/// `enum_values` goes under `allOf` beside the type's `enum`, which stays:
/// controller-gen drops the field's, kubegen enforces both); rules add up. Keys that cannot hold two values are refused
/// when the schema is built (`crd()`, `kubegen generate`), naming the
/// field and the type: a different `format`, `list_type`, `list_map_keys`,
/// `map_type`/`struct_type`, and `int_or_string` over a schema that is
/// not one. Annotations (`description`, `default`, `example`, `title`,
/// `nullable`, pruning and embedding) are the field's and replace the
/// type's.
/// ## Map keys
/// `BTreeMap`/`HashMap`/`IndexMap` keys are `String` (or `&str`, `Cow`) or
/// an integer type: serde_json writes integer keys as decimal strings, so
/// the map is `{type: object, additionalProperties: ...}` with a CEL rule
/// that every key is one serde_json reads back as the key type (digits,
/// no `+` or leading zeros, within the type's range; the message names the
/// range). Other key types (newtypes, enums) are refused with the remedy:
/// key by the inner `String`, or describe the map with `schema_json`.
#[proc_macro_derive(CustomResource, attributes(kubegen))]
pub fn derive_custom_resource(input: TokenStream) -> TokenStream {
    kubegen_codegen::expand::derive_custom_resource(input.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// Declares RBAC permissions the code it annotates needs; `kubegen generate`
/// collects every `#[rbac(...)]` in the crate into `config/rbac/role.yaml`
/// (a ClusterRole, plus a Role per `namespace`). The item is left unchanged;
/// the arguments are checked at compile time (unknown keys and verbs get a
/// "did you mean").
///
/// ## `#[rbac(groups = [...], resources = [...], verbs = [...])]`
/// API groups (`""` for core), lower-case plural resources (with
/// `/status`-style subresources) and verbs.
/// ## `resource_names = [...]`
/// Limits the rule to named objects.
/// ## `namespace = "ns"`
/// Puts the rule in a Role in that namespace instead of the ClusterRole.
/// ## `urls = [...]`
/// Non-resource URLs (`/metrics`), ClusterRole only.
///
/// ```
/// use kubegen::rbac;
///
/// #[rbac(groups = ["apps"], resources = ["deployments"], verbs = ["get", "list", "watch", "create", "update", "patch"])]
/// #[rbac(groups = ["events.k8s.io"], resources = ["events"], verbs = ["create", "patch"])]
/// async fn reconcile() {}
/// ```
#[proc_macro_attribute]
pub fn rbac(args: TokenStream, item: TokenStream) -> TokenStream {
    match kubegen_codegen::rbac::parse_args(args.into()) {
        Ok(_) => item,
        Err(error) => {
            let mut out = error.into_compile_error();
            out.extend(proc_macro2::TokenStream::from(item));
            out.into()
        }
    }
}
