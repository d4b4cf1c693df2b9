# Capstan — make targets. Every target installs what it needs (Go tools are pinned in
# hack/tools/go.mod; Kubernetes binaries are built from source into the cache).
SHELL := /usr/bin/env bash -o pipefail
.DEFAULT_GOAL := help

KUBERNETES_VERSION ?= v1.37.2
CAPSTAN_CACHE      ?= $(HOME)/.cache/capstan
export CAPSTAN_CACHE
K8S_BIN            := $(CAPSTAN_CACHE)/k8s/$(KUBERNETES_VERSION)/bin
MODULES            := contracts core bootstrap-kubeadm infrastructure-docker hack/tools test
PROVIDERS          := core bootstrap-kubeadm infrastructure-docker
PKGS               := $(addsuffix /...,$(addprefix ./,$(MODULES)))
CONTROLLER_GEN     := go tool controller-gen
GOTEST_FLAGS       ?= -v -race -timeout 30m
MGMT               := bin/mgmt

# Files make generate writes; make verify regenerates them and fails when they differ.
GENERATED := contracts/api contracts/config/crd bootstrap-kubeadm/api bootstrap-kubeadm/config/crd \
	infrastructure-docker/api infrastructure-docker/config/crd \
	$(foreach p,$(PROVIDERS),$(p)/config/rbac)

.PHONY: help
help: ## Show the targets.
	@grep -hE '^[a-zA-Z0-9_-]+:.*?## ' $(MAKEFILE_LIST) | awk -F':.*?## ' '{printf "  %-16s %s\n", $$1, $$2}'

##@ Main job

.PHONY: run
run: k8s-binaries mgmt-up managers ## Bring up the local management plane and the three managers (workload clusters: not yet, see docs/status.md).
	bash hack/managers.sh up
	@echo "The management plane and the managers are up: export KUBECONFIG=$(CURDIR)/.capstan/mgmt/kubeconfig; 'make stop' stops them"
	@echo "Not yet: provisioning a sample workload cluster end to end arrives with the main-job issue (docs/status.md)."

.PHONY: stop
stop: ## Stop the managers and the local management plane (data is kept).
	bash hack/managers.sh down
	$(MAKE) mgmt-down

.PHONY: clean
clean: ## Stop the managers and the management plane and delete their data and the built binaries.
	bash hack/managers.sh down
	-@[ -x $(MGMT) ] && $(MGMT) --dir .capstan/mgmt down
	rm -rf .capstan bin

##@ Development

.PHONY: generate
generate: ## Generate deepcopy, CRDs and RBAC with controller-gen.
	$(CONTROLLER_GEN) object:headerFile=hack/boilerplate.go.txt paths=./contracts/api/...
	$(CONTROLLER_GEN) crd paths=./contracts/api/... output:crd:artifacts:config=contracts/config/crd/bases
	$(CONTROLLER_GEN) object:headerFile=hack/boilerplate.go.txt paths=./bootstrap-kubeadm/api/...
	$(CONTROLLER_GEN) crd paths=./bootstrap-kubeadm/api/... output:crd:artifacts:config=bootstrap-kubeadm/config/crd/bases
	$(CONTROLLER_GEN) object:headerFile=hack/boilerplate.go.txt paths=./infrastructure-docker/api/...
	$(CONTROLLER_GEN) crd paths=./infrastructure-docker/api/... output:crd:artifacts:config=infrastructure-docker/config/crd/bases
	@for p in $(PROVIDERS); do \
	  $(CONTROLLER_GEN) rbac:roleName=manager-role paths=./$$p/... output:rbac:artifacts:config=$$p/config/rbac || exit 1; \
	done
	@hack/gen-crd-kustomization.sh contracts/config/crd
	@hack/gen-crd-kustomization.sh bootstrap-kubeadm/config/crd
	@hack/gen-crd-kustomization.sh infrastructure-docker/config/crd

.PHONY: verify
verify: verify-fmt verify-vet verify-generated verify-imports ## All static checks.

.PHONY: verify-fmt
verify-fmt:
	@out=$$(gofmt -l $(MODULES) hack/k8s); if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

.PHONY: verify-vet
verify-vet:
	go vet $(PKGS)

.PHONY: verify-generated
verify-generated: ## Fail when generated files are stale.
	@tmp=$$(mktemp -d); trap 'rm -rf $$tmp' EXIT; \
	for d in $(GENERATED); do mkdir -p $$tmp/$$d; cp -a $$d/. $$tmp/$$d/; done; \
	$(MAKE) --no-print-directory generate >/dev/null; \
	for d in $(GENERATED); do \
	  if ! diff -r $$tmp/$$d $$d; then echo "generated files under $$d are stale: run 'make generate' and commit"; exit 1; fi; \
	done; echo "generated files are up to date"

.PHONY: verify-imports
verify-imports: ## Fail when a provider imports another provider.
	go run ./hack/tools/cmd/importcheck

.PHONY: test
test: k8s-binaries docker-up ## Run every module's tests (unit + envtest against a real kube-apiserver and etcd).
	go test $(GOTEST_FLAGS) $(PKGS)

.PHONY: managers
managers: ## Build the three manager binaries into bin/.
	@mkdir -p bin
	go build -o bin/core ./core
	go build -o bin/bootstrap-kubeadm ./bootstrap-kubeadm
	go build -o bin/infrastructure-docker ./infrastructure-docker

##@ Docker

.PHONY: docker-up
docker-up: ## Install (Debian docker.io, needs root) and start a Docker Engine when none answers.
	bash hack/docker-up.sh

##@ Images

.PHONY: node-image
node-image: docker-up k8s-binaries ## Build capstan/node:$(KUBERNETES_VERSION) offline (cached by input hash).
	bash hack/images/node-image.sh $(KUBERNETES_VERSION)

.PHONY: lb-image
lb-image: docker-up ## Build capstan/haproxy offline (cached by input hash).
	bash hack/images/lb-image.sh

##@ Management plane

.PHONY: k8s-binaries
k8s-binaries: ## Build kube-apiserver, etcd, kubectl, kubelet, kubeadm, ... from source (cached in $(CAPSTAN_CACHE)).
	bash hack/k8s/build.sh

$(MGMT): $(shell find hack/tools contracts -name '*.go' -not -path '*/testdata/*')
	@mkdir -p bin
	go build -o $(MGMT) ./hack/tools/cmd/mgmt

.PHONY: mgmt-up
mgmt-up: k8s-binaries $(MGMT) ## Start the embedded management plane (.capstan/mgmt); objects survive mgmt-down.
	$(MGMT) --dir .capstan/mgmt up

.PHONY: mgmt-down
mgmt-down: $(MGMT) ## Stop the embedded management plane, keeping its data.
	$(MGMT) --dir .capstan/mgmt down
