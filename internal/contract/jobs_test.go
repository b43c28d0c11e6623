package contract_test

import (
	"bytes"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/loader"
	"github.com/mongobench/mongobench/internal/mongoadmin"
	"github.com/mongobench/mongobench/internal/topology"
)

var jobsConfig = topology.Config{LoaderImage: "ghcr.io/mongobench/mongobench-loader:v0.1.0", ClusterDomain: topology.DefaultClusterDomain,
	BootstrapTimeout: 8 * time.Minute}

// contractRun is a run whose Jobs use every part of the contract: several
// loaders, a Load and two Run phases, a validator, and the given topology.
func contractRun(name string, topo benchv1.TopologySpec) *benchv1.BenchmarkRun {
	return &benchv1.BenchmarkRun{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "bench", UID: "0b6c1f3e-9d2a-4c1b-8e7f-5a4d3c2b1a09"},
		Spec: benchv1.BenchmarkRunSpec{
			Topology: topo,
			Workload: benchv1.WorkloadSpec{Preset: "a", RecordCount: ptr.To[int64](3000),
				WorkloadParameters: benchv1.WorkloadParameters{OperationCount: ptr.To[int64](9000)}},
			Phases: []benchv1.PhaseSpec{
				{Name: "load", Type: benchv1.PhaseLoad, Threads: 4},
				{Name: "S2", Type: benchv1.PhaseRun, Threads: 8},
				{Name: "S3", Type: benchv1.PhaseRun, Threads: 8, Target: ptr.To[int64](3000)},
			},
			Collection: &benchv1.CollectionSpec{Validator: runtime.RawExtension{Raw: []byte(`{"$jsonSchema": {"bsonType": "object"}}`)},
				ValidationLevel: "moderate", ValidationAction: "warn"},
			Loaders: 3,
		},
	}
}

// TestJobsWriteWhatTheControllerReads is the Job ↔ controller contract,
// end to end without a cluster: the exact container arguments the real
// builders give the bootstrap, validator and phase Jobs are parsed by the
// loader's own parser (loader.Parse, as the pod would, with the completion
// index Kubernetes sets in JOB_COMPLETION_INDEX), and the result ConfigMap
// the loader would create must be the one the controller reads: named
// contract.ResultConfigMapName(job, i) for every completion index, labelled
// so that the manager's cache sees it, and owned by the run as the Job is.
func TestJobsWriteWhatTheControllerReads(t *testing.T) {
	for _, tc := range []struct {
		name string
		topo benchv1.TopologySpec
	}{
		{"standalone", benchv1.TopologySpec{Mode: benchv1.TopologyStandalone}},
		{"sharded-hashed", benchv1.TopologySpec{Mode: benchv1.TopologySharded, Shards: ptr.To[int32](2), ShardKey: benchv1.ShardKeyHashed}},
		{"sharded-ranged", benchv1.TopologySpec{Mode: benchv1.TopologySharded, Shards: ptr.To[int32](3), ShardKey: benchv1.ShardKeyRanged}},
		{"standalone-auth", benchv1.TopologySpec{Mode: benchv1.TopologyStandalone}},
		{"sharded-auth", benchv1.TopologySpec{Mode: benchv1.TopologySharded, Shards: ptr.To[int32](2), ShardKey: benchv1.ShardKeyHashed}},
		{"external", benchv1.TopologySpec{Mode: benchv1.TopologyExternal, ShardKey: benchv1.ShardKeyHashed,
			External: &benchv1.ExternalSpec{URISecretRef: benchv1.SecretKeyRef{Name: externalSecret, Key: "connectionString.standard"},
				MonitorURISecretRef: &benchv1.SecretKeyRef{Name: externalSecret, Key: "monitor"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := contractRun(tc.name, tc.topo)
			if strings.HasSuffix(tc.name, "-auth") {
				run.Spec.Security = &benchv1.SecuritySpec{Auth: true}
			}
			// Results the controller reads: the bootstrap report and each
			// phase's loaders' results.
			withResults := []*batchv1.Job{topology.BootstrapJob(run, jobsConfig)}
			for i := range run.Spec.Phases {
				withResults = append(withResults, topology.PhaseJob(run, &run.Spec.Phases[i], time.Hour, jobsConfig))
			}
			for _, job := range withResults {
				checkResultContract(t, run, job)
			}
			for _, job := range withResults[1:] {
				checkMetricsContract(t, run, job)
			}
			// With auth, every Job connects as the admin user: the loader
			// reads it from contract.EnvUsername and EnvPassword
			// (contract.Credential); the bootstrap's --keyfile would not
			// parse without both users.
			validator := topology.ValidatorJob(run, jobsConfig)
			if run.Spec.Security != nil && run.Spec.Security.Auth {
				for _, job := range append(withResults, validator) {
					names := map[string]bool{}
					for _, e := range job.Spec.Template.Spec.Containers[0].Env {
						names[e.Name] = true
					}
					if !names[contract.EnvUsername] || !names[contract.EnvPassword] {
						t.Errorf("%s: env %v has no %s and %s", job.Name, names, contract.EnvUsername, contract.EnvPassword)
					}
				}
			}
			// The validator Job reports by its exit code alone: its
			// arguments must parse, and ask for no ConfigMap.
			c := parseJob(t, validator, 0)
			if cm, err := c.ResultConfigMap(); cm != nil || err != nil {
				t.Errorf("%s: the validator would write ConfigMap %+v (%v); the controller reads none", validator.Name, cm, err)
			}
		})
	}
}

// TestTopologyEnumsSpelledAlike ties the API's topology enums to
// mongoadmin's: the controller writes --mode and --shard-key from the
// former (contract.FlagValue), the loader reads them into the latter.
func TestTopologyEnumsSpelledAlike(t *testing.T) {
	for _, tc := range []struct{ api, admin string }{
		{string(benchv1.TopologyStandalone), string(mongoadmin.ModeStandalone)},
		{string(benchv1.TopologySharded), string(mongoadmin.ModeSharded)},
		{string(benchv1.ShardKeyHashed), string(mongoadmin.ShardKeyHashed)},
		{string(benchv1.ShardKeyRanged), string(mongoadmin.ShardKeyRanged)},
	} {
		if tc.api != tc.admin || contract.FlagValue(tc.api) != contract.FlagValue(tc.admin) {
			t.Errorf("the API's %q is mongoadmin's %q", tc.api, tc.admin)
		}
	}
}

// checkMetricsContract: a phase's loaders serve /metrics on the port the
// pod declares under contract.MetricsPortName (the PodMonitor and `top`
// find it by that name), labelled with the run and the phase as the Job's
// phase label spells it (what `top` and the dashboard select on).
func checkMetricsContract(t *testing.T, run *benchv1.BenchmarkRun, job *batchv1.Job) {
	t.Helper()
	ct := job.Spec.Template.Spec.Containers[0]
	var port int32
	for _, p := range ct.Ports {
		if p.Name == contract.MetricsPortName {
			port = p.ContainerPort
		}
	}
	if port != contract.MetricsPort {
		t.Errorf("%s: container port %q is %d, want %d (ports %+v)", job.Name, contract.MetricsPortName, port, contract.MetricsPort, ct.Ports)
	}
	m := parseJob(t, job, 0).Metrics()
	want := loader.MetricsEndpoint{Addr: fmt.Sprintf(":%d", contract.MetricsPort), Run: run.Name,
		Phase: job.Spec.Template.Labels[benchv1.LabelPhase]}
	if m != want || want.Phase == "" {
		t.Errorf("%s: the loader serves metrics %+v, want %+v", job.Name, m, want)
	}
}

// checkResultContract checks, for every completion index of job, that the
// loader would write the ConfigMap the controller reads.
func checkResultContract(t *testing.T, run *benchv1.BenchmarkRun, job *batchv1.Job) {
	t.Helper()
	if job.Spec.CompletionMode == nil || *job.Spec.CompletionMode != batchv1.IndexedCompletion || job.Spec.Completions == nil {
		t.Fatalf("%s: not an Indexed Job with completions: Kubernetes would set no JOB_COMPLETION_INDEX", job.Name)
	}
	if len(job.OwnerReferences) != 1 {
		t.Fatalf("%s: owner references %+v", job.Name, job.OwnerReferences)
	}
	jobOwner := job.OwnerReferences[0]
	for i := 0; i < int(*job.Spec.Completions); i++ {
		c := parseJob(t, job, i)
		if c.LoaderIndex() != i {
			t.Errorf("%s[%d]: the loader takes itself for loader %d", job.Name, i, c.LoaderIndex())
		}
		cm, err := c.ResultConfigMap()
		if err != nil || cm == nil {
			t.Fatalf("%s[%d]: result ConfigMap %+v, %v", job.Name, i, cm, err)
		}
		// The name the controller looks the result up by (controllers:
		// jobDone and mergedResult for phases, the bootstrap step at 0).
		if want := contract.ResultConfigMapName(job.Name, i); cm.Name != want {
			t.Errorf("%s[%d]: the loader would write ConfigMap %q, the controller reads %q", job.Name, i, cm.Name, want)
		}
		// The controller observes the ConfigMaps its run owns (by UID), as
		// it owns the Job.
		if o := cm.Owner; o == nil || o.APIVersion != jobOwner.APIVersion || o.Kind != jobOwner.Kind || o.Name != jobOwner.Name ||
			o.UID != string(jobOwner.UID) || o.UID != string(run.UID) {
			t.Errorf("%s[%d]: the loader's owner %+v, the controller's %+v (run UID %s)", job.Name, i, cm.Owner, jobOwner, run.UID)
		}
		// The manager's cache only sees objects managed by mongobench
		// (controllers.CacheOptions); the run label names the run.
		want := map[string]string{
			benchv1.LabelManagedBy:    benchv1.ManagedBy,
			benchv1.LabelRun:          run.Name,
			benchv1.LabelName:         benchv1.AppName,
			contract.LabelLoaderIndex: strconv.Itoa(i),
		}
		if !maps.Equal(cm.Labels, want) {
			t.Errorf("%s[%d]: the loader's labels %v, want %v", job.Name, i, cm.Labels, want)
		}
	}
}

// externalSecret is the user's Secret in the External case.
const externalSecret = "my-cluster"

// parseJob parses the container arguments of job as the loader in the pod
// with completion index i would, and checks they draw no warning.
func parseJob(t *testing.T, job *batchv1.Job, index int) *loader.Command {
	t.Helper()
	containers := job.Spec.Template.Spec.Containers
	if len(containers) != 1 {
		t.Fatalf("%s: %d containers", job.Name, len(containers))
	}
	podEnv := map[string]string{"JOB_COMPLETION_INDEX": strconv.Itoa(index), "POD_NAMESPACE": job.Namespace,
		"POD_NAME": fmt.Sprintf("%s-%d-x7k2p", job.Name, index)}
	// The kubelet resolves the credentials' secretKeyRefs from the run's
	// Secrets (topology's builders); a reference to a Secret or key the
	// controller does not create would leave the pod unstarted.
	owner := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Name: job.Labels[benchv1.LabelRun], Namespace: job.Namespace}}
	authSecretData := map[string]map[string][]byte{}
	for _, sec := range []*corev1.Secret{topology.KeyfileSecret(owner, []byte("a2V5ZmlsZQ==")),
		topology.AdminSecret(owner, []byte("admin-password"), []byte("monitor-password"))} {
		authSecretData[sec.Name] = sec.Data
	}
	// The user's Secret of an External run's cluster.
	authSecretData[externalSecret] = map[string][]byte{
		"connectionString.standard": []byte("mongodb://bench:s3cret@db-0.example:27017,db-1.example:27017/admin?replicaSet=rs0"),
		"monitor":                   []byte("mongodb://monitor:s3cret@db-0.example:27017/admin?replicaSet=rs0"),
	}
	for _, e := range containers[0].Env {
		if e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil {
			continue
		}
		ref := e.ValueFrom.SecretKeyRef
		v, ok := authSecretData[ref.Name][ref.Key]
		if !ok {
			t.Fatalf("%s: env %s refers to Secret %s key %s, which the controller does not create", job.Name, e.Name, ref.Name, ref.Key)
		}
		podEnv[e.Name] = string(v)
	}
	var stderr bytes.Buffer
	c, err := loader.Parse(containers[0].Args, loader.Env{Stderr: &stderr, Getenv: func(k string) string { return podEnv[k] }})
	if err != nil {
		t.Fatalf("%s[%d]: the loader rejects the Job's arguments %q: %v\n%s", job.Name, index, containers[0].Args, err, stderr.String())
	}
	if stderr.Len() > 0 {
		t.Errorf("%s[%d]: the loader warns about the Job's arguments:\n%s", job.Name, index, stderr.String())
	}
	if c.Name != containers[0].Args[0] {
		t.Errorf("%s[%d]: parsed as %q, the Job runs %q", job.Name, index, c.Name, containers[0].Args[0])
	}
	return c
}

// TestPlannedOperationsAddUp: the manager's planned operations of a phase
// (topology.PlannedOperations, its mongobench_benchmarkrun_phase_planned_operations)
// are the sum of what each of the phase's loaders plans
// (mongobench_loader_planned_operations), each parsing its own Job's
// arguments at its completion index: progress, the loaders' counter over
// the manager's gauge, ends at 1. Counts that do not divide by the
// loaders, a counted warm-up, and a phase bounded by time.
func TestPlannedOperationsAddUp(t *testing.T) {
	run := contractRun("planned", benchv1.TopologySpec{Mode: benchv1.TopologyStandalone})
	run.Spec.Workload.RecordCount = ptr.To[int64](10_001)
	run.Spec.Workload.OperationCount = ptr.To[int64](30_002)
	run.Spec.Phases[1].Warmup = &benchv1.WarmupSpec{Operations: ptr.To[int64](1_001)}
	run.Spec.Phases[2].Workload = &benchv1.WorkloadParameters{OperationCount: ptr.To[int64](0)}
	run.Spec.Phases[2].MaxExecutionTime = &metav1.Duration{Duration: time.Minute}
	for i := range run.Spec.Phases {
		ph := &run.Spec.Phases[i]
		want, err := topology.PlannedOperations(run, ph)
		if err != nil {
			t.Fatal(err)
		}
		job := topology.PhaseJob(run, ph, time.Hour, jobsConfig)
		var sum int64
		for index := range int(*job.Spec.Completions) {
			sum += parseJob(t, job, index).PlannedOperations()
		}
		if sum != want {
			t.Errorf("phase %s: the loaders plan %d operations together, the manager %d", ph.Name, sum, want)
		}
		if ph.Type == benchv1.PhaseRun && ph.Warmup != nil && want != 30_002+1_001 {
			t.Errorf("phase %s: planned %d, want operationcount and the warm-up", ph.Name, want)
		}
	}
}
