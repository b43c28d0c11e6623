// Package k8sresult creates the ConfigMaps in which the loader's Jobs
// report their results, through the Kubernetes API with net/http alone: the
// loader image carries no client-go, and all it needs is a POST that RBAC
// allows (create configmaps) and, at a phase's start barrier, a GET of the
// one ConfigMap the Job's Role names (get, by resourceName).
//
// A Job must not run twice, so a ConfigMap that already exists is an error
// (ErrAlreadyExists) — except when an earlier attempt of the same Create
// may have succeeded without us seeing the answer (a network error or a
// 5xx after the request was sent): then AlreadyExists means that attempt
// went through.
package k8sresult
