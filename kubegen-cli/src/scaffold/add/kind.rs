//! `kubegen add kind`: another kind in the crate, as kubebuilder's
//! `create api` adds one — its API module `src/api/<kind>.rs` (a spec and
//! a status like the first kind's), a controller stub
//! `src/controller/<kind>.rs` registered with the manager in `src/main.rs`
//! (sharded, in a sharded operator), its CRD in `config/crd`'s
//! kustomization, and an e2e test that the controller writes the status.
//! `kubegen generate` then writes its CRD, RBAC rules and clients.

use std::path::{Path, PathBuf};

use kubegen_codegen::names::snake_case;

use super::{Added, Crate, Plan, line_of};
use crate::scaffold::edit::{self, Refusal};
use crate::scaffold::names::Names;
use crate::scaffold::templates::{render, select_sharded};
use crate::scaffold::validate;
use crate::source::Diagnostic;

/// What `kubegen add kind` was asked to add.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// The crate's directory.
    pub dir: PathBuf,
    /// The new kind, e.g. `Backup`.
    pub kind: String,
    /// Its API group; the existing kinds' when `None`.
    pub group: Option<String>,
    /// Its API version; the existing kinds' storage version when `None`.
    pub version: Option<String>,
}

/// Adds the kind, or reports every reason it cannot; nothing is written
/// on error.
pub fn add(options: &Options) -> Result<Added, Vec<Diagnostic>> {
    let mut errors = Vec::new();
    let mut flag = |name: &str, result: Result<(), String>| {
        if let Err(message) = result {
            errors.push(Diagnostic::file(Path::new(name), message));
        }
    };
    let kind = &options.kind;
    flag(
        "<KIND>",
        validate::kind(kind).and_then(|()| validate::kind_module(kind, &snake_case(kind))),
    );
    if let Some(group) = &options.group {
        flag("--group", validate::group(group));
    }
    if let Some(version) = &options.version {
        flag("--version", validate::version(version));
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let krate = Crate::load(&options.dir)?;
    let mut plan = Plan::new(&options.dir);
    let what = plan_kind(&krate, options, &mut plan)
        .map_err(|(flag, m)| vec![Diagnostic::file(Path::new(flag), m)])?;
    plan.commit(what)
}

/// The new kind's group and version: as given, else those of the crate's
/// kinds (their storage version, within the group) when they agree.
fn group_version(
    krate: &Crate,
    options: &Options,
) -> Result<(String, String), (&'static str, String)> {
    let stored: Vec<_> = krate
        .resources()
        .map(|(_, m)| m)
        .filter(|m| m.storage)
        .collect();
    let group = match &options.group {
        Some(group) => group.clone(),
        None => only(stored.iter().map(|m| m.group.as_str()), "groups").map_err(|groups| {
            (
                "--group",
                format!("the crate's kinds are in {groups}: name the new kind's with --group"),
            )
        })?,
    };
    let version = match &options.version {
        Some(version) => version.clone(),
        None => {
            let in_group: Vec<&str> = stored
                .iter()
                .filter(|m| m.group == group)
                .map(|m| m.version.as_str())
                .collect();
            let versions = if in_group.is_empty() {
                stored.iter().map(|m| m.version.as_str()).collect()
            } else {
                in_group
            };
            only(versions.into_iter(), "versions").map_err(|versions| {
                (
                    "--version",
                    format!(
                        "the crate's kinds are stored at {versions}: name the new kind's with --version"
                    ),
                )
            })?
        }
    };
    Ok((group, version))
}

/// The one distinct value of `values`; else what they are (`what`: their
/// plural noun), for a message.
fn only<'a>(values: impl Iterator<Item = &'a str>, what: &str) -> Result<String, String> {
    let mut values: Vec<&str> = values.collect();
    values.sort_unstable();
    values.dedup();
    match values.as_slice() {
        [one] => Ok(one.to_string()),
        [] => Err(format!("no {what} (the crate declares no kind)")),
        _ => Err(format!("several {what} ({})", values.join(", "))),
    }
}

/// Plans the kind's files and edits into `plan`; what is added.
fn plan_kind(
    krate: &Crate,
    options: &Options,
    plan: &mut Plan,
) -> Result<String, (&'static str, String)> {
    let kind = &options.kind;
    let (group, version) = match krate.resources().find(|(_, m)| m.kind == *kind) {
        Some((_, model)) => (model.group.clone(), model.version.clone()),
        None => group_version(krate, options)?,
    };
    let names = Names::new(&krate.api.package, &group, &version, kind);
    for (item, model) in krate.resources() {
        let same_resource = model.group == group && model.plural == names.plural;
        if model.kind == *kind || same_resource {
            plan.refuse(
                &item.input.file,
                line_of(item),
                format!(
                    "{} ({}/{}, resource `{}`) exists already: choose another kind, or run `kubegen add version` for another version of it",
                    model.kind, model.group, model.version, model.plural
                ),
            );
            return Ok(String::new());
        }
    }
    let module = snake_case(kind);
    let mut variables = names.variables();
    variables.push(("kind_module", module.clone()));
    let file = |dir: &str| PathBuf::from(format!("{dir}/{module}.rs"));
    plan.create(&file("src/api"), render(API, &variables));
    plan.edit(Path::new("src/api.rs"), |text| edit::add_mod(text, &module));
    plan.create(&file("src/controller"), render(CONTROLLER, &variables));
    plan.edit(Path::new("src/controller.rs"), |text| {
        edit::add_mod(text, &module)
    });
    // In a sharded operator every controller is sharded: one that is not
    // would need leader election, which it does not run.
    let registration = render(&select_sharded(REGISTRATION, plan.sharded()), &variables);
    plan.edit(Path::new("src/main.rs"), |text| {
        register_controller(text, &registration)
    });
    let crd = format!("- {group}_{}.yaml", names.plural);
    plan.edit(Path::new("config/crd/kustomization.yaml"), |text| {
        list_resource(text, &crd)
    });
    plan.create(
        Path::new(&format!("tests/{module}_e2e.rs")),
        render(E2E, &variables),
    );
    Ok(format!("kind {kind} ({group}/{version})"))
}

/// `block` (the controller's registration) before `manager.run()`, with
/// the first controller not taking the shared context for itself.
fn register_controller(text: &str, block: &str) -> Result<String, Refusal> {
    let moved = text.lines().position(|l| {
        let l = l.trim();
        l.starts_with(".reconcile(") && l.ends_with(", ctx);")
    });
    if let Some(i) = moved {
        return Err(Refusal {
            line: i + 1,
            message: "this controller takes the shared context for itself: pass it `ctx.clone()`, so the new controller can share it".into(),
        });
    }
    edit::insert_before(text, "    manager.run().await?;", block).map_err(|mut r| {
        r.message
            .push_str(" (registering the controller: compare with `kubegen new`)");
        r
    })
}

/// `entry` appended to the `resources:` list ending a kustomization,
/// unless it is listed already.
fn list_resource(text: &str, entry: &str) -> Result<String, Refusal> {
    if text.lines().any(|l| l.trim_end() == entry) {
        return Ok(text.to_string());
    }
    match text.lines().last() {
        Some(last) if last.starts_with("- ") => {
            Ok(format!("{}\n{entry}\n", text.trim_end_matches('\n')))
        }
        _ => Err(Refusal {
            line: text.lines().count(),
            message: format!(
                "the file does not end with its `resources:` list; list `{}` there by hand",
                entry.trim_start_matches("- ")
            ),
        }),
    }
}

/// The kind's API module: the first kind's template.
const API: &str = include_str!("../templates/api.rs.tmpl");
/// The kind's controller stub.
const CONTROLLER: &str = include_str!("../templates/kind_controller.rs.tmpl");
/// The controller's registration in `src/main.rs`.
const REGISTRATION: &str = include_str!("../templates/kind_main.rs.tmpl");
/// The kind's e2e test.
const E2E: &str = include_str!("../templates/kind_e2e.rs.tmpl");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_controller_must_share_its_context() {
        let main = "    let c = C::new()\n        .reconcile(controller::reconcile, ctx);\n\n    manager.run().await?;\n";
        let refused = register_controller(main, "x\n").unwrap_err();
        assert_eq!(refused.line, 2);
        assert!(refused.message.contains("ctx.clone()"), "{refused:?}");
        let shared = main.replace("ctx);", "ctx.clone());");
        assert_eq!(
            register_controller(&shared, "    x;\n\n").unwrap(),
            shared.replace("\n    manager.run", "\n    x;\n\n    manager.run")
        );
        let missing = register_controller("fn main() {}\n", "x\n").unwrap_err();
        assert!(missing.message.contains("compare with `kubegen new`"));
    }

    #[test]
    fn resources_are_listed_once_at_the_end() {
        let k = "kind: Kustomization\nresources:\n- a.yaml\n";
        assert_eq!(
            list_resource(k, "- b.yaml").unwrap(),
            "kind: Kustomization\nresources:\n- a.yaml\n- b.yaml\n"
        );
        assert_eq!(list_resource(k, "- a.yaml").unwrap(), k);
        let refused = list_resource("resources:\n- a.yaml\nnamePrefix: x\n", "- b.yaml");
        assert_eq!(refused.unwrap_err().line, 3);
    }

    #[test]
    fn one_value_or_what_they_are() {
        assert_eq!(only(["a", "a"].into_iter(), "groups"), Ok("a".into()));
        assert_eq!(
            only(["b", "a"].into_iter(), "groups"),
            Err("several groups (a, b)".into())
        );
        assert!(only(std::iter::empty(), "groups").is_err());
    }
}
