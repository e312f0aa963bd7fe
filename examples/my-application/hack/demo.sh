#!/usr/bin/env bash
# `make demo`: a local control plane (from tests/), the example's generated
# CRD and RBAC, the operator running under that RBAC as a ServiceAccount, and
# two sample MyApplications, and a third written at v2 to show conversion
# between the API versions — then it waits for Ctrl-C and stops everything.
#
# DEMO_EXIT_WHEN_READY=1 stops right after both samples are Ready (for CI-less
# smoke runs of this script).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
example="$repo/examples/my-application"
work="$(mktemp -d "${TMPDIR:-/tmp}/kubegen-demo.XXXXXX")"
pids=()

cleanup() {
  echo
  echo "stopping the operator and the control plane"
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 0' INT TERM

cd "$repo"
echo "== building (control plane cached under ~/.cache/kubegen)"
bash tests/control-plane/build.sh >/dev/null
cargo build -q -p kubegen-testenv -p my-application
cargo run -q -p kubegen-cli --bin kubegen -- generate --check --quiet --manifest-path "$example/Cargo.toml"

echo "== starting the local control plane"
"$repo/target/debug/kubegen-testenv" up >"$work/up.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 600); do
  grep -q '^export KUBECONFIG=' "$work/up.log" && break
  if ! kill -0 "${pids[0]}" 2>/dev/null; then cat "$work/up.log"; exit 1; fi
  sleep 0.2
done
eval "$(grep '^export ' "$work/up.log")"
echo "   KUBECONFIG=$KUBECONFIG"

echo "== installing the generated CRD and RBAC"
kubectl apply -f "$example/config/crd/stable.example.com_myapplications.yaml"
kubectl wait --for=condition=Established crd/myapplications.stable.example.com --timeout=60s
kubectl apply -f "$example/deploy/namespace.yaml" -f "$example/deploy/service_account.yaml" \
  -f "$example/config/rbac/role.yaml" -f "$example/deploy/role_binding.yaml"

echo "== conversion webhook: a development CA's certificate, the CRD pointed at 127.0.0.1"
webhook_port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
"$repo/target/debug/dev-webhook-cert" --dir "$work/webhook-certs" \
  --url "https://127.0.0.1:$webhook_port/convert"

echo "== running the operator as system:serviceaccount:my-application-system:my-application-controller"
token="$(kubectl -n my-application-system create token my-application-controller --duration=24h)"
server="$(kubectl config view --minify -o jsonpath='{.clusters[0].cluster.server}')"
ca="$(kubectl config view --minify -o jsonpath='{.clusters[0].cluster.certificate-authority}')"
cat >"$work/operator.kubeconfig" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters: [{name: local, cluster: {server: "$server", certificate-authority: "$ca"}}]
users: [{name: operator, user: {token: "$token"}}]
contexts: [{name: local, context: {cluster: local, user: operator, namespace: my-application-system}}]
current-context: local
KUBECONFIG
KUBECONFIG="$work/operator.kubeconfig" POD_NAME=demo-operator \
  "$repo/target/debug/my-application-controller" \
  --health-probe-bind-address 127.0.0.1:0 --metrics-bind-address 127.0.0.1:0 \
  --webhook-cert-dir "$work/webhook-certs" --webhook-bind-address "127.0.0.1:$webhook_port" \
  --lease-namespace my-application-system >"$work/operator.log" 2>&1 &
pids+=($!)

echo "== applying the samples"
kubectl apply -f "$example/config/samples/my-first-app.yaml" -f "$example/config/samples/another-app.yaml"
ready='jsonpath={.status.conditions[?(@.type=="Ready")].status}=True'
kubectl wait --for="$ready" -n default ma/my-first-app --timeout=180s
kubectl wait --for="$ready" -n my-dev-namespace ma/another-app --timeout=180s

echo "== one API, two versions: an application written at v2 with two ports"
kubectl apply -f "$example/config/samples/two-ports-app.yaml"
kubectl wait --for="$ready" -n default ma/two-ports-app --timeout=180s
echo "   read at v1 (what the controller sees):  port=$(kubectl get myapplications.v1.stable.example.com two-ports-app -o jsonpath='{.spec.port}')"
echo "   read at v2 (nothing lost):              ports=$(kubectl get myapplications.v2.stable.example.com two-ports-app -o jsonpath='{.spec.ports}')"
echo "   my-first-app (written at v1) read at v2: ports=$(kubectl get myapplications.v2.stable.example.com my-first-app -o jsonpath='{.spec.ports}')"

echo
kubectl get ma -A
echo
kubectl get deployments,services,pods -A -l app=my-application
echo
echo "operator log: $work/operator.log"
if [[ "${DEMO_EXIT_WHEN_READY:-}" == 1 ]]; then exit 0; fi
echo "Both applications are Ready. In another shell:"
grep '^export ' "$work/up.log"
echo "Press Ctrl-C to stop."
while kill -0 "${pids[0]}" 2>/dev/null; do sleep 1; done
