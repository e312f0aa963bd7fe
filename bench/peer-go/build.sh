#!/usr/bin/env bash
# Builds the controller-runtime peer operator (bench/peer-go) from the Go
# module proxy into ~/.cache/kubegen/peer-go/<key>/peer-operator, where the
# key hashes go.mod, go.sum and the sources: a run with that directory
# complete returns at once. All or nothing: built in a temporary directory
# renamed into place. Prints the binary's path on its last stdout line.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
key="$(cd "$here" && cat go.mod go.sum $(ls *.go | sort) | sha256sum | cut -c1-16)"
root="${KUBEGEN_CACHE_DIR:-$HOME/.cache/kubegen}/peer-go"
out="$root/$key"

if [[ -f "$out/.complete" ]]; then
  echo "$out/peer-operator"
  exit 0
fi
command -v go >/dev/null || { echo "[peer-go] go is required" >&2; exit 1; }
mkdir -p "$root"
tmp="$(mktemp -d "$root/.build-XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
export CGO_ENABLED=0 GOTOOLCHAIN=local GOFLAGS="-trimpath -buildvcs=false -mod=readonly"
echo "[peer-go] building peer-operator (controller-runtime $(sed -n 's/^\tsigs.k8s.io\/controller-runtime //p' "$here/go.mod"))" >&2
(cd "$here" && go build -o "$tmp/peer-operator" .)
touch "$tmp/.complete"
rm -rf "$out"
mv "$tmp" "$out"
trap - EXIT
echo "$out/peer-operator"
