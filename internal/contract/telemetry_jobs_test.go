package contract_test

import (
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/telemetry"
	"github.com/mongobench/mongobench/internal/topology"
)

// TestPhaseJobsSampleWhatTopologyMeans: the exact arguments of every phase
// Job, parsed by the loader's own parser in each pod, make loader 0 (and
// only loader 0) sample every process of the topology at its own pod's
// address, at the run's interval, and the benchmark collection through the
// entry Service, during Load phases every telemetry.DefaultCollectionEvery
// too; with telemetry off, no loader samples.
func TestPhaseJobsSampleWhatTopologyMeans(t *testing.T) {
	for _, tc := range []struct {
		name      string
		topo      benchv1.TopologySpec
		telemetry benchv1.TelemetrySpec
		interval  time.Duration // 0: off
	}{
		{"standalone-defaults", benchv1.TopologySpec{Mode: benchv1.TopologyStandalone}, benchv1.TelemetrySpec{}, telemetry.DefaultInterval},
		{"sharded-defaulted", benchv1.TopologySpec{Mode: benchv1.TopologySharded, Shards: ptr.To[int32](3)},
			benchv1.TelemetrySpec{Enabled: ptr.To(true), Interval: &metav1.Duration{Duration: time.Second}}, time.Second},
		{"sharded-2.5s", benchv1.TopologySpec{Mode: benchv1.TopologySharded, Shards: ptr.To[int32](2)},
			benchv1.TelemetrySpec{Interval: &metav1.Duration{Duration: 2500 * time.Millisecond}}, 2500 * time.Millisecond},
		{"off", benchv1.TopologySpec{Mode: benchv1.TopologySharded, Shards: ptr.To[int32](2)},
			benchv1.TelemetrySpec{Enabled: ptr.To(false), Interval: &metav1.Duration{Duration: time.Minute}}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := contractRun(tc.name, tc.topo)
			run.Spec.Telemetry = tc.telemetry
			// What topology means: every process, alone, by its pod's
			// stable name; the collection through the entry point.
			var procs []contract.TelemetryProcess
			for _, p := range topology.Processes(run) {
				procs = append(procs, contract.TelemetryProcess{Role: string(p.Role), Pod: p.Name,
					Address: topology.Address(run, p, jobsConfig.ClusterDomain)})
			}
			coll := contract.TelemetryCollection{Address: topology.EntryAddress(run, jobsConfig.ClusterDomain),
				Database: topology.Database, Collection: topology.Collection}
			for i := range run.Spec.Phases {
				phase := &run.Spec.Phases[i]
				job := topology.PhaseJob(run, phase, time.Hour, jobsConfig)
				for index := range int(*job.Spec.Completions) {
					got := parseJob(t, job, index).Telemetry()
					if tc.interval == 0 || index > 0 {
						if got != nil {
							t.Errorf("%s[%d]: samples %+v", job.Name, index, got)
						}
						continue
					}
					if got == nil {
						t.Fatalf("%s[%d]: takes no telemetry", job.Name, index)
					}
					if got.Interval != tc.interval {
						t.Errorf("%s: interval %s, want %s", job.Name, got.Interval, tc.interval)
					}
					if !slices.Equal(got.Processes, procs) {
						t.Errorf("%s: processes\n%+v\nwant\n%+v", job.Name, got.Processes, procs)
					}
					if got.Collection == nil || *got.Collection != coll {
						t.Errorf("%s: collection %+v, want %+v", job.Name, got.Collection, coll)
					}
					every := time.Duration(0)
					if phase.Type == benchv1.PhaseLoad {
						every = telemetry.DefaultCollectionEvery
					}
					if got.CollectionEvery != every {
						t.Errorf("%s (%s): collection every %s, want %s", job.Name, phase.Type, got.CollectionEvery, every)
					}
				}
			}
		})
	}
}

// The roles the Jobs name are the API's, which the telemetry reports and
// the status carry.
func TestTelemetryRolesAreTheAPIs(t *testing.T) {
	run := contractRun("roles", benchv1.TopologySpec{Mode: benchv1.TopologySharded, Shards: ptr.To[int32](1)})
	job := topology.PhaseJob(run, &run.Spec.Phases[0], time.Hour, jobsConfig)
	var roles []string
	for _, p := range parseJob(t, job, 0).Telemetry().Processes {
		roles = append(roles, p.Role)
	}
	want := []string{string(benchv1.RoleConfigServer), string(benchv1.RoleShard), string(benchv1.RoleMongos)}
	if !slices.Equal(roles, want) {
		t.Errorf("roles %q, want %q", roles, want)
	}
}
