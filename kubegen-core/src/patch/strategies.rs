//! The built-in types' strategic-merge-patch metadata: for every struct
//! type of k8s.io/api (and apimachinery's, apiextensions-apiserver's and
//! kube-aggregator's), each JSON field's Go type, `patchStrategy` and
//! `patchMergeKey`, exactly as `strategicpatch.NewPatchMetaFromStruct`
//! reads them from the struct tags; and every registered kind's type.
//!
//! `strategies.json` is written by `hack/patch-strategies` (a Go program
//! reflecting over the Go types: `go run . > …/strategies.json` there);
//! `tests/patch_strategies_current.rs` fails when it is stale. Types are
//! named as the OpenAPI document names them (`io.k8s.api.core.v1.PodSpec`,
//! the names of [`crate::builtin`]'s table); a field's type is a Go type
//! expression over those names: `*T`, `[]T`, `[N]T`, `map[K]V`, a
//! definition name for a struct, a `reflect.Kind` (`string`, `int32`,
//! `interface`, …) for anything else.

use std::collections::HashMap;
use std::sync::OnceLock;

use serde_json::Value;

/// The generated table.
const TABLE: &str = include_str!("strategies.json");

/// One struct type's fields.
#[derive(Debug, Clone, PartialEq)]
pub struct StructMeta {
    /// The Go type's name (`PodSpec`), as Go's lookup errors name it.
    pub go_name: String,
    /// Its JSON fields in Go's order (embedded structs' fields inlined).
    pub fields: Vec<FieldMeta>,
}

/// One field's patch metadata.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldMeta {
    /// The JSON name.
    pub name: String,
    /// The Go type expression.
    pub type_expr: String,
    /// The `patchStrategy` tag split at commas (`[""]` without one, as Go
    /// splits it).
    pub strategies: Vec<String>,
    /// The `patchMergeKey` tag (`""` without one).
    pub merge_key: String,
}

/// The parsed table.
#[derive(Debug)]
pub struct Table {
    /// Where it comes from.
    pub provenance: Value,
    /// `apiVersion` → kind → definition name.
    pub kinds: HashMap<String, HashMap<String, String>>,
    /// Definition name → its fields.
    pub types: HashMap<String, StructMeta>,
}

/// The table, parsed once (a corrupt table, which the staleness test
/// rules out, reads as empty).
pub fn table() -> &'static Table {
    static PARSED: OnceLock<Table> = OnceLock::new();
    PARSED.get_or_init(|| {
        parse(TABLE).unwrap_or_else(|| Table {
            provenance: Value::Null,
            kinds: HashMap::new(),
            types: HashMap::new(),
        })
    })
}

fn parse(text: &str) -> Option<Table> {
    let root: Value = serde_json::from_str(text).ok()?;
    let str_of = |v: &Value| v.as_str().map(str::to_string);
    let mut kinds = HashMap::new();
    for (gv, by_kind) in root.get("kinds")?.as_object()? {
        let mut m = HashMap::new();
        for (kind, name) in by_kind.as_object()? {
            m.insert(kind.clone(), str_of(name)?);
        }
        kinds.insert(gv.clone(), m);
    }
    let mut types = HashMap::new();
    for (name, meta) in root.get("types")?.as_object()? {
        let mut fields = Vec::new();
        for f in meta.get("fields")?.as_array()? {
            let f = f.as_array()?;
            fields.push(FieldMeta {
                name: str_of(f.first()?)?,
                type_expr: str_of(f.get(1)?)?,
                strategies: f.get(2)?.as_str()?.split(',').map(str::to_string).collect(),
                merge_key: str_of(f.get(3)?)?,
            });
        }
        let go_name = str_of(meta.get("go")?)?;
        types.insert(name.clone(), StructMeta { go_name, fields });
    }
    Some(Table {
        provenance: root.get("provenance")?.clone(),
        kinds,
        types,
    })
}

/// The fields of the struct type `definition` (`io.k8s.api.core.v1.PodSpec`).
pub fn for_type(definition: &str) -> Option<&'static StructMeta> {
    table().types.get(definition)
}

/// The definition name of a built-in resource's type by `apiVersion`
/// (`apps/v1`, `v1`) and kind (`Deployment`): what
/// [`strategic::apply`](super::strategic::apply) takes. `None` for a kind
/// the built-in API groups do not register (a custom resource).
pub fn definition_for(api_version: &str, kind: &str) -> Option<&'static str> {
    table()
        .kinds
        .get(api_version)?
        .get(kind)
        .map(String::as_str)
}

/// A Go type expression's `reflect.Kind`, as Go prints it.
pub(crate) fn kind(ty: &str) -> &str {
    if ty.starts_with('*') {
        "ptr"
    } else if ty.starts_with("[]") {
        "slice"
    } else if ty.starts_with('[') {
        "array"
    } else if ty.starts_with("map[") {
        "map"
    } else if ty.contains('.') {
        "struct"
    } else {
        ty
    }
}

/// The element type of a pointer, slice, array or map type expression.
pub(crate) fn elem(ty: &str) -> &str {
    if let Some(rest) = ty.strip_prefix('*') {
        rest
    } else if let Some(rest) = ty.strip_prefix("map[") {
        // Map keys are scalar kinds: the first `]` closes the key.
        rest.split_once(']').map_or(rest, |(_, v)| v)
    } else if let Some(rest) = ty.strip_prefix('[') {
        rest.split_once(']').map_or(rest, |(_, v)| v)
    } else {
        ty
    }
}

/// Go's `encoding/json` case folding of a field name against a key: ASCII
/// letters either case, and the Kelvin sign and long s for `k` and `s`.
fn equal_fold(name: &str, key: &str) -> bool {
    let mut key = key.chars();
    for b in name.chars() {
        let Some(c) = key.next() else {
            return false;
        };
        let same = if c.is_ascii() {
            c.eq_ignore_ascii_case(&b)
        } else {
            matches!(
                (b.to_ascii_lowercase(), c),
                ('k', '\u{212a}') | ('s', '\u{17f}')
            )
        };
        if !same {
            return false;
        }
    }
    key.next().is_none()
}

/// A field's patch metadata as strategicpatch's `PatchMeta`.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct PatchMeta {
    pub strategies: Vec<String>,
    pub merge_key: String,
}

/// strategicpatch's `PatchMetaFromStruct`: a Go type to look fields up in.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Schema<'a> {
    pub ty: &'a str,
}

impl<'a> Schema<'a> {
    /// `Name()`: the type's kind.
    pub fn name(&self) -> &'a str {
        kind(self.ty)
    }

    /// `LookupPatchMetadataForStruct`.
    pub fn lookup_struct(&self, key: &str) -> Result<(Schema<'static>, PatchMeta), String> {
        let t = self.ty.strip_prefix('*').unwrap_or(self.ty);
        if kind(t) != "struct" {
            return Err(format!(
                "merging an object in json but data type is not struct, instead is: {}",
                kind(t)
            ));
        }
        let meta = for_type(t);
        let fields = meta.map_or(&[][..], |m| &m.fields[..]);
        let field = fields
            .iter()
            .find(|f| f.name == key)
            .or_else(|| fields.iter().find(|f| equal_fold(&f.name, key)));
        match field {
            Some(f) => Ok((
                Schema { ty: &f.type_expr },
                PatchMeta {
                    strategies: f.strategies.clone(),
                    merge_key: f.merge_key.clone(),
                },
            )),
            None => Err(format!(
                "unable to find api field in struct {} for the json field {}",
                meta.map_or_else(|| t.rsplit('.').next().unwrap_or(t), |m| &m.go_name),
                crate::go::fmt::go_quote(key)
            )),
        }
    }

    /// `LookupPatchMetadataForSlice`.
    pub fn lookup_slice(&self, key: &str) -> Result<(Schema<'static>, PatchMeta), String> {
        let (sub, meta) = self.lookup_struct(key)?;
        let t = sub.ty;
        let elem_type = match kind(t) {
            "slice" | "array" => {
                let e = elem(t);
                if matches!(kind(e), "slice" | "array") {
                    return Err("unexpected slice of slice".into());
                }
                e
            }
            "ptr" => {
                let e = elem(t);
                if matches!(kind(e), "slice" | "array") {
                    elem(e)
                } else {
                    e
                }
            }
            _ => {
                return Err(format!(
                    "expected slice or array type, but got: {}",
                    self.name()
                ));
            }
        };
        Ok((Schema { ty: elem_type }, meta))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_holds_the_built_in_patch_metadata() {
        assert_eq!(
            definition_for("apps/v1", "Deployment"),
            Some("io.k8s.api.apps.v1.Deployment")
        );
        assert_eq!(definition_for("example.com/v1", "Widget"), None);
        let spec = Schema {
            ty: "io.k8s.api.core.v1.PodSpec",
        };
        let (containers, meta) = spec.lookup_slice("containers").unwrap();
        assert_eq!(containers.ty, "io.k8s.api.core.v1.Container");
        assert_eq!(
            (meta.strategies, meta.merge_key.as_str()),
            (vec!["merge".to_string()], "name")
        );
        let (_, meta) = spec.lookup_slice("volumes").unwrap();
        assert_eq!(meta.strategies, ["merge", "retainKeys"]);
        let meta = Schema {
            ty: "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
        };
        assert_eq!(
            meta.lookup_slice("ownerReferences").unwrap().1.merge_key,
            "uid"
        );
        assert_eq!(
            meta.lookup_slice("Finalizers").unwrap().1.strategies,
            ["merge"]
        );
        assert_eq!(
            meta.lookup_struct("nope").unwrap_err(),
            "unable to find api field in struct ObjectMeta for the json field \"nope\""
        );
        assert_eq!(
            meta.lookup_slice("labels").unwrap_err(),
            "expected slice or array type, but got: struct"
        );
        let labels = meta.lookup_struct("labels").unwrap().0;
        assert_eq!(
            labels.lookup_struct("a").unwrap_err(),
            "merging an object in json but data type is not struct, instead is: map"
        );
        assert!(equal_fold("spec", "\u{17f}PEC"));
    }
}
