#!/usr/bin/env bash
# Checks, before any long build, that the tools `make test`, `make demo` and
# `make up` need are here (README.md, "Prerequisites"), and names each one
# missing with what it is for. Exit 1 when one is missing.
#
# `--self-test` runs the check with an empty PATH, where it must fail naming
# every tool, and with stand-ins for Go 1.25 and a Python without PyYAML,
# which it must refuse (`make prerequisites` runs both).
set -u

if [ "${1:-}" = "--self-test" ]; then
  out=$(env -i PATH=/nonexistent /bin/bash "$0" 2>&1)
  rc=$?
  for tool in cargo cc go python3 git; do
    if ! printf '%s\n' "$out" | grep -q "^missing: \`$tool\`"; then
      echo "check-prerequisites self-test: \`$tool\` not reported missing on an empty PATH:" >&2
      printf '%s\n' "$out" >&2
      exit 1
    fi
  done
  [ "$rc" = 1 ] || { echo "check-prerequisites self-test: exit $rc on an empty PATH, not 1" >&2; exit 1; }
  # Present but too old or incomplete: Go 1.25, a Python without PyYAML.
  shims=$(mktemp -d)
  trap 'rm -rf "$shims"' EXIT
  for tool in cargo cc git; do printf '#!/bin/sh\nexit 0\n' >"$shims/$tool"; done
  printf '#!/bin/sh\necho go1.25.4\n' >"$shims/go"
  printf '#!/bin/sh\nexit 1\n' >"$shims/python3"
  chmod +x "$shims"/*
  out=$(env -i PATH="$shims" /bin/bash "$0" 2>&1)
  rc=$?
  for want in 'found 1.25.4' 'PyYAML'; do
    if [ "$rc" != 1 ] || ! printf '%s\n' "$out" | grep -q "$want"; then
      echo "check-prerequisites self-test: an old Go and a Python without PyYAML not reported ($want):" >&2
      printf '%s\n' "$out" >&2
      exit 1
    fi
  done
  if printf '%s\n' "$out" | grep -Eq 'missing: .(cargo|cc|git)'; then
    echo "check-prerequisites self-test: a present tool reported missing:" >&2
    printf '%s\n' "$out" >&2
    exit 1
  fi
  exit 0
fi

missing=0
miss() {
  echo "missing: $1" >&2
  missing=1
}
have() { command -v "$1" >/dev/null 2>&1; }

have cargo || miss '`cargo` (Rust 1.95): https://rustup.rs'
have cc || miss '`cc`: a C compiler, for ring and mimalloc (e.g. the gcc package)'
have git || miss '`git`: the tests read the tree with `git ls-files`'
if have go; then
  v=$(go env GOVERSION 2>/dev/null)
  v=${v#go}
  major=${v%%.*}
  rest=${v#*.}
  minor=${rest%%.*}
  if [ -z "$v" ] || [ "${major:-0}" -lt 1 ] || { [ "$major" = 1 ] && [ "${minor:-0}" -lt 26 ]; }; then
    miss "\`go\` ≥ 1.26 (found ${v:-no version}): it builds the test control plane and the Go references from the module proxy"
  fi
else
  miss '`go` ≥ 1.26: it builds the test control plane and the Go references from the module proxy (https://go.dev/dl)'
fi
if have python3; then
  python3 -c 'import yaml' 2>/dev/null ||
    miss '`python3` with PyYAML (`pip install pyyaml`, or the python3-yaml package): the CRD corpus `make test` imports is read with it'
else
  miss '`python3` with PyYAML: the hack/ and bench/ scripts, and the CRD corpus `make test` imports'
fi

if [ "$missing" = 1 ]; then
  echo "see README.md, \"Prerequisites\"" >&2
fi
exit "$missing"
