#!/usr/bin/env bash
# Fails when an operator built with kubegen would link code-generation
# machinery: the run-time dependency tree of the example operator must not
# contain a Rust parser, token printer, formatter, TOML reader, diff library
# or argument parser. (Proc macros run at compile time and are excluded.)
#
# kube-client itself needs `regex` (through jsonpath-rust, part of kube's
# mandatory `client` feature), so every kube-rs operator links it; the check
# therefore prunes kube's own crates and fails on anything kubegen brings.
#
# It also fails when the operator links kube-runtime: kubegen's informers
# use kubegen's own watcher (`kubegen::informer::watcher`).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

FORBIDDEN=(syn quote proc-macro2 regex toml similar prettyplease clap clap_complete kubegen-codegen kubegen-cli kubegen-fake)

list() {
    cargo tree -p my-application -e normal,no-proc-macro --prefix none --format '{p}' "$@" |
        awk '{print $1}' | sort -u
}
all=$(list)
if grep -qx -- kube-runtime <<<"$all"; then
    echo "error: the example operator links kube-runtime; kubegen's informers use their own watcher" >&2
    cargo tree -p my-application -e normal,no-proc-macro -i kube-runtime >&2 || true
    exit 1
fi
tree=$(list --prune kube --prune kube-client --prune kube-core)
found=()
for name in "${FORBIDDEN[@]}"; do
    if grep -qx -- "$name" <<<"$tree"; then
        found+=("$name")
    fi
done
if ((${#found[@]})); then
    echo "error: the example operator links code-generation crates at run time: ${found[*]}" >&2
    for name in "${found[@]}"; do
        echo "--- why $name:" >&2
        cargo tree -p my-application -e normal,no-proc-macro -i "$name" \
            --prune kube --prune kube-client --prune kube-core >&2 || true
    done
    exit 1
fi
via_kube=()
for name in "${FORBIDDEN[@]}"; do
    if grep -qx -- "$name" <<<"$all"; then
        via_kube+=("$name")
    fi
done
echo "operator run-time dependencies: $(wc -l <<<"$all") crates; none of ${FORBIDDEN[*]} comes from kubegen${via_kube:+ (kube-client itself brings: ${via_kube[*]})}"
