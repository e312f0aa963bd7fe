//! Node-for-node comparison of two CRDs, and the checked-in list of known
//! differences (`tests/controller-gen-diff/DIFFERENCES.toml`) that every
//! difference must match and that must match something.
//!
//! Paths are JSON pointers, except inside lists whose order means nothing
//! to the apiserver: those items are addressed by a key instead of an index
//! (`versions` and `additionalPrinterColumns` by `name`,
//! `x-kubernetes-validations` by `rule`, `selectableFields` by `jsonPath`,
//! `required` by the value itself), so a reordering is no difference.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Deserialize;
use serde_json::Value;

/// How a node differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Change {
    /// kubegen writes a node controller-gen does not.
    OnlyKubegen,
    /// controller-gen writes a node kubegen does not.
    OnlyControllerGen,
    /// Both write the node, with different scalars or shapes.
    Value,
}

/// One difference: the topmost node where the two CRDs part.
#[derive(Debug, Clone)]
pub struct Difference {
    /// The CRD's group and kind, `group/Kind`.
    pub crd: String,
    /// Where, from the CRD's root.
    pub path: String,
    pub change: Change,
    pub kubegen: Option<Value>,
    pub controller_gen: Option<Value>,
    /// Nodes of the differing subtree (the larger side).
    pub nodes: usize,
}

/// Counts over every node in either CRD.
#[derive(Debug, Default, Clone, Copy)]
pub struct Counts {
    pub compared: usize,
    pub identical: usize,
}

/// Compares `kubegen` with `controller_gen` (both a whole CRD), adding to
/// `counts` and returning the differences.
pub fn compare(
    crd: &str,
    kubegen: &Value,
    controller_gen: &Value,
    counts: &mut Counts,
) -> Vec<Difference> {
    let mut out = Vec::new();
    walk(crd, "", "", kubegen, controller_gen, counts, &mut out);
    out
}

/// Nodes in a subtree, itself included.
pub fn node_count(v: &Value) -> usize {
    1 + match v {
        Value::Object(m) => m.values().map(node_count).sum(),
        Value::Array(a) => a.iter().map(node_count).sum(),
        _ => 0,
    }
}

/// The key that addresses the items of the list named `name`, if its order
/// is meaningless.
fn list_key(name: &str, item: &Value) -> Option<String> {
    let field = |f: &str| item.get(f).and_then(Value::as_str).map(str::to_owned);
    match name {
        "versions" | "additionalPrinterColumns" => field("name"),
        "x-kubernetes-validations" => field("rule"),
        "selectableFields" => field("jsonPath"),
        "required" => item.as_str().map(str::to_owned),
        _ => None,
    }
}

/// A list's items by key, when every item has one and keys are unique.
fn keyed(name: &str, items: &[Value]) -> Option<BTreeMap<String, Value>> {
    let mut map = BTreeMap::new();
    for item in items {
        if map.insert(list_key(name, item)?, item.clone()).is_some() {
            return None;
        }
    }
    Some(map)
}

fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

fn walk(
    crd: &str,
    path: &str,
    name: &str,
    k: &Value,
    c: &Value,
    counts: &mut Counts,
    out: &mut Vec<Difference>,
) {
    let differ = |counts: &mut Counts, out: &mut Vec<Difference>| {
        let nodes = node_count(k).max(node_count(c));
        counts.compared += nodes;
        out.push(Difference {
            crd: crd.to_owned(),
            path: path.to_owned(),
            change: Change::Value,
            kubegen: Some(k.clone()),
            controller_gen: Some(c.clone()),
            nodes,
        });
    };
    match (k, c) {
        (Value::Object(km), Value::Object(cm)) => {
            counts.compared += 1;
            counts.identical += 1;
            pair_maps(
                crd,
                path,
                km.iter().map(|(key, v)| (key.clone(), v.clone())).collect(),
                cm.iter().map(|(key, v)| (key.clone(), v.clone())).collect(),
                counts,
                out,
            );
        }
        (Value::Array(ka), Value::Array(ca)) => {
            counts.compared += 1;
            counts.identical += 1;
            if let (Some(km), Some(cm)) = (keyed(name, ka), keyed(name, ca)) {
                pair_maps(crd, path, km, cm, counts, out);
            } else if ka.len() == ca.len() {
                for (i, (kv, cv)) in ka.iter().zip(ca).enumerate() {
                    walk(crd, &format!("{path}/{i}"), "", kv, cv, counts, out);
                }
            } else {
                counts.compared -= 1;
                counts.identical -= 1;
                differ(counts, out);
            }
        }
        _ if k == c => {
            counts.compared += 1;
            counts.identical += 1;
        }
        _ => differ(counts, out),
    }
}

fn pair_maps(
    crd: &str,
    path: &str,
    km: BTreeMap<String, Value>,
    mut cm: BTreeMap<String, Value>,
    counts: &mut Counts,
    out: &mut Vec<Difference>,
) {
    for (key, kv) in km {
        let child = format!("{path}/{}", escape(&key));
        match cm.remove(&key) {
            Some(cv) => walk(crd, &child, &key, &kv, &cv, counts, out),
            None => {
                let nodes = node_count(&kv);
                counts.compared += nodes;
                out.push(Difference {
                    crd: crd.to_owned(),
                    path: child,
                    change: Change::OnlyKubegen,
                    kubegen: Some(kv),
                    controller_gen: None,
                    nodes,
                });
            }
        }
    }
    for (key, cv) in cm {
        let nodes = node_count(&cv);
        counts.compared += nodes;
        out.push(Difference {
            crd: crd.to_owned(),
            path: format!("{path}/{}", escape(&key)),
            change: Change::OnlyControllerGen,
            kubegen: None,
            controller_gen: Some(cv),
            nodes,
        });
    }
}

/// One entry of the differences file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Known {
    /// Segments separated by `/`; `*` in a segment matches any characters
    /// of one segment, a `**` segment any number of segments.
    pub path: String,
    /// How the node differs (default: any way).
    #[serde(default)]
    pub change: Option<Change>,
    /// Only CRDs whose name matches this glob (default: all).
    #[serde(default)]
    pub crd: Option<String>,
    /// When given, kubegen's node must equal this value.
    #[serde(default)]
    pub kubegen: Option<toml::Value>,
    /// When given, controller-gen's node must equal this value.
    #[serde(default)]
    pub controller_gen: Option<toml::Value>,
    /// `on purpose`, `bug`, `bug, unexplained`, `controller-gen`, … : the
    /// counts are grouped by it.
    pub class: String,
    /// What differs.
    pub what: String,
    /// Why.
    pub reason: String,
}

/// Built-in types left out of the comparison, with the reason.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Skip {
    /// The upstream definition, e.g. `io.k8s.api.core.v1.PodSpec`.
    pub definition: String,
    pub reason: String,
}

/// The differences file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KnownDifferences {
    #[serde(default, rename = "difference")]
    pub differences: Vec<Known>,
    #[serde(default, rename = "skip")]
    pub skips: Vec<Skip>,
}

/// `*` in `pattern` matches any run of characters.
fn glob(pattern: &str, text: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == text,
        Some((head, rest)) => {
            let Some(tail) = text.strip_prefix(head) else {
                return false;
            };
            (0..=tail.len())
                .filter(|i| tail.is_char_boundary(*i))
                .any(|i| glob(rest, &tail[i..]))
        }
    }
}

/// Whether the `/`-separated `segments` match `pattern`'s.
fn path_matches(pattern: &[&str], segments: &[&str]) -> bool {
    match pattern.split_first() {
        None => segments.is_empty(),
        Some((&"**", rest)) => (0..=segments.len()).any(|i| path_matches(rest, &segments[i..])),
        Some((p, rest)) => segments
            .split_first()
            .is_some_and(|(s, tail)| glob(p, s) && path_matches(rest, tail)),
    }
}

fn toml_to_json(v: &toml::Value) -> Value {
    serde_json::to_value(v).expect("a TOML value is JSON")
}

impl Known {
    /// Whether this entry explains `d`.
    pub fn matches(&self, d: &Difference) -> bool {
        let pattern: Vec<&str> = self.path.split('/').collect();
        let segments: Vec<&str> = d.path.split('/').collect();
        self.change.is_none_or(|c| c == d.change)
            && self.crd.as_deref().is_none_or(|c| glob(c, &d.crd))
            && path_matches(&pattern, &segments)
            && self
                .kubegen
                .as_ref()
                .is_none_or(|v| d.kubegen.as_ref() == Some(&toml_to_json(v)))
            && self
                .controller_gen
                .as_ref()
                .is_none_or(|v| d.controller_gen.as_ref() == Some(&toml_to_json(v)))
    }
}

/// A short rendering of a node for reports.
pub fn brief(v: Option<&Value>) -> String {
    match v {
        None => "-".to_owned(),
        Some(v) => {
            let s = v.to_string();
            if s.chars().count() > 120 {
                let cut: String = s.chars().take(117).collect();
                format!("{cut}...")
            } else {
                s
            }
        }
    }
}

/// The outcome of matching differences against the file.
pub struct Verdict {
    /// Per class: differences and nodes.
    pub by_class: BTreeMap<String, (usize, usize)>,
    /// Differences no entry explains.
    pub unexplained: Vec<Difference>,
    /// Entries that explain nothing (index into the file's list).
    pub unused: Vec<usize>,
    /// Per entry: differences and nodes it explains.
    pub per_entry: Vec<(usize, usize)>,
}

/// Matches every difference with the first entry that explains it.
pub fn explain(known: &KnownDifferences, differences: &[Difference]) -> Verdict {
    let mut per_entry = vec![(0, 0); known.differences.len()];
    let mut by_class = BTreeMap::new();
    let mut unexplained = Vec::new();
    for d in differences {
        match known.differences.iter().position(|k| k.matches(d)) {
            Some(i) => {
                per_entry[i].0 += 1;
                per_entry[i].1 += d.nodes;
                let class: &mut (usize, usize) = by_class
                    .entry(known.differences[i].class.clone())
                    .or_default();
                class.0 += 1;
                class.1 += d.nodes;
            }
            None => unexplained.push(d.clone()),
        }
    }
    let unused = (0..per_entry.len())
        .filter(|i| per_entry[*i].0 == 0)
        .collect();
    Verdict {
        by_class,
        unexplained,
        unused,
        per_entry,
    }
}

/// Unexplained differences, grouped by change and path with list indexes
/// and field names folded to `*`, for a readable report.
pub fn report_unexplained(unexplained: &[Difference]) -> String {
    let mut groups: BTreeMap<(String, String), Vec<&Difference>> = BTreeMap::new();
    for d in unexplained {
        let segments: Vec<&str> = d.path.split('/').collect();
        let key = segments
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let field = i > 0 && segments[i - 1] == "properties";
                if field || s.parse::<usize>().is_ok() {
                    "*"
                } else {
                    s
                }
            })
            .collect::<Vec<_>>()
            .join("/");
        groups
            .entry((format!("{:?}", d.change), key))
            .or_default()
            .push(d);
    }
    let mut out = String::new();
    for ((change, path), ds) in &groups {
        let first = ds[0];
        let _ = writeln!(
            out,
            "{change} x{} {path}\n    e.g. {} {}: kubegen {} | controller-gen {}",
            ds.len(),
            first.crd,
            first.path,
            brief(first.kubegen.as_ref()),
            brief(first.controller_gen.as_ref())
        );
    }
    out
}
