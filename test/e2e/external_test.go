//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/topology"
)

// externalMongo is a MongoDB that mongobench did not deploy: a plain
// one-pod StatefulSet of the official image with a root user (the image's
// entrypoint creates MONGO_INITDB_ROOT_USERNAME with _PASSWORD on an
// empty /data/db), under the namespace's restricted Pod Security.
const externalMongo = "plain-mongo"

func (s *suite) deployExternalMongo(password string) {
	s.t.Helper()
	ctx := context.Background()
	root := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: externalMongo + "-root", Namespace: s.ns},
		StringData: map[string]string{"username": "root", "password": password}}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: externalMongo, Namespace: s.ns},
		Spec: corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone, Selector: map[string]string{"app": externalMongo},
			Ports: []corev1.ServicePort{{Name: "mongodb", Port: 27017}}}}
	env := func(name, key string) corev1.EnvVar {
		return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: root.Name}, Key: key}}}
	}
	sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: externalMongo, Namespace: s.ns},
		Spec: appsv1.StatefulSetSpec{ServiceName: externalMongo, Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": externalMongo}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": externalMongo}},
				Spec: corev1.PodSpec{
					SecurityContext: &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To[int64](999), FSGroup: ptr.To[int64](999),
						SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
					Containers: []corev1.Container{{Name: "mongod", Image: "mongo:8.0.16", Args: []string{"--wiredTigerCacheSizeGB", "0.25"},
						Env:   []corev1.EnvVar{env("MONGO_INITDB_ROOT_USERNAME", "username"), env("MONGO_INITDB_ROOT_PASSWORD", "password")},
						Ports: []corev1.ContainerPort{{ContainerPort: 27017}},
						ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(27017)}},
							PeriodSeconds: 2},
						SecurityContext: &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false),
							Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}},
						VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/data/db"}, {Name: "tmp", MountPath: "/tmp"}}}},
					Volumes: []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
						{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
				}}}}
	for _, o := range []client.Object{root, svc, sts} {
		if err := s.c.Create(ctx, o); err != nil {
			s.t.Fatal(err)
		}
	}
	s.wait("the plain MongoDB to be ready", 5*time.Minute, func() bool {
		p := &corev1.Pod{}
		if err := s.c.Get(ctx, client.ObjectKey{Namespace: s.ns, Name: externalMongo + "-0"}, p); err != nil {
			return false
		}
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
				return true
			}
		}
		return false
	})
}

// externalEval runs mongosh in the plain MongoDB's pod as root and returns
// its last line.
func (s *suite) externalEval(kubectl, password, expr string) string {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out string
	// The entrypoint restarts mongod once after creating the user: retry
	// until it answers, within the deadline.
	for {
		cmd := exec.CommandContext(ctx, kubectl, "-n", s.ns, "exec", externalMongo+"-0", "-c", "mongod", "--",
			"env", "HOME=/tmp", "mongosh", "--quiet", "--norc", "-u", "root", "-p", password, "--authenticationDatabase", "admin", "--eval", expr)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		if err == nil {
			lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
			return strings.TrimSpace(lines[len(lines)-1])
		}
		out = stdout.String() + stderr.String()
		if ctx.Err() != nil {
			s.t.Fatalf("mongosh --eval %s: %v\n%s", expr, err, out)
		}
		time.Sleep(2 * time.Second) // poll interval, bounded by ctx
	}
}

// TestExternal: a run against a MongoDB that a plain StatefulSet deployed,
// through a Secret with its connection string. A database and collection
// that existed before (shop.orders) survive every run and cleanup: a run
// on its own database (Delete: dropped afterwards), a run refused on shop
// (TargetNotEmpty), and a run allowed onto shop (Delete: shop is not the
// run's, so it stays). No password appears in any run's status or events.
func TestExternal(t *testing.T) {
	s := setup(t)
	kubectl := os.Getenv("E2E_KUBECTL")
	if kubectl == "" {
		t.Fatal("E2E_KUBECTL must be set (run through make test-e2e)")
	}
	password := "pw" + rand.String(20)
	s.deployExternalMongo(password)
	if got := s.externalEval(kubectl, password, `db.getSiblingDB("shop").orders.insertMany([{_id: 1}, {_id: 2}]); db.getSiblingDB("shop").orders.countDocuments()`); got != "2" {
		t.Fatalf("seeding shop.orders: %q", got)
	}
	uri := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "plain-uri", Namespace: s.ns}, StringData: map[string]string{
		"uri": "mongodb://root:" + password + "@" + externalMongo + "-0." + externalMongo + "." + s.ns + ".svc.cluster.local:27017/?authSource=admin"}}
	if err := s.c.Create(context.Background(), uri); err != nil {
		t.Fatal(err)
	}
	external := func(name, database string, allow bool) *benchv1.BenchmarkRun {
		run := smallRun(name, benchv1.TopologyExternal, 0)
		run.Spec.Topology.Image, run.Spec.Topology.WiredTigerCacheSizeGB = "", ""
		run.Spec.Topology.External = &benchv1.ExternalSpec{URISecretRef: benchv1.SecretKeyRef{Name: "plain-uri", Key: "uri"},
			Database: database, AllowExistingData: allow}
		run.Spec.Cleanup = benchv1.CleanupDelete
		return run
	}
	survives := func(when string) {
		if got := s.externalEval(kubectl, password, `db.getSiblingDB("shop").orders.countDocuments()`); got != "2" {
			t.Errorf("%s: shop.orders holds %q documents, want 2", when, got)
		}
	}

	// Its own database: results, then dropped by cleanup.
	s.create(external("ext", "", false))
	done := s.waitEnd("ext")
	if done.Status.Phase != benchv1.RunSucceeded {
		t.Fatalf("run failed: %s", failure(done))
	}
	s.checkResults(done)
	if env := done.Status.Environment; env == nil || env.Node == nil || env.Node.Name != "external" {
		t.Errorf("environment %+v, want node facts external", env)
	}
	s.wait("the run's database to be dropped", 3*time.Minute, func() bool {
		return s.externalEval(kubectl, password, `db.adminCommand({listDatabases: 1, nameOnly: true}).databases.map(d => d.name).includes("mongobench_ext")`) == "false"
	})
	survives("after a run on its own database")

	// shop holds data: refused, nothing written.
	s.create(external("ext-refused", "shop", false))
	refused := s.waitEnd("ext-refused")
	if c := failureCondition(refused); c == nil || c.Reason != string(benchv1.ReasonTargetNotEmpty) {
		t.Errorf("run on shop: %s, want TargetNotEmpty", failure(refused))
	}
	survives("after the refused run")

	// Allowed onto shop: the run succeeds and cleanup leaves shop alone.
	s.create(external("ext-allowed", "shop", true))
	allowed := s.waitEnd("ext-allowed")
	if allowed.Status.Phase != benchv1.RunSucceeded {
		t.Fatalf("run allowed onto shop failed: %s", failure(allowed))
	}
	s.wait("the dropdatabase Job to finish", 3*time.Minute, func() bool {
		j := &batchv1.Job{}
		if err := s.c.Get(context.Background(), client.ObjectKey{Namespace: s.ns, Name: topology.DropDatabaseJobName(allowed)}, j); err != nil {
			return false
		}
		for _, c := range j.Status.Conditions {
			if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
				return true
			}
		}
		return false
	})
	survives("after the cleanup of a run allowed onto shop")

	// No password in any run's status or in the namespace's events.
	var events corev1.EventList
	if err := s.c.List(context.Background(), &events, client.InNamespace(s.ns)); err != nil {
		t.Fatal(err)
	}
	for _, v := range []any{s.get("ext").Status, s.get("ext-refused").Status, s.get("ext-allowed").Status, events.Items} {
		b, _ := json.Marshal(v)
		if strings.Contains(string(b), password) {
			t.Errorf("a status or an event carries the password")
		}
	}
}

func failureCondition(run *benchv1.BenchmarkRun) *metav1.Condition {
	for i := range run.Status.Conditions {
		if c := &run.Status.Conditions[i]; c.Type == benchv1.ConditionFailed && c.Status == metav1.ConditionTrue {
			return c
		}
	}
	return nil
}
