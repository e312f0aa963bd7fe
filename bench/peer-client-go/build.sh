#!/usr/bin/env bash
# Builds the client-go side of kubegen-runtime's benchmarks (informer-memory,
# workqueue) from the Go module proxy into
# ~/.cache/kubegen/peer-client-go/<key>/, where the key hashes go.mod, go.sum
# and the sources: a run with that directory complete returns at once.
# All or nothing: the binaries are built in a temporary directory that is
# renamed into place. Prints the output directory on its last stdout line.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
key="$(cd "$here" && cat go.mod go.sum $(find cmd -name '*.go' | sort) | sha256sum | cut -c1-16)"
root="${KUBEGEN_CACHE_DIR:-$HOME/.cache/kubegen}/peer-client-go"
out="$root/$key"
commands=(informer-memory workqueue)

if [[ -f "$out/.complete" ]]; then
  echo "$out"
  exit 0
fi
command -v go >/dev/null || { echo "[peer-client-go] go is required" >&2; exit 1; }
mkdir -p "$root"
tmp="$(mktemp -d "$root/.build-XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
export CGO_ENABLED=0 GOTOOLCHAIN=local GOFLAGS="-trimpath -buildvcs=false -mod=readonly"
for c in "${commands[@]}"; do
  echo "[peer-client-go] building $c" >&2
  (cd "$here" && go build -o "$tmp/$c" "./cmd/$c")
done
touch "$tmp/.complete"
rm -rf "$out"
mv "$tmp" "$out"
trap - EXIT
echo "$out"
