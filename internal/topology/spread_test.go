package topology

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// describeAffinity renders a pod's affinity as sorted one-line terms, so a
// table can say exactly which terms a pod has and no others.
func describeAffinity(a *corev1.Affinity) []string {
	if a == nil {
		return nil
	}
	var out []string
	if a.PodAntiAffinity != nil {
		for _, t := range a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
			sel, err := metav1.LabelSelectorAsSelector(t.LabelSelector)
			if err != nil {
				out = append(out, "bad selector: "+err.Error())
				continue
			}
			scope := "own namespace"
			if t.NamespaceSelector != nil {
				scope = "every namespace"
			}
			out = append(out, fmt.Sprintf("anti %s over %s in %s", sel, t.TopologyKey, scope))
		}
		if len(a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0 {
			out = append(out, "preferred anti-affinity")
		}
	}
	if a.PodAffinity != nil {
		out = append(out, "pod affinity")
	}
	if a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		for _, t := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
			for _, e := range t.MatchExpressions {
				out = append(out, fmt.Sprintf("node %s %s %v", e.Key, e.Operator, e.Values))
			}
		}
	}
	slices.Sort(out)
	return out
}

func TestSpreadAffinity(t *testing.T) {
	const (
		exclusive = "anti bench.mongobench.io/run-uid,bench.mongobench.io/run-uid notin (uid-1) over kubernetes.io/hostname in every namespace"
		byHost    = "anti bench.mongobench.io/data-bearing=true,bench.mongobench.io/run-uid=uid-1 over kubernetes.io/hostname in own namespace"
		byZone    = "anti bench.mongobench.io/data-bearing=true,bench.mongobench.io/run-uid=uid-1 over topology.kubernetes.io/zone in own namespace"
		hasZone   = "node topology.kubernetes.io/zone Exists []"
	)
	cases := []struct {
		name   string
		run    func() *benchv1.BenchmarkRun
		np     NodePlacement
		byRole map[benchv1.ProcessRole][]string
	}{
		{"SameNode standalone: exclusive only", standalone, NodePlacement{}, map[benchv1.ProcessRole][]string{
			benchv1.RoleStandalone: {exclusive}}},
		{"Spread standalone: one member, still spread by its label", spreadRun(standalone, ""), NodePlacement{}, map[benchv1.ProcessRole][]string{
			benchv1.RoleStandalone: {byHost, exclusive}}},
		{"Spread sharded: each shard apart, config server and mongos free", spreadRun(func() *benchv1.BenchmarkRun { return sharded(3) }, ""), NodePlacement{},
			map[benchv1.ProcessRole][]string{
				benchv1.RoleConfigServer: {exclusive},
				benchv1.RoleShard:        {byHost, exclusive},
				benchv1.RoleMongos:       {exclusive},
			}},
		{"Spread by zone: only on nodes that have a zone", spreadRun(func() *benchv1.BenchmarkRun { return sharded(2) }, "topology.kubernetes.io/zone"), NodePlacement{},
			map[benchv1.ProcessRole][]string{
				benchv1.RoleConfigServer: {exclusive},
				benchv1.RoleShard:        {byZone, exclusive, hasZone},
				benchv1.RoleMongos:       {exclusive},
			}},
		{"Spread, not exclusive", func() *benchv1.BenchmarkRun {
			r := spreadRun(func() *benchv1.BenchmarkRun { return sharded(2) }, "")()
			r.Spec.Placement.Exclusive = ptr.To(false)
			return r
		}, NodePlacement{}, map[benchv1.ProcessRole][]string{
			benchv1.RoleConfigServer: nil,
			benchv1.RoleShard:        {byHost},
			benchv1.RoleMongos:       nil,
		}},
	}
	for _, c := range cases {
		run := c.run()
		for _, p := range Processes(run) {
			pod := Pod(run, p, c.np, cfg)
			want := c.byRole[p.Role]
			if got := describeAffinity(pod.Spec.Affinity); !slices.Equal(got, want) {
				t.Errorf("%s: %s:\n got  %s\n want %s", c.name, p.Name, strings.Join(got, "; "), strings.Join(want, "; "))
			}
			if want == nil && pod.Spec.Affinity != nil {
				t.Errorf("%s: %s: affinity %+v, want none", c.name, p.Name, pod.Spec.Affinity)
			}
			if Spread(run) && pod.Spec.NodeSelector[HostnameLabel] != "" {
				t.Errorf("%s: %s pinned to %s", c.name, p.Name, pod.Spec.NodeSelector[HostnameLabel])
			}
		}
	}
}

// TestSpreadSelectorMatchesEveryDataBearingPod proves the anti-affinity's
// selector against the labels the builders put on pods: it must select
// every data-bearing pod of the run, and no other pod (its own mongos or
// config server, its loaders, another run's pods).
func TestSpreadSelectorMatchesEveryDataBearingPod(t *testing.T) {
	run := spreadRun(func() *benchv1.BenchmarkRun { return sharded(3) }, "")()
	sel := labels.SelectorFromSet(DataBearingSelector(run))
	other := run.DeepCopy()
	other.UID = "uid-2"
	for _, r := range []*benchv1.BenchmarkRun{run, other} {
		for _, p := range Processes(r) {
			pod := Pod(r, p, NodePlacement{}, cfg)
			want := r == run && (p.Role == benchv1.RoleShard || p.Role == benchv1.RoleStandalone)
			if got := sel.Matches(labels.Set(pod.Labels)); got != want {
				t.Errorf("run %s, pod %s: selected %v, want %v", r.UID, p.Name, got, want)
			}
		}
	}
	sa := spreadRun(standalone, "")()
	if !sel.Matches(labels.Set(Pod(sa, Processes(sa)[0], NodePlacement{}, cfg).Labels)) {
		t.Errorf("the standalone mongod is not selected as data-bearing")
	}
	loader := PhaseJob(issueExample(), &issueExample().Spec.Phases[0], 0, cfg).Spec.Template.Labels
	if sel.Matches(labels.Set(loader)) {
		t.Errorf("a loader pod is selected as data-bearing: %v", loader)
	}
}

func spreadRun(base func() *benchv1.BenchmarkRun, key string) func() *benchv1.BenchmarkRun {
	return func() *benchv1.BenchmarkRun {
		r := base()
		r.Spec.Placement.Layout = benchv1.LayoutSpread
		r.Spec.Placement.SpreadTopologyKey = key
		return r
	}
}

// TestNodeDiskVolume: what each process's volume on its node's disk may
// grow to, the one rule NodeDiskVolumes (SameNode: all of them on one
// node) and a Spread run's check (each on a node of its own) share.
// storage.size is 5Gi and the oplog 1Gi throughout.
func TestNodeDiskVolume(t *testing.T) {
	withStorage := func(r *benchv1.BenchmarkRun, medium benchv1.StorageMedium) *benchv1.BenchmarkRun {
		r.Spec.Topology.Storage.Size = ptr.To(resource.MustParse("5Gi"))
		r.Spec.Topology.Storage.Medium = medium
		return r
	}
	for _, tc := range []struct {
		name string
		run  *benchv1.BenchmarkRun
		// want by role; total is NodeDiskVolumes.
		want  map[benchv1.ProcessRole]string
		total string
	}{
		{"standalone on Disk: storage.size, no oplog", withStorage(standalone(), ""),
			map[benchv1.ProcessRole]string{benchv1.RoleStandalone: "5Gi"}, "5Gi"},
		{"sharded on Disk: each shard with its oplog, the config server, not mongos", withStorage(sharded(2), benchv1.StorageDisk),
			map[benchv1.ProcessRole]string{benchv1.RoleShard: "6Gi", benchv1.RoleConfigServer: "3Gi", benchv1.RoleMongos: "0"}, "15Gi"},
		{"sharded in Memory: only the config server's is on the disk", withStorage(sharded(2), benchv1.StorageMemory),
			map[benchv1.ProcessRole]string{benchv1.RoleShard: "0", benchv1.RoleConfigServer: "3Gi", benchv1.RoleMongos: "0"}, "3Gi"},
		{"sharded on claims: only the config server's is on the disk", withStorage(sharded(2), benchv1.StoragePersistentVolume),
			map[benchv1.ProcessRole]string{benchv1.RoleShard: "0", benchv1.RoleConfigServer: "3Gi", benchv1.RoleMongos: "0"}, "3Gi"},
		{"replica set on Disk: each member with its oplog", withStorage(replicaSet(ptr.To[int32](3)), ""),
			map[benchv1.ProcessRole]string{benchv1.RoleMember: "6Gi"}, "18Gi"},
	} {
		for _, p := range Processes(tc.run) {
			want, ok := tc.want[p.Role]
			if !ok {
				t.Fatalf("%s: no want for %s", tc.name, p.Role)
			}
			if got := NodeDiskVolume(tc.run, p); got.Cmp(resource.MustParse(want)) != 0 {
				t.Errorf("%s: %s: NodeDiskVolume %s, want %s", tc.name, p.Name, got.String(), want)
			}
		}
		if got := NodeDiskVolumes(tc.run); got.Cmp(resource.MustParse(tc.total)) != 0 {
			t.Errorf("%s: NodeDiskVolumes %s, want %s", tc.name, got.String(), tc.total)
		}
	}
}
