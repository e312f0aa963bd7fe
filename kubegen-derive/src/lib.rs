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
/// `ListableResource` and `Metadata` (so `kube::Api<Kind>` works),
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
/// wrong place says where it belongs.
///
/// # Resource keys (on the spec struct)
///
/// ## `#[kubegen(group = "stable.example.com")]`, `version = "v1"`, `kind = "MyApplication"`
/// Required. The group must be a DNS subdomain with a dot; the spec struct
/// must not be named like the kind (the root type takes that name).
/// ## `#[kubegen(namespaced)]`
/// Namespace scope; without it the resource is cluster-scoped.
/// ## `#[kubegen(plural = "...", singular = "...")]`
/// Override the names; the default plural follows Kubernetes conventions
/// (`policy` → `policies`, `ingress` → `ingresses`, `endpoints` → `endpoints`).
/// ## `#[kubegen(shortname = "ma")]`, `#[kubegen(category = "all")]`
/// Repeatable.
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
/// Cuts long descriptions to keep the CRD small.
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
/// ## `#[kubegen(derive = "PartialEq")]`
/// Extra derives on the generated root type (repeatable).
/// ## `#[kubegen(crate = "::kubegen")]`
/// Path of the `kubegen` crate in generated code (also on `KubeSchema` types).
///
/// # Type keys (on any struct or enum)
///
/// ## `#[kubegen(validation(rule = "self.min <= self.max", message = "...", message_expression = "...", reason = "FieldValueInvalid", field_path = ".min", optional_old_self))]`
/// CEL rules in `x-kubernetes-validations`; repeatable; also on fields and
/// `items(...)`. `validation = "rule"` is the short form. The apiserver
/// estimates each rule's cost when the CRD is created and refuses costly
/// ones (kubegen does not estimate it): build messages with
/// `'%d'.format([...])` rather than `'...' + string(...)`, and bound lists and
/// strings with `max_items` / `max_length`. With
/// `reason = "FieldValueDuplicate"` the apiserver reports the value, not the
/// message.
/// ## `#[kubegen(exactly_one_of = ["a", "b"])]`, `at_most_one_of`, `at_least_one_of`
/// Member rules over optional fields (JSON names), compiled to CEL.
/// ## `#[kubegen(min_properties = 1, max_properties = 3)]`, `struct_type = "atomic"`, `preserve_unknown_fields`, `title = "..."`, `description = "..."`, `example = ...`
///
/// # Field keys
///
/// ## `#[kubegen(minimum = 1, maximum = 10, exclusive_minimum, exclusive_maximum, multiple_of = 2)]`
/// Numbers. `exclusive_minimum = 0` sets the bound and makes it exclusive.
/// Unsigned integers get `minimum: 0` automatically.
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
/// }
/// ```
/// ## `#[kubegen(no_schema_default)]`
/// A `#[serde(default)]` or `#[serde(default = "...")]` field whose schema
/// has no default, on purpose: the apiserver stores objects without it.
/// ## `#[kubegen(example = "x")]`, `example_json = "..."`, `title = "..."`, `description = "..."`, `nullable`
/// ## `#[kubegen(immutable)]`
/// `self == oldSelf`; for optional fields the parent also forbids removal.
/// ## `#[kubegen(required)]`, `#[kubegen(optional)]`
/// Override requiredness (fields are required unless `Option`, defaulted,
/// `#[serde(default)]` or `skip_serializing_if`).
/// ## `#[kubegen(preserve_unknown_fields)]`, `embedded_resource`, `int_or_string`, `schemaless`
/// Kubernetes extensions; `schemaless` accepts any JSON.
/// ## `#[kubegen(allow_float)]`
/// Floats are refused unless allowed (they do not round-trip exactly).
/// ## `#[kubegen(schemars)]`
/// Take the field type's schema from `schemars::JsonSchema`, converted to a
/// structural schema (k8s-openapi types are recognised automatically).
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
