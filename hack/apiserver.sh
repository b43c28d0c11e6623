#!/usr/bin/env bash
# Starts a real etcd + kube-apiserver (the envtest binaries) for manual checks
# and install tests, and writes a kubeconfig. Usage:
#   eval "$(hack/apiserver.sh start DIR)"   # exports KUBECONFIG, APISERVER_PIDS
#   hack/apiserver.sh stop DIR
# Everything lives in DIR; "stop" kills both processes.
set -euo pipefail

cmd=${1:?usage: apiserver.sh start|stop DIR}
dir=${2:?usage: apiserver.sh start|stop DIR}
root=$(cd "$(dirname "$0")/.." && pwd)

if [ "$cmd" = stop ]; then
  for f in "$dir"/*.pid; do
    [ -f "$f" ] || continue
    kill "$(cat "$f")" 2>/dev/null || true
  done
  for f in "$dir"/*.pid; do
    [ -f "$f" ] || continue
    pid=$(cat "$f")
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$f"
  done
  exit 0
fi

assets=$(K8S_VERSION=${K8S_VERSION:-1.36.3} "$root/hack/envtest-assets.sh")
mkdir -p "$dir/etcd" "$dir/certs"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
etcd_port=$(free_port); peer_port=$(free_port); api_port=$(free_port)

"$assets/etcd" --data-dir "$dir/etcd" --listen-client-urls "http://127.0.0.1:$etcd_port" \
  --advertise-client-urls "http://127.0.0.1:$etcd_port" --listen-peer-urls "http://127.0.0.1:$peer_port" \
  --unsafe-no-fsync >"$dir/etcd.log" 2>&1 &
echo $! >"$dir/etcd.pid"

openssl genrsa -out "$dir/certs/sa.key" 2048 2>/dev/null
openssl rsa -in "$dir/certs/sa.key" -pubout -out "$dir/certs/sa.pub" 2>/dev/null
token=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
echo "$token,admin,admin-uid,\"system:masters\"" >"$dir/tokens.csv"

"$assets/kube-apiserver" --etcd-servers "http://127.0.0.1:$etcd_port" --cert-dir "$dir/certs" \
  --secure-port "$api_port" --bind-address 127.0.0.1 --advertise-address 127.0.0.1 \
  --service-account-issuer https://kubernetes.default.svc --service-account-key-file "$dir/certs/sa.pub" \
  --service-account-signing-key-file "$dir/certs/sa.key" --authorization-mode RBAC \
  --token-auth-file "$dir/tokens.csv" --service-cluster-ip-range 10.96.0.0/16 \
  --disable-admission-plugins ServiceAccount >"$dir/apiserver.log" 2>&1 &
echo $! >"$dir/apiserver.pid"

cat >"$dir/kubeconfig" <<KCFG
apiVersion: v1
kind: Config
clusters:
- name: test
  cluster: {server: "https://127.0.0.1:$api_port", insecure-skip-tls-verify: true}
users:
- name: admin
  user: {token: "$token"}
contexts:
- name: test
  context: {cluster: test, user: admin}
current-context: test
KCFG

# /readyz turns ok after the RBAC bootstrap (up to a minute on a busy machine).
for _ in $(seq 1 240); do
  if "$assets/kubectl" --kubeconfig "$dir/kubeconfig" get --raw /readyz >/dev/null 2>&1; then
    echo "export KUBECONFIG=$dir/kubeconfig KUBECTL=$assets/kubectl"
    exit 0
  fi
  kill -0 "$(cat "$dir/apiserver.pid")" 2>/dev/null || { echo "kube-apiserver exited:" >&2; tail -20 "$dir/apiserver.log" >&2; exit 1; }
  sleep 0.5
done
echo "kube-apiserver not ready after 2 minutes:" >&2
tail -20 "$dir/apiserver.log" >&2
exit 1
