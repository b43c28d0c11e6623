# syntax=docker/dockerfile:1.7
# Manager image: a static binary on distroless/static, running as nonroot.
# Build from the repository root: make docker-build (or docker build .).
# For reproducible releases pin the base images by digest in CI
# (e.g. golang:1.26.8@sha256:..., distroless/static-debian12:nonroot@sha256:...).
ARG GO_VERSION=1.26.8

FROM --platform=$BUILDPLATFORM golang:${GO_VERSION} AS build
# BuildKit sets these to the platform being built (--platform, or the
# engine's own). No defaults: a defaulted platform ARG keeps its default
# (docker/buildx#510), and an arm64 image would wrap amd64 binaries.
ARG TARGETOS TARGETARCH
ARG VERSION=v0.1.0
WORKDIR /src
ENV GOTOOLCHAIN=local GOFLAGS=-buildvcs=false CGO_ENABLED=0
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY api/ api/
COPY cmd/ cmd/
COPY controllers/ controllers/
COPY internal/ internal/
COPY workloads/ workloads/
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    GOOS=$TARGETOS GOARCH=$TARGETARCH go build -trimpath \
      -ldflags "-s -w -X github.com/mongobench/mongobench/internal/version.Version=${VERSION}" \
      -o /out/manager ./cmd

FROM gcr.io/distroless/static-debian12:nonroot
ARG VERSION=v0.1.0
LABEL org.opencontainers.image.title="mongobench" \
      org.opencontainers.image.description="Kubernetes operator that runs YCSB benchmarks against MongoDB topologies it provisions" \
      org.opencontainers.image.source="https://github.com/mongobench/mongobench" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.version="${VERSION}"
COPY --from=build /out/manager /manager
USER 65532:65532
ENTRYPOINT ["/manager"]
