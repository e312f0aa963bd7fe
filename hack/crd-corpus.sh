#!/usr/bin/env bash
# Builds a corpus of real-world CRDs from the Go modules pinned in
# hack/crd-corpus.lock (cert-manager, Gateway API, Prometheus Operator, Argo,
# Kyverno, Cluster API, ...), downloaded only through the Go module proxy.
#
#   hack/crd-corpus.sh            # prints the corpus directory on its last line
#   dir=$(hack/crd-corpus.sh | tail -n1)
#
# Output: ${KUBEGEN_CACHE_DIR:-~/.cache/kubegen}/crd-corpus/<key>/
#   <project>/<crd metadata.name>.yaml   one CRD document, bytes as in the source file
#   MANIFEST.tsv                         project, crd, versions, bytes, source
#   crd-corpus.lock                      the list it was built from
#   .complete                            marker
# <key> is a short sha256 of the lock file (and of FORMAT below), so editing the
# list gives a new directory and an unchanged list reuses the cache: a complete
# directory is reported at once, without go or network. The corpus is built in a
# temporary directory and renamed into place only when everything succeeded.
# Progress and the summary table go to stderr. Needs go (>= 1.26) and python3
# with PyYAML; modules land in the default GOMODCACHE (shared with other builds).
# Nothing from these projects is committed: only this script and the lock file.
set -euo pipefail

FORMAT=1 # bump when the corpus layout or extraction rules change

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
lock="$here/crd-corpus.lock"
cache_root="${KUBEGEN_CACHE_DIR:-$HOME/.cache/kubegen}/crd-corpus"

log() { echo "[crd-corpus] $*" >&2; }

[[ -f "$lock" ]] || { log "error: pinned list $lock not found"; exit 1; }
key="$({ echo "crd-corpus-format-$FORMAT"; cat "$lock"; } | sha256sum | cut -c1-16)"
out="$cache_root/$key"

if [[ -f "$out/.complete" ]]; then
  log "cached corpus for $(basename "$lock") ($key)"
  echo "$out"
  exit 0
fi

command -v go >/dev/null || { log "error: 'go' not found in PATH; the corpus is downloaded with 'go mod download' (Go >= 1.26)"; exit 1; }
command -v python3 >/dev/null || { log "error: 'python3' not found in PATH"; exit 1; }
python3 -c 'import yaml' 2>/dev/null || { log "error: python3 cannot import yaml (install PyYAML)"; exit 1; }

# Never switch to another Go toolchain (that would download one): a pinned
# module whose go.mod needs a newer Go fails with a clear "requires go >= ..."
# message instead. The checksum database (sum.golang.org) is reachable from
# here, so downloads stay verified and GONOSUMDB/GOFLAGS are left alone.
export GOTOOLCHAIN=local

if [[ -e "$out" ]]; then
  log "removing incomplete $out (no .complete marker)"
  rm -rf "$out"
fi
mkdir -p "$cache_root"
tmp="$(mktemp -d "$cache_root/.tmp-$key-XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM HUP # run the EXIT trap on interruption too

start=$SECONDS
log "building corpus $key from $lock"
python3 "$here/crd_corpus.py" "$lock" "$tmp"
cp "$lock" "$tmp/crd-corpus.lock"
touch "$tmp/.complete"
chmod 755 "$tmp" # mktemp made it 0700

if ! mv -T "$tmp" "$out" 2>/dev/null; then
  # Another run finished first: keep its (identical) corpus.
  [[ -f "$out/.complete" ]] || { log "error: could not move the corpus into $out"; exit 1; }
  log "another run completed $out meanwhile; using it"
fi
log "done in $((SECONDS - start)) s"
echo "$out"
