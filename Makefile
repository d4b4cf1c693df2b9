# Capstan — make targets. Every target installs what it needs (Go tools are pinned in
# hack/tools/go.mod; Kubernetes binaries are built from source into the cache).
SHELL := /usr/bin/env bash -o pipefail
.DEFAULT_GOAL := help

KUBERNETES_VERSION ?= v1.37.2
# The minor before it, which make e2e-upgrade upgrades from (hack/k8s/previous/go.mod).
KUBERNETES_PREVIOUS_VERSION := $(shell awk '$$1=="k8s.io/kubernetes" {print $$2}' hack/k8s/previous/go.mod)
CAPSTAN_CACHE      ?= $(HOME)/.cache/capstan
export CAPSTAN_CACHE
K8S_BIN            := $(CAPSTAN_CACHE)/k8s/$(KUBERNETES_VERSION)/bin
MODULES            := contracts core bootstrap-kubeadm infrastructure-docker hack/tools test
PROVIDERS          := core bootstrap-kubeadm infrastructure-docker
PKGS               := $(addsuffix /...,$(addprefix ./,$(MODULES)))
CONTROLLER_GEN      = $(GO) tool controller-gen
# Every Go build, test, vet and tool run here is static and -trimpath, as Tilt, the manager
# images and the tests' own builds are (contracts/envtest.StaticBuild): one compile of the
# dependencies serves them all. Under -race the tests would compile every dependency a second
# time, with cgo (15 CPU-minutes, 7.7 min of a cold run on 2 cores, measured), so make test runs
# the race detector on RACE_PKGS (packages whose own code is concurrent and that pull in no
# Kubernetes library) and make test-race runs every package under it.
GO                 := CGO_ENABLED=0 GOFLAGS=-trimpath go
GOBUILD            := $(GO) build
# -vet=off: make verify vets every package with every analyzer (a superset of go test's).
# -ldflags='-s -w': test binaries link without DWARF and symbol table (a failing test's stack
# trace keeps its functions and lines): less link time for each of about 80 binaries.
GOTEST_FLAGS       ?= -v -vet=off -count=1 -timeout 30m -ldflags='-s -w'
RACE_PKGS          := ./infrastructure-docker/internal/docker/... ./core/internal/capstanctl/localmanagers \
  ./contracts/conformance/internal/recorder ./contracts/secret
# Packages whose tests boot node containers (systemd, containerd, kubeadm) on the real engine.
# make test runs them one at a time in a lane beside the other packages (two at a time): those
# mostly wait on their apiservers and controllers (the CPU was 30-50 % busy for minutes when
# the two ran in one lane), and never two node-booting packages at once (two beside three
# others overloaded 2 cores: a node's systemd missed a test's minute).
NODE_PKGS          := ./infrastructure-docker/images/imagestest ./infrastructure-docker/internal/controller/... \
  ./infrastructure-docker/internal/devkinds ./infrastructure-docker/internal/node ./infrastructure-docker/internal/docker/...
OTHER_PKGS          = $(filter-out $(shell $(GO) list $(NODE_PKGS)),$(shell $(GO) list $(PKGS)))
MGMT               := bin/mgmt
VERSION            ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
GIT_COMMIT         ?= $(shell git rev-parse HEAD 2>/dev/null)
CTL_VERSION_PKG    := capstan.dev/core/internal/capstanctl/version

# Files make generate writes; make verify regenerates them and fails when they differ.
GENERATED := contracts/api contracts/config/crd bootstrap-kubeadm/api bootstrap-kubeadm/config/crd \
	infrastructure-docker/api infrastructure-docker/config/crd \
	contracts/config/admission bootstrap-kubeadm/config/admission infrastructure-docker/config/admission \
	contracts/conformance/example/api contracts/conformance/example/config/crd contracts/conformance/example/config/rbac \
	$(foreach p,$(PROVIDERS),$(p)/config/rbac) core/internal/capstanctl/components \
	core/internal/capstanctl/template/templates examples config/metrics

.PHONY: help
help: ## Show the targets.
	@grep -hE '^[a-zA-Z0-9_-]+:.*?## ' $(MAKEFILE_LIST) | awk -F':.*?## ' '{printf "  %-16s %s\n", $$1, $$2}'

##@ Main job

# The three managers as local processes of their own binaries, each running as its provider's
# ServiceAccount on the RBAC `capstanctl init` installs (with the CRDs); logs in .capstan/logs.
# Extra flags: make run MANAGER_ARGS='--manager-args core=--zap-log-level=4'.
MANAGERS_DIR := .capstan/managers
DEV_MANAGERS = bin/capstanctl init --dev --kubeconfig .capstan/mgmt/kubeconfig --bin-dir bin \
  --state-dir $(MANAGERS_DIR) --log-dir .capstan/logs

.PHONY: run
run: docker-up k8s-binaries node-image lb-image mgmt-up managers ## Management plane, the three managers and the quickstart cluster (examples/quickstart.yaml) with every node Ready.
	$(DEV_MANAGERS) $(MANAGER_ARGS)
	bin/quickstart --kubeconfig .capstan/mgmt/kubeconfig --manifest examples/quickstart.yaml \
	  --workload-kubeconfig .capstan/quickstart.kubeconfig
	@echo; bin/capstanctl describe cluster quickstart --kubeconfig .capstan/mgmt/kubeconfig
	@echo; echo "Workload kubeconfig: $(CURDIR)/.capstan/quickstart.kubeconfig"
	$(K8S_BIN)/kubectl --kubeconfig .capstan/quickstart.kubeconfig get nodes
	@echo "Management plane: export KUBECONFIG=$(CURDIR)/.capstan/mgmt/kubeconfig; logs in .capstan/logs; 'make stop' stops it all, 'make clean' deletes the cluster too."

.PHONY: stop
stop: ## Stop the managers and the local management plane (data and workload containers are kept).
	@if [ -x bin/capstanctl ]; then bin/capstanctl init --dev --stop --state-dir $(MANAGERS_DIR); fi
	$(MAKE) mgmt-down

.PHONY: clean
clean: $(MGMT) managers ## Delete the workload clusters through the API (the providers clean up), then stop everything and delete the management plane data.
	bash hack/clean.sh
	rm -rf .capstan bin

##@ Development

.PHONY: generate
generate: ## Generate deepcopy, CRDs and RBAC with controller-gen, and the components capstanctl init installs.
	$(CONTROLLER_GEN) object:headerFile=hack/boilerplate.go.txt paths=./contracts/api/...
	$(CONTROLLER_GEN) crd paths=./contracts/api/... output:crd:artifacts:config=contracts/config/crd/bases
	$(CONTROLLER_GEN) object:headerFile=hack/boilerplate.go.txt paths=./bootstrap-kubeadm/api/...
	$(CONTROLLER_GEN) crd paths=./bootstrap-kubeadm/api/... output:crd:artifacts:config=bootstrap-kubeadm/config/crd/bases
	$(CONTROLLER_GEN) object:headerFile=hack/boilerplate.go.txt paths=./infrastructure-docker/api/...
	$(CONTROLLER_GEN) crd paths=./infrastructure-docker/api/... output:crd:artifacts:config=infrastructure-docker/config/crd/bases
	$(CONTROLLER_GEN) object:headerFile=hack/boilerplate.go.txt paths=./contracts/conformance/example/api/...
	@# The example's config/crd/bases are what its conformance tests install with no webhook: v1alpha1 only.
	$(CONTROLLER_GEN) crd paths="./contracts/conformance/example/api/bootstrap/...;./contracts/conformance/example/api/infrastructure/v1alpha1" \
	  output:crd:artifacts:config=contracts/conformance/example/config/crd/bases
	@# config/crd/v1alpha2 are the example provider's v0.2.0 CRDs, both versions. controller-gen merges every
	@# version's markers into one CRD: v1alpha1's (kept for config/crd/bases) would store both versions and set
	@# the contract label to either value (map order), so v1alpha1 is unstored and the label names both here.
	$(CONTROLLER_GEN) crd paths=./contracts/conformance/example/api/infrastructure/... \
	  output:crd:artifacts:config=contracts/conformance/example/config/crd/v1alpha2
	@sed -i -e '/^  - name: v1alpha1$$/,/^  - name: v1alpha2$$/s/^    storage: true$$/    storage: false/' \
	  -e 's|^    cluster.x-k8s.io/v1beta2: v1alpha1$$|    cluster.x-k8s.io/v1beta2: v1alpha1_v1alpha2|' \
	  contracts/conformance/example/config/crd/v1alpha2/*.yaml
	$(CONTROLLER_GEN) rbac:roleName=example-manager-role \
	  paths="./contracts/conformance/example/controller/...;./contracts/conformance/example/cmd/..." \
	  output:rbac:artifacts:config=contracts/conformance/example/config/rbac
	@for p in $(PROVIDERS); do \
	  $(CONTROLLER_GEN) rbac:roleName=manager-role paths=./$$p/... output:rbac:artifacts:config=$$p/config/rbac || exit 1; \
	done
	@hack/gen-crd-kustomization.sh contracts/config/crd
	@hack/gen-crd-kustomization.sh bootstrap-kubeadm/config/crd
	@hack/gen-crd-kustomization.sh infrastructure-docker/config/crd
	@# The v1beta2 CEL rules of each provider's CRDs as ValidatingAdmissionPolicies for v1beta1 writes.
	@$(GO) run ./hack/tools/cmd/crdrules
	@# Each provider's config/default as kustomize builds it, embedded by capstanctl init.
	@$(GO) run ./hack/tools/cmd/components
	@# The CNI ClusterResourceSet block of capstanctl's templates and examples/, from the flannel manifest.
	@$(GO) run ./hack/tools/cmd/cniaddon
	@# kube-state-metrics' configuration for every kind (upstream's capi_* metric names).
	@$(GO) run ./hack/tools/cmd/metricsconfig

.PHONY: verify
verify: verify-fmt verify-vet verify-generated verify-imports ## All static checks.

.PHONY: verify-fmt
verify-fmt:
	@out=$$(gofmt -l $(MODULES) hack/k8s); if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

.PHONY: verify-vet
verify-vet:
	$(GO) vet -tags e2e,tilt,clusterctl,metrics $(PKGS)

.PHONY: verify-generated
verify-generated: ## Fail when generated files are stale.
	@# It generates into a copy of the tree, never in place: make verify runs beside make test in CI,
	@# and a CRD rewritten in place while a test binary embeds it is read half-written.
	@tmp=$$(mktemp -d); trap 'rm -rf $$tmp' EXIT; \
	git ls-files -z --cached --others --exclude-standard | tar --null --ignore-failed-read -T - -cf - 2>/dev/null | tar -xf - -C $$tmp; \
	$(MAKE) --no-print-directory -C $$tmp generate >/dev/null || exit 1; \
	for d in $(GENERATED); do \
	  if ! diff -r $$d $$tmp/$$d; then echo "generated files under $$d are stale: run 'make generate' and commit"; exit 1; fi; \
	done; echo "generated files are up to date"

.PHONY: verify-imports
verify-imports: ## Fail when a provider imports another provider.
	$(GO) run ./hack/tools/cmd/importcheck

.PHONY: test
test: k8s-binaries docker-up ## Run every module's tests (unit + envtest against a real kube-apiserver and etcd), RACE_PKGS also under the race detector.
	@mkdir -p .capstan; log=.capstan/test-node-packages.log; \
	($(GO) test -p 1 $(GOTEST_FLAGS) $(NODE_PKGS) >$$log 2>&1) & node=$$!; \
	$(GO) test $(GOTEST_FLAGS) $(OTHER_PKGS); other=$$?; \
	wait $$node; node=$$?; echo "==== the node-container packages (they ran alongside, one at a time)"; cat $$log; \
	[ $$other -eq 0 ] && [ $$node -eq 0 ]
	go test -race $(GOTEST_FLAGS) $(RACE_PKGS)

.PHONY: test-race
test-race: k8s-binaries docker-up ## Every module's tests under the race detector (compiles every dependency again, with cgo).
	go test -race $(GOTEST_FLAGS) $(PKGS)

# Upstream's clusterctl (hack/clusterctl/go.mod's version, built once into the cache: 3.5
# CPU-minutes cold, so not part of make test) against make release's repository on envtest.
.PHONY: test-clusterctl
test-clusterctl: k8s-binaries ## Upstream clusterctl init/describe/get kubeconfig/move (between clusters, --to/--from-directory)/upgrade plan/upgrade apply/delete against the release's clusterctl repository and capstanctl init's inventory (builds clusterctl first).
	CAPSTAN_CLUSTERCTL=$$(nice -n 19 hack/clusterctl/build.sh) && export CAPSTAN_CLUSTERCTL && \
	  $(GO) test -tags clusterctl $(GOTEST_FLAGS) ./core/internal/capstanctl/clusterctl/interop/

# Upstream's kube-state-metrics (hack/kube-state-metrics/go.mod's version, built once into the
# cache: 3.5 CPU-minutes cold, so not part of make test) with config/metrics/crd-metrics-config.yaml
# against envtest holding one object of every kind.
.PHONY: test-metrics
test-metrics: k8s-binaries ## kube-state-metrics with config/metrics' configuration against every Capstan kind on envtest (builds kube-state-metrics first).
	CAPSTAN_KUBE_STATE_METRICS=$$(nice -n 19 hack/kube-state-metrics/build.sh) && export CAPSTAN_KUBE_STATE_METRICS && \
	  $(GO) test -tags metrics $(GOTEST_FLAGS) ./hack/tools/internal/metricsconfig/

# docs/images/fleet-dashboard.png: config/metrics/dashboard.json's queries evaluated by a real
# Prometheus scraping kube-state-metrics (the one test-metrics builds) over a synthetic fleet on
# envtest, drawn by hack/tools/internal/dashrender. Needs prometheus and rsvg-convert (Debian:
# apt-get install prometheus librsvg2-bin); about two minutes; not part of make test or CI.
.PHONY: dashboard-picture
dashboard-picture: k8s-binaries ## Redraw docs/images/fleet-dashboard.png from the dashboard over a synthetic fleet (needs prometheus, rsvg-convert).
	CAPSTAN_KUBE_STATE_METRICS=$$(nice -n 19 hack/kube-state-metrics/build.sh) && export CAPSTAN_KUBE_STATE_METRICS && \
	  $(GO) run ./hack/tools/cmd/dashboardpicture

.PHONY: test-tilt
test-tilt: tilt k8s-binaries ## The root Tiltfile's inner loop with a real Tilt (hack/tools/internal/tiltloop, build tag tilt; builds Tilt first).
	$(GO) test -tags tilt $(GOTEST_FLAGS) ./hack/tools/internal/tiltloop/

.PHONY: e2e
e2e: docker-up k8s-binaries node-image lb-image images example-images mgmt-up managers ## Real workload clusters in Docker through the three managers (test/e2e), and, side by side, one written as upstream users write theirs and one from the quick-start ClusterClass.
	$(DEV_MANAGERS) --manager-args kubeadm=--bootstrap-token-ttl=1m $(MANAGER_ARGS)
	$(GO) test -tags e2e -v -count=1 -timeout 60m -run '^(TestE2E|TestUpstreamManifests|TestTopologyCluster)$$' ./test/e2e/

# make e2e-interop swaps one side of a running Capstan installation for upstream Cluster API's
# managers (hack/upstream/go.mod's version, built once into the cache) and runs the quickstart
# cluster's lifecycle through each pairing (test/e2e/interop_test.go). Not in CI: building
# upstream's three managers cold does not fit the cold run's budget (docs/status.md).
.PHONY: e2e-interop
e2e-interop: docker-up k8s-binaries node-image lb-image images mgmt-up managers ## Upstream's kubeadm bootstrap and control plane managers with Capstan's core and Docker provider, then upstream's core with Capstan's providers.
	$(DEV_MANAGERS) $(MANAGER_ARGS)
	set -a && eval "$$(nice -n 19 hack/upstream/build.sh)" && set +a && \
	  $(GO) test -tags e2e -v -count=1 -timeout 60m -run '^(TestInteropUpstreamKubeadm|TestInteropUpstreamCore)$$' ./test/e2e/

# make e2e-clusterctl runs upstream clusterctl (hack/clusterctl/go.mod's version, built once into
# the cache) against the management plane and a real workload cluster, which it moves into itself
# and back (test/e2e/clusterctl_test.go). Not in CI: clusterctl's cold build and the spec's self-hosting
# do not fit the cold run's budget (docs/status.md).
.PHONY: e2e-clusterctl
e2e-clusterctl: docker-up k8s-binaries node-image lb-image images mgmt-up managers ## Upstream clusterctl on real clusters: describe, get kubeconfig, upgrade plan, move --to-directory, move into the self-hosted workload cluster and back, delete --all, init from make release with its image archives.
	$(DEV_MANAGERS) $(MANAGER_ARGS)
	$(MAKE) --no-print-directory release
	CAPSTAN_CLUSTERCTL=$$(nice -n 19 hack/clusterctl/build.sh) && export CAPSTAN_CLUSTERCTL && \
	  CAPSTAN_CLUSTERCTL_CONFIG=$(CURDIR)/$(RELEASE_DIR)/clusterctl.yaml \
	  $(GO) test -tags e2e -v -count=1 -timeout 60m -run '^TestClusterctlOnARealCluster$$' ./test/e2e/

# make e2e-upgrade is not in CI: the previous minor's binaries and node image are a second
# Kubernetes build, which a cold CI run has no time for (docs/status.md).
.PHONY: e2e-upgrade
e2e-upgrade: docker-up k8s-binaries node-image node-image-previous lb-image images mgmt-up managers ## A real Kubernetes minor upgrade ($(KUBERNETES_PREVIOUS_VERSION) → $(KUBERNETES_VERSION)) of a topology cluster through topology.version.
	$(DEV_MANAGERS) $(MANAGER_ARGS)
	CAPSTAN_E2E_PREVIOUS_VERSION=$(KUBERNETES_PREVIOUS_VERSION) CAPSTAN_E2E_VERSION=$(KUBERNETES_VERSION) \
	  $(GO) test -tags e2e -v -count=1 -timeout 60m -run '^TestTopologyMinorUpgrade$$' ./test/e2e/

# make chaos runs the chaos spec CHAOS_ROUNDS times in a row, each on a new cluster; CI runs
# one round of the bounded form (CHAOS_ROUNDS=1 CHAOS_BOUNDED=1: no control plane rollout).
CHAOS_ROUNDS ?= 3
CHAOS_BOUNDED ?=

.PHONY: chaos
chaos: docker-up k8s-binaries node-image lb-image mgmt-up managers ## Kill managers, the management apiserver and dockerd while a 3+2 cluster is created, rolled out and deleted; require convergence (CHAOS_ROUNDS=3).
	$(DEV_MANAGERS) $(MANAGER_ARGS)
	CAPSTAN_CHAOS_MANAGERS="$(DEV_MANAGERS) $(MANAGER_ARGS)" CAPSTAN_CHAOS_BOUNDED="$(CHAOS_BOUNDED)" \
	  $(GO) test -tags e2e -v -count=$(CHAOS_ROUNDS) -timeout $$(( $(CHAOS_ROUNDS) * 80 ))m -run '^TestChaos$$' ./test/e2e/

.PHONY: managers
managers: ## Build the three manager binaries, capstanctl, the quickstart driver and the conformance kit's example provider into bin/.
	@mkdir -p bin
	$(GOBUILD) -o bin/core ./core
	$(GOBUILD) -o bin/bootstrap-kubeadm ./bootstrap-kubeadm
	$(GOBUILD) -o bin/infrastructure-docker ./infrastructure-docker
	$(GOBUILD) -ldflags "-X $(CTL_VERSION_PKG).Version=$(VERSION) -X $(CTL_VERSION_PKG).GitCommit=$(GIT_COMMIT)" -o bin/capstanctl ./core/cmd/capstanctl
	$(GOBUILD) -o bin/quickstart ./test/cmd/quickstart
	$(GOBUILD) -o bin/example-manager ./contracts/conformance/example/cmd/example-manager

##@ Release

# clusterctl's local repositories need semantic version directories; `git describe` gives one
# only on a release tag, so RELEASE_VERSION defaults to it there and to v0.0.0-dev elsewhere.
RELEASE_VERSION ?= $(shell v=$$(git describe --tags --exact-match --match 'v[0-9]*' 2>/dev/null) && echo $$v || echo v0.0.0-dev)
RELEASE_DIR     ?= out
# The release's components run the manager images tagged RELEASE_VERSION, so make release builds
# them with that tag (make images: cached by input hash, nothing pulled) and saves each as a
# docker save archive beside its provider's components. RELEASE_IMAGES=false writes the
# repository alone, without a Docker Engine.
RELEASE_IMAGES  ?= true

.PHONY: release
release: ## Write the providers as a clusterctl local repository into out/ (<provider>/<RELEASE_VERSION>/ with the images' docker save archives, and clusterctl.yaml; clusterctl --config out/clusterctl.yaml; RELEASE_IMAGES=false: no archives).
ifeq ($(RELEASE_IMAGES),true)
	$(MAKE) --no-print-directory images VERSION=$(RELEASE_VERSION)
endif
	$(GO) run ./core/cmd/release --dir $(RELEASE_DIR) --version $(RELEASE_VERSION) --images=$(RELEASE_IMAGES)

##@ Benchmarks

# make bench measures the core manager at scale on an API server of its own (never .capstan/mgmt)
# with the in-memory scale provider, prints the table and appends it to docs/benchmarks.md.
# CORE_MANAGER=<binary> CORE_CRDS=<dir> [CORE_MANAGER_ARGS='...'] measure another core
# implementation; BENCH_ARGS passes harness flags (go run ./test/cmd/bench -h), e.g.
# BENCH_ARGS='-o json --profiling --work-dir /tmp/bench'. make test runs a tiny smoke of it.
BENCH_COMMAND = make bench$(if $(CORE_MANAGER), CORE_MANAGER=$(CORE_MANAGER))$(if $(CORE_CRDS), CORE_CRDS=$(CORE_CRDS))$(if $(BENCH_ARGS), BENCH_ARGS='$(BENCH_ARGS)')

.PHONY: bench
bench: k8s-binaries ## Scale, write cost and memory of the core manager vs. this machine's apiserver floor (CORE_MANAGER=, CORE_CRDS=); appends to docs/benchmarks.md.
	$(GO) run ./test/cmd/bench --append docs/benchmarks.md --command "$(BENCH_COMMAND)" \
	  --core-manager "$(CORE_MANAGER)" --core-crds "$(CORE_CRDS)" --core-manager-args "$(CORE_MANAGER_ARGS)" $(BENCH_ARGS)

# make bench-upstream runs the same scenarios twice, back to back: Capstan's core, then upstream
# Cluster API's (hack/upstream/build.sh builds it once into the cache; its CRDs come from the module
# cache), and writes one side-by-side table into docs/benchmarks.md's "Side by side with upstream"
# section, replacing the previous run. BENCH_ARGS as for make bench.
BENCH_UPSTREAM_COMMAND = make bench-upstream$(if $(BENCH_ARGS), BENCH_ARGS='$(BENCH_ARGS)')

.PHONY: bench-upstream
bench-upstream: k8s-binaries ## make bench's scenarios with Capstan's core, then upstream Cluster API's; one side-by-side table into docs/benchmarks.md.
	$(GO) run ./test/cmd/bench --peer upstream --side-by-side docs/benchmarks.md --command "$(BENCH_UPSTREAM_COMMAND)" $(BENCH_ARGS)

##@ Docs

.PHONY: docs-diagrams
docs-diagrams: ## Render docs/diagrams/*.dot to docs/*.svg with Graphviz (installed from Debian when missing).
	@command -v dot >/dev/null || apt-get install -y -qq graphviz
	@for f in docs/diagrams/*.dot; do dot -Tsvg "$$f" -o "docs/$$(basename "$${f%.dot}").svg"; done

##@ Tilt

TILT_VERSION := v0.33.21
TILT         := $(CAPSTAN_CACHE)/tilt/$(TILT_VERSION)/tilt

.PHONY: tilt
tilt: ## Build Tilt v0.33.21 from the module proxy into $CAPSTAN_CACHE/tilt (cached) for the root Tiltfile (README, "Tilt").
	TILT_VERSION=$(TILT_VERSION) bash hack/tilt/build.sh

##@ Docker

.PHONY: docker-up
docker-up: ## Install (Debian docker.io, needs root) and start a Docker Engine when none answers.
	bash hack/docker-up.sh

##@ Images

.PHONY: node-image
node-image: docker-up k8s-binaries ## Build capstan/node:$(KUBERNETES_VERSION) offline (cached by input hash).
	bash hack/images/node-image.sh $(KUBERNETES_VERSION)

.PHONY: node-image-previous
node-image-previous: docker-up ## Build capstan/node:$(KUBERNETES_PREVIOUS_VERSION), the previous minor an upgrade starts from (hack/k8s/previous; cached).
	K8S_MODULE=previous bash hack/images/node-image.sh $(KUBERNETES_PREVIOUS_VERSION)

.PHONY: lb-image
lb-image: docker-up ## Build capstan/haproxy offline (cached by input hash).
	bash hack/images/lb-image.sh

.PHONY: images
images: docker-up ## Build the three manager images capstan/<provider>-manager:dev (and :$(VERSION)) FROM scratch, offline (cached by input hash).
	VERSION=$(VERSION) bash hack/images/manager-images.sh

.PHONY: example-images
example-images: docker-up ## Build the conformance kit's example provider images capstan/example-manager:v0.1.0 and :v0.2.0 (its two releases; third-party provider e2e).
	bash hack/images/example-images.sh

##@ Management plane

.PHONY: k8s-binaries
k8s-binaries: ## Build kube-apiserver, etcd, kubectl, kubelet, kubeadm, ... from source (cached in $(CAPSTAN_CACHE)).
	bash hack/k8s/build.sh

$(MGMT): $(shell find hack/tools contracts -name '*.go' -not -path '*/testdata/*')
	@mkdir -p bin
	$(GOBUILD) -o $(MGMT) ./hack/tools/cmd/mgmt

.PHONY: mgmt-up
mgmt-up: k8s-binaries $(MGMT) ## Start the embedded management plane (.capstan/mgmt); objects survive mgmt-down.
	$(MGMT) --dir .capstan/mgmt up

.PHONY: mgmt-down
mgmt-down: $(MGMT) ## Stop the embedded management plane, keeping its data.
	$(MGMT) --dir .capstan/mgmt down
