//! `create` and `update` (PUT, and PATCH once the patch is applied), as
//! the apiserver's generic registry store runs them: the request checked
//! against the path, the namespace's lifecycle, the strategy's
//! preparation (status kept or cleared, generation, system fields),
//! validation (custom resources through kubegen-core's validation engine,
//! the same the `kubegen validate` command uses), managed fields, the
//! no-op update that writes nothing, and deletion once the last
//! finalizer is gone.

use serde_json::{Value, json};

use kubegen_core::defaults;
use kubegen_core::validate::field::FieldError;
use kubegen_core::validate::object_meta::{self, NameRule};
use kubegen_core::validate::{self, meta};

use crate::request::ResourceCall;
use crate::resources::{Generation, Resource};
use crate::state::{State, as_version, finished, spec_changed};
use crate::status::ApiError;

use super::{key, managed, meta_str};

/// The request's object: JSON of the endpoint's `apiVersion` and `kind`.
pub fn decode(r: &Resource, body: &[u8]) -> Result<Value, ApiError> {
    let object: Value = serde_json::from_slice(body).map_err(|e| {
        ApiError::bad_request(format!("couldn't get version/kind; json parse error: {e}"))
    })?;
    if !object.is_object() {
        return Err(ApiError::bad_request(
            "couldn't get version/kind; json parse error: not an object",
        ));
    }
    check_type(r, &object)?;
    Ok(object)
}

fn check_type(r: &Resource, object: &Value) -> Result<(), ApiError> {
    let kind = object["kind"].as_str().unwrap_or_default();
    let api_version = object["apiVersion"].as_str().unwrap_or_default();
    if kind.is_empty() {
        return Err(ApiError::bad_request(format!(
            "Object 'Kind' is missing in '{object}'"
        )));
    }
    if api_version != r.api_version() {
        return Err(ApiError::bad_request(format!(
            "the API version in the data ({api_version}) does not match the expected API version ({})",
            r.api_version()
        )));
    }
    if kind != r.kind {
        let version = api_version.rsplit('/').next().unwrap_or_default();
        let internal = if r.group.is_empty() {
            "core"
        } else {
            r.group.split('.').next().unwrap_or_default()
        };
        return Err(ApiError::bad_request(format!(
            "{kind} in version {version:?} cannot be handled as a {}: converting ({version}.{kind}) to ({internal}.{}): unknown conversion",
            r.kind, r.kind
        )));
    }
    Ok(())
}

/// The namespace lifecycle admission plugin: a namespaced object is
/// created only in a namespace that exists and is not being deleted.
fn namespace_admits(state: &State, r: &Resource, ns: &str, name: &str) -> Result<(), ApiError> {
    if !r.namespaced {
        return Ok(());
    }
    let key = crate::store::Key {
        resource: "/namespaces".into(),
        namespace: String::new(),
        name: ns.into(),
    };
    match state.store.get(&key) {
        None => Err(ApiError::not_found("namespaces", "", "namespaces", ns)),
        Some(n) if n.pointer("/metadata/deletionTimestamp").is_some() => Err(
            ApiError::terminating(&r.qualified(), &r.group, &r.plural, name, ns),
        ),
        Some(_) => Ok(()),
    }
}

/// Fills the request's namespace into the object, refusing a different
/// one, and clears it on cluster-scoped objects.
fn place(r: &Resource, call: &ResourceCall, object: &mut Value) -> Result<(), ApiError> {
    let meta = object
        .as_object_mut()
        .map(|o| o.entry("metadata").or_insert_with(|| json!({})));
    let Some(meta) = meta.and_then(Value::as_object_mut) else {
        return Err(ApiError::bad_request("metadata must be an object"));
    };
    if r.namespaced {
        let path_ns = call.namespace.clone().unwrap_or_default();
        match meta.get("namespace").and_then(Value::as_str) {
            Some(ns) if !ns.is_empty() && ns != path_ns => {
                return Err(ApiError::bad_request(
                    "the namespace of the provided object does not match the namespace sent on the request",
                ));
            }
            _ => {
                meta.insert("namespace".into(), json!(path_ns));
            }
        }
    } else {
        meta.remove("namespace");
    }
    Ok(())
}

fn empty(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Object(o) => o.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::String(s) => s.is_empty(),
        _ => false,
    }
}

/// A built-in object as the apiserver's decoder hands it on: defaulted
/// by the scheme's defaulting functions and written as Go's typed
/// encoding writes it (`kubegen_core::defaults`, proven against the
/// apiserver's own code). A kind that module does not cover gets Go's
/// `omitempty` on its metadata and top-level maps and lists only.
fn as_go_writes(r: &Resource, object: &mut Value) {
    if r.crd.is_none() && r.group.is_empty() && r.kind == "Secret" {
        fold_string_data(object);
    }
    if r.crd.is_some() || defaults::default_builtin(&r.api_version(), &r.kind, object).is_some() {
        return;
    }
    if let Some(o) = object.as_object_mut() {
        o.retain(|k, v| matches!(k.as_str(), "spec" | "status" | "metadata") || !empty(v));
    }
    if let Some(m) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        m.retain(|_, v| !empty(v));
    }
}

/// A Secret's `stringData` as the conversion to the internal version
/// folds it: each value base64-encoded into `data` (winning over the
/// same key there), `stringData` gone.
fn fold_string_data(object: &mut Value) {
    use base64::Engine as _;
    let Some(strings) = object.as_object_mut().and_then(|o| o.remove("stringData")) else {
        return;
    };
    for (k, v) in strings.as_object().into_iter().flatten() {
        let text = v.as_str().unwrap_or_default();
        let encoded = base64::engine::general_purpose::STANDARD.encode(text);
        if !object["data"].is_object() {
            object["data"] = json!({});
        }
        object["data"][k] = json!(encoded);
    }
}

/// A custom resource as the apiserver's decoder hands it on: pruned and
/// defaulted (the field manager sees the defaults as the writer's).
fn read_as_decoded(r: &Resource, object: &mut Value) {
    if let Some(read) = r
        .crd
        .as_ref()
        .and_then(|crd| validate::read_request(crd, object))
    {
        *object = read;
    }
}

/// What the Service REST storage does on create: a cluster IP (unless
/// headless or `ExternalName`), the IP families, and a node port for each
/// port of a `NodePort` or `LoadBalancer` Service that names none.
fn allocate_service(state: &mut State, object: &mut Value) {
    let Some(spec) = object.get_mut("spec").and_then(Value::as_object_mut) else {
        return;
    };
    let kind = spec
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("ClusterIP")
        .to_string();
    if kind == "ExternalName" {
        return;
    }
    let ip = match spec.get("clusterIP").and_then(Value::as_str) {
        Some(ip) if !ip.is_empty() => ip.to_string(),
        _ => {
            state.cluster_ips += 1;
            let n = 10 + state.cluster_ips;
            format!("10.96.{}.{}", (n >> 8) & 0xff, n & 0xff)
        }
    };
    spec.insert("clusterIP".into(), json!(ip));
    spec.entry("clusterIPs").or_insert_with(|| json!([ip]));
    spec.entry("ipFamilies").or_insert_with(|| json!(["IPv4"]));
    spec.entry("ipFamilyPolicy")
        .or_insert_with(|| json!("SingleStack"));
    if matches!(kind.as_str(), "NodePort" | "LoadBalancer") {
        for port in spec
            .get_mut("ports")
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
        {
            if port.get("nodePort").is_none() {
                state.node_ports += 1;
                port["nodePort"] = json!(30000 + u32::from(state.node_ports % 2768));
            }
        }
    }
}

/// What the kind's strategy sets on create besides the system fields.
fn prepare_create(r: &Resource, object: &mut Value) {
    if let Some(o) = object.as_object_mut() {
        if r.status {
            o.remove("status");
        }
        if r.crd.is_none() {
            match r.kind.as_str() {
                "Namespace" => {
                    o.insert("status".into(), json!({"phase": "Active"}));
                    let spec = o.entry("spec").or_insert_with(|| json!({}));
                    if spec.get("finalizers").is_none() {
                        spec["finalizers"] = json!(["kubernetes"]);
                    }
                    let name = o["metadata"]["name"].clone();
                    o["metadata"]["labels"]["kubernetes.io/metadata.name"] = name;
                }
                "Pod" => {
                    o.insert("status".into(), json!({"phase": "Pending"}));
                }
                _ => {}
            }
        }
    }
}

/// Checks `object` (already prepared) as the registry store and the
/// kind's strategy validate it; a custom resource comes back pruned and
/// defaulted. On update the store's common checks of the metadata come
/// first (`validateCommonFields`), then the strategy's, which check the
/// metadata again: the apiserver reports an error of both twice.
fn admit(
    r: &Resource,
    object: Value,
    old: Option<&Value>,
    status: bool,
) -> Result<Value, ApiError> {
    let name = meta_str(&object, "name");
    let mut errors = Vec::new();
    if let Some(old) = old {
        let m = object.get("metadata").cloned().unwrap_or_else(|| json!({}));
        object_meta::validate(
            &m,
            NameRule::PathSegment,
            r.namespaced,
            "metadata",
            &mut errors,
        );
        meta::validate_update(&object, old, &mut errors);
    }
    let Some(crd) = &r.crd else {
        match old {
            None => meta::validate_create(&object, r.namespaced, &mut errors),
            Some(old) => {
                meta::validate_update(&object, old, &mut errors);
                let m = object.get("metadata").cloned().unwrap_or_else(|| json!({}));
                object_meta::validate(
                    &m,
                    NameRule::Subdomain,
                    r.namespaced,
                    "metadata",
                    &mut errors,
                );
            }
        }
        return if errors.is_empty() {
            Ok(object)
        } else {
            Err(ApiError::invalid(&r.kind, &r.group, &name, &errors))
        };
    };
    let outcome = match old {
        None => validate::validate_create(crd, &object),
        Some(old) if status => validate::validate_status_update(crd, &object, old),
        Some(old) => validate::validate_update(crd, &object, old),
    }
    .map_err(|_| {
        ApiError::bad_request(format!(
            "the API version in the data does not match the expected API version ({})",
            r.api_version()
        ))
    })?;
    if let Some(why) = outcome.undecodable.first() {
        return Err(ApiError::bad_request(why.clone()));
    }
    errors.extend(outcome.errors);
    if errors.is_empty()
        && let Some(u) = outcome.rules_not_evaluated.first()
    {
        // Never a silent pass: a rule the engine cannot evaluate exactly
        // refuses the request, naming it.
        return Err(ApiError::from_parts(
            500,
            "InternalError",
            format!(
                "kubegen-fake cannot evaluate the validation rule {:?} at {} ({}); the apiserver would",
                u.rule, u.at, u.why
            ),
            None,
        ));
    }
    if !errors.is_empty() {
        return Err(ApiError::invalid(&r.kind, &r.group, &name, &errors));
    }
    Ok(outcome.object)
}

/// The field manager of a request: `fieldManager`, or the user agent's
/// first word as the apiserver takes it.
pub fn manager(call: &ResourceCall, user_agent: &str) -> Result<String, ApiError> {
    let m = match call.query.get("fieldManager") {
        Some(m) if !m.is_empty() => m.clone(),
        _ => match user_agent.split('/').next().unwrap_or_default() {
            "" => "unknown".to_string(),
            prefix => prefix.to_string(),
        },
    };
    if m.len() > 128 {
        return Err(ApiError::invalid(
            "",
            "",
            "",
            &[FieldError::new(
                kubegen_core::validate::field::ErrorType::TooLong,
                "fieldManager",
                None,
                "may not be more than 128 bytes",
            )],
        ));
    }
    Ok(m)
}

fn dry_run(call: &ResourceCall) -> bool {
    call.query.get("dryRun").is_some_and(|d| d == "All")
}

/// Who a write's managed fields are for.
#[derive(Clone, Copy, Debug)]
pub enum Fields<'a> {
    /// A create, update or non-apply patch by this manager.
    Update(&'a str),
    /// Server-side apply, whose field manager has already set them.
    Applied,
}

/// `POST`: creates `object`; answers `201 Created`.
pub fn create(
    state: &mut State,
    r: &Resource,
    call: &ResourceCall,
    mut object: Value,
    fields: Fields<'_>,
) -> Result<(u16, Value), ApiError> {
    place(r, call, &mut object)?;
    // Decoded into the Go type before anything else sees it.
    as_go_writes(r, &mut object);
    read_as_decoded(r, &mut object);
    if let Fields::Update(m) = fields {
        // The field manager runs before the name is generated.
        let now = state.clock.unix();
        managed::update(r, None, &mut object, m, call.subresource.as_deref(), now)?;
    }
    let ns = meta_str(&object, "namespace");
    let mut name = meta_str(&object, "name");
    let generate = meta_str(&object, "generateName");
    if name.is_empty() && !generate.is_empty() {
        // The apiserver retries a taken generated name.
        for _ in 0..8 {
            let mut g = generate.clone();
            g.truncate(g.floor_char_boundary(58));
            name = format!("{g}{}", state.clock.suffix());
            if state.store.get(&key(r, Some(&ns), &name)).is_none() {
                break;
            }
        }
        object["metadata"]["name"] = json!(name);
    }
    namespace_admits(state, r, &ns, &name)?;
    prepare_create(r, &mut object);
    if r.crd.is_none() && r.kind == "Service" {
        allocate_service(state, &mut object);
    }
    {
        let meta = &mut object["metadata"];
        if let Some(m) = meta.as_object_mut() {
            for k in [
                "deletionTimestamp",
                "deletionGracePeriodSeconds",
                "generation",
                "resourceVersion",
                "selfLink",
            ] {
                m.remove(k);
            }
        }
    }
    let mut object = admit(r, object, None, false)?;
    as_go_writes(r, &mut object);
    let meta = &mut object["metadata"];
    meta["uid"] = json!(state.clock.uid());
    meta["creationTimestamp"] = json!(state.clock.now());
    if r.generation != Generation::None {
        meta["generation"] = json!(1);
    }
    let k = key(r, Some(&ns), &name);
    if state.store.get(&k).is_some() {
        return Err(ApiError::already_exists(
            &r.qualified(),
            &r.group,
            &r.plural,
            &name,
        ));
    }
    if dry_run(call) {
        return Ok((201, as_version(r, &object)));
    }
    let change = state.commit(k, Some(object));
    Ok((
        201,
        as_version(r, change.new.as_deref().unwrap_or(&Value::Null)),
    ))
}

/// `PUT` (or a patched object): replaces the stored object with
/// `object`; answers `200 OK`.
pub fn update(
    state: &mut State,
    r: &Resource,
    call: &ResourceCall,
    mut object: Value,
    fields: Fields<'_>,
) -> Result<(u16, Value), ApiError> {
    let name = call.name.clone().unwrap_or_default();
    let k = key(r, call.namespace.as_deref(), &name);
    let Some(old) = state.store.get(&k).map(|o| (**o).clone()) else {
        return Err(ApiError::not_found(
            &r.qualified(),
            &r.group,
            &r.plural,
            &name,
        ));
    };
    place(r, call, &mut object)?;
    let body_name = meta_str(&object, "name");
    if body_name != name {
        return Err(ApiError::bad_request(format!(
            "the name of the object ({body_name}) does not match the name on the URL ({name})"
        )));
    }
    let rv = meta_str(&object, "resourceVersion");
    if rv.is_empty() && r.crd.is_some() {
        // Custom resources allow no unconditional update.
        return Err(ApiError::invalid_resource(
            &r.qualified(),
            &r.group,
            &r.plural,
            &name,
            &[FieldError::invalid(
                "metadata.resourceVersion",
                json!(0),
                "must be specified for an update",
            )],
        ));
    }
    if !rv.is_empty() && rv != meta_str(&old, "resourceVersion") {
        return Err(ApiError::modified(
            &r.qualified(),
            &r.group,
            &r.plural,
            &name,
        ));
    }
    as_go_writes(r, &mut object);
    read_as_decoded(r, &mut object);
    if let Fields::Update(m) = fields {
        // The field manager sees the object as sent, before the strategy
        // prepares it (its reset fields keep status out of a main
        // resource update, and the rest out of a status update).
        let now = state.clock.unix();
        managed::update(
            r,
            Some(&old),
            &mut object,
            m,
            call.subresource.as_deref(),
            now,
        )?;
    }
    let status_update = call.subresource.as_deref() == Some("status");
    if status_update {
        let mut n = old.clone();
        match object.get("status") {
            Some(s) => n["status"] = s.clone(),
            None => {
                if let Some(o) = n.as_object_mut() {
                    o.remove("status");
                }
            }
        }
        n["metadata"]["managedFields"] = object["metadata"]["managedFields"].clone();
        if n["metadata"]["managedFields"].is_null()
            && let Some(m) = n["metadata"].as_object_mut()
        {
            m.remove("managedFields");
        }
        object = n;
    } else if r.status {
        match old.get("status") {
            Some(s) => object["status"] = s.clone(),
            None => {
                if let Some(o) = object.as_object_mut() {
                    o.remove("status");
                }
            }
        }
    }
    keep_system_fields(&old, &mut object);
    if !status_update && bumps_generation(r, &old, &object) {
        let g = old["metadata"]["generation"].as_i64().unwrap_or(0);
        object["metadata"]["generation"] = json!(g + 1);
    }
    let mut object = admit(r, object, Some(&old), status_update)?;
    as_go_writes(r, &mut object);
    object["metadata"]["resourceVersion"] = old["metadata"]["resourceVersion"].clone();
    if object == old {
        // Nothing changed: the apiserver writes nothing.
        return Ok((200, as_version(r, &old)));
    }
    if dry_run(call) {
        return Ok((200, as_version(r, &object)));
    }
    if finished(&object) {
        state.commit(k, None);
        return Ok((200, as_version(r, &object)));
    }
    let change = state.commit(k, Some(object));
    Ok((
        200,
        as_version(r, change.new.as_deref().unwrap_or(&Value::Null)),
    ))
}

/// `BeforeUpdate`: what an update cannot change.
fn keep_system_fields(old: &Value, object: &mut Value) {
    let old_meta = &old["metadata"];
    let meta = &mut object["metadata"];
    meta["generation"] = old_meta["generation"].clone();
    if meta_missing(meta, "uid") {
        meta["uid"] = old_meta["uid"].clone();
    }
    meta["creationTimestamp"] = old_meta["creationTimestamp"].clone();
    if old_meta.get("deletionTimestamp").is_some() {
        meta["deletionTimestamp"] = old_meta["deletionTimestamp"].clone();
    }
    if old_meta.get("deletionGracePeriodSeconds").is_some()
        && meta_missing(meta, "deletionGracePeriodSeconds")
    {
        meta["deletionGracePeriodSeconds"] = old_meta["deletionGracePeriodSeconds"].clone();
    }
    if let Some(m) = meta.as_object_mut() {
        m.retain(|_, v| !v.is_null());
    }
}

fn meta_missing(meta: &Value, k: &str) -> bool {
    meta.get(k).is_none_or(|v| v.is_null() || v == "")
}

/// Whether the kind's strategy increments `metadata.generation`.
fn bumps_generation(r: &Resource, old: &Value, new: &Value) -> bool {
    let content_changed = if r.status {
        spec_changed(old, new)
    } else {
        // Without a status subresource the status is content too.
        let strip = |v: &Value| {
            let mut v = v.clone();
            if let Some(o) = v.as_object_mut() {
                o.remove("metadata");
            }
            v
        };
        strip(old) != strip(new)
    };
    match r.generation {
        Generation::None => false,
        Generation::Spec => content_changed,
        Generation::SpecOrAnnotations => {
            content_changed
                || old.pointer("/metadata/annotations") != new.pointer("/metadata/annotations")
        }
    }
}
