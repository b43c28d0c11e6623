package kube

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Kubelet is a fake kubelet's log endpoint. The API server serves the
// pods/log subresource by calling the kubelet of the pod's node at the
// address and port the Node's status gives (without a CA configured it
// does not verify the kubelet's certificate), so with a Node pointing at
// this server, `GET pods/{name}/log` works against envtest as in a real
// cluster — through the real API server, its RBAC and its parameters.
type Kubelet struct {
	srv  *httptest.Server
	mu   sync.Mutex
	logs map[string]string
	// Requests counts log requests, for tests that must not read twice.
	requests int
}

// StartKubelet starts the fake kubelet; Close it when done.
func StartKubelet() *Kubelet {
	k := &Kubelet{logs: map[string]string{}}
	k.srv = httptest.NewTLSServer(http.HandlerFunc(k.serve))
	return k
}

// Close stops the server.
func (k *Kubelet) Close() { k.srv.Close() }

func logKey(namespace, pod, container string, previous bool) string {
	return fmt.Sprintf("%s/%s/%s/%t", namespace, pod, container, previous)
}

// SetLog sets what the container's log (of its previous instance when
// previous) holds.
func (k *Kubelet) SetLog(namespace, pod, container string, previous bool, text string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.logs[logKey(namespace, pod, container, previous)] = text
}

// Requests returns how many log requests were served.
func (k *Kubelet) Requests() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.requests
}

// serve answers GET /containerLogs/{namespace}/{pod}/{container} with
// the kubelet's tailLines and previous parameters.
func (k *Kubelet) serve(w http.ResponseWriter, req *http.Request) {
	parts := strings.Split(strings.TrimPrefix(req.URL.Path, "/containerLogs/"), "/")
	if !strings.HasPrefix(req.URL.Path, "/containerLogs/") || len(parts) != 3 {
		http.NotFound(w, req)
		return
	}
	q := req.URL.Query()
	previous := q.Get("previous") == "true"
	k.mu.Lock()
	k.requests++
	text, ok := k.logs[logKey(parts[0], parts[1], parts[2], previous)]
	k.mu.Unlock()
	if !ok {
		http.Error(w, fmt.Sprintf("container %q in pod %q is not found (previous=%t)", parts[2], parts[1], previous), http.StatusNotFound)
		return
	}
	if n, err := strconv.Atoi(q.Get("tailLines")); err == nil && n >= 0 {
		lines := strings.SplitAfter(text, "\n")
		if lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
		if len(lines) > n {
			text = strings.Join(lines[len(lines)-n:], "")
		}
	}
	_, _ = w.Write([]byte(text))
}

// NodeStatus is the status of a Ready node with the given allocatable
// resources whose kubelet is this fake one.
func (k *Kubelet) NodeStatus(allocatable corev1.ResourceList) corev1.NodeStatus {
	host, port, _ := net.SplitHostPort(k.srv.Listener.Addr().String())
	p, _ := strconv.Atoi(port)
	now := metav1.Now()
	return corev1.NodeStatus{
		Capacity:    allocatable,
		Allocatable: allocatable,
		Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
			LastHeartbeatTime: now, LastTransitionTime: now}},
		Addresses:       []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: host}},
		DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: int32(p)}},
	}
}

// Resources is a shorthand for a node's allocatable resources.
func Resources(cpu, memory string) corev1.ResourceList {
	return corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse(cpu),
		corev1.ResourceMemory: resource.MustParse(memory),
		corev1.ResourcePods:   resource.MustParse("110"),
	}
}
