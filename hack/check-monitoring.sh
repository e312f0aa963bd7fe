#!/usr/bin/env bash
# Checks the example's alert rules and Grafana dashboard with Prometheus's
# own promtool (built once from the Go module proxy into
# ~/.cache/kubegen/go-tools/): `promtool check rules` on the alert rules,
# and on every dashboard query turned into a recording rule (Grafana's
# $__rate_interval read as 5m, $job as any job). Not part of `make test`:
# promtool's module takes minutes to build cold.
set -euo pipefail
version=v0.316.0
bin="$HOME/.cache/kubegen/go-tools/promtool-$version"
if [ ! -x "$bin/promtool" ]; then
  mkdir -p "$bin"
  GOTOOLCHAIN=local GOFLAGS=-mod=mod GOBIN="$bin" \
    go install "github.com/prometheus/prometheus/cmd/promtool@$version"
fi
dir="$(cd "$(dirname "$0")/../examples/my-application/config/monitoring" && pwd)"
"$bin/promtool" check rules "$dir/alerts.yaml"
queries="$(mktemp --suffix=.yaml)"
trap 'rm -f "$queries"' EXIT
python3 - "$dir/dashboard.json" > "$queries" <<'PY'
import json, sys
dashboard = json.load(open(sys.argv[1]))
print("groups:\n  - name: dashboard\n    rules:")
for panel in dashboard["panels"]:
    for target in panel["targets"]:
        expr = target["expr"].replace("$__rate_interval", "5m").replace("$job", ".*")
        print(f"      - record: dashboard:panel{panel['id']}:{target['refId']}")
        print(f"        expr: {json.dumps(expr)}")
PY
"$bin/promtool" check rules "$queries"
