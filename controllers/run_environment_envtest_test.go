package controllers_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// TestEnvironmentRecorded: once the topology is ready, status.environment
// holds the node's description, the versions, the database pods' QoS and
// each phase's properties; the fingerprint labels the run; database pods
// that are not Guaranteed raise the Warnings condition and a Warning event.
// A second run of the same spec on a node of the same shape gets the same
// fingerprint.
func TestEnvironmentRecorded(t *testing.T) { //nolint:gocyclo // one scenario, checked field by field
	k := newCluster(t)
	for _, n := range []string{"node-a", "node-b"} {
		node := &corev1.Node{}
		if err := k.c.Get(k.ctx(), client.ObjectKey{Name: n}, node); err != nil {
			t.Fatal(err)
		}
		node.Status.NodeInfo = corev1.NodeSystemInfo{KernelVersion: "6.8.0-test", OSImage: "Ubuntu 24.04 LTS", Architecture: "amd64",
			ContainerRuntimeVersion: "containerd://2.1.0", OperatingSystem: "linux"}
		if err := k.c.Status().Update(k.ctx(), node); err != nil {
			t.Fatal(err)
		}
	}
	startManager(t, &counters{}, testLimits)
	var fps []string
	// env-3 differs from env-1 only in S5's target: the loaders' -target.
	for _, name := range []string{"env-1", "env-2", "env-3"} {
		run := newRun(name, benchv1.TopologyStandalone, 0, 1)
		if name == "env-2" {
			run.Annotations = map[string]string{startupWarningAnnotation: "** WARNING: /sys/kernel/mm/transparent_hugepage/enabled is 'never'"}
		}
		wantTarget := "0" // unthrottled
		if name == "env-3" {
			run.Spec.Phases[2].Target = ptr.To[int64](2000)
			wantTarget = "2000"
		}
		k.create(run)
		k.upToPhase(run, 0)
		r := k.waitRun(name, "environment recorded", func(r *benchv1.BenchmarkRun) bool {
			return r.Status.Environment != nil && r.Status.Environment.Fingerprint != "" && r.Labels[benchv1.LabelFingerprint] != ""
		})
		env := r.Status.Environment
		if env.KubernetesVersion != "v1.36.3-envtest" || env.ManagerVersion != "v0.0.0-test" || env.LoaderImage != loaderImage ||
			!strings.HasPrefix(env.DriverVersion, "v2.") {
			t.Errorf("%s: versions %q %q %q, loader image %q", name, env.KubernetesVersion, env.ManagerVersion, env.DriverVersion, env.LoaderImage)
		}
		if n := env.Node; n == nil || n.Name != r.Status.NodeName || n.KernelVersion != "6.8.0-test" || n.OSImage != "Ubuntu 24.04 LTS" ||
			n.Architecture != "amd64" || n.AllocatableCPU == nil || n.AllocatableCPU.String() != "32" {
			t.Errorf("%s: node %+v", name, n)
		}
		pod := k.pod(name + "-mongod")
		if len(env.DatabasePods) != 1 || env.DatabasePods[0].Pod != pod.Name || env.DatabasePods[0].QOSClass != pod.Status.QOSClass ||
			pod.Status.QOSClass == corev1.PodQOSGuaranteed {
			t.Errorf("%s: database pods %+v (pod QoS %q)", name, env.DatabasePods, pod.Status.QOSClass)
		}
		if len(env.Phases) != 3 || env.Phases[1].Name != "S2" || env.Phases[1].Properties["workload"] != "workloada" ||
			env.Phases[1].Properties["readproportion"] != "0.1" || env.Phases[1].Properties["recordcount"] != "10000" {
			t.Errorf("%s: phases %+v", name, env.Phases)
		}
		// The loaders' flags, under YCSB's names for them.
		if p := env.Phases[2].Properties; len(env.Phases) == 3 && (p["threadcount"] != "16" || p["target"] != wantTarget) {
			t.Errorf("%s: S5 threadcount %q target %q, want 16 %s", name, p["threadcount"], p["target"], wantTarget)
		}
		if r.Labels[benchv1.LabelFingerprint] != env.Fingerprint {
			t.Errorf("%s: label %q, fingerprint %q", name, r.Labels[benchv1.LabelFingerprint], env.Fingerprint)
		}
		if m := env.MongoDB; m == nil || m.Version != "8.0.4" || m.GitVersion != "git-8.0.4" || m.Allocator != "tcmalloc-google" || m.FeatureCompatibilityVersion != "8.0" || m.StorageEngine != "wiredTiger" ||
			len(m.Processes) != 1 || m.Processes[0].Options == "" {
			t.Errorf("%s: mongodb environment %+v", name, m)
		}
		c := cond(r, benchv1.ConditionWarnings)
		if c == nil || c.Status != metav1.ConditionTrue || c.Reason != string(benchv1.ReasonEnvironmentWarnings) ||
			!strings.Contains(c.Message, "not Guaranteed QoS") || !strings.Contains(c.Message, pod.Name) {
			t.Errorf("%s: Warnings condition %+v", name, c)
		}
		// A startup warning is a warning too, quoted in the condition.
		if w := run.Annotations[startupWarningAnnotation]; (w != "" && !strings.Contains(c.Message, "logged 1 startup warnings")) ||
			(w != "" && !strings.Contains(c.Message, w)) || (w == "" && strings.Contains(c.Message, "startup warning")) {
			t.Errorf("%s: Warnings condition %q, startup warning %q", name, c.Message, w)
		}
		k.waitEvent(name, string(benchv1.ReasonEnvironmentWarnings))
		fps = append(fps, env.Fingerprint)
	}
	if fps[0] != fps[1] {
		t.Errorf("two runs of one spec on nodes of one shape: fingerprints %s and %s", fps[0], fps[1])
	}
	if fps[2] == fps[0] {
		t.Errorf("a throttled and an unthrottled run share fingerprint %s", fps[0])
	}
	// Comparable runs are one label selector away.
	var list benchv1.BenchmarkRunList
	if err := k.c.List(k.ctx(), &list, client.InNamespace(k.ns), client.MatchingLabels{benchv1.LabelFingerprint: fps[0]}); err != nil || len(list.Items) != 2 {
		t.Errorf("runs with fingerprint %s: %d, %v", fps[0], len(list.Items), err)
	}
}
