package controllers_test

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/rand"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/controllers"
	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/report"
	"github.com/mongobench/mongobench/internal/results"
	"github.com/mongobench/mongobench/internal/topology"
)

// externalRun is a run against the user's cluster: its connection string
// in Secret <name>-uri (key uri), the monitor's in <name>-monitor, a CA
// in <name>-ca, and a validator so that every kind of Job runs.
func externalRun(name string) *benchv1.BenchmarkRun {
	run := newRun(name, benchv1.TopologyExternal, 0, 2)
	run.Spec.Topology.External = &benchv1.ExternalSpec{
		URISecretRef:        benchv1.SecretKeyRef{Name: name + "-uri", Key: "uri"},
		MonitorURISecretRef: &benchv1.SecretKeyRef{Name: name + "-monitor", Key: "uri"},
		TLS:                 &benchv1.ExternalTLSSpec{CASecretRef: &benchv1.SecretKeyRef{Name: name + "-ca", Key: "ca.crt"}},
	}
	run.Spec.Collection = &benchv1.CollectionSpec{Validator: runtime.RawExtension{Raw: []byte(`{"$jsonSchema":{"bsonType":"object"}}`)},
		ValidationLevel: "moderate", ValidationAction: "warn"}
	return run
}

// externalSecrets creates the Secrets externalRun names, with password in
// both connection strings, and returns it with the other values a Job
// must never carry in the clear.
func (k *cluster) externalSecrets(name, password string) []string {
	k.t.Helper()
	uri := "mongodb://bench:" + password + "@db-0.example.net:27017,db-1.example.net:27017/admin?replicaSet=rs0&tls=true"
	monitor := "mongodb://monitor:" + password + "-m@db-0.example.net:27017/admin?replicaSet=rs0&tls=true"
	ca := "-----BEGIN CERTIFICATE-----\n" + password + "-ca\n-----END CERTIFICATE-----\n"
	for n, data := range map[string]map[string][]byte{
		name + "-uri": {"uri": []byte(uri)}, name + "-monitor": {"uri": []byte(monitor)}, name + "-ca": {"ca.crt": []byte(ca)},
	} {
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: n, Namespace: k.ns}, Data: data}
		if err := k.c.Create(k.ctx(), s); err != nil {
			k.t.Fatal(err)
		}
	}
	return []string{password, uri, monitor}
}

// checkExternalEnv: the Job's container reads the connection strings by
// required secretKeyRef from the user's Secrets, never as a value, and
// has the CA mounted read-only with --tls-ca-file naming it.
func checkExternalEnv(t *testing.T, job *batchv1.Job, run *benchv1.BenchmarkRun, monitor bool) {
	t.Helper()
	c := job.Spec.Template.Spec.Containers[0]
	want := map[string]string{contract.EnvURI: run.Name + "-uri"}
	if monitor {
		want[contract.EnvMonitorURI] = run.Name + "-monitor"
	}
	got := map[string]string{}
	for _, e := range c.Env {
		if !strings.HasPrefix(e.Name, "MONGOBENCH_") {
			continue
		}
		if e.Value != "" || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil || e.ValueFrom.SecretKeyRef.Key != "uri" ||
			ptrTrue(e.ValueFrom.SecretKeyRef.Optional) {
			t.Errorf("%s: %s is %q / %+v, want a required secretKeyRef", job.Name, e.Name, e.Value, e.ValueFrom)
			continue
		}
		got[e.Name] = e.ValueFrom.SecretKeyRef.Name
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%s: connection variables %v, want %v", job.Name, got, want)
	}
	if i := slices.Index(c.Args, "--"+contract.FlagTLSCAFile); i < 0 || c.Args[i+1] != topology.TLSCAFile {
		t.Errorf("%s: args %v lack --%s %s", job.Name, c.Args, contract.FlagTLSCAFile, topology.TLSCAFile)
	}
	if len(c.VolumeMounts) != 1 || !c.VolumeMounts[0].ReadOnly {
		t.Errorf("%s: mounts %+v, want the CA read-only", job.Name, c.VolumeMounts)
	}
	for _, a := range c.Args {
		if strings.Contains(a, "mongodb://") || strings.Contains(a, contract.PropMongoDBURL+"=") {
			t.Errorf("%s: argument %q names a connection string", job.Name, a)
		}
	}
}

func ptrTrue(b *bool) bool { return b != nil && *b }

// TestExternalLifecycle: a run against an external cluster creates no
// pod, Service, volume or NetworkPolicy; it runs the bootstrap Job with
// --mode External on its own database and its owner mark, then its
// phases and the validator as usual, every Job connecting through the
// user's Secrets; its status says what the bootstrap detected, with node
// facts "external". Cleanup Delete starts the dropdatabase Job, keeps it
// and deletes the run's other Jobs after it finished. A password planted
// in the Secrets appears in no object the run created, no event, the
// status, the diagnostics, the manager's log or any report format.
func TestExternalLifecycle(t *testing.T) { //nolint:gocyclo // one run's whole life, checked step by step
	k := newCluster(t)
	startManager(t, &counters{}, testLimits)
	stop := k.autopilotWith(autopilotOptions{holdPhases: true})
	defer stop()

	planted := "pw-" + rand.String(24)
	secrets := k.externalSecrets("ext", planted)
	run := k.create(externalRun("ext"))

	boot := k.job(topology.BootstrapJobName(run))
	args := boot.Spec.Template.Spec.Containers[0].Args
	for _, want := range [][]string{
		{"--mode", contract.ModeExternal}, {"--namespace", "mongobench_ext.usertable"},
		{"--" + contract.FlagOwner, k.ns + "/ext/" + string(run.UID)}, {"--" + contract.FlagShardCollection + "=true"},
	} {
		if i := slices.Index(args, want[0]); i < 0 || (len(want) == 2 && (i+1 >= len(args) || args[i+1] != want[1])) {
			t.Errorf("bootstrap args %v lack %v", args, want)
		}
	}
	if slices.Contains(args, "--"+contract.FlagAllowExistingData) {
		t.Errorf("bootstrap args %v allow existing data", args)
	}
	checkExternalEnv(t, boot, run, false)

	for i, ph := range run.Spec.Phases {
		k.waitRun("ext", "phase "+ph.Name, func(r *benchv1.BenchmarkRun) bool { return r.Status.CurrentPhase == ph.Name })
		job := k.job(topology.PhaseJobName(run, ph.Name))
		checkExternalEnv(t, job, run, true) // telemetry is on: loader 0 samples with the monitor URI
		if a := job.Spec.Template.Spec.Containers[0].Args; !slices.Contains(a, contract.PropExternalDatabase+"=mongobench_ext") {
			t.Errorf("%s: args %v do not name the run's database", job.Name, a)
		}
		if job.Spec.Template.Spec.Affinity != nil {
			t.Errorf("%s: affinity %+v toward database pods that do not exist", job.Name, job.Spec.Template.Spec.Affinity)
		}
		if i == 1 {
			checkExternalEnv(t, k.job(topology.ValidatorJobName(run)), run, false)
		}
		k.finishPhase(run, ph)
	}
	done := k.waitLifecycle("ext", benchv1.RunSucceeded)
	if c := cond(done, benchv1.ConditionTopologyReady); c == nil || !strings.Contains(c.Message, "external cluster reached, MongoDB 8.0.4") {
		t.Errorf("TopologyReady %+v", c)
	}
	if ps := done.Status.Topology.Processes; len(ps) != 2 || ps[0].Address != "db-0.example.net:27017" || ps[0].State != "PRIMARY" || !ps[1].Ready {
		t.Errorf("status.topology.processes %+v, want the two members the bootstrap detected", ps)
	}
	if env := done.Status.Environment; env == nil || env.Node == nil || env.Node.Name != "external" || env.Fingerprint == "" ||
		env.MongoDB == nil || env.MongoDB.Version != "8.0.4" {
		t.Errorf("environment %+v, want node external, the detected server and a fingerprint", env)
	}
	for _, obj := range []client.Object{&corev1.Pod{}, &corev1.Service{}} {
		var n int
		switch obj.(type) {
		case *corev1.Pod:
			var l corev1.PodList
			_ = k.c.List(k.ctx(), &l, client.InNamespace(k.ns), client.MatchingLabels{benchv1.LabelDatabase: "true"})
			n = len(l.Items)
		case *corev1.Service:
			var l corev1.ServiceList
			_ = k.c.List(k.ctx(), &l, client.InNamespace(k.ns))
			n = len(l.Items)
		}
		if n > 0 {
			t.Errorf("an External run created %d %T", n, obj)
		}
	}
	if k.exists(&corev1.Pod{}, "ext-mongod") {
		t.Error("an External run created a database pod")
	}

	// Cleanup Delete: the drop Job, with the owner; then the other Jobs go.
	drop := k.job(topology.DropDatabaseJobName(run))
	da := drop.Spec.Template.Spec.Containers[0].Args
	if da[0] != "dropdatabase" || !slices.Contains(da, "mongobench_ext.usertable") || !slices.Contains(da, k.ns+"/ext/"+string(run.UID)) {
		t.Errorf("dropdatabase args %v", da)
	}
	checkExternalEnv(t, drop, run, false)
	k.eventually("cleanup after the drop", 30*time.Second, func() (bool, error) {
		return k.gone(&batchv1.Job{}, topology.BootstrapJobName(run)) && k.gone(&batchv1.Job{}, topology.PhaseJobName(run, "load")), nil
	})
	if !k.exists(&batchv1.Job{}, topology.DropDatabaseJobName(run)) {
		t.Error("cleanup deleted the dropdatabase Job: the next reconcile would drop again")
	}

	// Redaction: every object of the run, the events, status, the
	// diagnostics, the log and the reports.
	var jobs batchv1.JobList
	var cms corev1.ConfigMapList
	if err := k.c.List(k.ctx(), &jobs, client.InNamespace(k.ns)); err != nil {
		t.Fatal(err)
	}
	if err := k.c.List(k.ctx(), &cms, client.InNamespace(k.ns)); err != nil {
		t.Fatal(err)
	}
	if len(cms.Items) == 0 {
		t.Fatal("no ConfigMap to search: the redaction check would prove nothing")
	}
	k.checkNoSecretIn("jobs", jobs.Items, secrets)
	k.checkNoSecretIn("configmaps", cms.Items, secrets)
	final := k.run("ext")
	k.checkNoSecretIn("status", final.Status, secrets)
	k.checkNoSecretIn("events", k.runEvents("ext"), secrets)
	k.checkNoSecretIn("diagnostics", k.diagnostics("ext").Data, secrets)
	for _, f := range report.Formats() {
		var b bytes.Buffer
		if err := report.Write(&b, report.FromRun(final, nil), f, report.Options{}); err != nil {
			t.Fatalf("report %s: %v", f, err)
		}
		if b.Len() == 0 {
			t.Fatalf("report %s is empty: the check would prove nothing", f)
		}
		k.checkNoSecretIn("report "+string(f), b.String(), secrets)
	}
	for _, s := range secrets {
		if lines := logs.Lines(s); len(lines) > 0 {
			t.Errorf("the manager logged a credential: %s", lines[0])
		}
	}
}

// TestExternalRetainKeepsTheDatabase: under cleanup Retain (and
// RetainOnFailure after a failure) no dropdatabase Job is ever created;
// allowExistingData and shardCollection false reach the bootstrap.
func TestExternalRetainKeepsTheDatabase(t *testing.T) {
	k := newCluster(t)
	startManager(t, &counters{}, testLimits)
	stop := k.autopilot()
	defer stop()
	k.externalSecrets("kept", "pw-"+rand.String(24))
	run := externalRun("kept")
	run.Spec.Cleanup = benchv1.CleanupRetain
	run.Spec.Topology.External.Database = "nightly"
	run.Spec.Topology.External.AllowExistingData = true
	run.Spec.Topology.External.ShardCollection = new(bool)
	k.create(run)
	args := k.job(topology.BootstrapJobName(run)).Spec.Template.Spec.Containers[0].Args
	if !slices.Contains(args, "--"+contract.FlagAllowExistingData) || !slices.Contains(args, "--"+contract.FlagShardCollection+"=false") ||
		!slices.Contains(args, "nightly.usertable") {
		t.Errorf("bootstrap args %v", args)
	}
	k.waitLifecycle("kept", benchv1.RunSucceeded)
	k.diagnostics("kept") // the cleanup reconcile has run
	if k.exists(&batchv1.Job{}, topology.DropDatabaseJobName(run)) {
		t.Error("cleanup Retain started a dropdatabase Job")
	}
	if !k.exists(&batchv1.Job{}, topology.BootstrapJobName(run)) {
		t.Error("cleanup Retain deleted the Jobs: the check above proves nothing")
	}
}

// TestExternalSecretNotFound: a missing Secret, or a Secret without the
// key, fails the run with SecretNotFound before any Job, naming the
// Secret and the key and no value.
func TestExternalSecretNotFound(t *testing.T) {
	k := newCluster(t)
	startManager(t, &counters{}, testLimits)
	planted := "pw-" + rand.String(24)

	// No URI Secret at all.
	k.create(externalRun("nosecret"))
	r := k.waitLifecycle("nosecret", benchv1.RunFailed)
	if c := cond(r, benchv1.ConditionFailed); c == nil || c.Reason != string(benchv1.ReasonSecretNotFound) ||
		!strings.Contains(c.Message, "Secret nosecret-uri (key uri) does not exist") {
		t.Errorf("Failed %+v", c)
	}

	// The CA Secret lacks its key.
	k.externalSecrets("nokey", planted)
	ca := &corev1.Secret{}
	if !k.exists(ca, "nokey-ca") {
		t.Fatal("no CA Secret")
	}
	ca.Data = map[string][]byte{"tls.crt": []byte(planted)}
	if err := k.c.Update(k.ctx(), ca); err != nil {
		t.Fatal(err)
	}
	k.create(externalRun("nokey"))
	r = k.waitLifecycle("nokey", benchv1.RunFailed)
	if c := cond(r, benchv1.ConditionFailed); c == nil || c.Reason != string(benchv1.ReasonSecretNotFound) ||
		!strings.Contains(c.Message, "Secret nokey-ca has no key ca.crt") {
		t.Errorf("Failed %+v", c)
	}
	k.checkNoSecretIn("status", r.Status, []string{planted})
	for _, name := range []string{"nosecret", "nokey"} {
		if k.exists(&batchv1.Job{}, name+"-bootstrap") {
			t.Errorf("%s: a bootstrap Job exists although a Secret is missing", name)
		}
	}
}

// TestExternalTargetNotEmpty: the bootstrap's exit code
// contract.ExitTargetNotEmpty fails the run with TargetNotEmpty, quoting
// the loader's message; no phase starts.
func TestExternalTargetNotEmpty(t *testing.T) {
	k := newCluster(t)
	startManager(t, &counters{}, testLimits)
	k.externalSecrets("full", "pw-"+rand.String(24))
	run := k.create(externalRun("full"))
	job := k.job(topology.BootstrapJobName(run))
	pod := k.jobPod(job, 0)
	msg := "database mongobench_full holds collections orders, users"
	k.setPodStatus(pod.Name, func(p *corev1.Pod) {
		p.Status.Phase = corev1.PodFailed
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "bootstrap", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
			ExitCode: contract.ExitTargetNotEmpty, Reason: "Error", Message: msg}}}}
	})
	r := k.waitLifecycle("full", benchv1.RunFailed)
	if c := cond(r, benchv1.ConditionFailed); c == nil || c.Reason != string(benchv1.ReasonTargetNotEmpty) || !strings.Contains(c.Message, msg) {
		t.Errorf("Failed %+v", c)
	}
	if k.exists(&batchv1.Job{}, topology.PhaseJobName(run, "load")) {
		t.Error("a phase started on a database that holds data")
	}
}

// TestExternalWaitsForALateSecret: within --secret-wait a missing Secret
// is waited for, and said so in TopologyReady; once it exists (checked
// again without any watch on Secrets), the run goes on.
func TestExternalWaitsForALateSecret(t *testing.T) {
	k := newCluster(t)
	limits := testLimits
	limits.SecretWait = time.Minute
	startManager(t, &counters{}, limits)
	run := k.create(externalRun("late"))
	k.waitRun("late", "waiting for the Secret", func(r *benchv1.BenchmarkRun) bool {
		c := cond(r, benchv1.ConditionTopologyReady)
		return c != nil && c.Reason == string(benchv1.ReasonSecretNotFound) && strings.Contains(c.Message, "Secret late-uri (key uri) does not exist;") &&
			strings.HasSuffix(c.Message, "; waiting up to 1m0s for it")
	})
	if k.exists(&batchv1.Job{}, topology.BootstrapJobName(run)) || k.run("late").Status.Phase == benchv1.RunFailed {
		t.Fatal("the run went on, or failed, without its Secret")
	}
	k.externalSecrets("late", "pw-"+rand.String(24))
	k.job(topology.BootstrapJobName(run))
}

// TestRecordExternalMembers: the members an External bootstrap reports
// become status.topology.processes, by address and state; none leaves
// the list empty.
func TestRecordExternalMembers(t *testing.T) {
	for _, tc := range []struct {
		name    string
		members []results.MemberState
		want    []benchv1.ProcessStatus
	}{
		{"standalone", nil, nil},
		{"replica set", []results.MemberState{{ReplicaSet: "rs0", Host: "db-0:27017", State: "PRIMARY"}, {ReplicaSet: "rs0", Host: "db-1:27017", State: "RECOVERING"}},
			[]benchv1.ProcessStatus{{Role: benchv1.RoleMember, Pod: "db-0:27017", Address: "db-0:27017", ReplicaSet: "rs0", State: "PRIMARY", Ready: true},
				{Role: benchv1.RoleMember, Pod: "db-1:27017", Address: "db-1:27017", ReplicaSet: "rs0", State: "RECOVERING"}}},
	} {
		st := &benchv1.TopologyStatus{Processes: []benchv1.ProcessStatus{{Role: benchv1.RoleStandalone, Pod: "stale"}}}
		controllers.RecordExternalMembers(st, tc.members)
		if fmt.Sprint(st.Processes) != fmt.Sprint(tc.want) {
			t.Errorf("%s: processes %+v, want %+v", tc.name, st.Processes, tc.want)
		}
	}
}
