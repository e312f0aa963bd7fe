//! Ownership bookkeeping (structured-merge-diff's `merge.Updater`): an
//! update gives the updater what it changed and takes it from everyone
//! else; an apply merges the configuration, prunes what the applier
//! applied before and no longer applies (unless someone else owns it),
//! and fails on conflicts with other managers' fields unless forced.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::fieldset::FieldSet;
use super::object_type::ObjectType;
use super::path::Path;
use super::typed::compare::{Comparison, compare};
use super::typed::merge::merge;
use super::typed::reconcile::reconcile;
use super::value::equals;

/// A manager's fields, the version they were written at, and whether by
/// an apply.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct VersionedSet {
    pub set: FieldSet,
    pub api_version: String,
    pub applied: bool,
}

/// Every manager's fields by manager identifier.
pub(crate) type ManagedFields = BTreeMap<String, VersionedSet>;

/// An object with its type.
#[derive(Clone, Debug)]
pub(crate) struct Typed<'t> {
    pub value: Value,
    pub ty: &'t ObjectType,
}

impl Typed<'_> {
    fn field_set(&self) -> FieldSet {
        self.ty.field_set(&self.value)
    }
}

/// Converts objects between the versions of a resource.
pub(crate) trait Converter {
    /// `object` at `version`. (A CRD's converter refuses versions it
    /// does not serve, so no manager is ever dropped for having no type,
    /// as managers of unregistered versions of built-in types are.)
    fn convert<'t>(&'t self, object: &Typed<'t>, version: &str) -> Result<Typed<'t>, String>;
}

/// A conflict: a path another manager owns.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Conflict {
    pub manager: String,
    pub path: Path,
}

/// Why an update or apply fails.
#[derive(Clone, Debug)]
pub(crate) enum UpdateError {
    /// Fields other managers own.
    Conflicts(Vec<Conflict>),
    /// Any other failure (an internal error).
    Other(String),
}

/// The updater: its converter and the fields each version resets.
pub(crate) struct Updater<'c> {
    pub converter: &'c dyn Converter,
    /// Paths no manager owns, by version (the strategy's reset fields).
    pub ignore: &'c BTreeMap<String, FieldSet>,
}

impl<'c> Updater<'c> {
    fn compare(&self, old: &Typed<'c>, new: &Typed<'c>) -> Result<Comparison, UpdateError> {
        compare(&old.ty.schema, &old.ty.root, &old.value, &new.value)
            .map_err(|e| UpdateError::Other(format!("failed to compare objects: {e}")))
    }

    fn update_managers(
        &self,
        old: &Typed<'c>,
        new: &Typed<'c>,
        version: &str,
        managers: &mut ManagedFields,
        workflow: &str,
        force: bool,
    ) -> Result<Comparison, UpdateError> {
        let cmp = self.compare(old, new)?.filter(self.ignore.get(version));
        let mut versions: BTreeMap<String, Comparison> = BTreeMap::new();
        versions.insert(version.to_string(), cmp.clone());
        let mut conflicts: BTreeMap<String, FieldSet> = BTreeMap::new();
        let mut removed: BTreeMap<String, FieldSet> = BTreeMap::new();
        for (manager, vs) in managers.iter() {
            if manager == workflow {
                continue;
            }
            if !versions.contains_key(&vs.api_version) {
                let old_v = self.converter.convert(old, &vs.api_version).map_err(|e| {
                    UpdateError::Other(format!("failed to convert old object: {e}"))
                })?;
                let new_v = self.converter.convert(new, &vs.api_version).map_err(|e| {
                    UpdateError::Other(format!("failed to convert new object: {e}"))
                })?;
                let c = self
                    .compare(&old_v, &new_v)?
                    .filter(self.ignore.get(&vs.api_version));
                versions.insert(vs.api_version.clone(), c);
            }
            let c = &versions[&vs.api_version];
            let conflict = vs.set.intersection(&c.modified.union(&c.added));
            if !conflict.is_empty() {
                conflicts.insert(manager.clone(), conflict);
            }
            if !c.removed.is_empty() {
                removed.insert(manager.clone(), c.removed.clone());
            }
        }
        if !force && !conflicts.is_empty() {
            return Err(UpdateError::Conflicts(conflicts_from(&conflicts)));
        }
        for (m, set) in conflicts.iter().chain(removed.iter()) {
            if let Some(vs) = managers.get_mut(m) {
                vs.set = vs.set.difference(set);
            }
        }
        managers.retain(|_, vs| !vs.set.is_empty());
        Ok(cmp)
    }

    /// What an update (a create, update or non-apply patch) does to the
    /// managers: `manager` gets the fields it changed.
    pub fn update(
        &self,
        live: &Typed<'c>,
        new: &Typed<'c>,
        version: &str,
        managers: ManagedFields,
        manager: &str,
    ) -> Result<ManagedFields, UpdateError> {
        let mut managers = self.reconcile(live, managers)?;
        let cmp = self.update_managers(live, new, version, &mut managers, manager, true)?;
        let previous = managers
            .get(manager)
            .map(|vs| vs.set.clone())
            .unwrap_or_default();
        let mut set = previous
            .difference(&cmp.removed)
            .union(&cmp.modified)
            .union(&cmp.added);
        if let Some(ex) = self.ignore.get(version) {
            set = set.recursive_difference(ex);
        }
        if set.is_empty() {
            managers.remove(manager);
        } else {
            managers.insert(
                manager.to_string(),
                VersionedSet {
                    set,
                    api_version: version.to_string(),
                    applied: false,
                },
            );
        }
        Ok(managers)
    }

    /// An apply: the merged object (`None` when it equals the live one)
    /// and the managers.
    pub fn apply(
        &self,
        live: &Typed<'c>,
        config: &Typed<'c>,
        version: &str,
        managers: ManagedFields,
        manager: &str,
        force: bool,
    ) -> Result<(Option<Value>, ManagedFields), UpdateError> {
        let mut managers = self.reconcile(live, managers)?;
        let merged = merge(&live.ty.schema, &live.ty.root, &live.value, &config.value)
            .map_err(|e| UpdateError::Other(format!("failed to merge config: {e}")))?
            .unwrap_or(Value::Null);
        let last = managers.get(manager).cloned();
        let mut set = config.field_set();
        if let Some(ex) = self.ignore.get(version) {
            set = set.recursive_difference(ex);
        }
        managers.insert(
            manager.to_string(),
            VersionedSet {
                set,
                api_version: version.to_string(),
                applied: true,
            },
        );
        let merged = Typed {
            value: merged,
            ty: live.ty,
        };
        let new = self
            .prune(merged, &managers, manager, last.as_ref())
            .map_err(|e| match e {
                UpdateError::Other(m) => UpdateError::Other(format!("failed to prune fields: {m}")),
                other => other,
            })?;
        self.update_managers(live, &new, version, &mut managers, manager, force)?;
        let out = (!equals(&live.value, &new.value)).then_some(new.value);
        Ok((out, managers))
    }

    /// Removes what `manager` applied last time (`last`) and no longer
    /// applies, unless another manager owns it.
    fn prune(
        &self,
        merged: Typed<'c>,
        managers: &ManagedFields,
        manager: &str,
        last: Option<&VersionedSet>,
    ) -> Result<Typed<'c>, UpdateError> {
        let Some(last) = last.filter(|l| !l.set.is_empty()) else {
            return Ok(merged);
        };
        let version = &last.api_version;
        let converted = self.converter.convert(&merged, version).map_err(|m| {
            UpdateError::Other(format!(
                "failed to convert merged object to last applied version: {m}"
            ))
        })?;
        let ty = converted.ty;
        let pruned = Typed {
            value: ty.remove(&converted.value, &ty.ensure_named(&last.set)),
            ty,
        };
        let pruned = self.add_back_owned(&converted, pruned, version, managers)?;
        let pruned = self.add_back_dangling(&converted, pruned, last)?;
        let target = managers
            .get(manager)
            .map_or(version.as_str(), |vs| vs.api_version.as_str());
        self.converter
            .convert(&pruned, target)
            .map_err(UpdateError::Other)
    }

    fn add_back_owned(
        &self,
        merged: &Typed<'c>,
        mut pruned: Typed<'c>,
        pruned_version: &str,
        managers: &ManagedFields,
    ) -> Result<Typed<'c>, UpdateError> {
        let mut at_version: BTreeMap<&str, FieldSet> = BTreeMap::new();
        for vs in managers.values() {
            let e = at_version.entry(&vs.api_version).or_default();
            *e = e.union(&vs.set);
        }
        let mut merged = merged.clone();
        // The pruned version first, then the others.
        let mut order: Vec<&str> = Vec::new();
        if at_version.contains_key(pruned_version) {
            order.push(pruned_version);
        }
        order.extend(at_version.keys().copied().filter(|v| *v != pruned_version));
        for version in order {
            let managed = &at_version[version];
            let m = self.converter.convert(&merged, version).map_err(|e| {
                UpdateError::Other(format!(
                    "failed add back owned items: failed to convert merged object at version {version}: {e}"
                ))
            })?;
            let p = self.converter.convert(&pruned, version).map_err(|e| {
                UpdateError::Other(format!(
                    "failed add back owned items: failed to convert pruned object at version {version}: {e}"
                ))
            })?;
            let ty = m.ty;
            let merged_set = ty.ensure_named(&m.field_set());
            let pruned_set = ty.ensure_named(&p.field_set());
            let keep = pruned_set.union(&ty.ensure_named(managed));
            pruned = Typed {
                value: ty.remove(&m.value, &merged_set.difference(&keep)),
                ty,
            };
            merged = m;
        }
        Ok(pruned)
    }

    fn add_back_dangling(
        &self,
        merged: &Typed<'c>,
        pruned: Typed<'c>,
        last: &VersionedSet,
    ) -> Result<Typed<'c>, UpdateError> {
        let converted = self
            .converter
            .convert(&pruned, &last.api_version)
            .map_err(|e| {
                UpdateError::Other(format!(
                    "failed add back dangling items: failed to convert pruned object to last applied version: {e}"
                ))
            })?;
        let ty = merged.ty;
        let pruned_set = ty.ensure_named(&converted.field_set());
        let merged_set = ty.ensure_named(&merged.field_set());
        let last_set = ty.ensure_named(&last.set);
        let remove = merged_set.difference(&pruned_set).intersection(&last_set);
        Ok(Typed {
            value: ty.remove(&merged.value, &remove),
            ty,
        })
    }

    /// Managers' sets brought in line with the schema.
    fn reconcile(
        &self,
        live: &Typed<'c>,
        managers: ManagedFields,
    ) -> Result<ManagedFields, UpdateError> {
        let mut out = ManagedFields::new();
        for (manager, vs) in managers {
            let tv = self
                .converter
                .convert(live, &vs.api_version)
                .map_err(UpdateError::Other)?;
            let set = reconcile(&tv.ty.schema, &tv.ty.root, &vs.set).unwrap_or(vs.set);
            out.insert(
                manager,
                VersionedSet {
                    set,
                    api_version: vs.api_version,
                    applied: vs.applied,
                },
            );
        }
        Ok(out)
    }
}

/// Every conflict, manager by manager (sorted: Go takes them in its
/// map's random order), paths in set order (`ConflictsFromManagers`).
pub(crate) fn conflicts_from(sets: &BTreeMap<String, FieldSet>) -> Vec<Conflict> {
    let mut out = Vec::new();
    for (manager, set) in sets {
        for path in set.paths() {
            out.push(Conflict {
                manager: manager.clone(),
                path,
            });
        }
    }
    out
}

/// The paths of conflicts, as a set.
pub(crate) fn conflict_set(conflicts: &[Conflict]) -> FieldSet {
    FieldSet::from_paths(conflicts.iter().map(|c| &c.path))
}

/// Managers named in conflicts, once each.
pub(crate) fn conflict_managers(conflicts: &[Conflict]) -> BTreeSet<&str> {
    conflicts.iter().map(|c| c.manager.as_str()).collect()
}
