package topology

import (
	"slices"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/contract"
)

func external(name string) *benchv1.BenchmarkRun {
	return &benchv1.BenchmarkRun{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "bench", UID: "uid-9"},
		Spec: benchv1.BenchmarkRunSpec{
			Topology: benchv1.TopologySpec{Mode: benchv1.TopologyExternal, Image: "mongo:8.0.16",
				External: &benchv1.ExternalSpec{URISecretRef: benchv1.SecretKeyRef{Name: "prod", Key: "connectionString.standard"}}},
			Workload: benchv1.WorkloadSpec{Preset: "a"},
			Phases:   []benchv1.PhaseSpec{{Name: "load", Type: benchv1.PhaseLoad, Threads: 4}, {Name: "a", Type: benchv1.PhaseRun, Threads: 4}},
			Loaders:  2,
		},
	}
}

func TestExternalDatabase(t *testing.T) {
	long := strings.Repeat("r", 80)
	for _, tc := range []struct{ name, database, want string }{
		{"nightly", "", "mongobench_nightly"},
		{"run.with.dots", "", "mongobench_run_with_dots"},
		{"x", "given", "given"},
		{long, "", "mongobench_" + strings.Repeat("r", 43) + "_"},
	} {
		run := external(tc.name)
		run.Spec.Topology.External.Database = tc.database
		got := ExternalDatabase(run)
		if !strings.HasPrefix(got, tc.want) || len(got) > 63 || strings.ContainsAny(got, `/\. "$*<>:|?`) {
			t.Errorf("%s/%q: database %q, want %q… of at most 63 characters", tc.name, tc.database, got, tc.want)
		}
	}
	a, b := external(long+"a"), external(long+"b")
	if ExternalDatabase(a) == ExternalDatabase(b) {
		t.Errorf("two long run names share database %s", ExternalDatabase(a))
	}
}

// TestExternalJobs: every Job of an External run connects through the
// user's Secret (contract.EnvURI by a required secretKeyRef), never a URL
// in its arguments; the bootstrap gets the run's namespace, owner and
// choices; the phases name the run's database and spec.driver's options;
// TLS files are mounted read-only and named by their flags; nothing is
// placed relative to database pods that do not exist.
func TestExternalJobs(t *testing.T) { //nolint:gocyclo // every Job of every case, checked field by field
	tlsRun := external("tls")
	tlsRun.Spec.Topology.External.TLS = &benchv1.ExternalTLSSpec{CASecretRef: &benchv1.SecretKeyRef{Name: "ca", Key: "ca.crt"},
		ClientCertSecretRef: &benchv1.SecretRef{Name: "client"}}
	tlsRun.Spec.Topology.External.MonitorURISecretRef = &benchv1.SecretKeyRef{Name: "monitor", Key: "uri"}
	allow := external("allow")
	allow.Spec.Topology.External.AllowExistingData = true
	allow.Spec.Topology.External.ShardCollection = ptr.To(false)
	allow.Spec.Topology.External.Database = "nightly"

	for _, tc := range []struct {
		name     string
		run      *benchv1.BenchmarkRun
		bootArgs []string // in order, each present
		noArgs   []string
		mounts   int
		monitor  bool
	}{
		{"defaults", external("ext"), []string{"bootstrap", "--namespace", "mongobench_ext.usertable", "--mode", "External",
			"--owner", "bench/ext/uid-9", "--shard-collection=true", "--shard-key", "hashed"}, []string{"--allow-existing-data", "--tls-ca-file"}, 0, false},
		{"allow, unsharded", allow, []string{"--namespace", "nightly.usertable", "--shard-collection=false", "--allow-existing-data"},
			[]string{"--shard-key"}, 0, false},
		{"tls", tlsRun, []string{"--tls-ca-file", TLSCAFile, "--tls-cert-file", TLSCertFile, "--tls-key-file", TLSKeyFile}, nil, 2, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			boot := BootstrapJob(tc.run, cfg)
			args := boot.Spec.Template.Spec.Containers[0].Args
			at := 0
			for _, w := range tc.bootArgs {
				i := slices.Index(args[at:], w)
				if i < 0 {
					t.Fatalf("bootstrap args %v: %q missing or out of order", args, w)
				}
				at += i
			}
			for _, w := range tc.noArgs {
				if slices.Contains(args, w) {
					t.Errorf("bootstrap args %v carry %s", args, w)
				}
			}
			jobs := append([]*batchv1.Job{boot, DropDatabaseJob(tc.run, cfg)}, PhaseJob(tc.run, &tc.run.Spec.Phases[0], 0, cfg))
			for _, j := range jobs {
				ps := j.Spec.Template.Spec
				c := ps.Containers[0]
				if ps.Affinity != nil {
					t.Errorf("%s: affinity %+v", j.Name, ps.Affinity)
				}
				var uri, monitor *corev1.EnvVar
				for i := range c.Env {
					switch c.Env[i].Name {
					case contract.EnvURI:
						uri = &c.Env[i]
					case contract.EnvMonitorURI:
						monitor = &c.Env[i]
					}
				}
				if uri == nil || uri.Value != "" || uri.ValueFrom.SecretKeyRef.Name != "prod" || uri.ValueFrom.SecretKeyRef.Key != "connectionString.standard" ||
					uri.ValueFrom.SecretKeyRef.Optional != nil {
					t.Errorf("%s: %s is %+v, want a required secretKeyRef to prod", j.Name, contract.EnvURI, uri)
				}
				isPhase := j.Labels[benchv1.LabelComponent] == benchv1.ComponentLoader
				if (monitor != nil) != (tc.monitor && isPhase) {
					t.Errorf("%s: monitor URI %+v, want it only on phases of a run that names one", j.Name, monitor)
				}
				if len(c.VolumeMounts) != tc.mounts {
					t.Errorf("%s: %d mounts, want %d", j.Name, len(c.VolumeMounts), tc.mounts)
				}
				for _, m := range c.VolumeMounts {
					if !m.ReadOnly {
						t.Errorf("%s: mount %s is writable", j.Name, m.Name)
					}
				}
				for _, a := range c.Args {
					if strings.Contains(a, "mongodb://") || strings.HasPrefix(a, contract.PropMongoDBURL+"=") {
						t.Errorf("%s: argument %q is a connection string", j.Name, a)
					}
				}
				if isPhase {
					props := PhaseProperties(tc.run, &tc.run.Spec.Phases[0], cfg.ClusterDomain)
					if props[contract.PropExternalDatabase] != RunDatabase(tc.run) || props[contract.PropExternalURIOptions] != "w=1&readPreference=primary&retryWrites=false" {
						t.Errorf("%s: properties %v", j.Name, props)
					}
					if slices.ContainsFunc(c.Args, func(a string) bool { return strings.HasPrefix(a, "--"+contract.FlagTelemetryProcess) }) {
						t.Errorf("%s: telemetry processes in %v: the controller knows none", j.Name, c.Args)
					}
				}
			}
			if Processes(tc.run) != nil || Exclusive(tc.run) {
				t.Error("an External run has processes of its own, or an exclusive node")
			}
		})
	}
	if got := SecretKeys(tlsRun); len(got) != 5 || got[4] != (benchv1.SecretKeyRef{Name: "client", Key: corev1.TLSPrivateKeyKey}) {
		t.Errorf("secret keys %v, want the URI, the monitor, the CA, tls.crt and tls.key", got)
	}
}
