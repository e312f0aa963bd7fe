//! The apiserver's default field manager for a resource
//! (`managedfields.NewDefaultCRDFieldManager`): the structured-merge
//! manager wrapped, from the inside out, by `stripMeta` (metadata and
//! type fields owned by no one), `managedFieldsUpdater` (an update's
//! changes credited to its manager, times set), `buildManagerInfo`
//! (manager identifiers), `capManagers` (at most ten update entries),
//! `skipNonApplied` (an update of an object without managed fields does
//! not start tracking them; the first apply credits what exists to
//! `before-first-apply`), `lastAppliedManager` and `lastAppliedUpdater`
//! (kubectl's client-side apply annotation) and `versionCheck` (the
//! configuration's apiVersion and kind).
//!
//! Objects convert between versions as a CRD with the `None` conversion
//! strategy converts them: only `apiVersion` changes.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::error::{ApplyError, Cause};
use super::fieldset::FieldSet;
use super::managed_fields::{
    Managed, Timestamp, cap_update_managers, decode, encode, get_entries, identifier, is_reset,
    parse_identifier,
};
use super::object_type::ObjectType;
use super::path::{Path, PathElement};
use super::typed::compare::compare;
use super::updater::{
    Conflict, Converter, Typed, UpdateError, Updater, conflict_managers, conflict_set,
};
use crate::go::fmt::{go_json, go_quote};

/// The annotation `kubectl apply` (client-side) keeps its last
/// configuration in.
pub const LAST_APPLIED_ANNOTATION: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// The most update entries kept before the oldest are folded together.
pub const MAX_UPDATE_MANAGERS: usize = 10;

/// The manager an update records its changes under while it runs.
const CURRENT_OPERATION: &str = "current-operation";

/// What a request's strategy resets, which no manager can own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResetFields {
    /// Nothing (a resource without a status subresource).
    None,
    /// `status`: the main resource of one with a status subresource.
    Status,
    /// `metadata` and `spec`: the status subresource.
    MetadataAndSpec,
}

/// Field management for one version of a resource, on the main resource
/// or a subresource, as the apiserver keeps it.
#[derive(Clone, Debug)]
pub struct FieldManager<'t> {
    api_version: String,
    kind: String,
    subresource: String,
    /// Every served version's type, this one's first.
    versions: Vec<(String, &'t ObjectType)>,
    reset: ResetFields,
    /// What `ObjectCreater.New` makes for the kind (the empty object the
    /// first apply's `before-first-apply` credit is measured from): only
    /// `apiVersion` and `kind` for a custom resource, the Go zero value
    /// for a built-in kind.
    new_object: Option<Value>,
}

/// An internal failure, or conflicts.
enum ChainError {
    Conflicts(Vec<Conflict>),
    Status(ApplyError),
}

impl From<ApplyError> for ChainError {
    fn from(e: ApplyError) -> Self {
        ChainError::Status(e)
    }
}

type Chain<T> = Result<T, ChainError>;

/// `ParseGroupVersion`.
fn parse_group_version(s: &str) -> Result<(String, String), String> {
    if s.is_empty() {
        return Ok((String::new(), String::new()));
    }
    match s.split('/').collect::<Vec<_>>().as_slice() {
        [v] => Ok((String::new(), (*v).to_string())),
        [g, v] => Ok(((*g).to_string(), (*v).to_string())),
        _ => Err(format!("unexpected GroupVersion string: {s}")),
    }
}

fn gv_string(group: &str, version: &str) -> String {
    if group.is_empty() {
        version.to_string()
    } else {
        format!("{group}/{version}")
    }
}

fn str_at<'v>(obj: &'v Value, path: &[&str]) -> &'v str {
    let mut v = obj;
    for p in path {
        match v.get(p) {
            Some(next) => v = next,
            None => return "",
        }
    }
    v.as_str().unwrap_or("")
}

/// An object's group-version and kind as an `Unstructured` reads them
/// (an apiVersion that does not parse reads as empty).
fn gvk_of(obj: &Value) -> (String, String) {
    let gv = parse_group_version(str_at(obj, &["apiVersion"]))
        .map(|(g, v)| gv_string(&g, &v))
        .unwrap_or_default();
    (gv, str_at(obj, &["kind"]).to_string())
}

/// `GroupVersionKind.String()`: `group/version, Kind=kind`.
fn gvk_string(obj: &Value) -> String {
    let (g, v) = parse_group_version(str_at(obj, &["apiVersion"])).unwrap_or_default();
    format!("{g}/{v}, Kind={}", str_at(obj, &["kind"]))
}

/// `objectGVKNN`: `namespace/name; group/version, Kind=kind`.
fn gvknn(obj: &Value) -> String {
    format!(
        "{}/{}; {}",
        str_at(obj, &["metadata", "namespace"]),
        str_at(obj, &["metadata", "name"]),
        gvk_string(obj)
    )
}

fn remove_managed_fields(obj: &mut Value) {
    if let Some(Value::Object(meta)) = obj.get_mut("metadata") {
        meta.remove("managedFields");
    }
}

/// Writes managers into an object's `metadata.managedFields`
/// (`EncodeObjectManagedFields`), removing the field when there are none.
fn encode_into(obj: &mut Value, managed: &Managed) {
    match encode(managed) {
        None => remove_managed_fields(obj),
        Some(entries) => {
            if let Value::Object(root) = obj {
                let meta = root
                    .entry("metadata")
                    .or_insert_with(|| Value::Object(Map::new()));
                if let Value::Object(meta) = meta {
                    meta.insert("managedFields".into(), Value::Array(entries));
                }
            }
        }
    }
}

/// The paths no manager owns (`stripMetaManager`).
fn strip_set() -> FieldSet {
    let mut s = FieldSet::new();
    for top in ["apiVersion", "kind", "metadata"] {
        s.insert(&[PathElement::Field(top.into())]);
    }
    for f in [
        "name",
        "namespace",
        "creationTimestamp",
        "selfLink",
        "uid",
        "clusterName",
        "generation",
        "managedFields",
        "resourceVersion",
    ] {
        s.insert(&[
            PathElement::Field("metadata".into()),
            PathElement::Field(f.into()),
        ]);
    }
    s
}

fn strip(managed: &mut Managed, manager: &str) {
    if let Some(vs) = managed.fields.get_mut(manager) {
        vs.set = vs.set.difference(&strip_set());
        if vs.set.is_empty() {
            managed.fields.remove(manager);
        }
    }
}

/// `NestedNullCoercingStringMap` of `metadata.annotations`: `None` when
/// absent or not a map of strings (nulls read as empty strings).
fn annotations(obj: &Value) -> Option<BTreeMap<String, String>> {
    let m = obj.get("metadata")?.get("annotations")?.as_object()?;
    m.iter()
        .map(|(k, v)| match v {
            Value::String(s) => Some((k.clone(), s.clone())),
            Value::Null => Some((k.clone(), String::new())),
            _ => None,
        })
        .collect()
}

/// `SetAnnotations`: `None` removes them.
fn set_annotations(obj: &mut Value, ann: Option<BTreeMap<String, String>>) {
    let Value::Object(root) = obj else {
        return;
    };
    match ann {
        None => {
            if let Some(Value::Object(meta)) = root.get_mut("metadata") {
                meta.remove("annotations");
            }
        }
        Some(ann) => {
            let meta = root
                .entry("metadata")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(meta) = meta {
                let m: Map<String, Value> = ann
                    .into_iter()
                    .map(|(k, v)| (k, Value::String(v)))
                    .collect();
                meta.insert("annotations".into(), Value::Object(m));
            }
        }
    }
}

/// The most bytes an object's annotations may hold
/// (`TotalAnnotationSizeLimitB`).
const ANNOTATIONS_SIZE_LIMIT: usize = 256 * (1 << 10);

/// `printManager`: how a conflict names its manager.
fn print_manager(id: &str) -> String {
    if serde_json::from_str::<Value>(id).is_err() {
        return go_quote(id);
    }
    let (manager, operation, api_version, subresource) = parse_identifier(id);
    let mut s = go_quote(&manager);
    if !subresource.is_empty() {
        s = format!("{s} with subresource {}", go_quote(&subresource));
    }
    if operation == "Update" {
        return format!("{s} using {api_version}");
    }
    s
}

/// The 409 an apply's conflicts give (`NewConflictError`).
fn conflict_error(conflicts: &[Conflict]) -> ApplyError {
    let causes = conflicts
        .iter()
        .map(|c| Cause {
            kind: "FieldManagerConflict".into(),
            message: format!("conflict with {}", print_manager(&c.manager)),
            field: c.path.to_string(),
        })
        .collect();
    let message = if let [only] = conflicts {
        format!(
            "Apply failed with 1 conflict: conflict with {}: {}",
            print_manager(&only.manager),
            only.path
        )
    } else {
        let mut lines = Vec::new();
        for manager in conflict_managers(conflicts) {
            lines.push(format!("conflicts with {}:", print_manager(manager)));
            for c in conflicts.iter().filter(|c| c.manager == manager) {
                lines.push(format!("- {}", c.path));
            }
        }
        format!(
            "Apply failed with {} conflicts: {}",
            conflicts.len(),
            lines.join("\n")
        )
    };
    ApplyError {
        code: 409,
        reason: "Conflict".into(),
        message,
        causes,
    }
}

impl<'t> FieldManager<'t> {
    /// Field management for the main resource of `api_version`
    /// (`group/version`) and `kind`, whose type is `ty`.
    pub fn new(ty: &'t ObjectType, api_version: &str, kind: &str) -> Self {
        FieldManager {
            api_version: api_version.to_string(),
            kind: kind.to_string(),
            subresource: String::new(),
            versions: vec![(api_version.to_string(), ty)],
            reset: ResetFields::None,
            new_object: None,
        }
    }

    /// The kind's empty object as `ObjectCreater.New` makes it, when it is
    /// more than `apiVersion` and `kind` (a built-in kind's Go zero value).
    pub fn with_new_object(mut self, new_object: Value) -> Self {
        self.new_object = Some(new_object);
        self
    }

    /// The same for a subresource (`status`, `scale`): updates there are
    /// recorded with it, and managed fields sent with an update ignored.
    pub fn with_subresource(mut self, subresource: &str) -> Self {
        self.subresource = subresource.to_string();
        self
    }

    /// Another served version of the resource, which managers' entries
    /// may be at.
    pub fn with_version(mut self, api_version: &str, ty: &'t ObjectType) -> Self {
        self.versions.push((api_version.to_string(), ty));
        self
    }

    /// What the request's strategy resets: for a custom resource with a
    /// status subresource, [`ResetFields::Status`] on the main resource
    /// (this version only) and [`ResetFields::MetadataAndSpec`] on
    /// `status` (every version).
    pub fn with_reset_fields(mut self, reset: ResetFields) -> Self {
        self.reset = reset;
        self
    }

    fn reset_map(&self) -> BTreeMap<String, FieldSet> {
        let set = |names: &[&str]| {
            let paths: Vec<Path> = names.iter().map(|n| Path::field(n)).collect();
            FieldSet::from_paths(&paths)
        };
        let mut out = BTreeMap::new();
        match self.reset {
            ResetFields::None => {}
            ResetFields::Status => {
                out.insert(self.api_version.clone(), set(&["status"]));
            }
            ResetFields::MetadataAndSpec => {
                for (v, _) in &self.versions {
                    out.insert(v.clone(), set(&["metadata", "spec"]));
                }
            }
        }
        out
    }

    fn type_of(&self, gv: &str) -> Option<&'t ObjectType> {
        self.versions.iter().find(|(v, _)| v == gv).map(|(_, t)| *t)
    }

    /// `ObjectToTyped`: the object with the type of its version.
    fn typed(&self, obj: &Value, allow_duplicates: bool) -> Result<Typed<'t>, String> {
        let (gv, kind) = gvk_of(obj);
        let ty = self
            .type_of(&gv)
            .filter(|_| kind == self.kind)
            .ok_or_else(|| format!("no corresponding type for {}", gvk_string(obj)))?;
        let errs = ty.validate(obj, allow_duplicates);
        if !errs.is_empty() {
            return Err(errs.to_string());
        }
        Ok(Typed {
            value: obj.clone(),
            ty,
        })
    }

    /// The CR converter's `ConvertToVersion` to `target` (the `None`
    /// strategy: only the apiVersion changes).
    fn convert_object(&self, obj: &Value, target: &str) -> Result<Value, String> {
        let (from, _) = gvk_of(obj);
        if self.type_of(&from).is_none() {
            return Err(format!(
                "request to convert CR from an invalid group/version: {from}"
            ));
        }
        if self.type_of(target).is_none() {
            return Err(format!(
                "request to convert CR to an invalid group/version: {target}"
            ));
        }
        let mut out = obj.clone();
        if let Value::Object(m) = &mut out {
            m.insert("apiVersion".into(), Value::String(target.to_string()));
            let kind = m
                .get("kind")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            m.insert("kind".into(), Value::String(kind));
        }
        Ok(out)
    }

    /// The object at this manager's version (`toVersioned`).
    fn to_versioned(&self, obj: &Value) -> Result<Value, String> {
        self.convert_object(obj, &self.api_version)
    }

    /// Updates managed fields for a create, update or non-apply patch
    /// (`FieldManager.UpdateNoErrors`): `live` is the stored object (for a
    /// create, an object holding only `apiVersion` and `kind`), `new` the
    /// object about to be stored; the result is `new` with its
    /// `metadata.managedFields` — without any when the field manager
    /// fails, as the apiserver does.
    pub fn update(&self, live: &Value, new: Value, manager: &str, now: Timestamp) -> Value {
        let managed = self.decode_live_or_new(live, &new);
        let mut new = new;
        remove_managed_fields(&mut new);
        // skipNonApplied: an object without managed fields only starts
        // tracking them on create.
        if managed.fields.is_empty() && !str_at(live, &["metadata", "uid"]).is_empty() {
            return new;
        }
        match self.cap_update(live, &new, managed, manager, now) {
            Ok((mut obj, managed)) => {
                encode_into(&mut obj, &managed);
                obj
            }
            Err(_) => new,
        }
    }

    fn decode_live_or_new(&self, live: &Value, new: &Value) -> Managed {
        let from_live = || {
            get_entries(live)
                .map_or_else(|| decode(&[]), |e| decode(&e))
                .unwrap_or_default()
        };
        if !self.subresource.is_empty() {
            return from_live();
        }
        let entries = get_entries(new);
        if is_reset(&entries) {
            return Managed::default();
        }
        match decode(entries.as_deref().unwrap_or(&[])) {
            Ok(m) if !m.fields.is_empty() => m,
            _ => from_live(),
        }
    }

    /// `capManagers`, `buildManagerInfo`, `managedFieldsUpdater`,
    /// `stripMeta` and the structured-merge manager on an update.
    fn cap_update(
        &self,
        live: &Value,
        new: &Value,
        managed: Managed,
        manager: &str,
        now: Timestamp,
    ) -> Result<(Value, Managed), String> {
        let id = self.manager_id(manager, "Update");
        let times = managed.times.clone();
        let fields = self.structured_update(live, new, managed, CURRENT_OPERATION)?;
        let mut managed = Managed { fields, times };
        strip(&mut managed, CURRENT_OPERATION);
        if let Some(mut vs) = managed.fields.remove(CURRENT_OPERATION) {
            if let Some(previous) = managed.fields.get(&id) {
                vs.set = vs.set.union(&previous.set);
            }
            managed.fields.insert(id.clone(), vs);
            managed.times.insert(id, Some(now));
        }
        cap_update_managers(&mut managed, MAX_UPDATE_MANAGERS);
        Ok((new.clone(), managed))
    }

    fn manager_id(&self, manager: &str, operation: &str) -> String {
        let manager = if manager.is_empty() {
            "unknown"
        } else {
            manager
        };
        identifier(manager, operation, &self.api_version, &self.subresource)
    }

    fn updater<'s>(&'s self, reset: &'s BTreeMap<String, FieldSet>) -> Updater<'s> {
        Updater {
            converter: self,
            ignore: reset,
        }
    }

    fn structured_update(
        &self,
        live: &Value,
        new: &Value,
        managed: Managed,
        manager: &str,
    ) -> Result<super::updater::ManagedFields, String> {
        let new_v = self.to_versioned(new).map_err(|e| {
            format!(
                "failed to convert new object ({}) to proper version ({}): {e}",
                gvknn(new),
                self.api_version
            )
        })?;
        let live_v = self.to_versioned(live).map_err(|e| {
            format!(
                "failed to convert live object ({}) to proper version: {e}",
                gvknn(live)
            )
        })?;
        let new_t = self.typed(&new_v, true).map_err(|e| {
            format!(
                "failed to convert new object ({}) to smd typed: {e}",
                gvknn(&new_v)
            )
        })?;
        let live_t = self.typed(&live_v, true).map_err(|e| {
            format!(
                "failed to convert live object ({}) to smd typed: {e}",
                gvknn(&live_v)
            )
        })?;
        let reset = self.reset_map();
        self.updater(&reset)
            .update(&live_t, &new_t, &self.api_version, managed.fields, manager)
            .map_err(|e| {
                let m = match e {
                    UpdateError::Other(m) => m,
                    UpdateError::Conflicts(_) => "conflicts".into(),
                };
                format!("failed to update ManagedFields ({}): {m}", gvknn(&new_v))
            })
    }

    /// Server-side apply of `config` to `live` (for a create, an object
    /// holding only `apiVersion` and `kind`) by `manager`: the merged
    /// object with its managed fields, or the error the apiserver
    /// answers with.
    pub fn apply(
        &self,
        live: &Value,
        config: &Value,
        manager: &str,
        force: bool,
        now: Timestamp,
    ) -> Result<Value, ApplyError> {
        let managed = decode(get_entries(live).as_deref().unwrap_or(&[]))
            .map_err(|e| ApplyError::internal(format!("failed to decode managed fields: {e}")))?;
        if gvk_of(config) != (self.api_version.clone(), self.kind.clone()) {
            return Err(ApplyError::bad_request(format!(
                "invalid object type: {}",
                gvk_string(config)
            )));
        }
        let result = self
            .last_applied_manager(live, config, managed, manager, force, now)
            .map(|(mut obj, managed)| {
                if manager == "kubectl" && has_last_applied(&obj) {
                    set_last_applied(&mut obj, build_last_applied(config));
                }
                (obj, managed)
            });
        match result {
            Ok((mut obj, managed)) => {
                encode_into(&mut obj, &managed);
                Ok(obj)
            }
            Err(ChainError::Conflicts(c)) => Err(conflict_error(&c)),
            Err(ChainError::Status(e)) => Err(e),
        }
    }

    fn last_applied_manager(
        &self,
        live: &Value,
        config: &Value,
        managed: Managed,
        manager: &str,
        force: bool,
        now: Timestamp,
    ) -> Chain<(Value, Managed)> {
        let first = self.skip_non_applied(live, config, managed.clone(), manager, force, now);
        if manager != "kubectl" {
            return first;
        }
        let conflicts = match first {
            Err(ChainError::Conflicts(c)) => c,
            other => return other,
        };
        let Ok(allowed) = self.allowed_conflicts_from_last_applied(live) else {
            return Err(ChainError::Conflicts(conflicts));
        };
        if !conflict_set(&conflicts).difference(&allowed).is_empty() {
            let rest = conflicts
                .into_iter()
                .filter(|c| !allowed.has(&c.path.0))
                .collect();
            return Err(ChainError::Conflicts(rest));
        }
        self.skip_non_applied(live, config, managed, manager, true, now)
    }

    fn allowed_conflicts_from_last_applied(&self, live: &Value) -> Result<FieldSet, String> {
        let last_applied = annotations(live)
            .and_then(|a| a.get(LAST_APPLIED_ANNOTATION).cloned())
            .filter(|s| !s.is_empty())
            .ok_or("no last applied annotation")?;
        let live_v = self.to_versioned(live)?;
        let live_t = self.typed(&live_v, false)?;
        let last: Value = serde_json::from_str(&last_applied).map_err(|e| e.to_string())?;
        if !last.is_object() || str_at(&last, &["kind"]).is_empty() {
            return Err("Object 'Kind' is missing".into());
        }
        if str_at(&last, &["apiVersion"]) != self.api_version {
            return Err("expected version of last applied to match live object".into());
        }
        let last_t = self.typed(&last, false)?;
        let set = last_t.ty.field_set(&last_t.value);
        let cmp = compare(
            &last_t.ty.schema,
            &last_t.ty.root,
            &last_t.value,
            &live_t.value,
        )
        .map_err(|e| e.to_string())?;
        Ok(set
            .difference(&cmp.modified)
            .difference(&cmp.added)
            .difference(&cmp.removed))
    }

    fn skip_non_applied(
        &self,
        live: &Value,
        config: &Value,
        mut managed: Managed,
        manager: &str,
        force: bool,
        now: Timestamp,
    ) -> Chain<(Value, Managed)> {
        let mut live = live.clone();
        if managed.fields.is_empty() {
            let empty = self.new_object.clone().unwrap_or_else(|| {
                let mut empty = Map::new();
                empty.insert("apiVersion".into(), Value::String(self.api_version.clone()));
                empty.insert("kind".into(), Value::String(self.kind.clone()));
                Value::Object(empty)
            });
            let (obj, m) = self
                .cap_update(&empty, &live, managed, "before-first-apply", now)
                .map_err(|e| {
                    ApplyError::internal(format!(
                        "failed to create manager for existing fields: {e}"
                    ))
                })?;
            live = obj;
            managed = m;
        }
        let id = self.manager_id(manager, "Apply");
        let times = managed.times.clone();
        let (obj, fields) = self.structured_apply(&live, config, managed, &id, force)?;
        let mut managed = Managed { fields, times };
        strip(&mut managed, &id);
        let obj = match obj {
            Some(obj) => {
                managed.times.insert(id, Some(now));
                obj
            }
            None => {
                let mut obj = live;
                remove_managed_fields(&mut obj);
                obj
            }
        };
        Ok((obj, managed))
    }

    fn structured_apply(
        &self,
        live: &Value,
        config: &Value,
        managed: Managed,
        manager: &str,
        force: bool,
    ) -> Chain<(Option<Value>, super::updater::ManagedFields)> {
        let (patch_gv, _) = gvk_of(config);
        if patch_gv != self.api_version {
            return Err(ApplyError::bad_request(format!(
                "Incorrect version specified in apply patch. Specified patch version: {patch_gv}, expected: {}",
                self.api_version
            ))
            .into());
        }
        if get_entries(config).is_some() {
            return Err(ApplyError::bad_request("metadata.managedFields must be nil").into());
        }
        let live_v = self.to_versioned(live).map_err(|e| {
            ApplyError::internal(format!(
                "failed to convert live object ({}) to proper version: {e}",
                gvknn(live)
            ))
        })?;
        let patch_t = self.typed(config, false).map_err(|e| {
            ApplyError::internal(format!(
                "failed to create typed patch object ({}): {e}",
                gvknn(config)
            ))
        })?;
        let live_t = self.typed(&live_v, true).map_err(|e| {
            ApplyError::internal(format!(
                "failed to create typed live object ({}): {e}",
                gvknn(&live_v)
            ))
        })?;
        let reset = self.reset_map();
        let (new, fields) = self
            .updater(&reset)
            .apply(
                &live_t,
                &patch_t,
                &self.api_version,
                managed.fields,
                manager,
                force,
            )
            .map_err(|e| match e {
                UpdateError::Conflicts(c) => ChainError::Conflicts(c),
                UpdateError::Other(m) => ChainError::Status(ApplyError::internal(m)),
            })?;
        let new = match new {
            None => None,
            Some(obj @ Value::Object(_)) => Some(self.to_versioned(&obj).map_err(|e| {
                ApplyError::internal(format!(
                    "failed to convert new object ({}) to proper version: {e}",
                    gvknn(config)
                ))
            })?),
            Some(other) => {
                return Err(ApplyError::internal(format!(
                    "failed to convert new typed object ({}) to object: failed to convert value to unstructured for type {}",
                    gvknn(config),
                    crate::go::fmt::go_type(&other)
                ))
                .into());
            }
        };
        Ok((new, fields))
    }
}

impl Converter for FieldManager<'_> {
    fn convert<'a>(&'a self, object: &Typed<'a>, version: &str) -> Result<Typed<'a>, String> {
        let (g, v) = parse_group_version(version)?;
        let target = gv_string(&g, &v);
        if gvk_of(&object.value).0 == target {
            return Ok(object.clone());
        }
        let hub = self.convert_object(&object.value, &self.api_version)?;
        let out = self.convert_object(&hub, &target)?;
        let typed = self.typed(&out, false)?;
        Ok(Typed {
            value: typed.value,
            ty: typed.ty,
        })
    }
}

/// Whether an object carries a non-empty last-applied annotation.
fn has_last_applied(obj: &Value) -> bool {
    annotations(obj)
        .and_then(|a| a.get(LAST_APPLIED_ANNOTATION).cloned())
        .is_some_and(|s| !s.is_empty())
}

/// The annotation's value for a configuration: the configuration without
/// the annotation, as Go's JSON encoder writes it (with its newline).
fn build_last_applied(config: &Value) -> String {
    let mut obj = config.clone();
    let ann = annotations(&obj).map(|mut a| {
        a.remove(LAST_APPLIED_ANNOTATION);
        a
    });
    set_annotations(&mut obj, ann);
    format!("{}\n", go_json(&obj))
}

/// Sets the annotation, dropping it when the annotations would exceed
/// their size limit (`SetLastApplied`).
fn set_last_applied(obj: &mut Value, value: String) {
    let mut ann = annotations(obj).unwrap_or_default();
    ann.insert(LAST_APPLIED_ANNOTATION.into(), value);
    let size: usize = ann.iter().map(|(k, v)| k.len() + v.len()).sum();
    if size > ANNOTATIONS_SIZE_LIMIT {
        ann.remove(LAST_APPLIED_ANNOTATION);
    }
    set_annotations(obj, Some(ann));
}

/// The object for a create (`ObjectCreater.New`): only `apiVersion` and
/// `kind`.
pub fn empty_object(api_version: &str, kind: &str) -> Value {
    let mut m = Map::new();
    m.insert("apiVersion".into(), Value::String(api_version.into()));
    m.insert("kind".into(), Value::String(kind.into()));
    Value::Object(m)
}

/// The check the patch handler makes of an applied object against the
/// request's name and namespace (`checkName`).
pub fn check_name(obj: &Value, name: &str, namespace: &str) -> Result<(), ApplyError> {
    let obj_name = str_at(obj, &["metadata", "name"]);
    if obj_name.is_empty() {
        return Err(ApplyError::bad_request(format!(
            "the name of the object ({name} based on URL) was undeterminable: name must be provided"
        )));
    }
    if obj_name != name {
        return Err(ApplyError::bad_request(format!(
            "the name of the object ({obj_name}) does not match the name on the URL ({name})"
        )));
    }
    let obj_ns = str_at(obj, &["metadata", "namespace"]);
    if !namespace.is_empty() && !obj_ns.is_empty() && obj_ns != namespace {
        return Err(ApplyError::bad_request(format!(
            "the namespace of the object ({obj_ns}) does not match the namespace on the request ({namespace})"
        )));
    }
    Ok(())
}
