//! Rust emission: the generated clientset, listers and shared informer
//! factory — thin typed shims over `kubegen::client::ResourceClient`,
//! `kubegen::lister::Lister` and `kubegen::factory::SharedInformerFactory`
//! (client-go's gentype idea: generate little, share much) — and the apply
//! configurations of server-side apply (`apply`).
//!
//! [`modules`] is pure: kinds (and kinds converting through a hub) in,
//! file contents by relative path out,
//! formatted by prettyplease. One module per emitter; [`builtins`] knows the
//! built-in kinds a crate may ask for.

pub(crate) mod apply;
pub mod builtins;
mod clientset;
mod conversion;
mod informers;
mod listers;

use std::collections::BTreeMap;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::names::{api_version, group_name, group_version_module, pascal};
use kubegen_core::model::Verb;
use kubegen_core::output::RUST_HEADER;

pub use apply::ApplySource;
pub use conversion::ConversionKind;

/// One kind the generated modules give typed access to.
#[derive(Clone)]
pub struct Kind {
    /// The API group (empty for the core group).
    pub group: String,
    /// The API version.
    pub version: String,
    /// The kind.
    pub kind: String,
    /// Whether objects live in namespaces.
    pub namespaced: bool,
    /// Path of the Rust type, e.g. `crate::api::MyApplication`.
    pub path: syn::Path,
    /// The verbs its typed client offers.
    pub verbs: Vec<Verb>,
    /// Whether the kind has a status subresource (for `patch_status`).
    pub status: bool,
    /// Where its apply configuration's types come from; `None`: no apply
    /// configuration.
    pub apply: Option<ApplySource>,
}

/// An accessor method's name: raw (`r#match`) where the name is a keyword
/// (a version or group label such as `match`).
fn accessor_ident(name: &str) -> syn::Ident {
    if syn::parse_str::<syn::Ident>(name).is_ok() {
        format_ident!("{name}")
    } else {
        format_ident!("r#{name}")
    }
}

type GroupVersions = BTreeMap<String, BTreeMap<String, (String, Vec<Kind>)>>;

/// Each group's accessor: its first DNS label ([`group_name`]) when no
/// other group of the crate has the same one; otherwise as many labels as
/// it takes to tell them apart (`gateway.networking.k8s.io` and
/// `gateway.envoyproxy.io` → `gateway_networking`, `gateway_envoyproxy`).
pub fn group_accessors<'a>(groups: impl IntoIterator<Item = &'a str>) -> BTreeMap<String, String> {
    let groups: std::collections::BTreeSet<&str> = groups.into_iter().collect();
    let accessor = |g: &str, labels: usize| -> String {
        if g.is_empty() {
            return group_name(g);
        }
        let parts: Vec<&str> = g.split('.').take(labels).collect();
        group_name(&parts.join("_").replace('-', "_"))
    };
    let mut out = BTreeMap::new();
    for g in &groups {
        let max = g.split('.').count().max(1);
        let mut labels = 1;
        while labels < max
            && groups
                .iter()
                .any(|o| o != g && accessor(o, labels) == accessor(g, labels))
        {
            labels += 1;
        }
        out.insert((*g).to_owned(), accessor(g, labels));
    }
    out
}

/// Kinds grouped by group accessor, then version; two groups with the same
/// accessor are an error.
fn by_group_version(kinds: Vec<Kind>) -> Result<GroupVersions, Vec<String>> {
    let accessors = group_accessors(kinds.iter().map(|k| k.group.as_str()));
    let mut out: GroupVersions = BTreeMap::new();
    let mut errors = Vec::new();
    for kind in kinds {
        let name = accessors
            .get(&kind.group)
            .cloned()
            .unwrap_or_else(|| group_name(&kind.group));
        let versions = out.entry(name.clone()).or_default();
        let entry = versions
            .entry(kind.version.clone())
            .or_insert_with(|| (kind.group.clone(), Vec::new()));
        if entry.0 != kind.group {
            errors.push(format!(
                "API groups `{}` and `{}` would share the accessor `{name}()`",
                entry.0, kind.group
            ));
            continue;
        }
        if entry.1.iter().any(|k| k.kind == kind.kind) {
            continue;
        }
        entry.1.push(kind);
    }
    for versions in out.values_mut() {
        for (_, kinds) in versions.values_mut() {
            kinds.sort_by(|a, b| a.kind.cmp(&b.kind));
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

/// One module before formatting: its `//!` line and what its tokens are
/// made from, in a form that can move to a formatting thread (tokens and
/// `syn` paths cannot cross threads; text can).
struct Pending {
    doc: String,
    source: Source,
}

/// What a module's tokens are made from.
enum Source {
    /// Tokens emitted on the calling thread, as text.
    Text(String),
    /// Text already in its final layout (apply configurations), written
    /// as it is.
    Formatted(String),
    /// One group version's clients, listers or informers: emitted on the
    /// thread that formats them, straight from tokens (the bulk of the
    /// output, so neither printed to text nor lexed again).
    GroupVersion {
        part: Part,
        group: String,
        version: String,
        gv: String,
        kinds: Vec<SentKind>,
    },
}

/// The per-group-version emitters.
#[derive(Clone, Copy)]
enum Part {
    Clientset,
    Listers,
    Informers,
}

/// A [`Kind`] with its type path as text.
struct SentKind {
    group: String,
    version: String,
    kind: String,
    namespaced: bool,
    path: String,
    verbs: Vec<Verb>,
    status: bool,
}

impl SentKind {
    fn new(kind: &Kind) -> Self {
        let path = &kind.path;
        SentKind {
            group: kind.group.clone(),
            version: kind.version.clone(),
            kind: kind.kind.clone(),
            namespaced: kind.namespaced,
            path: quote!(#path).to_string(),
            verbs: kind.verbs.clone(),
            status: kind.status,
        }
    }

    /// The kind again; its path was printed from a `syn::Path`, so it
    /// parses back.
    fn kind(&self) -> Kind {
        Kind {
            group: self.group.clone(),
            version: self.version.clone(),
            kind: self.kind.clone(),
            namespaced: self.namespaced,
            path: syn::parse_str(&self.path).expect("a printed path parses again"),
            verbs: self.verbs.clone(),
            status: self.status,
            apply: None,
        }
    }
}

impl Source {
    fn group_version(part: Part, group: &str, version: &str, gv: &str, kinds: &[Kind]) -> Self {
        Source::GroupVersion {
            part,
            group: group.to_owned(),
            version: version.to_owned(),
            gv: gv.to_owned(),
            kinds: kinds.iter().map(SentKind::new).collect(),
        }
    }

    /// Roughly how many bytes the module will hold (a clientset holds about
    /// 4 KB per kind, a lister or informer module 0.7 KB): formatting the
    /// largest first keeps every thread busy to the end.
    fn weight(&self) -> usize {
        match self {
            Source::Text(text) | Source::Formatted(text) => text.len(),
            Source::GroupVersion { part, kinds, .. } => {
                let per_kind = match part {
                    Part::Clientset => 4_000,
                    Part::Listers | Part::Informers => 700,
                };
                per_kind * kinds.len()
            }
        }
    }

    /// The module's formatted body: formatted text as it is, tokens parsed
    /// and pretty-printed; `Err` with the raw text where tokens do not parse.
    fn body(&self) -> Result<String, String> {
        match self {
            Source::Formatted(text) => Ok(text.clone()),
            Source::Text(text) => syn::parse_file(text)
                .map(|file| prettyplease::unparse(&file))
                .map_err(|_| text.clone()),
            Source::GroupVersion {
                part,
                group,
                version,
                gv,
                kinds,
            } => {
                let kinds: Vec<Kind> = kinds.iter().map(SentKind::kind).collect();
                let module = format_ident!("{}", group_version_module(group, version));
                let tokens = match part {
                    Part::Clientset => clientset::group_version(group, version, gv, &kinds),
                    Part::Listers => listers::group_version(&kinds),
                    Part::Informers => informers::group_version(&module, gv, &kinds),
                };
                syn::parse2(tokens.clone())
                    .map(|file| prettyplease::unparse(&file))
                    .map_err(|_| tokens.to_string())
            }
        }
    }
}

fn pending(doc: &str, tokens: TokenStream) -> Pending {
    Pending {
        doc: doc.to_string(),
        source: Source::Text(tokens.to_string()),
    }
}

/// Formats every module, on as many threads as the machine has cores:
/// each thread takes the next module, largest first, and emits, parses and
/// prints it on its own, so the output does not depend on the thread count.
fn render_all(files: BTreeMap<String, Pending>, header: Option<&str>) -> BTreeMap<String, String> {
    let mut files: Vec<(String, Pending)> = files.into_iter().collect();
    files.sort_by_key(|(_, file)| std::cmp::Reverse(file.source.weight()));
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(files.len());
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let at = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some((path, file)) = files.get(at) else {
                            break done;
                        };
                        done.push((path.clone(), render(file, header)));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|worker| {
                worker
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    })
}

fn render(file: &Pending, header: Option<&str>) -> String {
    let body = match file.source.body() {
        Ok(body) => body,
        // Generated tokens always parse; fall back to the raw text rather
        // than panic if they ever do not.
        Err(text) => return format!("{RUST_HEADER}\n{text}\n"),
    };
    let mut out = String::from(RUST_HEADER);
    out.push('\n');
    if let Some(header) = header {
        for line in header.lines() {
            out.push_str("// ");
            out.push_str(line);
            out.push('\n');
        }
    }
    out.push_str(&format!("//! {}\n\n", file.doc));
    out.push_str(&body);
    out
}

/// The generated modules, by path relative to the output directory.
///
/// `header` (the user's license text, say) is written as `//` comments after
/// the `@generated` line. Errors (two API groups sharing one accessor) are
/// messages about the crate's settings.
pub fn modules(
    kinds: Vec<Kind>,
    conversions: &[ConversionKind],
    header: Option<&str>,
) -> Result<BTreeMap<String, String>, Vec<String>> {
    let accessors = group_accessors(kinds.iter().map(|k| k.group.as_str()));
    let apply_modules = apply::modules(&kinds, &accessors)?;
    let groups = by_group_version(kinds)?;
    let mut files = BTreeMap::new();
    if groups.is_empty() {
        return Ok(BTreeMap::new());
    }
    top_modules(conversions, !apply_modules.is_empty(), &mut files);
    apply_files(apply_modules, &mut files);
    let mut roots = Roots::default();
    for (group, versions) in &groups {
        let mut version_accessors = Vec::new();
        for (version, (api_group, kinds)) in versions {
            let gv = api_version(api_group, version);
            group_version_files(group, version, &gv, kinds, &mut files);
            let module = format_ident!("{}", group_version_module(group, version));
            roots.modules.push(quote!(pub mod #module;));
            roots
                .client_accessors
                .push(client_accessor(group, version, &gv, &module));
            version_accessors.push(informers_version_accessor(version, &gv, &module));
        }
        let (group_struct, group_accessor) = informers_group(group, versions, &version_accessors);
        roots.group_structs.push(group_struct);
        roots.group_accessors.push(group_accessor);
    }
    files.insert("clientset/mod.rs".into(), clientset_root(&roots));
    let lister_mods = &roots.modules;
    files.insert(
        "listers/mod.rs".into(),
        pending(
            "Listers: typed, indexed reads from shared informer caches.",
            quote! { #(#lister_mods)* },
        ),
    );
    files.insert("informers/mod.rs".into(), informers_root(&roots));
    Ok(render_all(files, header))
}

/// What the `clientset`, `listers` and `informers` root modules gather
/// from every group version: its `pub mod` line (the same in all three),
/// its clientset accessor, and per group the informer group struct and its
/// accessor.
#[derive(Default)]
struct Roots {
    modules: Vec<TokenStream>,
    client_accessors: Vec<TokenStream>,
    group_structs: Vec<TokenStream>,
    group_accessors: Vec<TokenStream>,
}

/// `applyconfigurations/<group_version>.rs` and its `mod.rs`.
fn apply_files(modules: BTreeMap<String, String>, files: &mut BTreeMap<String, Pending>) {
    if modules.is_empty() {
        return;
    }
    let names: Vec<syn::Ident> = modules.keys().map(|m| format_ident!("{m}")).collect();
    for (module, text) in modules {
        let doc = format!(
            "Apply configurations of `{module}`: partial objects for server-side apply, every field optional."
        );
        files.insert(
            format!("applyconfigurations/{module}.rs"),
            Pending {
                doc,
                source: Source::Formatted(text),
            },
        );
    }
    files.insert(
        "applyconfigurations/mod.rs".into(),
        pending(
            "Apply configurations: typed partial objects for server-side apply (client-go's applyconfigurations), one module per group version.",
            quote! { #(pub mod #names;)* },
        ),
    );
}

/// The top `mod.rs` (with `applyconfigurations` when `apply`), and
/// `conversion.rs` with its `pub mod` line when kinds convert through a
/// hub.
fn top_modules(conversions: &[ConversionKind], apply: bool, files: &mut BTreeMap<String, Pending>) {
    let (conversion_mod, doc) = if conversions.is_empty() {
        (
            quote!(),
            "Typed clients, listers and informers for this crate's API, generated by kubegen.",
        )
    } else {
        files.insert(
            "conversion.rs".to_string(),
            pending(
                "Conversions between the versions of this crate's kinds, through each kind's hub.",
                conversion::module(conversions),
            ),
        );
        (
            quote!(
                pub mod conversion;
            ),
            "Typed clients, listers, informers and version conversions for this crate's API, generated by kubegen.",
        )
    };
    let apply_mod = if apply {
        quote!(
            pub mod applyconfigurations;
        )
    } else {
        quote!()
    };
    files.insert(
        "mod.rs".to_string(),
        pending(
            doc,
            quote! { #apply_mod pub mod clientset; #conversion_mod pub mod informers; pub mod listers; },
        ),
    );
}

/// One group version's three files: `clientset/`, `listers/` and
/// `informers/<group_version>.rs`, emitted when they are formatted.
fn group_version_files(
    group: &str,
    version: &str,
    gv: &str,
    kinds: &[Kind],
    files: &mut BTreeMap<String, Pending>,
) {
    let module = group_version_module(group, version);
    for (dir, part, doc) in [
        (
            "clientset",
            Part::Clientset,
            format!("Typed clients for `{gv}`."),
        ),
        (
            "listers",
            Part::Listers,
            format!("Listers for `{gv}`: typed reads from informer caches."),
        ),
        (
            "informers",
            Part::Informers,
            format!("Shared informers for `{gv}`."),
        ),
    ] {
        files.insert(
            format!("{dir}/{module}.rs"),
            Pending {
                doc,
                source: Source::group_version(part, group, version, gv, kinds),
            },
        );
    }
}

/// The `Clientset` method returning one group version's typed clients.
fn client_accessor(group: &str, version: &str, gv: &str, module: &syn::Ident) -> TokenStream {
    let client_ty = format_ident!("{}{}Client", pascal(group), pascal(version));
    let doc = format!(" Typed clients for `{gv}`.");
    quote! {
        #[doc = #doc]
        pub fn #module(&self) -> #module::#client_ty {
            #module::#client_ty::new(self.client.clone(), &self.field_manager)
        }
    }
}

/// The informer group struct's method for one version, named after the
/// version.
fn informers_version_accessor(version: &str, gv: &str, module: &syn::Ident) -> TokenStream {
    let version_ident = accessor_ident(version);
    let doc = format!(" Informers of `{gv}`.");
    quote! {
        #[doc = #doc]
        pub fn #version_ident(&self) -> #module::Interface<'a> {
            #module::Interface::new(self.0)
        }
    }
}

/// One API group's informers: the struct holding its version accessors,
/// and the factory's method returning it (named by the group accessor;
/// the core group is shown as `core`).
fn informers_group(
    group: &str,
    versions: &BTreeMap<String, (String, Vec<Kind>)>,
    version_accessors: &[TokenStream],
) -> (TokenStream, TokenStream) {
    let group_ident = accessor_ident(group);
    let group_ty = format_ident!("{}Group", pascal(group));
    let api_group = versions
        .values()
        .next()
        .map(|(g, _)| g.clone())
        .unwrap_or_default();
    let shown = if api_group.is_empty() {
        "core".to_string()
    } else {
        api_group
    };
    let doc = format!(" Informers of the `{shown}` API group, by version.");
    let group_struct = quote! {
        #[doc = #doc]
        #[derive(Clone, Copy, Debug)]
        pub struct #group_ty<'a>(&'a ::kubegen::factory::SharedInformerFactory);
        impl<'a> #group_ty<'a> { #(#version_accessors)* }
    };
    let doc = format!(" Informers of the `{shown}` API group.");
    let group_accessor = quote! {
        #[doc = #doc]
        pub fn #group_ident(&self) -> #group_ty<'_> { #group_ty(&self.0) }
    };
    (group_struct, group_accessor)
}

/// `clientset/mod.rs`: the `Clientset` with its field manager and an
/// accessor per group version.
fn clientset_root(roots: &Roots) -> Pending {
    let Roots {
        modules: client_mods,
        client_accessors,
        ..
    } = roots;
    pending(
        "The clientset: typed clients for every API group version of this crate.",
        quote! {
            #(#client_mods)*
            /// Typed clients for every API group version this crate uses.
            #[derive(Clone)]
            pub struct Clientset {
                client: ::kubegen::Client,
                field_manager: ::std::string::String,
            }
            impl Clientset {
                /// A clientset writing with the field manager `kubegen`.
                pub fn new(client: ::kubegen::Client) -> Self {
                    Clientset { client, field_manager: ::kubegen::client::DEFAULT_FIELD_MANAGER.into() }
                }
                /// Sets the field manager recorded for every write and used for server-side apply.
                pub fn with_field_manager(mut self, field_manager: &str) -> Self {
                    self.field_manager = field_manager.into();
                    self
                }
                #(#client_accessors)*
            }
        },
    )
}

/// `informers/mod.rs`: the typed `SharedInformerFactory` over the untyped
/// one, with an accessor per API group and the group structs.
fn informers_root(roots: &Roots) -> Pending {
    let Roots {
        modules: informer_mods,
        group_structs,
        group_accessors,
        ..
    } = roots;
    pending(
        "A shared informer factory for this crate's API and the built-in kinds it uses.",
        quote! {
            #(#informer_mods)*
            /// One watch and one cache per kind, shared by every controller of
            /// the process (client-go's `SharedInformerFactory`), with typed accessors.
            #[derive(Clone, Debug)]
            pub struct SharedInformerFactory(::kubegen::factory::SharedInformerFactory);
            impl SharedInformerFactory {
                /// A factory with default options (all namespaces, no resync).
                pub fn new(client: ::kubegen::Client) -> Self {
                    SharedInformerFactory(::kubegen::factory::SharedInformerFactory::new(client))
                }
                /// Wraps a factory built with options (namespace, selectors, resync,
                /// transform) through `kubegen::factory::SharedInformerFactory::builder`.
                pub fn from_factory(factory: ::kubegen::factory::SharedInformerFactory) -> Self {
                    SharedInformerFactory(factory)
                }
                /// The untyped factory underneath.
                pub fn factory(&self) -> &::kubegen::factory::SharedInformerFactory { &self.0 }
                /// Starts every informer requested so far (idempotent).
                pub fn start(&self) { self.0.start() }
                /// Waits until every started informer has synced; reports each by type.
                pub async fn wait_for_cache_sync(&self) -> ::std::collections::BTreeMap<::std::string::String, bool> {
                    self.0.wait_for_cache_sync().await
                }
                /// Stops every informer and waits for their watch tasks to end.
                pub async fn shutdown(&self) { self.0.shutdown().await }
                #(#group_accessors)*
            }
            #(#group_structs)*
        },
    )
}

#[cfg(test)]
mod tests {
    use super::group_accessors;

    #[test]
    fn accessors_grow_until_groups_are_told_apart() {
        let a = group_accessors([
            "gateway.networking.k8s.io",
            "gateway.envoyproxy.io",
            "cert-manager.io",
            "acme.cert-manager.io",
            "",
        ]);
        assert_eq!(a["gateway.networking.k8s.io"], "gateway_networking");
        assert_eq!(a["gateway.envoyproxy.io"], "gateway_envoyproxy");
        assert_eq!(a["cert-manager.io"], "cert_manager");
        assert_eq!(a["acme.cert-manager.io"], "acme");
        assert_eq!(a[""], "core");
    }

    #[test]
    fn keyword_accessors_are_raw() {
        assert_eq!(super::accessor_ident("match").to_string(), "r#match");
        assert_eq!(super::accessor_ident("v1").to_string(), "v1");
    }
}
