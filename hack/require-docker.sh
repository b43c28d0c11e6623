#!/usr/bin/env bash
# Fails fast, with what is missing, when no usable Docker engine is here:
# `make demo`, `make test-e2e` and the image builds need one (the client alone
# is not enough).
set -euo pipefail
what=${1:-this target}
if ! command -v docker >/dev/null 2>&1; then
  echo "error: $what needs Docker (a running engine) and there is no docker command on PATH." >&2
  echo "       Install Docker, or run 'make test', which needs neither Docker nor internet." >&2
  exit 2
fi
if ! out=$(docker info --format '{{.ServerVersion}}' 2>&1); then
  echo "error: $what needs a running Docker engine, but 'docker info' failed:" >&2
  echo "$out" | sed '/^[[:space:]]*$/d; s/^/       /' >&2
  echo "       Start the Docker daemon (or fix DOCKER_HOST), or run 'make test', which needs neither." >&2
  exit 2
fi
