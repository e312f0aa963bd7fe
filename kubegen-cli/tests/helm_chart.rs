//! The Helm chart `kubegen generate` writes, read back by the real Helm:
//! descriptions made of Helm's own template syntax (seeded, generated)
//! come out of `helm template` exactly as `config/crd` holds them, so no
//! text of the model is ever taken for a template action; settings Helm
//! would refuse are errors that write nothing; `--check` guards the chart
//! and a hand-written file in its directory is left alone.
//!
//! `KUBEGEN_HELM_CASES` (fields, default 120) and `KUBEGEN_HELM_SEED`.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

mod support;
use support::{kubegen_in, text};

/// Pieces descriptions are made of: Helm's delimiters, trims and
/// comments, YAML indicators, kubegen's placeholder prefix, other text.
const PIECES: &[&str] = &[
    "{{",
    "}}",
    "{{-",
    "-}}",
    "{{/*",
    "*/}}",
    "{{ .Release.Name }}",
    "{{ fail \"x\" }}",
    "{",
    "}",
    " ",
    "\n",
    "\n\n",
    "\"",
    "'",
    "`",
    "\\",
    ":",
    ": ",
    "#",
    " #",
    "- ",
    "|",
    ">",
    "%",
    "&",
    "*",
    "!",
    "[",
    "]",
    ",",
    "kubegen-action-0",
    "kubegen-action",
    "null",
    "---",
    "x",
    "Word",
    "é",
    "—",
    "\t",
];

/// splitmix64.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn helm(args: &[&str]) -> std::process::Output {
    Command::new(kubegen_testenv::helm().expect("helm"))
        .args(args)
        .output()
        .expect("running helm")
}

/// A crate with one kind whose fields carry `descriptions`, and a chart.
fn chart_crate(descriptions: &[String], helm_settings: &str) -> tempfile::TempDir {
    let fields: String = descriptions
        .iter()
        .enumerate()
        .map(|(i, d)| format!("    #[doc = {d:?}]\n    pub f{i}: Option<String>,\n"))
        .collect();
    let api = format!(
        r#"use kubegen::CustomResource;
/// A widget.
#[derive(CustomResource)]
#[kubegen(group = "w.example.com", version = "v1", kind = "Widget")]
pub struct WidgetSpec {{
{fields}}}
"#
    );
    let dir = support::scratch_crate("widgets", &api);
    let manifest = dir.path().join("Cargo.toml");
    let mut text = std::fs::read_to_string(&manifest).unwrap();
    text.push_str(helm_settings);
    std::fs::write(&manifest, text).unwrap();
    dir
}

const CHART: &str = "\n[package.metadata.kubegen.helm]\ndir = \"chart\"\n";

fn generate(root: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["generate", "--manifest-path", "Cargo.toml"];
    args.extend(extra);
    kubegen_in(root, &args)
}

fn read_yaml(path: &Path) -> Value {
    serde_yaml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn descriptions_in_template_syntax_come_out_of_helm_verbatim() {
    let cases = env_number("KUBEGEN_HELM_CASES", 120) as usize;
    let seed = env_number("KUBEGEN_HELM_SEED", 1);
    let mut rng = Rng(seed);
    let descriptions: Vec<String> = (0..cases)
        .map(|_| {
            let len = 1 + rng.below(12);
            let text: String = (0..len).map(|_| PIECES[rng.below(PIECES.len())]).collect();
            // Every description holds a delimiter.
            format!("{text}{{{{")
        })
        .collect();
    let dir = chart_crate(&descriptions, CHART);
    let root = dir.path();
    let out = generate(root, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));

    let lint = helm(&["lint", "--strict", root.join("chart").to_str().unwrap()]);
    assert!(lint.status.success(), "{}", text(&lint.stdout));
    let rendered = helm(&["template", "r", root.join("chart").to_str().unwrap()]);
    assert!(rendered.status.success(), "{}", text(&rendered.stderr));
    let rendered = text(&rendered.stdout);
    let mut crd: Value = {
        use serde::Deserialize as _;
        serde_yaml::Deserializer::from_str(&rendered)
            .map(|d| Value::deserialize(d).unwrap())
            .find(|d| d["kind"] == "CustomResourceDefinition")
            .expect("a CRD in the rendered chart")
    };
    let metadata = crd["metadata"].as_object_mut().unwrap();
    metadata.remove("annotations");
    metadata.remove("labels");
    let expected = read_yaml(&root.join("config/crd/w.example.com_widgets.yaml"));
    let props = &expected["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
        ["properties"];
    // The descriptions did reach the CRD (kubegen keeps doc text), so the
    // comparison below is over them.
    let held = (0..cases)
        .filter(|i| {
            props[format!("f{i}")]["description"]
                .as_str()
                .is_some_and(|d| d.contains("{{"))
        })
        .count();
    assert_eq!(held, cases);
    assert_eq!(
        crd, expected,
        "seed {seed}: helm's CRD differs from config/crd's"
    );
}

#[test]
fn settings_helm_would_refuse_are_errors_and_nothing_is_written() {
    let dir = chart_crate(
        &["A field.".into()],
        "\n[package.metadata.kubegen.helm]\ndir = \"chart\"\nname = \"My_Chart\"\nversion = \"1.0\"\nimage = \"my image\"\n",
    );
    let root = dir.path();
    let out = generate(root, &[]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    for expected in [
        "the chart's name `My_Chart` must be lowercase",
        "set `name = \"my-chart\"`",
        "the chart's version `1.0` is not SemVer 2",
        "the image `my image` must be",
    ] {
        assert!(err.contains(expected), "{expected} not in\n{err}");
    }
    assert!(!root.join("chart").exists() && !root.join("config").exists());

    let dir = chart_crate(
        &["A field.".into()],
        "\n[package.metadata.kubegen.helm]\ndirectory = \"chart\"\n",
    );
    let out = generate(dir.path(), &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("unknown field `directory`"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn check_guards_the_chart_and_hand_written_files_stay() {
    let dir = chart_crate(&["A field.".into()], CHART);
    let root = dir.path();
    assert_eq!(generate(root, &[]).status.code(), Some(0));
    assert_eq!(generate(root, &["--check"]).status.code(), Some(0));

    let values = root.join("chart/values.yaml");
    let original = std::fs::read_to_string(&values).unwrap();
    std::fs::write(&values, original.replace("replicas: 2", "replicas: 3")).unwrap();
    let out = generate(root, &["--check"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stdout).contains("chart/values.yaml")
            || text(&out.stderr).contains("chart/values.yaml")
    );

    // A template of the user's own in the chart's directory is kept.
    let own = root.join("chart/templates/extra.yaml");
    std::fs::write(&own, "# mine\n").unwrap();
    assert_eq!(generate(root, &[]).status.code(), Some(0));
    assert_eq!(std::fs::read_to_string(&values).unwrap(), original);
    assert_eq!(std::fs::read_to_string(&own).unwrap(), "# mine\n");
}
