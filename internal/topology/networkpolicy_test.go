package topology

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// admits reports whether policy np lets a pod labelled from reach a pod
// labelled to on port: the NetworkPolicy semantics for same-namespace pod
// peers (a pod not selected by the policy is not isolated by it).
func admits(t *testing.T, np *networkingv1.NetworkPolicy, from, to map[string]string, port int32) bool {
	t.Helper()
	sel, err := metav1.LabelSelectorAsSelector(&np.Spec.PodSelector)
	if err != nil {
		t.Fatal(err)
	}
	if !sel.Matches(labels.Set(to)) {
		return true
	}
	for _, rule := range np.Spec.Ingress {
		portOK := len(rule.Ports) == 0
		for _, p := range rule.Ports {
			portOK = portOK || (p.Port != nil && p.Port.IntVal == port && (p.Protocol == nil || *p.Protocol == corev1.ProtocolTCP))
		}
		if !portOK {
			continue
		}
		for _, peer := range rule.From {
			if peer.NamespaceSelector != nil || peer.IPBlock != nil {
				t.Fatalf("peer %+v reaches beyond the run's namespace", peer)
			}
			s, err := metav1.LabelSelectorAsSelector(peer.PodSelector)
			if err != nil {
				t.Fatal(err)
			}
			if s.Matches(labels.Set(from)) {
				return true
			}
		}
	}
	return false
}

// TestNetworkPolicySelectors: the policy selects every database pod of
// the run, and admits exactly the run's own pods as the builders label
// them — its database pods and the pods of every Job that connects to
// MongoDB — on every process's port; a pod of another run, a pod of an
// earlier run of the same name, and any other pod of the namespace stay
// out.
func TestNetworkPolicySelectors(t *testing.T) {
	for _, run := range []*benchv1.BenchmarkRun{sharded(2), standalone()} {
		run.Spec.Collection = &benchv1.CollectionSpec{}
		run.Spec.Phases = []benchv1.PhaseSpec{{Name: "load", Type: benchv1.PhaseLoad}, {Name: "run", Type: benchv1.PhaseRun}}
		np := NetworkPolicy(run)
		checkOwner(t, np)
		if np.Name != run.Name+"-db" || np.Namespace != run.Namespace {
			t.Errorf("%s: policy %s/%s", run.Name, np.Namespace, np.Name)
		}
		if len(np.Spec.PolicyTypes) != 1 || np.Spec.PolicyTypes[0] != networkingv1.PolicyTypeIngress || len(np.Spec.Egress) != 0 {
			t.Errorf("%s: policy types %v: only ingress is restricted", run.Name, np.Spec.PolicyTypes)
		}
		var db []corev1.Pod
		for _, p := range Processes(run) {
			db = append(db, *Pod(run, p, NodePlacement{}, cfg))
		}
		clients := map[string]map[string]string{
			"bootstrap": BootstrapJob(run, cfg).Spec.Template.Labels,
			"validator": ValidatorJob(run, cfg).Spec.Template.Labels,
			"loader":    PhaseJob(run, &run.Spec.Phases[1], 0, cfg).Spec.Template.Labels,
		}
		other := sharded(2)
		other.Name, other.UID = "other", "uid-other"
		earlier := run.DeepCopy()
		earlier.UID = "uid-earlier"
		outsiders := map[string]map[string]string{
			"another run's loader":                PhaseJob(other, &run.Spec.Phases[1], 0, cfg).Spec.Template.Labels,
			"another run's mongod":                Pod(other, Processes(other)[0], NodePlacement{}, cfg).Labels,
			"an earlier run of the same name":     BootstrapJob(earlier, cfg).Spec.Template.Labels,
			"a pod that claims the run's name":    {benchv1.LabelRun: run.Name, benchv1.LabelComponent: benchv1.ComponentLoader},
			"a pod of the namespace":              {"app": "curl"},
			"the run's ServiceAccount's identity": RunLabels(run, benchv1.ComponentRBAC),
		}
		for _, to := range db {
			if sel, _ := metav1.LabelSelectorAsSelector(&np.Spec.PodSelector); !sel.Matches(labels.Set(to.Labels)) {
				t.Errorf("%s: the policy does not select database pod %s", run.Name, to.Name)
			}
			port := to.Spec.Containers[0].Ports[0].ContainerPort
			for _, from := range db {
				if !admits(t, np, from.Labels, to.Labels, port) {
					t.Errorf("%s: %s cannot reach %s:%d", run.Name, from.Name, to.Name, port)
				}
			}
			for name, from := range clients {
				if !admits(t, np, from, to.Labels, port) {
					t.Errorf("%s: the %s Job cannot reach %s:%d", run.Name, name, to.Name, port)
				}
			}
			for name, from := range outsiders {
				if admits(t, np, from, to.Labels, port) {
					t.Errorf("%s: %s reaches %s:%d", run.Name, name, to.Name, port)
				}
			}
			if admits(t, np, db[0].Labels, to.Labels, 22) {
				t.Errorf("%s: port 22 of %s is open", run.Name, to.Name)
			}
		}
		if !NetworkPolicyEnabled(run) {
			t.Errorf("%s: security.networkPolicy unset must mean on", run.Name)
		}
		run.Spec.Security = &benchv1.SecuritySpec{NetworkPolicy: ptr.To(false)}
		if NetworkPolicyEnabled(run) {
			t.Errorf("%s: security.networkPolicy false must mean off", run.Name)
		}
	}
}
