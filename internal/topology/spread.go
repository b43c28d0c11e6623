package topology

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// Spread reports whether the run's layout is Spread: each data-bearing
// mongod on a node (a SpreadTopologyKey domain) of its own.
func Spread(run *benchv1.BenchmarkRun) bool {
	return run.Spec.Placement.Layout == benchv1.LayoutSpread
}

// SpreadTopologyKey is the node label whose values a Spread run's
// data-bearing mongods do not share: placement.spreadTopologyKey, or the
// hostname label.
func SpreadTopologyKey(run *benchv1.BenchmarkRun) string {
	if k := run.Spec.Placement.SpreadTopologyKey; k != "" {
		return k
	}
	return HostnameLabel
}

// DataBearing reports whether process p holds the benchmark's data.
// Every role but mongos and the config server does, so a role added later
// (a replica-set member) is spread without touching this function.
func DataBearing(p Process) bool {
	return p.Role != benchv1.RoleMongos && p.Role != benchv1.RoleConfigServer
}

// DataBearingSelector selects the data-bearing pods of the run, by UID:
// a run of the same name in another namespace, or an earlier one, is
// another run.
func DataBearingSelector(run *benchv1.BenchmarkRun) map[string]string {
	return map[string]string{benchv1.LabelRunUID: string(run.UID), benchv1.LabelDataBearing: "true"}
}

// spreadAffinity adds a Spread run's constraints to a data-bearing pod's
// affinity a:
//   - required pod anti-affinity, over SpreadTopologyKey, against the
//     run's other data-bearing pods (a label selector, not a list of
//     names, so every member a topology adds is covered);
//   - required node affinity to nodes that carry SpreadTopologyKey: the
//     scheduler ignores an anti-affinity term on a node without the term's
//     topology key (interpodaffinity's filter only counts matching pods
//     in the node's domain), so two members could otherwise share such a
//     node.
//
// Nothing else is pinned: unlike SameNode, no pod follows another.
func spreadAffinity(run *benchv1.BenchmarkRun, a *corev1.Affinity) {
	key := SpreadTopologyKey(run)
	if a.PodAntiAffinity == nil {
		a.PodAntiAffinity = &corev1.PodAntiAffinity{}
	}
	a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution,
		corev1.PodAffinityTerm{
			LabelSelector: &metav1.LabelSelector{MatchLabels: DataBearingSelector(run)},
			TopologyKey:   key,
		})
	if key == HostnameLabel {
		return // every node has it (the kubelet sets it)
	}
	a.NodeAffinity = &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
			{Key: key, Operator: corev1.NodeSelectorOpExists},
		}}},
	}}
}
