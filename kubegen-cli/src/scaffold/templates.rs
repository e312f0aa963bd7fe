//! The new crate's hand-written files as templates (under `templates/`),
//! the `{{name}}` substitution that renders them, and their blocks:
//!
//! * webhook blocks, lines between `{{#webhook}}` and `{{/webhook}}`
//!   lines, kept when the crate serves webhooks (`kubegen new --webhook`)
//!   and otherwise left out — and what `kubegen add` inserts, after the
//!   same anchor line, to wire the webhook server into a crate created
//!   without it;
//! * sharding blocks, lines between `{{#sharded}}` (or `{{^sharded}}`)
//!   and `{{/sharded}}` lines, kept only in a sharded operator
//!   (`kubegen new --sharded`), or only in one that elects a leader.
//!
//! Blocks do not nest. A crate is sharded or not for good, so the
//! sharding blocks are chosen first and the webhook blocks' anchors are
//! lines of that variant.

use std::path::PathBuf;

/// Every template: the path it is rendered to, and its text.
pub const TEMPLATES: &[(&str, &str)] = &[
    ("Cargo.toml", include_str!("templates/Cargo.toml.tmpl")),
    (".gitignore", include_str!("templates/gitignore.tmpl")),
    ("Makefile", include_str!("templates/Makefile.tmpl")),
    ("README.md", include_str!("templates/README.md.tmpl")),
    ("src/lib.rs", include_str!("templates/lib.rs.tmpl")),
    ("src/api.rs", include_str!("templates/api.rs.tmpl")),
    (
        "src/controller.rs",
        include_str!("templates/controller.rs.tmpl"),
    ),
    ("src/main.rs", include_str!("templates/main.rs.tmpl")),
    ("tests/e2e.rs", include_str!("templates/e2e.rs.tmpl")),
    (
        "tests/reconcile.rs",
        include_str!("templates/reconcile.rs.tmpl"),
    ),
    (
        "config/crd/kustomization.yaml",
        include_str!("templates/deploy/crd_kustomization.yaml.tmpl"),
    ),
    (
        "config/rbac/kustomization.yaml",
        include_str!("templates/deploy/rbac_kustomization.yaml.tmpl"),
    ),
    (
        "deploy/kustomization.yaml",
        include_str!("templates/deploy/kustomization.yaml.tmpl"),
    ),
    (
        "deploy/namespace.yaml",
        include_str!("templates/deploy/namespace.yaml.tmpl"),
    ),
    (
        "deploy/service_account.yaml",
        include_str!("templates/deploy/service_account.yaml.tmpl"),
    ),
    (
        "deploy/role_binding.yaml",
        include_str!("templates/deploy/role_binding.yaml.tmpl"),
    ),
    (
        "deploy/auth_delegator_binding.yaml",
        include_str!("templates/deploy/auth_delegator_binding.yaml.tmpl"),
    ),
    (
        "deploy/metrics_reader_role.yaml",
        include_str!("templates/deploy/metrics_reader_role.yaml.tmpl"),
    ),
    (
        "deploy/metrics_service.yaml",
        include_str!("templates/deploy/metrics_service.yaml.tmpl"),
    ),
    (
        "deploy/deployment.yaml",
        include_str!("templates/deploy/deployment.yaml.tmpl"),
    ),
];

/// The templates of a crate serving webhooks only.
pub const WEBHOOK_TEMPLATES: &[(&str, &str)] = &[
    ("src/webhook.rs", include_str!("templates/webhook.rs.tmpl")),
    (
        "deploy/webhook_service.yaml",
        include_str!("templates/deploy/webhook_service.yaml.tmpl"),
    ),
];

/// What only a sharded operator's `src/main.rs` says: it shards its
/// controllers by the manager's shards.
pub const SHARDED_MARKER: &str = ".shards(&shards)";

/// The line opening a webhook block.
const BLOCK_START: &str = "{{#webhook}}";
/// The line closing a webhook block.
const BLOCK_END: &str = "{{/webhook}}";
/// The line opening a block kept only in a sharded operator.
const SHARDED_START: &str = "{{#sharded}}";
/// The line opening a block kept only in an operator that is not sharded.
const UNSHARDED_START: &str = "{{^sharded}}";
/// The line closing either sharding block.
const SHARDED_END: &str = "{{/sharded}}";

/// `template` with its sharding blocks' marker lines removed and their
/// contents chosen by `sharded`; its webhook blocks are left as they are.
pub fn select_sharded(template: &str, sharded: bool) -> String {
    let mut out = String::with_capacity(template.len());
    let mut keep = true;
    for line in template.split_inclusive('\n') {
        match line.trim_end() {
            SHARDED_START => keep = sharded,
            UNSHARDED_START => keep = !sharded,
            SHARDED_END => keep = true,
            _ if keep => out.push_str(line),
            _ => {}
        }
    }
    out
}

/// `template` with its blocks' marker lines removed, the contents of its
/// webhook blocks kept when `webhook` is set, and those of its sharding
/// blocks chosen by `sharded`.
pub fn select(template: &str, webhook: bool, sharded: bool) -> String {
    let template = select_sharded(template, sharded);
    let mut out = String::with_capacity(template.len());
    let mut inside = false;
    for line in template.split_inclusive('\n') {
        match line.trim_end() {
            BLOCK_START => inside = true,
            BLOCK_END => inside = false,
            _ if !inside || webhook => out.push_str(line),
            _ => {}
        }
    }
    out
}

/// The webhook blocks of `template` in its `sharded` variant: the line
/// each follows (its anchor, without the newline; a block always follows
/// a line) and the block's lines.
pub fn blocks(template: &str, sharded: bool) -> Vec<(String, String)> {
    let template = select_sharded(template, sharded);
    let mut found = Vec::new();
    let mut previous = "";
    let mut block: Option<String> = None;
    for line in template.split_inclusive('\n') {
        match (line.trim_end(), &mut block) {
            (BLOCK_START, None) => block = Some(String::new()),
            (BLOCK_END, Some(text)) => {
                found.push((
                    previous.trim_end_matches('\n').to_string(),
                    std::mem::take(text),
                ));
                block = None;
            }
            (_, Some(text)) => text.push_str(line),
            (_, None) => previous = line,
        }
    }
    found
}

/// Replaces each `{{name}}` in `template` by its value in `variables`.
/// Placeholders without a value are left as they are.
pub fn render(template: &str, variables: &[(&str, String)]) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let value = after.find("}}").and_then(|end| {
            let name = &after[..end];
            variables
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| (v, end))
        });
        match value {
            Some((value, end)) => {
                out.push_str(value);
                rest = &after[end + 2..];
            }
            None => {
                out.push_str("{{");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Every template rendered, by path relative to the new crate's root;
/// with `webhook`, the webhook blocks and templates too; the sharding
/// blocks as `sharded` says.
pub fn render_all(
    variables: &[(&str, String)],
    webhook: bool,
    sharded: bool,
) -> Vec<(PathBuf, String)> {
    let extra = if webhook { WEBHOOK_TEMPLATES } else { &[] };
    TEMPLATES
        .iter()
        .chain(extra)
        .map(|(path, text)| {
            (
                PathBuf::from(path),
                render(&select(text, webhook, sharded), variables),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn substitutes_known_names_only() {
        let vars = [("kind", "Pod".to_string()), ("group", "a.b".to_string())];
        assert_eq!(render("{{kind}}s in {{group}}", &vars), "Pods in a.b");
        assert_eq!(render("{{other}} {{kind", &vars), "{{other}} {{kind");
        assert_eq!(render("{ {{kind}}}", &vars), "{ Pod}");
        assert_eq!(render("", &vars), "");
    }

    #[test]
    fn every_placeholder_has_a_value() {
        let names = super::super::names::Names::new("op", "a.example.com", "v1", "Thing");
        let mut vars = names.variables();
        for extra in super::super::EXTRA_VARIABLES {
            vars.push((extra, "x".into()));
        }
        for webhook in [false, true] {
            for sharded in [false, true] {
                for (path, text) in render_all(&vars, webhook, sharded) {
                    assert!(!text.contains("{{"), "{}: {text}", path.display());
                }
            }
        }
    }

    #[test]
    fn blocks_are_kept_or_dropped() {
        let template = "a\n{{#webhook}}\nb\nc\n{{/webhook}}\nd\n{{#webhook}}\ne\n{{/webhook}}\n";
        assert_eq!(select(template, false, false), "a\nd\n");
        assert_eq!(select(template, true, false), "a\nb\nc\nd\ne\n");
        assert_eq!(
            blocks(template, false),
            [
                ("a".to_string(), "b\nc\n".to_string()),
                ("d".into(), "e\n".into())
            ]
        );
    }

    #[test]
    fn sharding_blocks_choose_a_variant_and_its_anchors() {
        let template = "a\n{{^sharded}}\nb\n{{/sharded}}\n{{#sharded}}\nc\n{{/sharded}}\n{{#webhook}}\nw\n{{/webhook}}\nd\n";
        assert_eq!(select(template, false, false), "a\nb\nd\n");
        assert_eq!(select(template, false, true), "a\nc\nd\n");
        assert_eq!(select(template, true, true), "a\nc\nw\nd\n");
        assert_eq!(
            select_sharded(template, true),
            "a\nc\n{{#webhook}}\nw\n{{/webhook}}\nd\n"
        );
        assert_eq!(
            blocks(template, false),
            [("b".to_string(), "w\n".to_string())]
        );
        assert_eq!(
            blocks(template, true),
            [("c".to_string(), "w\n".to_string())]
        );
    }

    /// Every template's blocks open and close in pairs and do not nest.
    #[test]
    fn blocks_pair_up_and_do_not_nest() {
        let kind_templates = [
            (
                "kind_main.rs.tmpl",
                include_str!("templates/kind_main.rs.tmpl"),
            ),
            (
                "kind_controller.rs.tmpl",
                include_str!("templates/kind_controller.rs.tmpl"),
            ),
        ];
        for (path, text) in TEMPLATES
            .iter()
            .chain(WEBHOOK_TEMPLATES)
            .chain(&kind_templates)
        {
            let mut open: Option<&str> = None;
            for (i, line) in text.lines().enumerate() {
                let line = line.trim_end();
                let end = match line {
                    BLOCK_START => Some(BLOCK_END),
                    SHARDED_START | UNSHARDED_START => Some(SHARDED_END),
                    _ => None,
                };
                if let Some(end) = end {
                    assert_eq!(open, None, "{path}:{}: a block inside a block", i + 1);
                    open = Some(end);
                } else if line == BLOCK_END || line == SHARDED_END {
                    assert_eq!(open, Some(line), "{path}:{}: a stray {line}", i + 1);
                    open = None;
                }
            }
            assert_eq!(open, None, "{path}: a block is not closed");
        }
    }

    /// `kubegen add` finds each block's anchor in a crate made without
    /// webhooks, sharded or not: every anchor is one line of its
    /// template's variant, exactly once.
    #[test]
    fn every_anchor_is_unique() {
        for sharded in [false, true] {
            let mut anchored = 0;
            for (path, text) in TEMPLATES {
                let plain = select(text, false, sharded);
                for (anchor, _) in blocks(text, sharded) {
                    let count = plain.lines().filter(|l| *l == anchor).count();
                    assert_eq!(count, 1, "{path} (sharded: {sharded}): `{anchor}`");
                    anchored += 1;
                }
            }
            assert!(anchored >= 8, "{anchored}");
        }
    }

    #[test]
    fn dependency_versions_match_the_workspace() {
        let workspace: toml::Table = toml::from_str(include_str!("../../../Cargo.toml")).unwrap();
        let deps = &workspace["workspace"]["dependencies"];
        let template: toml::Table = toml::from_str(&render(
            TEMPLATES[0].1,
            &[
                (
                    "runtime_dependency",
                    format!("\"{}\"", env!("CARGO_PKG_VERSION")),
                ),
                (
                    "testenv_dependency",
                    format!("\"{}\"", env!("CARGO_PKG_VERSION")),
                ),
                (
                    "runtime_testing_dependency",
                    format!(
                        "{{ version = \"{}\", features = [\"testing\"] }}",
                        env!("CARGO_PKG_VERSION")
                    ),
                ),
            ],
        ))
        .unwrap();
        for (name, spec) in template["dependencies"].as_table().unwrap() {
            let Some(version) = spec
                .as_str()
                .or_else(|| spec.get("version").and_then(|v| v.as_str()))
            else {
                continue;
            };
            let want = deps[name]
                .as_str()
                .or_else(|| deps[name].get("version").and_then(|v| v.as_str()))
                .unwrap();
            // The workspace pins its own crates exactly (`=x.y.z`).
            let want = want.trim_start_matches('=');
            assert_eq!(version, want, "{name}");
        }
    }
}
