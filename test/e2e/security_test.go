//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
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
	phase, _ := s.mongoshProbe(name, labels, run, nil, "db.runCommand({ping: 1}).ok")
	return phase
}

// mongoshProbe runs a pod with the given labels and environment that
// connects mongosh, without credentials, to the run's entry Service and
// evaluates script; it returns how the pod ended and, when it failed, its
// last log lines (the termination message).
func (s *suite) mongoshProbe(name string, labels map[string]string, run *benchv1.BenchmarkRun, env []corev1.EnvVar,
	script string) (corev1.PodPhase, string) {
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
				// mongosh exits non-zero when it cannot connect, or when
				// the script quits so.
				Command: []string{"mongosh", "--quiet", "--norc", uri, "--eval", script},
				Env:     append([]corev1.EnvVar{{Name: "HOME", Value: "/tmp"}}, env...),
				SecurityContext: &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false),
					Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}},
				TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
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
	var msg string
	for _, cs := range pod.Status.ContainerStatuses {
		if t := cs.State.Terminated; t != nil {
			msg = t.Message
		}
	}
	return pod.Status.Phase, msg
}

// findCode is a mongosh script that reads one document of the benchmark
// collection, prints the server's error code (0: it read) and exits 0
// only when that code is want. mongosh's runCommand throws a command's
// error (or, in some versions, returns it with ok 0): both are read.
// Before the find, auth, when not empty, is evaluated (db.auth).
func findCode(auth string, want int) string {
	return fmt.Sprintf(`%s
let code;
try {
  const r = db.getSiblingDB(%q).runCommand({find: %q, limit: 1});
  code = r.ok ? 0 : r.code;
} catch (e) {
  code = e.code;
}
print("find code " + code);
quit(code === %d ? 0 : 1);`, auth, topology.Database, topology.Collection, want)
}

// TestAuthKeepsTheUnauthenticatedOut: a sharded run with security.auth
// succeeds end to end against real MongoDB — the bootstrap as the cluster
// (the keyfile), the loaders and the validator as the admin user,
// telemetry of every process as the monitor user (checkResults wants
// samples without errors from each). Then, from a pod of the run's
// namespace that the NetworkPolicy admits (labelled as one of the run's
// loaders) but that has no credentials: ping works, which needs no
// authentication (mongodb/mongo src/mongo/db/commands/generic.cpp,
// PingCommand::requiresAuth false), and a find on ycsb.usertable fails
// with Unauthorized, 13 (src/mongo/db/commands.cpp: "Command find
// requires authentication"; src/mongo/base/error_codes.yml); the same
// pod with the admin user's credentials from the run's Secret reads —
// the control that shows 13 is about the credentials, not the probe.
// No password appears in the run's status or events.
func TestAuthKeepsTheUnauthenticatedOut(t *testing.T) {
	s := setup(t)
	run := smallRun("authed", benchv1.TopologySharded, 2)
	run.Spec.Security = &benchv1.SecuritySpec{Auth: true}
	run.Spec.Collection = &benchv1.CollectionSpec{Validator: runtime.RawExtension{Raw: []byte(`{"$jsonSchema": {"bsonType": "object"}}`)},
		ValidationLevel: "moderate", ValidationAction: "warn"}
	run.Spec.Cleanup = benchv1.CleanupRetain // the processes stay up for the probes
	s.create(run)
	done := s.waitEnd("authed")
	if done.Status.Phase != benchv1.RunSucceeded {
		t.Fatalf("run with security.auth failed: %s", failure(done))
	}
	s.checkResults(done)
	for _, p := range s.pods(client.MatchingLabels{benchv1.LabelRun: "authed", benchv1.LabelDatabase: "true"}) {
		if !slices.Contains(p.Spec.Containers[0].Args, "--keyFile") {
			t.Errorf("%s runs without --keyFile: %v", p.Name, p.Spec.Containers[0].Args)
		}
	}

	insider := map[string]string{benchv1.LabelRunUID: string(done.UID), benchv1.LabelComponent: benchv1.ComponentLoader}
	if got, msg := s.mongoshProbe("ping-anonymous", insider, done, nil, "db.runCommand({ping: 1}).ok"); got != corev1.PodSucceeded {
		t.Fatalf("an unauthenticated ping from a pod of the run failed (%s): the find below proves nothing\n%s", got, msg)
	}
	if got, msg := s.mongoshProbe("find-anonymous", insider, done, nil, findCode("", 13)); got != corev1.PodSucceeded {
		t.Errorf("a find on %s without credentials did not fail with Unauthorized (13) (%s):\n%s", topology.Namespace, got, msg)
	}
	fromSecret := func(name, key string) corev1.EnvVar {
		return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: topology.AdminSecretName(done)}, Key: key}}}
	}
	env := []corev1.EnvVar{fromSecret("U", topology.AdminUsernameKey), fromSecret("P", topology.AdminPasswordKey)}
	login := `db.getSiblingDB("admin").auth(process.env.U, process.env.P);`
	if got, msg := s.mongoshProbe("find-admin", insider, done, env, findCode(login, 0)); got != corev1.PodSucceeded {
		t.Errorf("a find on %s as the run's admin user failed (%s):\n%s", topology.Namespace, got, msg)
	}

	admin := &corev1.Secret{}
	if err := s.c.Get(context.Background(), client.ObjectKey{Namespace: s.ns, Name: topology.AdminSecretName(done)}, admin); err != nil {
		t.Fatal(err)
	}
	var events corev1.EventList
	if err := s.c.List(context.Background(), &events, client.InNamespace(s.ns)); err != nil {
		t.Fatal(err)
	}
	for what, v := range map[string]any{"status": done.Status, "events": events.Items} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		for _, key := range []string{topology.AdminPasswordKey, topology.MonitorPasswordKey} {
			if strings.Contains(string(b), string(admin.Data[key])) {
				t.Errorf("the run's %s carries the %s", what, key)
			}
		}
	}
}
