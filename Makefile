# kubegen — developer entry points. `make test` is what CI runs.

CARGO ?= cargo
CONTROL_PLANE := tests/control-plane/build.sh

MDBOOK_VERSION := 0.5.4
MDBOOK := $(HOME)/.cache/kubegen/tools/mdbook-$(MDBOOK_VERSION)/bin/mdbook

.PHONY: book test differential monitoring-check prerequisites control-plane lint fmt doc deps cycles tests-placement builtin-check protobuf-check package generate verify up demo bench bench-startup bench-codegen bench-import clean-control-plane help

help:
	@echo "make demo           local control plane + the example operator + two sample apps, until Ctrl-C"
	@echo "make up             just the local control plane (kubeconfig printed) until Ctrl-C"
	@echo "make test           build the control plane if missing, lint, run every test"
	@echo "make book           build the kubegen book (docs/book) into target/book; mdBook is"
	@echo "                    installed once into ~/.cache/kubegen/tools/"
	@echo "make differential   the generated/differential suites at full size (controller-gen,"
	@echo "                    RE2, import verdicts, pluralizer, YAML, the servers' wire fuzzing,"
	@echo "                    patches, server-side apply, the in-process API server);"
	@echo "                    make test runs a seeded slice"
	@echo "make control-plane  build etcd, kube-apiserver, kube-controller-manager,"
	@echo "                    kube-scheduler, kubectl and kwok from Go modules (cached)"
	@echo "make lint           rustfmt check, clippy -D warnings, docs -D warnings,"
	@echo "                    operator dependency check, import loops and the runtime's"
	@echo "                    floors, built-in schema and protobuf"
	@echo "                    table checks,"
	@echo "                    cargo package of every crate"
	@echo "make generate       regenerate the example's CRD, RBAC and Rust modules"
	@echo "make verify         kubegen generate --check on the example"
	@echo "make bench          every comparison against the peers (Go generators, client-go, controller-runtime): one table"
	@echo "make bench-startup  median start-up time and memory of the control plane"
	@echo "make bench-codegen  kubegen generate vs the Go generators, same API, same run"
	@echo "make bench-import   kubegen import over the real-CRD corpus (median of 5; kopium if installed)"

## Every test: unit, UI, golden, doc and end-to-end tests against the real
## control plane. (Benchmarks are compiled by `lint`; run them with
## `make bench-*` or `cargo bench`, see README.md.)
test: control-plane lint verify
	$(CARGO) test --workspace

## The differential suites at full size (each runs a bounded, seeded slice
## in `make test`): controller-gen's CRDs over 2,000 generated types, Go's
## RE2 over 30,000 patterns, the apiserver's CEL parser, checker and cost
## estimator over 50,000 expressions and 30,000 rules, kube-openapi's
## validators over 50,000 objects, the apiserver's create path over 20,000
## objects and its dry runs over 3,000, the apiserver's verdicts on every corpus CRD,
## flect's plurals and the YAML readers on more seeds, the servers' wire
## fuzzing on 15,000 hostile requests, the apiserver's patches over 60,000
## cases, its built-in defaulting over 60,000 objects and its field
## manager over 15,000 apply/update sequences, Go's crypto/x509 over the
## development CA's certificates for 2,000 name sets, and the
## in-process API server against the real plane on 1,200 generated
## scenarios.
## The kubegen book (docs/book) as HTML in target/book/. Its code blocks,
## tutorial and links are tested by `cargo test -p kubegen-book` (part of
## `make test`).
book: $(MDBOOK)
	$(MDBOOK) build docs/book

$(MDBOOK):
	$(CARGO) install mdbook --version $(MDBOOK_VERSION) --locked --no-default-features \
		--features search --root $(HOME)/.cache/kubegen/tools/mdbook-$(MDBOOK_VERSION)

## The example's alert rules and Grafana dashboard queries checked by
## Prometheus's promtool (built once into ~/.cache/kubegen/go-tools/).
monitoring-check:
	bash hack/check-monitoring.sh

differential: control-plane
	KUBEGEN_CGDIFF_CASES=2000 $(CARGO) test -p kubegen-cli --test controller_gen_diff -- --nocapture
	KUBEGEN_RE2_CASES=30000 $(CARGO) test -p kubegen-codegen --test re2_differential -- --nocapture
	KUBEGEN_CEL_CASES=30000 $(CARGO) test -p kubegen-core --test cel_differential -- --nocapture
	KUBEGEN_CEL_EVAL_CASES=50000 $(CARGO) test -p kubegen-core --features validate --test cel_eval_differential -- --nocapture
	KUBEGEN_OPENAPI_CASES=10000 $(CARGO) test -p kubegen-core --features validate --test openapi_differential -- --nocapture
	KUBEGEN_VALIDATE_CASES=20000 $(CARGO) test -p kubegen-core --features validate --test validate_differential -- --nocapture
	KUBEGEN_VALIDATE_E2E_CRDS=20 KUBEGEN_VALIDATE_E2E_OBJECTS=150 $(CARGO) test -p kubegen-core --features validate --test validate_apiserver_e2e -- --nocapture
	KUBEGEN_IMPORT_VERDICTS=all $(CARGO) test -p kubegen-cli --test import_verdicts_e2e -- --nocapture
	for seed in 1 2 3; do KUBEGEN_PLURAL_SEED=$$seed $(CARGO) test -p kubegen-core --test plural_flect || exit 1; done
	KUBEGEN_YAML_CASES=20000 $(CARGO) test -p kubegen-core --test yaml_differential
	for seed in 1 2 3; do KUBEGEN_WIRE_SEED=$$seed KUBEGEN_WIRE_CASES=5000 $(CARGO) test -p kubegen-runtime --test wire_fuzz || exit 1; done
	KUBEGEN_X509_CASES=2000 $(CARGO) test -p kubegen-runtime --test x509_differential -- --nocapture
	for seed in 1 2 3; do KUBEGEN_PATCH_SEED=$$seed KUBEGEN_PATCH_CASES=20000 $(CARGO) test -p kubegen-core --features apiserver --test patch_differential -- --nocapture || exit 1; done
	for seed in 1 2 3; do KUBEGEN_DEFAULTS_SEED=$$seed KUBEGEN_DEFAULTS_CASES=20000 $(CARGO) test -p kubegen-core --features apiserver --test defaults_differential || exit 1; done
	for seed in 1 2 3; do KUBEGEN_SSA_SEED=$$seed KUBEGEN_SSA_CASES=5000 $(CARGO) test -p kubegen-core --features apiserver --test ssa_differential -- --nocapture || exit 1; done
	for seed in 1 2 3; do KUBEGEN_CONFORMANCE_SEED=$$seed KUBEGEN_CONFORMANCE_CASES=400 $(CARGO) test -p kubegen-fake --test conformance -- --nocapture || exit 1; done

KUBEGEN = $(CARGO) run -q -p kubegen-cli --bin kubegen --
EXAMPLE = examples/my-application/Cargo.toml

## Regenerate the example's CRD, RBAC and Rust modules.
generate:
	$(KUBEGEN) generate --manifest-path $(EXAMPLE)

## Fail when the example's checked-in generated files are out of date.
verify:
	$(KUBEGEN) generate --check --manifest-path $(EXAMPLE)

## The tools every target below needs (README.md, "Prerequisites"), each
## missing one named with what it is for, before any long build; its
## self-test first.
prerequisites:
	@bash hack/check-prerequisites.sh --self-test
	@bash hack/check-prerequisites.sh

## Build (once; cached under ~/.cache/kubegen/control-plane/<versions>/) the
## control-plane binaries from the Go module proxy.
control-plane: prerequisites
	bash $(CONTROL_PLANE)

lint: doc deps cycles tests-placement builtin-check protobuf-check package
	python3 bench/build_timeline.py --self-test
	$(CARGO) fmt --all --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings

## Every public item documented, no broken intra-doc links.
doc:
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --workspace --no-deps

## An operator links no code-generation crates (syn, quote, regex, toml, ...)
## and no kube-rs client or runtime (kube, kube-client, kube-runtime).
deps:
	bash hack/check-operator-deps.sh

## No two files, and no two top-level modules, of a crate import each other;
## the runtime's modules (kubegen-base's and kubegen-engine's) keep their
## floors: each top-level module is on one floor of the `| floor | modules |`
## table in ARCHITECTURE.md (the one statement of the floors, shared by the
## two crates) and imports only from its own floor or those below. The self-test first proves the check fails on a violating fixture
## (hack/tests/floor-violation) and passes a clean one (hack/tests/floor-clean).
## Tests where ARCHITECTURE.md's "Where tests live" puts them.
tests-placement:
	python3 hack/check-test-placement.py --self-test
	python3 hack/check-test-placement.py

CRATES = kubegen-core kubegen-codegen kubegen-derive kubegen-cli kubegen-crd kubegen-base kubegen-client kubegen-engine kubegen-runtime kubegen-fake \
	tests/kubegen-testenv examples/my-application bench/operator-bench docs/book
cycles:
	python3 hack/check-import-cycles.py --self-test
	python3 hack/check-import-cycles.py --floors kubegen-base=ARCHITECTURE.md --floors kubegen-engine=ARCHITECTURE.md $(CRATES)

## kubegen-core's table of built-in Kubernetes schemas is what
## hack/k8s-builtin-schemas.py writes with controller-gen's schema parser
## (hack/builtin-schemas, built once into ~/.cache/kubegen/go-tools/) over
## the Go source of k8s.io/api and its siblings, naming the types as the
## OpenAPI spec of the k8s.io/kubernetes Go module does (fetched by
## `control-plane`, which `test` runs first); run the script without
## --check to regenerate.
builtin-check:
	python3 hack/k8s-builtin-schemas.py --check

## kubegen-base's protobuf field table is what its Go program writes
## from the Go API types (k8s.io/api, from the Go module proxy); run
## kubegen-base/protobuf/table.sh without --check to regenerate.
protobuf-check:
	bash kubegen-base/protobuf/table.sh --check

## Every published crate packages (manifest metadata, versions on path
## dependencies, files included) and builds from its package.
## Cargo extracts each packaged crate from its temporary local registry
## into $CARGO_HOME/registry/src/-<hash>/ once, and treats registry
## builds as immutable, so a later change to a crate would be verified
## against its stale copy: those extractions of our own crates, and their
## build artifacts in the verification's own target directory, are removed
## first. Dependencies stay cached there.
PUBLISHED = kubegen-core kubegen-codegen kubegen-derive kubegen-cli kubegen-crd kubegen-base kubegen-client kubegen-engine kubegen-runtime kubegen-fake kubegen-testenv
VERSION = $(shell sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
PACKAGE_TARGET = target/package-verify
package:
	for c in $(PUBLISHED); do rm -rf "$${CARGO_HOME:-$$HOME/.cargo}"/registry/src/-*/$$c-$(VERSION); done
	rm -rf $(PACKAGE_TARGET)/debug/.fingerprint/kubegen-* $(PACKAGE_TARGET)/debug/deps/*kubegen_* \
		$(PACKAGE_TARGET)/debug/build/kubegen-*
	$(CARGO) package --workspace --exclude my-application --exclude my-application-bench --exclude kubegen-book --allow-dirty --target-dir $(PACKAGE_TARGET)
	@# CI builds once: the verification's own build (GBs) is not needed again.
	if [ -n "$${CI:-}" ]; then rm -rf $(PACKAGE_TARGET); fi

fmt:
	$(CARGO) fmt --all

## Start the local control plane for people; prints `export KUBECONFIG=...`.
up: control-plane
	$(CARGO) run -q -p kubegen-testenv -- up

## The main job: a local control plane, the example's generated CRD and RBAC,
## the operator under that RBAC and two sample applications; Ctrl-C stops it.
demo: control-plane
	bash examples/my-application/hack/demo.sh

bench-startup: control-plane
	$(CARGO) run -q -p kubegen-testenv -- bench-startup --runs 5

## kubegen generate vs controller-gen + client-gen/lister-gen/informer-gen.
## Every same-run comparison against the peers, one table of medians and
## ratios (BENCH_FLAGS=--quick for smaller sizes).
bench: control-plane
	python3 bench/run_all.py $(BENCH_FLAGS)

bench-codegen:
	python3 bench/codegen_bench.py --runs 5

bench-import:
	python3 bench/import_bench.py --runs 5

clean-control-plane:
	rm -rf $${KUBEGEN_CACHE_DIR:-$$HOME/.cache/kubegen}/control-plane
