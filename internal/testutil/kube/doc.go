// Package kube starts a real kube-apiserver and etcd (envtest) for tests, with
// the project's CRDs installed. The binaries come from hack/envtest-assets.sh
// (built from module sources on offline machines); tests fail, never skip,
// when they are missing, with the command that provides them.
package kube
