#!/usr/bin/env python3
"""Writes a synthetic Kubernetes API of GROUPS x KINDS kinds, twice: as Rust
types annotated for kubegen, and as Go types with kubebuilder and genclient
markers for controller-gen and code-generator. Both describe the same API.

usage: synthetic_api.py OUT_DIR [--groups 5] [--kinds 10]
  OUT_DIR/rust: a Cargo crate (src/api/<group>.rs)
  OUT_DIR/go:   a Go module (apis/<group>/v1/{doc,register,types}.go)
"""
import argparse
import pathlib
import textwrap

FIELDS = [
    # (rust name, rust type, rust attrs, go name, go type, go markers, json)
    ("image", "String", "min_length = 1, max_length = 253", "Image", "string",
     ["+kubebuilder:validation:MinLength=1", "+kubebuilder:validation:MaxLength=253"], "image"),
    ("replicas", "i32", "minimum = 0, maximum = 1000, default = 1", "Replicas", "int32",
     ["+kubebuilder:validation:Minimum=0", "+kubebuilder:validation:Maximum=1000",
      "+kubebuilder:default=1", "+optional"], "replicas"),
    ("port", "i32", "minimum = 1, maximum = 65535", "Port", "int32",
     ["+kubebuilder:validation:Minimum=1", "+kubebuilder:validation:Maximum=65535"], "port"),
    ("mode", "Option<String>", 'enum_values = ["Fast", "Safe"]', "Mode", "string",
     ["+kubebuilder:validation:Enum=Fast;Safe", "+optional"], "mode,omitempty"),
    ("labels", "Option<std::collections::BTreeMap<String, String>>", "max_properties = 64",
     "Labels", "map[string]string", ["+kubebuilder:validation:MaxProperties=64", "+optional"],
     "labels,omitempty"),
    ("args", "Option<Vec<String>>", 'max_items = 32, list_type = "atomic"', "Args", "[]string",
     ["+kubebuilder:validation:MaxItems=32", "+listType=atomic", "+optional"], "args,omitempty"),
    ("hostname", "Option<String>", r'pattern = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"', "Hostname",
     "string", [r"+kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`", "+optional"],
     "hostname,omitempty"),
    ("paused", "Option<bool>", "", "Paused", "bool", ["+optional"], "paused,omitempty"),
]


def rust_group(g, kinds):
    lines = [
        f"//! Synthetic API group g{g}.bench.kubegen.dev.",
        "",
        "use kubegen::{CustomResource, KubeSchema};",
        "use serde::{Deserialize, Serialize};",
        "",
    ]
    for k in range(kinds):
        kind = f"Widget{g}x{k}"
        lines += [
            f"/// {kind} is a synthetic resource.",
            "#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, PartialEq)]",
            f'#[kubegen(group = "g{g}.bench.kubegen.dev", version = "v1", kind = "{kind}", namespaced,',
            f'    status = "{kind}Status",',
            '    printcolumn(name = "Image", type = "string", json_path = ".spec.image"),',
            '    printcolumn(name = "Age", type = "date", json_path = ".metadata.creationTimestamp"))]',
            '#[serde(rename_all = "camelCase")]',
            f"pub struct {kind}Spec {{",
        ]
        for name, ty, attrs, *_ in FIELDS:
            lines.append(f"    /// The {name} of the widget.")
            if attrs:
                lines.append(f"    #[kubegen({attrs})]")
            lines.append(f"    pub {name}: {ty},")
        lines += [
            "}",
            "",
            f"/// Observed state of a {kind}.",
            "#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug, Default, PartialEq)]",
            '#[serde(rename_all = "camelCase")]',
            f"pub struct {kind}Status {{",
            "    /// Replicas that are available.",
            "    pub available_replicas: Option<i32>,",
            "    /// The generation last acted on.",
            "    pub observed_generation: Option<i64>,",
            "}",
            "",
        ]
    return "\n".join(lines)


def go_group(g, kinds):
    types = [
        "package v1",
        "",
        'import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"',
        "",
    ]
    names = []
    for k in range(kinds):
        kind = f"Widget{g}x{k}"
        names.append(kind)
        types += [f"// {kind}Spec is the desired state of a {kind}.", f"type {kind}Spec struct {{"]
        for name, _, _, goname, gotype, markers, json in FIELDS:
            types.append(f"\t// The {name} of the widget.")
            for m in markers:
                types.append(f"\t// {m}")
            types.append(f'\t{goname} {gotype} `json:"{json}"`')
        types += [
            "}",
            "",
            f"// {kind}Status is the observed state of a {kind}.",
            f"type {kind}Status struct {{",
            "\t// Replicas that are available.",
            "\t// +optional",
            '\tAvailableReplicas *int32 `json:"availableReplicas,omitempty"`',
            "\t// The generation last acted on.",
            "\t// +optional",
            '\tObservedGeneration *int64 `json:"observedGeneration,omitempty"`',
            "}",
            "",
            "// +genclient",
            "// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object",
            "// +kubebuilder:object:root=true",
            "// +kubebuilder:subresource:status",
            '// +kubebuilder:printcolumn:name="Image",type="string",JSONPath=".spec.image"',
            '// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp"',
            f"// {kind} is a synthetic resource.",
            f"type {kind} struct {{",
            "\tmetav1.TypeMeta   `json:\",inline\"`",
            "\tmetav1.ObjectMeta `json:\"metadata,omitempty\"`",
            "",
            f'\tSpec   {kind}Spec   `json:"spec"`',
            f'\tStatus {kind}Status `json:"status,omitempty"`',
            "}",
            "",
            "// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object",
            "// +kubebuilder:object:root=true",
            f"// {kind}List is a list of {kind}.",
            f"type {kind}List struct {{",
            "\tmetav1.TypeMeta `json:\",inline\"`",
            "\tmetav1.ListMeta `json:\"metadata,omitempty\"`",
            f'\tItems           []{kind} `json:"items"`',
            "}",
            "",
        ]
    doc = textwrap.dedent(f"""\
        // +k8s:deepcopy-gen=package
        // +kubebuilder:object:generate=true
        // +groupName=g{g}.bench.kubegen.dev

        // Package v1 is the synthetic API group g{g}.bench.kubegen.dev.
        package v1
        """)
    known = "\n".join(f"\t\t&{n}{{}}, &{n}List{{}}," for n in names)
    register = textwrap.dedent(f"""\
        package v1

        import (
        \tmetav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
        \t"k8s.io/apimachinery/pkg/runtime"
        \t"k8s.io/apimachinery/pkg/runtime/schema"
        )

        // SchemeGroupVersion is the group version of this package.
        var SchemeGroupVersion = schema.GroupVersion{{Group: "g{g}.bench.kubegen.dev", Version: "v1"}}

        // Resource takes an unqualified resource and returns a group-qualified one.
        func Resource(resource string) schema.GroupResource {{
        \treturn SchemeGroupVersion.WithResource(resource).GroupResource()
        }}

        var (
        \tSchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)
        \tAddToScheme   = SchemeBuilder.AddToScheme
        )

        func addKnownTypes(scheme *runtime.Scheme) error {{
        \tscheme.AddKnownTypes(SchemeGroupVersion,
        {known}
        \t)
        \tmetav1.AddToGroupVersion(scheme, SchemeGroupVersion)
        \treturn nil
        }}
        """)
    return doc, register, "\n".join(types)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--groups", type=int, default=5)
    parser.add_argument("--kinds", type=int, default=10)
    parser.add_argument("--kubegen-path", default=str(pathlib.Path(__file__).resolve().parents[1] / "kubegen-runtime"))
    parser.add_argument("--apimachinery", default="v0.36.3")
    args = parser.parse_args()
    out = pathlib.Path(args.out)

    rust = out / "rust"
    (rust / "src" / "api").mkdir(parents=True, exist_ok=True)
    (rust / "Cargo.toml").write_text(textwrap.dedent(f"""\
        [package]
        name = "synthetic-api"
        version = "0.1.0"
        edition = "2024"
        publish = false

        [workspace]

        [dependencies]
        kubegen-runtime = {{ path = "{args.kubegen_path}" }}
        serde = {{ version = "1", features = ["derive"] }}
        """))
    mods = "\n".join(f"pub mod g{g};" for g in range(args.groups))
    (rust / "src" / "lib.rs").write_text("//! A synthetic API for benchmarks.\n\npub mod api;\n")
    (rust / "src" / "api" / "mod.rs").write_text("//! The API groups.\n\n" + mods + "\n")
    for g in range(args.groups):
        (rust / "src" / "api" / f"g{g}.rs").write_text(rust_group(g, args.kinds))

    go = out / "go"
    (go / "hack").mkdir(parents=True, exist_ok=True)
    (go / "go.mod").write_text(
        f"module example.com/synthetic\n\ngo 1.26\n\nrequire k8s.io/apimachinery {args.apimachinery}\n")
    (go / "hack" / "boilerplate.go.txt").write_text("// Synthetic benchmark API.\n")
    for g in range(args.groups):
        pkg = go / "apis" / f"g{g}" / "v1"
        pkg.mkdir(parents=True, exist_ok=True)
        doc, register, types = go_group(g, args.kinds)
        (pkg / "doc.go").write_text(doc)
        (pkg / "register.go").write_text(register)
        (pkg / "types.go").write_text(types)


if __name__ == "__main__":
    main()
