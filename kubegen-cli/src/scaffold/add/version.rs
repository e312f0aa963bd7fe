//! `kubegen add version`: another version of a kind. The new version's
//! module starts as a copy of the storage version's spec (which stays the
//! storage version and is the hub), with conversion stubs both ways; the
//! hub gains `conversion(...)` through the operator's webhook, whose
//! server is wired in when the crate lacks it. `kubegen generate` then
//! writes the converter and its round-trip test
//! (`src/generated/conversion.rs`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use syn::{Data, Fields};

use super::{Added, Crate, Plan, line_of, register_webhook, wire_webhook_server};
use crate::scaffold::edit;
use crate::scaffold::validate;
use crate::source::Diagnostic;

/// What `kubegen add version` was asked to add.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// The crate's directory.
    pub dir: PathBuf,
    /// The kind; the crate's only kind when `None`.
    pub kind: Option<String>,
    /// The new version, e.g. `v2`.
    pub version: String,
}

/// Adds the version, or reports every reason it cannot; nothing is
/// written on error.
pub fn add(options: &Options) -> Result<Added, Vec<Diagnostic>> {
    if let Err(message) = validate::version(&options.version) {
        return Err(vec![Diagnostic::file(Path::new("--version"), message)]);
    }
    let krate = Crate::load(&options.dir)?;
    let mut plan = Plan::new(&options.dir);
    let what = plan_version(&krate, options, &mut plan)
        .map_err(|m| vec![Diagnostic::file(Path::new("--kind"), m)])?;
    plan.commit(what)
}

/// Plans the version's files and edits into `plan`; what is added.
fn plan_version(krate: &Crate, options: &Options, plan: &mut Plan) -> Result<String, String> {
    let versions = krate.kind(options.kind.as_deref())?;
    let version = &options.version;
    if let Some((item, model)) = versions.iter().find(|(_, m)| &m.version == version) {
        plan.refuse(
            &item.input.file,
            line_of(item),
            format!(
                "{} {version} exists already: choose another version",
                model.kind
            ),
        );
        return Ok(String::new());
    }
    let Some(&(hub, model)) = versions.iter().find(|(_, m)| m.storage) else {
        return Err("the kind has no storage version".into());
    };
    if model.optional_spec || model.flatten_spec {
        plan.refuse(
            &hub.input.file,
            line_of(hub),
            "a kind with `optional_spec` or `flatten_spec` is not one kubegen add can copy; add the version by hand",
        );
        return Ok(String::new());
    }
    let names = krate.names(model);
    let file = &hub.input.file;
    let module_file = match file.file_name().and_then(|n| n.to_str()) {
        Some("mod.rs" | "lib.rs" | "main.rs") => file.with_file_name(format!("{version}.rs")),
        _ => file.with_extension("").join(format!("{version}.rs")),
    };
    let Some(hub_text) = plan.read(file) else {
        return Ok(String::new());
    };
    match version_module(&hub_text, hub, model, version) {
        Ok(text) => plan.create(&module_file, text),
        Err(refusal) => plan.refuse(file, refusal.line, refusal.message),
    }
    plan.edit(file, |text| edit::add_mod(text, version));
    if model.conversion.is_none() {
        let entry = format!(
            "conversion(service = \"{0}-webhook\", namespace = \"{0}-system\"),",
            names.package
        );
        plan.edit(file, |text| {
            edit::add_attribute_entry(text, &model.kind, &model.version, "conversion", &entry)
        });
    }
    wire_webhook_server(plan, &names);
    register_webhook(
        plan,
        "        .conversion(crate::generated::conversion::converter())",
    );
    Ok(format!("version {version} of {}", model.kind))
}

/// The new version's module: the hub's spec copied at `version`, not the
/// storage version, with conversions to and from the hub.
fn version_module(
    hub_text: &str,
    hub: &super::Analyzed,
    model: &kubegen_core::model::ResourceModel,
    version: &str,
) -> Result<String, edit::Refusal> {
    let input = &hub.input.derive_input;
    let refuse = |message: &str| edit::Refusal {
        line: line_of(hub),
        message: message.to_string(),
    };
    let Data::Struct(data) = &input.data else {
        return Err(refuse("the spec is not a struct"));
    };
    let Fields::Named(fields) = &data.fields else {
        return Err(refuse("the spec has no named fields"));
    };
    let field_names: Vec<String> = fields
        .named
        .iter()
        .filter_map(|f| f.ident.as_ref().map(|i| i.to_string()))
        .collect();
    let (first, last) = (line_of(hub), fields.brace_token.span.close().start().line);
    let lines: Vec<&str> = hub_text.lines().collect();
    if first == 0 || last > lines.len() || first > last {
        return Err(refuse("cannot find the spec's text"));
    }
    let (kind, hub_version) = (&model.kind, &model.version);
    // The spec, at the new version, never the storage version, without
    // the hub's webhooks.
    let mut spec = String::new();
    let mut status = None;
    // The indentation of a hub-only entry laid out over several lines, up
    // to its closing line.
    let mut skipping: Option<String> = None;
    for line in &lines[first - 1..last] {
        let trimmed = line.trim_start();
        let indent = &line[..line.len() - trimmed.len()];
        if let Some(open) = &skipping {
            if indent == open && (trimmed == ")" || trimmed == "),") {
                skipping = None;
            }
            continue;
        }
        if trimmed.starts_with("conversion(") || trimmed.starts_with("admission(") {
            if trimmed.ends_with('(') {
                skipping = Some(indent.to_string());
            }
            continue;
        }
        if trimmed.starts_with("storage =") {
            continue;
        }
        if let Some(rest) = trimmed.strip_prefix("status = \"") {
            status = rest.split('"').next().map(str::to_string);
        }
        let line = if trimmed == format!("version = \"{hub_version}\",") {
            line.replace(hub_version.as_str(), version)
        } else if trimmed.starts_with("#[serde(") {
            local_defaults(line)
        } else {
            line.to_string()
        };
        spec.push_str(&line);
        spec.push('\n');
    }
    let spec = edit::add_attribute_entry(&spec, kind, version, "storage", "storage = false,")?;
    // What the spec names from the hub's module comes from there.
    let parsed = syn::parse_file(hub_text).map_err(|e| refuse(&e.to_string()))?;
    let local: BTreeSet<String> = parsed
        .items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Struct(s) => Some(s.ident.to_string()),
            syn::Item::Enum(e) => Some(e.ident.to_string()),
            syn::Item::Type(t) => Some(t.ident.to_string()),
            _ => None,
        })
        .collect();
    let spec_name = input.ident.to_string();
    let mut imported: BTreeSet<String> = spec
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .filter(|w| local.contains(*w) && *w != spec_name)
        .map(str::to_string)
        .collect();
    imported.extend(status.clone());
    let words: BTreeSet<&str> = spec
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .collect();
    let mut uses = String::new();
    for item in &parsed.items {
        if let syn::Item::Use(u) = item {
            for (path, leaf) in use_leaves(&u.tree, "") {
                let relative = ["self", "super", "crate"]
                    .iter()
                    .any(|r| path.starts_with(&format!("{r}::")));
                if !relative && words.contains(leaf.as_str()) {
                    uses.push_str(&format!("use {path};\n"));
                }
            }
        }
    }
    if !uses.is_empty() {
        uses.push('\n');
    }
    let super_use = match imported.len() {
        0 => String::new(),
        1 => format!("use super::{};\n", imported.first().unwrap_or(&spec_name)),
        _ => format!(
            "use super::{{{}}};\n",
            imported.into_iter().collect::<Vec<_>>().join(", ")
        ),
    };
    let map = |from: &str| {
        field_names
            .iter()
            .map(|f| format!("                {f}: {from}.spec.{f},\n"))
            .collect::<String>()
    };
    let status_line = |from: &str| {
        if model.has_status {
            format!("            status: {from}.status,\n")
        } else {
            String::new()
        }
    };
    let spec_path = |module: &str| format!("{module}{spec_name}");
    Ok(format!(
        "//! `{group}/{version}` of {kind}: served next to {hub_version}, which stays\n\
         //! the storage version and is the hub every version converts through;\n\
         //! the operator's conversion webhook runs the conversions below\n\
         //! (`src/generated/conversion.rs` registers them and tests that every\n\
         //! object survives the round trip).\n\
         \n\
         {uses}{super_use}\n\
         {spec}\n\
         /// {hub_version} → {version}. TODO: when the versions' fields differ, map\n\
         /// them here; what {version} cannot hold must survive the round trip.\n\
         impl From<super::{kind}> for {kind} {{\n    \
             fn from(hub: super::{kind}) -> Self {{\n        \
                 {kind} {{\n            \
                     metadata: hub.metadata,\n            \
                     spec: {own} {{\n{to_new}            }},\n{status_new}        \
                 }}\n    \
             }}\n\
         }}\n\
         \n\
         /// {version} → {hub_version}, the storage version.\n\
         impl From<{kind}> for super::{kind} {{\n    \
             fn from(spoke: {kind}) -> Self {{\n        \
                 super::{kind} {{\n            \
                     metadata: spoke.metadata,\n            \
                     spec: {hub_spec} {{\n{to_hub}            }},\n{status_hub}        \
                 }}\n    \
             }}\n\
         }}\n",
        group = model.group,
        own = spec_path(""),
        hub_spec = spec_path("super::"),
        to_new = map("hub"),
        to_hub = map("spoke"),
        status_new = status_line("hub"),
        status_hub = status_line("spoke"),
    ))
}

/// Each name a `use` tree brings in: its full path (with its `as`
/// rename) and the name it binds; globs are left out.
fn use_leaves(tree: &syn::UseTree, prefix: &str) -> Vec<(String, String)> {
    match tree {
        syn::UseTree::Path(p) => use_leaves(&p.tree, &format!("{prefix}{}::", p.ident)),
        syn::UseTree::Name(n) => vec![(format!("{prefix}{}", n.ident), n.ident.to_string())],
        syn::UseTree::Rename(r) => vec![(
            format!("{prefix}{} as {}", r.ident, r.rename),
            r.rename.to_string(),
        )],
        syn::UseTree::Group(g) => g.items.iter().flat_map(|t| use_leaves(t, prefix)).collect(),
        syn::UseTree::Glob(_) => Vec::new(),
    }
}

/// A `#[serde(...)]` line whose `default = "f"` names a function of the
/// hub's module, pointed there (`super::f`).
fn local_defaults(line: &str) -> String {
    let key = "default = \"";
    match line.find(key) {
        Some(at)
            if !line[at + key.len()..]
                .split('"')
                .next()
                .unwrap_or("")
                .contains("::") =>
        {
            format!(
                "{}super::{}",
                &line[..at + key.len()],
                &line[at + key.len()..]
            )
        }
        _ => line.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_point_at_the_hub() {
        assert_eq!(
            local_defaults(r#"    #[serde(default = "default_replicas")]"#),
            r#"    #[serde(default = "super::default_replicas")]"#
        );
        let qualified = r#"    #[serde(default = "crate::f")]"#;
        let tree: syn::UseTree = syn::parse_str("a::{b, c::d as e, f::*}").unwrap();
        assert_eq!(
            use_leaves(&tree, ""),
            [
                ("a::b".to_string(), "b".to_string()),
                ("a::c::d as e".into(), "e".into())
            ]
        );
        assert_eq!(local_defaults(qualified), qualified);
        assert_eq!(
            local_defaults("    #[serde(default)]"),
            "    #[serde(default)]"
        );
    }
}
