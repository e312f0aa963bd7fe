#!/usr/bin/env bash
# Writes kubegen-base/src/protobuf/fields.rs, the protobuf field table of
# the built-in types, from the Go types (cmd/table, built from the Go module
# proxy). With --check, fails if the checked-in table differs instead.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
table="$here/../src/protobuf/fields.rs"
command -v go >/dev/null || { echo "[protobuf-table] go is required" >&2; exit 1; }
export CGO_ENABLED=0 GOTOOLCHAIN=local GOFLAGS="-trimpath -buildvcs=false -mod=readonly"
tmp="$(mktemp)"
trap 'rm -f "$tmp"' EXIT
(cd "$here" && go run ./cmd/table) > "$tmp"
if [[ "${1:-}" == "--check" ]]; then
  if ! cmp -s "$tmp" "$table"; then
    echo "[protobuf-table] $table is stale; run kubegen-base/protobuf/table.sh" >&2
    exit 1
  fi
  echo "[protobuf-table] up to date"
else
  mv "$tmp" "$table"
  trap - EXIT
fi
