package controllers_test

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/controllers"
	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/topology"
)

// authRun is a sharded run with security.auth, a validator (so that
// every kind of Job runs) and Guaranteed resources for every process.
func authRun(name string) *benchv1.BenchmarkRun {
	run := newRun(name, benchv1.TopologySharded, 2, 2)
	run.Spec.Security = &benchv1.SecuritySpec{Auth: true}
	run.Spec.Collection = &benchv1.CollectionSpec{Validator: runtime.RawExtension{Raw: []byte(`{"$jsonSchema":{"bsonType":"object"}}`)},
		ValidationLevel: "moderate", ValidationAction: "warn"}
	guaranteed := corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("2Gi")},
		Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("2Gi")},
	}
	run.Spec.Topology.Resources = guaranteed
	run.Spec.Topology.ConfigServerResources = guaranteed.DeepCopy()
	run.Spec.Topology.MongosResources = guaranteed.DeepCopy()
	return run
}

// authSecrets returns the run's two Secrets, failing when either is
// missing.
func (k *cluster) authSecrets(run *benchv1.BenchmarkRun) (keyfile, admin *corev1.Secret) {
	k.t.Helper()
	keyfile, admin = &corev1.Secret{}, &corev1.Secret{}
	if !k.exists(keyfile, topology.KeyfileSecretName(run)) || !k.exists(admin, topology.AdminSecretName(run)) {
		k.t.Fatalf("the run %s lacks a Secret (keyfile %v, admin %v)", run.Name, keyfile.UID != "", admin.UID != "")
	}
	return keyfile, admin
}

// TestAuthSecretsOwnedKeptAndCleanedUp: a run with security.auth has its
// keyfile and admin Secrets before its first database pod, owned by it,
// immutable, with a keyfile mongod accepts and two distinct passwords;
// every database pod starts with --keyFile behind the init container and
// keeps the Guaranteed QoS class its resources ask for; the bootstrap Job
// mounts the keyfile and every Job gets its credentials by secretKeyRef,
// so that no password or keyfile appears in a pod spec, the run's status,
// its events, its diagnostics or the manager's log. Neither Secret changes
// through the run's reconciles and a manager restart; the cleanup deletes
// them with the pods. A run with cleanup Retain keeps them; a run without
// security.auth has none.
func TestAuthSecretsOwnedKeptAndCleanedUp(t *testing.T) { //nolint:gocyclo // one run's whole life, checked step by step
	k := newCluster(t)
	m := startManager(t, &counters{}, testLimits)
	stop := k.autopilotWith(autopilotOptions{holdPhases: true})
	defer stop()

	run := k.create(authRun("auth"))
	k.pod("auth-cfg") // the anchor
	keyfile, admin := k.authSecrets(run)
	run = k.run("auth")
	for _, s := range []*corev1.Secret{keyfile, admin} {
		if refs := s.OwnerReferences; len(refs) != 1 || refs[0].UID != run.UID || !ptr.Deref(refs[0].Controller, false) {
			t.Errorf("%s: owner references %+v, want the run as controller", s.Name, refs)
		}
		if !ptr.Deref(s.Immutable, false) || s.Labels[benchv1.LabelManagedBy] != benchv1.ManagedBy || s.Labels[benchv1.LabelRun] != "auth" {
			t.Errorf("%s: immutable %v, labels %v", s.Name, s.Immutable, s.Labels)
		}
	}
	kf := string(keyfile.Data[topology.KeyfileKey])
	if len(kf) != 1008 || !regexp.MustCompile(`^[A-Za-z0-9+/]+=*$`).MatchString(kf) {
		t.Errorf("keyfile of %d characters that mongod refuses (6–1024 of the base64 alphabet)", len(kf))
	}
	pw, mpw := string(admin.Data[topology.AdminPasswordKey]), string(admin.Data[topology.MonitorPasswordKey])
	if len(pw) < 32 || len(mpw) < 32 || pw == mpw || string(admin.Data[topology.AdminUsernameKey]) != topology.AdminUsername ||
		string(admin.Data[topology.MonitorUsernameKey]) != topology.MonitorUsername {
		t.Errorf("admin Secret: users %q, %q; passwords of %d and %d characters, alike %v", admin.Data[topology.AdminUsernameKey],
			admin.Data[topology.MonitorUsernameKey], len(pw), len(mpw), pw == mpw)
	}
	secrets := []string{kf, pw, mpw}

	// The database pods: --keyFile, the init container, Guaranteed.
	k.waitRun("auth", "phase load", func(r *benchv1.BenchmarkRun) bool { return r.Status.CurrentPhase == "load" })
	for _, p := range topology.Processes(run) {
		pod := k.pod(p.Name)
		c := pod.Spec.Containers[0]
		if i := slices.Index(c.Args, "--keyFile"); i < 0 || i+1 >= len(c.Args) || c.Args[i+1] != topology.KeyfilePath {
			t.Errorf("%s: args %v, want --keyFile %s", p.Name, c.Args, topology.KeyfilePath)
		}
		if len(pod.Spec.InitContainers) != 1 || pod.Spec.InitContainers[0].Name != "keyfile" {
			t.Errorf("%s: init containers %+v", p.Name, pod.Spec.InitContainers)
		}
		// The API server's own QoS computation, which counts init
		// containers.
		if pod.Status.QOSClass != corev1.PodQOSGuaranteed {
			t.Errorf("%s: QoS class %s, want Guaranteed: the keyfile init container changed it", p.Name, pod.Status.QOSClass)
		}
		k.checkNoSecretIn(pod.Name, pod.Spec, secrets)
	}
	boot := k.job(topology.BootstrapJobName(run))
	if args := boot.Spec.Template.Spec.Containers[0].Args; !slices.Contains(args, "--"+contract.FlagKeyfile) {
		t.Errorf("bootstrap args %v lack --%s", args, contract.FlagKeyfile)
	}
	checkCredentialEnv(t, boot, run, 4)
	k.checkNoSecretIn(boot.Name, boot.Spec, secrets)

	// The phases: a manager restart in the middle; the Secrets stay.
	for i, ph := range run.Spec.Phases {
		k.waitRun("auth", "phase "+ph.Name, func(r *benchv1.BenchmarkRun) bool { return r.Status.CurrentPhase == ph.Name })
		job := k.job(topology.PhaseJobName(run, ph.Name))
		checkCredentialEnv(t, job, run, 4) // telemetry is on: the monitor user too
		k.checkNoSecretIn(job.Name, job.Spec, secrets)
		if i == 1 {
			validator := k.job(topology.ValidatorJobName(run))
			checkCredentialEnv(t, validator, run, 2)
			k.checkNoSecretIn(validator.Name, validator.Spec, secrets)
			m = m.restart()
		}
		k.finishPhase(run, ph)
	}
	done := k.waitLifecycle("auth", benchv1.RunSucceeded)
	// Not regenerated: the same objects, never updated, with the same data.
	kf2, admin2 := k.authSecrets(run)
	if kf2.UID != keyfile.UID || kf2.ResourceVersion != keyfile.ResourceVersion || string(kf2.Data[topology.KeyfileKey]) != kf ||
		admin2.UID != admin.UID || admin2.ResourceVersion != admin.ResourceVersion || string(admin2.Data[topology.AdminPasswordKey]) != pw {
		t.Error("a Secret was re-created or changed during the run")
	}
	k.checkNoSecretIn("status", done.Status, secrets)
	k.checkNoSecretIn("events", k.runEvents("auth"), secrets)
	k.checkNoSecretIn("diagnostics", k.diagnostics("auth").Data, secrets)
	for _, s := range secrets {
		if lines := logs.Lines(s); len(lines) > 0 {
			t.Errorf("the manager logged a credential: %s", lines[0])
		}
	}

	// Cleanup Delete: the Secrets go with the pods.
	k.eventually("cleanup", 30*time.Second, func() (bool, error) {
		return k.gone(&corev1.Pod{}, "auth-shard0") && k.gone(&corev1.Secret{}, topology.KeyfileSecretName(run)) &&
			k.gone(&corev1.Secret{}, topology.AdminSecretName(run)), nil
	})

	// Cleanup Retain keeps them, with the pods.
	kept := newRun("kept", benchv1.TopologyStandalone, 0, 1)
	kept.Spec.Security = &benchv1.SecuritySpec{Auth: true}
	kept.Spec.Cleanup = benchv1.CleanupRetain
	k.create(kept)
	for _, ph := range kept.Spec.Phases {
		k.waitRun("kept", "phase "+ph.Name, func(r *benchv1.BenchmarkRun) bool { return r.Status.CurrentPhase == ph.Name })
		k.finishPhase(kept, ph)
	}
	k.waitLifecycle("kept", benchv1.RunSucceeded)
	// The reconcile that stores the diagnostics runs the cleanup before
	// its status patch names them: once they are named, Retain has acted.
	k.diagnostics("kept")
	k.authSecrets(kept)
	if !k.exists(&corev1.Pod{}, "kept-mongod") {
		t.Error("cleanup Retain deleted the pod: the check above proves nothing")
	}

	// Without security.auth: no Secret, no keyfile.
	open := newRun("open", benchv1.TopologyStandalone, 0, 1)
	k.create(open)
	pod := k.pod("open-mongod")
	if k.exists(&corev1.Secret{}, topology.KeyfileSecretName(open)) || k.exists(&corev1.Secret{}, topology.AdminSecretName(open)) {
		t.Error("a run without security.auth has an auth Secret")
	}
	if slices.Contains(pod.Spec.Containers[0].Args, "--keyFile") || len(pod.Spec.InitContainers) > 0 {
		t.Errorf("a run without security.auth starts mongod with a keyfile: %v", pod.Spec.Containers[0].Args)
	}
	if r := k.run("open"); r.Spec.Security == nil || r.Spec.Security.Auth {
		t.Errorf("security defaulted to %+v, want auth false", r.Spec.Security)
	}
}

// checkCredentialEnv: the Job's container gets n of the credential
// variables (the admin pair, then the monitor pair), each from the run's
// admin Secret by a required secretKeyRef, none as a value.
func checkCredentialEnv(t *testing.T, job *batchv1.Job, run *benchv1.BenchmarkRun, n int) {
	t.Helper()
	want := []string{contract.EnvUsername, contract.EnvPassword, contract.EnvMonitorUsername, contract.EnvMonitorPassword}[:n]
	var got []string
	for _, e := range job.Spec.Template.Spec.Containers[0].Env {
		if !strings.HasPrefix(e.Name, "MONGOBENCH_") {
			continue
		}
		got = append(got, e.Name)
		if e.Value != "" || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil || e.ValueFrom.SecretKeyRef.Name != topology.AdminSecretName(run) {
			t.Errorf("%s: %s is %q / %+v, want a secretKeyRef to %s", job.Name, e.Name, e.Value, e.ValueFrom, topology.AdminSecretName(run))
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s: credential variables %v, want %v", job.Name, got, want)
	}
}

// checkNoSecretIn fails when any of the secrets appears in v's JSON.
func (k *cluster) checkNoSecretIn(what string, v any, secrets []string) {
	k.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		k.t.Fatal(err)
	}
	for _, s := range secrets {
		if strings.Contains(string(b), s) {
			k.t.Errorf("%s carries a credential", what)
		}
	}
}

// TestAuthWaitsForAnEarlierRunsSecret: a Secret of the run's keyfile name
// that is not the run's (an earlier run's of the same name, before the
// garbage collector deletes it) is neither used nor replaced: the run
// creates no database pod and says why; once it is gone, the run makes
// its own keyfile and carries on.
func TestAuthWaitsForAnEarlierRunsSecret(t *testing.T) {
	k := newCluster(t)
	startManager(t, &counters{}, testLimits)
	run := newRun("again", benchv1.TopologyStandalone, 0, 1)
	run.Spec.Security = &benchv1.SecuritySpec{Auth: true}
	leftover := topology.KeyfileSecret(&benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Name: "again", Namespace: k.ns, UID: "earlier-run"}}, []byte("leftover"))
	leftover.OwnerReferences = nil // a dangling owner would be garbage-collected at once
	if err := k.c.Create(k.ctx(), leftover); err != nil {
		t.Fatal(err)
	}
	k.create(run)
	k.waitRun("again", "waiting for the Secret", func(r *benchv1.BenchmarkRun) bool {
		c := cond(r, benchv1.ConditionTopologyReady)
		return c != nil && strings.Contains(c.Message, "waiting for Secret again-keyfile")
	})
	if k.exists(&corev1.Pod{}, "again-mongod") {
		t.Fatal("a database pod exists while the keyfile Secret is not the run's")
	}
	if err := k.c.Delete(k.ctx(), leftover); err != nil {
		t.Fatal(err)
	}
	k.pod("again-mongod")
	kf, _ := k.authSecrets(run)
	if string(kf.Data[topology.KeyfileKey]) == "leftover" || len(kf.OwnerReferences) != 1 || kf.OwnerReferences[0].UID != k.run("again").UID {
		t.Errorf("keyfile Secret %+v after the leftover went: want the run's own, with a new keyfile", kf.ObjectMeta)
	}
}

// TestCacheHoldsOnlyTheRunsSecrets: the manager caches only the Secrets
// mongobench manages, never the cluster's (which it has no business
// holding in memory) — the label selector the runs' Secrets carry.
func TestCacheHoldsOnlyTheRunsSecrets(t *testing.T) {
	var sel labels.Selector
	for o, by := range controllers.CacheOptions("").ByObject {
		if _, ok := o.(*corev1.Secret); ok {
			sel = by.Label
		}
	}
	run := authRun("cached")
	if sel == nil || sel.Matches(labels.Set{"app": "other"}) || !sel.Matches(labels.Set(topology.KeyfileSecret(run, nil).Labels)) ||
		!sel.Matches(labels.Set(topology.AdminSecret(run, nil, nil).Labels)) {
		t.Errorf("the cache selects Secrets by %v: want the runs' own only", sel)
	}
}
