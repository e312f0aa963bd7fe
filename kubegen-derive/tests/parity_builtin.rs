//! Parity on k8s-openapi types: the CLI follows the `use`s (by name,
//! renamed, grouped, globbed, through a module alias or the runtime's
//! re-export) and type aliases of the `support/builtin` modules to the same
//! types the compiler resolves, so it emits exactly the derive's schemas
//! and CRD. The modules are compiled here as children of this test's crate
//! root, and read by the CLI as a crate whose root declares the same ones,
//! so `crate::…` paths mean the same in both.

#![allow(missing_docs)]

#[path = "support/builtin/by_glob.rs"]
mod by_glob;
#[path = "support/builtin/by_use.rs"]
mod by_use;
#[path = "support/builtin/shared.rs"]
mod shared;

use kubegen::{CustomResourceExt, KubeSchema};
use kubegen_cli::generate::{Api, Resolver};
use kubegen_cli::source::CrateSource;
use serde_json::{Value, json};

const MODULES: &[&str] = &["by_glob", "by_use", "shared"];

/// The support modules as a crate the CLI can scan.
fn builtin_crate() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let support = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/builtin");
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    let mut lib = String::new();
    for m in MODULES {
        std::fs::copy(
            support.join(format!("{m}.rs")),
            dir.path().join(format!("src/{m}.rs")),
        )
        .unwrap();
        lib.push_str(&format!("pub mod {m};\n"));
    }
    std::fs::write(dir.path().join("src/lib.rs"), lib).unwrap();
    std::fs::write(
        dir.path().join("Cargo.toml"),
        "[package]\nname = \"builtin\"\nversion = \"0.1.0\"\n",
    )
    .unwrap();
    dir
}

fn load() -> Api {
    let dir = builtin_crate();
    let source = CrateSource::load(&dir.path().join("Cargo.toml")).unwrap();
    Api::load(&source, source.manifest.settings.clone()).unwrap_or_else(|e| panic!("{e:#?}"))
}

fn cli_schema(api: &Api, name: &str) -> Value {
    let t = api
        .types
        .iter()
        .find(|t| t.input.derive_input.ident == name)
        .unwrap_or_else(|| panic!("{name} not found"));
    Resolver::new(&api.types, &api.scopes)
        .schema(t)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn every_way_to_name_a_k8s_type_gives_the_derives_schema() {
    let api = load();
    let derived = [
        ("ByUse", by_use::ByUse::kube_schema()),
        ("ByRename", by_use::ByRename::kube_schema()),
        ("ByAlias", by_use::ByAlias::kube_schema()),
        ("ByOtherAlias", by_use::ByOtherAlias::kube_schema()),
        ("ByGlob", by_glob::ByGlob::kube_schema()),
        ("ByParentGlob", by_glob::inner::ByParentGlob::kube_schema()),
    ];
    let job = kubegen_core::builtin::schema("io.k8s.api.batch.v1.JobTemplateSpec")
        .unwrap()
        .unwrap();
    for (name, schema) in derived {
        let schema = schema.unwrap();
        assert_eq!(schema["properties"]["job"], job, "{name}: not upstream's");
        let containers = &schema["properties"]["job"]["properties"]["spec"]["properties"]["template"]
            ["properties"]["spec"]["properties"]["containers"];
        assert_eq!(containers["x-kubernetes-list-map-keys"], json!(["name"]));
        assert!(
            cli_schema(&api, name) == schema,
            "{name}: CLI and derive differ"
        );
    }
    let glob = by_glob::ByGlob::kube_schema().unwrap();
    assert_eq!(
        glob["properties"]["condition"]["properties"]["ok"]["type"],
        "boolean"
    );
}

#[test]
fn int_or_string_has_one_shape_direct_or_from_the_table() {
    let api = load();
    let derived = by_use::Amounts::kube_schema().unwrap();
    assert_eq!(cli_schema(&api, "Amounts"), derived);
    // controller-gen's `Quantity` (its known-type override, which the
    // table holds) has no description of its own and the quantity pattern.
    let aliased = &derived["properties"]["aliased"];
    assert_eq!(aliased, &derived["properties"]["direct"]);
    assert_eq!(aliased["pattern"], kubegen_core::schema::QUANTITY_PATTERN);
}

#[test]
fn cli_and_derive_emit_identical_crds_with_k8s_types() {
    let api = load();
    let cli = api.crds().unwrap_or_else(|e| panic!("{e:#?}"));
    let derived = by_use::Runner::crd_json().unwrap();
    let from_cli = kubegen_cli::generate::crd_yaml(&cli["builtin.kubegen.dev_runners.yaml"]);
    let from_derive = kubegen_core::output::to_yaml(&derived);
    assert!(
        from_cli == from_derive,
        "CLI and derive differ:\n{}",
        kubegen_cli::files::unified_diff(&from_derive, &from_cli, "runners")
    );
    let spec = &derived["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"];
    assert_eq!(
        spec["properties"]["containers"]["items"]["properties"]["ports"]["x-kubernetes-list-map-keys"],
        json!(["containerPort", "protocol"])
    );
}
