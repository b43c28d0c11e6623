//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/topology"
)

// TestNetworkPolicyKeepsOthersOut: kind's kindnet enforces NetworkPolicies
// (kind 0.24 and later), so the run's NetworkPolicy is in force: the run
// itself succeeds through it (bootstrap, loaders, telemetry), a pod of the
// namespace that is not the run's cannot reach its mongod, and a pod
// labelled as one of the run's loaders can — the control that shows the
// probe itself works.
func TestNetworkPolicyKeepsOthersOut(t *testing.T) {
	s := setup(t)
	run := smallRun("fenced", benchv1.TopologyStandalone, 0)
	run.Spec.Cleanup = benchv1.CleanupRetain // the mongod stays up for the probes
	s.create(run)
	done := s.waitEnd("fenced")
	if done.Status.Phase != benchv1.RunSucceeded {
		t.Fatalf("run failed behind its NetworkPolicy: %s", failure(done))
	}
	insider := map[string]string{benchv1.LabelRunUID: string(done.UID), benchv1.LabelComponent: benchv1.ComponentLoader}
	if got := s.probe("insider", insider, done); got != corev1.PodSucceeded {
		t.Fatalf("a pod labelled as the run's loader could not ping mongod (%s): the probe proves nothing", got)
	}
	if got := s.probe("outsider", map[string]string{"app": "curious"}, done); got != corev1.PodFailed {
		t.Errorf("a pod that is not the run's pinged its mongod (%s): the NetworkPolicy is not in force", got)
	}
}

// probe runs a pod with the given labels that pings the run's entry
// Service with mongosh, and returns how it ended.
func (s *suite) probe(name string, labels map[string]string, run *benchv1.BenchmarkRun) corev1.PodPhase {
	s.t.Helper()
	uri := fmt.Sprintf("mongodb://%s:%d/?serverSelectionTimeoutMS=15000&connectTimeoutMS=5000", topology.EntryServiceName(run), topology.PortMongod)
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: s.ns, Labels: labels},
		Spec: corev1.PodSpec{
			RestartPolicy:                corev1.RestartPolicyNever,
			AutomountServiceAccountToken: ptr.To(false),
			SecurityContext: &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To[int64](topology.MongoUID),
				SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
			Containers: []corev1.Container{{
				Name:  "mongosh",
				Image: run.Spec.Topology.Image,
				// mongosh exits non-zero when it cannot connect.
				Command: []string{"mongosh", "--quiet", "--norc", uri, "--eval", "db.runCommand({ping: 1}).ok"},
				Env:     []corev1.EnvVar{{Name: "HOME", Value: "/tmp"}},
				SecurityContext: &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false),
					Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}},
			}},
		},
	}
	if err := s.c.Create(context.Background(), pod); err != nil {
		s.t.Fatal(err)
	}
	s.wait("probe pod "+name+" to end", 3*time.Minute, func() bool {
		if err := s.c.Get(context.Background(), client.ObjectKeyFromObject(pod), pod); err != nil {
			s.t.Fatal(err)
		}
		return pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed
	})
	return pod.Status.Phase
}
