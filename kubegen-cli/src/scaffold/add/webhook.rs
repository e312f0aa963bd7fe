//! `kubegen add webhook`: validating and/or defaulting admission webhooks
//! for one version of a kind — `admission(...)` on the kind (so
//! `kubegen generate` writes `config/webhook`), stub functions in
//! `src/webhook/<kind>_<version>.rs` registered with the webhook server
//! (wired in when the crate lacks it), the deploy manifests, and an e2e
//! test that the apiserver calls them.

use std::path::{Path, PathBuf};

use super::{Added, Crate, Plan, line_of, register_webhook, wire_webhook_server};
use crate::scaffold::edit;
use crate::scaffold::templates::render;
use crate::source::Diagnostic;

/// What `kubegen add webhook` was asked to add.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// The crate's directory.
    pub dir: PathBuf,
    /// The kind; the crate's only kind when `None`.
    pub kind: Option<String>,
    /// The version; the kind's storage version when `None`.
    pub version: Option<String>,
    /// Add a validating webhook.
    pub validating: bool,
    /// Add a defaulting (mutating) webhook.
    pub defaulting: bool,
}

/// Adds the webhooks, or reports every reason it cannot; nothing is
/// written on error.
pub fn add(options: &Options) -> Result<Added, Vec<Diagnostic>> {
    if !options.validating && !options.defaulting {
        return Err(vec![Diagnostic::file(
            Path::new("--validating"),
            "say which webhooks to add: --validating, --defaulting or both",
        )]);
    }
    let krate = Crate::load(&options.dir)?;
    let mut plan = Plan::new(&options.dir);
    let what = plan_webhook(&krate, options, &mut plan)
        .map_err(|(flag, m)| vec![Diagnostic::file(Path::new(flag), m)])?;
    plan.commit(what)
}

/// Plans the webhooks' files and edits; what is added.
fn plan_webhook(
    krate: &Crate,
    options: &Options,
    plan: &mut Plan,
) -> Result<String, (&'static str, String)> {
    let versions = krate
        .kind(options.kind.as_deref())
        .map_err(|m| ("--kind", m))?;
    let found = match &options.version {
        Some(v) => versions.iter().find(|(_, m)| &m.version == v),
        None => versions.iter().find(|(_, m)| m.storage),
    };
    let Some(&(item, model)) = found else {
        let have: Vec<&str> = versions.iter().map(|(_, m)| m.version.as_str()).collect();
        return Err((
            "--version",
            format!(
                "{} has no version {} (it has {})",
                versions[0].1.kind,
                options.version.as_deref().unwrap_or("stored"),
                have.join(", ")
            ),
        ));
    };
    let names = krate.names(model);
    let file = &item.input.file;
    if model.admission.is_some() {
        let line = plan
            .read(file)
            .and_then(|text| edit::kind_attribute(&text, &model.kind, &model.version).ok())
            .map_or(line_of(item), |(first, _)| first + 1);
        plan.refuse(
            file,
            line,
            format!(
                "{} {} declares `admission(...)` already: edit it (and src/webhook.rs) by hand",
                model.kind, model.version
            ),
        );
        return Ok(String::new());
    }
    let flags: Vec<&str> = [
        (options.validating, "validate"),
        (options.defaulting, "default"),
    ]
    .into_iter()
    .filter_map(|(on, key)| on.then_some(key))
    .collect();
    let entry = format!(
        "admission({}, service = \"{1}-webhook\", namespace = \"{1}-system\"),",
        flags.join(", "),
        names.package
    );
    plan.edit(file, |text| {
        edit::add_attribute_entry(text, &model.kind, &model.version, "admission", &entry)
    });

    let kind_snake = names.kind_kebab.replace('-', "_");
    let module = format!("{kind_snake}_{}", model.version);
    let kind_path = std::iter::once("crate")
        .chain(item.input.module.iter().map(String::as_str))
        .chain([model.kind.as_str()])
        .collect::<Vec<_>>()
        .join("::");
    let mut variables = names.variables();
    variables.push(("kind_path", kind_path.clone()));
    variables.push(("kind_lower", model.kind.to_ascii_lowercase()));
    let part = |on: bool, template: &str| {
        if on {
            render(template, &variables)
        } else {
            String::new()
        }
    };
    let (validate_fn, default_fn) = (
        part(options.validating, VALIDATE),
        part(options.defaulting, DEFAULT),
    );
    let (validate_check, default_check) = (
        part(options.validating, E2E_VALIDATE),
        part(options.defaulting, E2E_DEFAULT),
    );
    variables.push(("validate_fn", validate_fn));
    variables.push(("default_fn", default_fn));
    variables.push(("validate_check", validate_check));
    variables.push(("default_check", default_check));

    wire_webhook_server(plan, &names);
    plan.create(
        Path::new(&format!("src/webhook/{module}.rs")),
        render(STUBS, &variables),
    );
    plan.edit(Path::new("src/webhook.rs"), |text| {
        edit::add_mod(text, &module)
    });
    if options.validating {
        register_webhook(
            plan,
            &format!("        .validate::<{kind_path}>({module}::validate)"),
        );
    }
    if options.defaulting {
        register_webhook(
            plan,
            &format!("        .default::<{kind_path}>({module}::default)"),
        );
    }
    let test_path = kind_path.replacen("crate", &names.crate_ident, 1);
    variables.retain(|(name, _)| *name != "kind_path");
    variables.push(("kind_path", test_path));
    plan.create(
        Path::new(&format!("tests/{module}_webhooks.rs")),
        render(E2E, &variables),
    );
    if !plan.exists(Path::new("config/webhook/kustomization.yaml")) {
        plan.create(
            Path::new("config/webhook/kustomization.yaml"),
            "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- manifests.yaml\n".into(),
        );
        plan.edit(Path::new("deploy/kustomization.yaml"), |text| {
            edit::insert_after(text, "- ../config/rbac", "- ../config/webhook\n")
        });
    }
    Ok(format!(
        "{} webhook(s) of {} {}",
        flags.join(" and "),
        model.kind,
        model.version
    ))
}

/// The stubs' module.
const STUBS: &str = include_str!("../templates/admission.rs.tmpl");
/// The validating stub.
const VALIDATE: &str = include_str!("../templates/admission_validate.rs.tmpl");
/// The defaulting stub.
const DEFAULT: &str = include_str!("../templates/admission_default.rs.tmpl");
/// The e2e test.
const E2E: &str = include_str!("../templates/admission_e2e.rs.tmpl");
/// The e2e test's check of the validating webhook.
const E2E_VALIDATE: &str = include_str!("../templates/admission_e2e_validate.tmpl");
/// The e2e test's check of the defaulting webhook.
const E2E_DEFAULT: &str = include_str!("../templates/admission_e2e_default.tmpl");
