#!/usr/bin/env bash
# Fails when an operator built with kubegen would link code-generation
# machinery: the run-time dependency tree of the example operator must not
# contain a Rust parser, token printer, formatter, TOML reader, diff library
# or argument parser. (Proc macros run at compile time and are excluded.)
#
# It also fails when the operator links kube-rs's client or runtime: kubegen
# talks to the apiserver through its own client (kubegen-client) and its
# informers use its own watcher (`kubegen::informer::watcher`), so an
# operator compiles neither kube-client (nor its kubeconfig YAML reader,
# JSONPath and pest parsers) nor kube-runtime.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

FORBIDDEN=(syn quote proc-macro2 regex toml similar prettyplease clap clap_complete kubegen-codegen kubegen-cli kubegen-fake
    kube kube-client kube-runtime)

tree=$(cargo tree -p my-application -e normal,no-proc-macro --prefix none --format '{p}' | awk '{print $1}' | sort -u)
found=()
for name in "${FORBIDDEN[@]}"; do
    if grep -qx -- "$name" <<<"$tree"; then
        found+=("$name")
    fi
done
if ((${#found[@]})); then
    echo "error: the example operator links at run time: ${found[*]}" >&2
    for name in "${found[@]}"; do
        echo "--- why $name:" >&2
        cargo tree -p my-application -e normal,no-proc-macro -i "$name" >&2 || true
    done
    exit 1
fi
echo "operator run-time dependencies: $(wc -l <<<"$tree") crates; none of ${FORBIDDEN[*]}"
