package topology

import (
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// NetworkPolicyEnabled reports whether a run fences its database pods off
// with a NetworkPolicy (security.networkPolicy, default true).
func NetworkPolicyEnabled(run *benchv1.BenchmarkRun) bool {
	sec := run.Spec.Security
	return sec == nil || sec.NetworkPolicy == nil || *sec.NetworkPolicy
}

// NetworkPolicyName names a run's NetworkPolicy: the headless Service's
// name, the other object that selects the run's database pods.
func NetworkPolicyName(run *benchv1.BenchmarkRun) string { return HeadlessServiceName(run) }

// DatabaseClientComponents are the components (benchv1.LabelComponent) of
// the run's Jobs, every one of which connects to MongoDB: the bootstrap,
// the validator (collMod) and the phases' loaders (loader 0 samples the
// telemetry too). A new kind of Job that talks to MongoDB goes here, or
// the NetworkPolicy keeps it out.
var DatabaseClientComponents = []string{benchv1.ComponentBootstrap, benchv1.ComponentValidator, benchv1.ComponentLoader}

// NetworkPolicy admits ingress to the run's database pods only from the
// run's own pods: the database pods themselves (mongos to the config
// server and shards, the members to each other) and its Jobs' pods, on
// the MongoDB ports. Peers are selected by the run's UID, not its name:
// a pod left over from an earlier run of the same name, or any pod that
// merely claims the run's name, is not let in. Only ingress is
// restricted: the database pods' DNS and the Jobs' API calls are
// untouched. The kubelet's TCP probes come from the node, which a
// NetworkPolicy always allows (Kubernetes' NetworkPolicy documentation).
// Where the network plugin does not enforce NetworkPolicies the object is
// inert.
func NetworkPolicy(run *benchv1.BenchmarkRun) *networkingv1.NetworkPolicy {
	uid := string(run.UID)
	tcp := corev1.ProtocolTCP
	mongoPorts := []int32{PortMongod, PortShard, PortConfigServer}
	ports := make([]networkingv1.NetworkPolicyPort, 0, len(mongoPorts))
	for _, p := range mongoPorts {
		ports = append(ports, networkingv1.NetworkPolicyPort{Protocol: &tcp, Port: ptrIntOrString(p)})
	}
	return &networkingv1.NetworkPolicy{
		ObjectMeta: objectMeta(run, NetworkPolicyName(run), RunLabels(run, benchv1.ComponentNetwork)),
		Spec: networkingv1.NetworkPolicySpec{
			PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{benchv1.LabelRunUID: uid, benchv1.LabelDatabase: "true"}},
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
			Ingress: []networkingv1.NetworkPolicyIngressRule{{
				Ports: ports,
				// No namespaceSelector: peers are in the policy's namespace,
				// the run's.
				From: []networkingv1.NetworkPolicyPeer{
					{PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{benchv1.LabelRunUID: uid, benchv1.LabelDatabase: "true"}}},
					{PodSelector: &metav1.LabelSelector{
						MatchLabels: map[string]string{benchv1.LabelRunUID: uid},
						MatchExpressions: []metav1.LabelSelectorRequirement{{
							Key: benchv1.LabelComponent, Operator: metav1.LabelSelectorOpIn, Values: DatabaseClientComponents,
						}},
					}},
				},
			}},
		},
	}
}

func ptrIntOrString(port int32) *intstr.IntOrString {
	v := intstr.FromInt32(port)
	return &v
}
