//! RBAC from attributes: `#[rbac(groups = [...], resources = [...], verbs =
//! [...], resource_names = [...], urls = [...], namespace = "...")]` placed
//! anywhere in a crate (typically on the controller) become one ClusterRole,
//! plus one Role per namespace named by a rule.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};
use syn::meta::ParseNestedMeta;

use crate::attr::value;
use crate::ctxt::Ctxt;
use kubegen_core::suggest::suggest;

/// The keys `#[rbac(...)]` accepts.
pub const KEYS: &[&str] = &[
    "groups",
    "resources",
    "resource_names",
    "verbs",
    "urls",
    "namespace",
];

/// The verbs the apiserver's authorizer knows (plus `*`).
pub const VERBS: &[&str] = &[
    "*",
    "approve",
    "bind",
    "create",
    "delete",
    "deletecollection",
    "escalate",
    "get",
    "impersonate",
    "list",
    "patch",
    "sign",
    "update",
    "use",
    "watch",
];

/// One rule, as written in one attribute.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RbacRule {
    /// API groups (`""` is the core group).
    pub groups: Vec<String>,
    /// Resources, optionally with a subresource (`myapplications/status`).
    pub resources: Vec<String>,
    /// Object names the rule is limited to.
    pub resource_names: Vec<String>,
    /// Verbs.
    pub verbs: Vec<String>,
    /// Non-resource URLs (ClusterRole only).
    pub urls: Vec<String>,
    /// The namespace of a Role; `None` for the ClusterRole.
    pub namespace: Option<String>,
}

/// Parses the arguments of one `#[rbac(...)]` (the tokens inside the
/// parentheses), reporting every mistake.
pub fn parse_args(tokens: proc_macro2::TokenStream) -> syn::Result<RbacRule> {
    let cx = Ctxt::new();
    let mut rule = RbacRule::default();
    let parser = syn::meta::parser(|meta| {
        parse_key(&cx, &mut rule, &meta);
        Ok(())
    });
    if let Err(e) = syn::parse::Parser::parse2(parser, tokens.clone()) {
        cx.syn_error(e);
    }
    check(&cx, &rule, &tokens);
    cx.check()?;
    Ok(rule)
}

/// Parses an `#[rbac(...)]` attribute as found in source.
pub fn parse_attribute(attr: &syn::Attribute) -> syn::Result<RbacRule> {
    match &attr.meta {
        syn::Meta::List(list) => parse_args(list.tokens.clone()),
        other => Err(syn::Error::new_spanned(
            other,
            "expected `#[rbac(groups = [...], resources = [...], verbs = [...])]`",
        )),
    }
}

fn parse_key(cx: &Ctxt, rule: &mut RbacRule, meta: &ParseNestedMeta<'_>) {
    let key = meta
        .path
        .get_ident()
        .map(ToString::to_string)
        .unwrap_or_default();
    let result = match key.as_str() {
        "groups" => value::string_list(meta, &key).map(|v| rule.groups = v),
        "resources" => value::string_list(meta, &key).map(|v| rule.resources = v),
        "resource_names" => value::string_list(meta, &key).map(|v| rule.resource_names = v),
        "verbs" => value::string_list(meta, &key).map(|v| rule.verbs = v),
        "urls" => value::string_list(meta, &key).map(|v| rule.urls = v),
        "namespace" => value::string(meta, &key).map(|(v, _)| rule.namespace = Some(v)),
        _ => {
            let hint = suggest(&key, KEYS.iter().copied())
                .map(|s| format!("; did you mean `{s}`?"))
                .unwrap_or_default();
            cx.error_spanned_by(
                &meta.path,
                format!(
                    "unknown rbac key `{key}`{hint} (expected one of: {})",
                    KEYS.join(", ")
                ),
            );
            value::skip(meta)
        }
    };
    if let Err(e) = result {
        cx.syn_error(e);
    }
}

fn check(cx: &Ctxt, rule: &RbacRule, tokens: &proc_macro2::TokenStream) {
    if rule.verbs.is_empty() {
        cx.error_spanned_by(tokens, "an rbac rule needs `verbs = [...]`");
    }
    for verb in &rule.verbs {
        if !VERBS.contains(&verb.as_str()) {
            let hint = suggest(verb, VERBS.iter().copied())
                .map(|s| format!("; did you mean `{s}`?"))
                .unwrap_or_default();
            cx.error_spanned_by(tokens, format!("unknown verb `{verb}`{hint}"));
        }
    }
    let resource_rule = !rule.resources.is_empty() || !rule.groups.is_empty();
    if resource_rule && rule.resources.is_empty() {
        cx.error_spanned_by(tokens, "`groups` needs `resources = [...]`");
    }
    if resource_rule && rule.groups.is_empty() {
        cx.error_spanned_by(
            tokens,
            "`resources` needs `groups = [...]` (use `\"\"` for the core group)",
        );
    }
    if !rule.urls.is_empty() && (resource_rule || rule.namespace.is_some()) {
        cx.error_spanned_by(
            tokens,
            "`urls` (non-resource URLs) cannot be combined with resources or a namespace",
        );
    }
    if !resource_rule && rule.urls.is_empty() {
        cx.error_spanned_by(tokens, "an rbac rule needs `resources` or `urls`");
    }
    if resource_rule
        && rule
            .resources
            .iter()
            .any(|r| r.chars().any(char::is_uppercase))
    {
        cx.error_spanned_by(
            tokens,
            "resources are lower-case plurals (`deployments`, not `Deployment`)",
        );
    }
}

/// Merges rules: those with the same groups, resources, names and URLs are
/// combined (verbs united), everything sorted — the same set of attributes
/// gives the same YAML whatever their order.
fn merge(rules: &[&RbacRule]) -> Vec<RbacRule> {
    type Key = (Vec<String>, Vec<String>, Vec<String>, Vec<String>);
    let mut merged: BTreeMap<Key, BTreeSet<String>> = BTreeMap::new();
    for rule in rules {
        let sorted = |v: &Vec<String>| {
            let mut v = v.clone();
            v.sort();
            v.dedup();
            v
        };
        let key = (
            sorted(&rule.groups),
            sorted(&rule.resources),
            sorted(&rule.resource_names),
            sorted(&rule.urls),
        );
        merged
            .entry(key)
            .or_default()
            .extend(rule.verbs.iter().cloned());
    }
    merged
        .into_iter()
        .map(
            |((groups, resources, resource_names, urls), verbs)| RbacRule {
                groups,
                resources,
                resource_names,
                verbs: if verbs.contains("*") {
                    vec!["*".to_string()]
                } else {
                    verbs.into_iter().collect()
                },
                urls,
                namespace: None,
            },
        )
        .collect()
}

fn rule_json(rule: &RbacRule) -> Value {
    let mut v = json!({ "verbs": rule.verbs });
    if !rule.urls.is_empty() {
        v["nonResourceURLs"] = json!(rule.urls);
        return v;
    }
    v["apiGroups"] = json!(rule.groups);
    v["resources"] = json!(rule.resources);
    if !rule.resource_names.is_empty() {
        v["resourceNames"] = json!(rule.resource_names);
    }
    v
}

/// The RBAC objects: a ClusterRole named `name` with the rules that name
/// no namespace, then a Role per namespace (sorted).
pub fn roles(rules: &[RbacRule], name: &str) -> Vec<Value> {
    let mut by_namespace: BTreeMap<Option<&str>, Vec<&RbacRule>> = BTreeMap::new();
    for rule in rules {
        by_namespace
            .entry(rule.namespace.as_deref())
            .or_default()
            .push(rule);
    }
    let mut docs = Vec::new();
    for (namespace, rules) in by_namespace {
        let rules: Vec<Value> = merge(&rules).iter().map(rule_json).collect();
        let mut metadata = json!({ "name": name });
        if let Some(ns) = namespace {
            metadata["namespace"] = json!(ns);
        }
        docs.push(json!({
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": if namespace.is_some() { "Role" } else { "ClusterRole" },
            "metadata": metadata,
            "rules": rules,
        }));
    }
    docs
}

#[cfg(test)]
mod tests {
    use super::*;
    use kubegen_core::output;
    use quote::quote;

    #[test]
    fn parses_and_merges_into_a_cluster_role_and_roles() {
        let rules = vec![
            parse_args(quote!(
                groups = ["apps"],
                resources = ["deployments"],
                verbs = ["list", "get"]
            ))
            .unwrap(),
            parse_args(quote!(
                groups = ["apps"],
                resources = ["deployments"],
                verbs = ["watch", "get"]
            ))
            .unwrap(),
            parse_args(quote!(
                groups = [""],
                resources = ["events"],
                verbs = ["create"],
                namespace = "ops"
            ))
            .unwrap(),
            parse_args(quote!(urls = ["/metrics"], verbs = ["get"])).unwrap(),
        ];
        let role_yaml = |rules: &[RbacRule], name| output::to_yaml_documents(&roles(rules, name));
        let yaml = role_yaml(&rules, "demo-manager");
        let docs: Vec<serde_json::Value> = yaml
            .split("\n---\n")
            .map(|d| serde_yaml::from_str(d).unwrap())
            .collect();
        assert!(yaml.starts_with(output::YAML_HEADER));
        assert_eq!(docs.len(), 2);
        assert_eq!(docs[0]["kind"], "ClusterRole");
        assert_eq!(
            docs[0]["rules"],
            json!([
                { "nonResourceURLs": ["/metrics"], "verbs": ["get"] },
                { "apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["get", "list", "watch"] },
            ])
        );
        assert_eq!(docs[1]["kind"], "Role");
        assert_eq!(docs[1]["metadata"]["namespace"], "ops");
        // Order of attributes does not change the output.
        let mut reversed = rules.clone();
        reversed.reverse();
        assert_eq!(role_yaml(&reversed, "demo-manager"), yaml);
    }

    #[test]
    fn reports_every_mistake() {
        let err = parse_args(quote!(
            group = ["apps"],
            resources = ["Deployment"],
            verbs = ["watchh"]
        ))
        .unwrap_err();
        let messages: Vec<String> = err.into_iter().map(|e| e.to_string()).collect();
        assert!(
            messages
                .iter()
                .any(|m| m.contains("unknown rbac key `group`; did you mean `groups`?")),
            "{messages:#?}"
        );
        assert!(
            messages
                .iter()
                .any(|m| m.contains("unknown verb `watchh`; did you mean `watch`?")),
            "{messages:#?}"
        );
        assert!(
            messages.iter().any(|m| m.contains("lower-case plurals")),
            "{messages:#?}"
        );
        assert!(
            parse_args(quote!(groups = ["apps"], resources = ["x"])).is_err(),
            "verbs are required"
        );
        assert!(
            parse_args(quote!(
                urls = ["/x"],
                groups = [""],
                resources = ["pods"],
                verbs = ["get"]
            ))
            .is_err()
        );
    }
}
