# mongobench — see README.md. Every tool is pinned and built from the Go
# module proxy into bin/ (cached outside the repo by version), so `make test`
# works on a fresh machine without internet access beyond the registries.

SHELL := /usr/bin/env bash -o pipefail
.SHELLFLAGS := -ec
export GOTOOLCHAIN := local
export GOFLAGS := -buildvcs=false

# Tool versions.
CONTROLLER_TOOLS_VERSION ?= v0.23.0
KUSTOMIZE_VERSION ?= v5.8.1
GOLANGCI_LINT_VERSION ?= v2.12.2
HELM_VERSION ?= v3.22.0
K8S_VERSION ?= 1.36.3
ETCD_VERSION ?= v3.6.16

BIN := $(CURDIR)/bin
CONTROLLER_GEN := $(BIN)/controller-gen
KUSTOMIZE := $(BIN)/kustomize
GOLANGCI_LINT := $(BIN)/golangci-lint
HELM := $(BIN)/helm

# Images. The chart's appVersion is the single source of the default tag.
VERSION ?= $(shell sed -n 's/^appVersion: *"\{0,1\}\([^"]*\)"\{0,1\}/\1/p' charts/mongobench/Chart.yaml 2>/dev/null)
IMG ?= ghcr.io/mongobench/mongobench:$(VERSION)
LOADER_IMG ?= ghcr.io/mongobench/mongobench-loader:$(VERSION)

GO_TEST_FLAGS ?= -count=1 -timeout 30m

.PHONY: all
all: build

##@ General

.PHONY: help
help: ## Show this help.
	@awk 'BEGIN {FS = ":.*##"; printf "Usage: make <target>\n"} /^[a-zA-Z_0-9-]+:.*?##/ { printf "  %-18s %s\n", $$1, $$2 } /^##@/ { printf "\n%s\n", substr($$0, 5) }' $(MAKEFILE_LIST)

##@ Development

.PHONY: manifests
manifests: controller-gen ## Generate the CRD and RBAC manifests from the API and controller markers.
	$(CONTROLLER_GEN) rbac:roleName=manager-role crd:allowDangerousTypes=true paths="./api/..." paths="./controllers/..." output:crd:artifacts:config=config/crd/bases output:rbac:artifacts:config=config/rbac

.PHONY: generate
generate: controller-gen ## Generate deepcopy code.
	$(CONTROLLER_GEN) object:headerFile="hack/boilerplate.go.txt" paths="./api/..."

.PHONY: verify-generated
verify-generated: manifests generate ## Fail if generated files differ from what is committed.
	@if [ -n "$$(git status --porcelain -- api config charts)" ]; then \
		echo "Generated files are out of date; run 'make manifests generate' and commit:"; \
		git status --porcelain -- api config charts; git --no-pager diff --stat -- api config charts; exit 1; fi

.PHONY: fmt
fmt: ## Run gofmt.
	gofmt -l -w $$(git ls-files '*.go')

.PHONY: vet
vet: ## Run go vet.
	go vet ./...

.PHONY: envtest
envtest: ## Provide the envtest binaries (etcd, kube-apiserver, kubectl) in bin/k8s, building them offline if needed.
	@K8S_VERSION=$(K8S_VERSION) ETCD_VERSION=$(ETCD_VERSION) ./hack/envtest-assets.sh >/dev/null

.PHONY: test
test: verify-generated vet envtest ## Everything CI checks: generated files, vet, unit, wire-server and envtest suites.
	@if [ -n "$$(gofmt -l $$(git ls-files '*.go'))" ]; then echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1; fi
	KUBEBUILDER_ASSETS="$$(K8S_VERSION=$(K8S_VERSION) ./hack/envtest-assets.sh)" go test $(GO_TEST_FLAGS) ./...

.PHONY: lint
lint: golangci-lint ## Run golangci-lint.
	$(GOLANGCI_LINT) run ./...

##@ Build

.PHONY: build
build: ## Build the manager and loader binaries into bin/.
	CGO_ENABLED=0 go build -trimpath -o $(BIN)/manager ./cmd
	CGO_ENABLED=0 go build -trimpath -o $(BIN)/loader ./cmd/loader

##@ Tools

# Tool targets are phony: build-tool.sh is a no-op relink when the pinned
# version is cached, and a version bump in this file takes effect at once.
.PHONY: controller-gen kustomize golangci-lint helm
controller-gen:
	@./hack/build-tool.sh controller-gen sigs.k8s.io/controller-tools $(CONTROLLER_TOOLS_VERSION) sigs.k8s.io/controller-tools/cmd/controller-gen

kustomize:
	@./hack/build-tool.sh kustomize sigs.k8s.io/kustomize/kustomize/v5 $(KUSTOMIZE_VERSION) sigs.k8s.io/kustomize/kustomize/v5

golangci-lint:
	@./hack/build-tool.sh golangci-lint github.com/golangci/golangci-lint/v2 $(GOLANGCI_LINT_VERSION) github.com/golangci/golangci-lint/v2/cmd/golangci-lint

helm:
	@./hack/build-tool.sh helm helm.sh/helm/v3 $(HELM_VERSION) helm.sh/helm/v3/cmd/helm

.PHONY: tools
tools: controller-gen kustomize golangci-lint helm ## Build every pinned tool.
