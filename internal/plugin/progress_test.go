package plugin

import (
	"bytes"
	"reflect"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

func TestProgressLines(t *testing.T) {
	done := succeededStatus()
	load := done.Results[0]
	provisioning := func(reason, msg string) benchv1.BenchmarkRunStatus {
		return benchv1.BenchmarkRunStatus{Phase: benchv1.RunProvisioning, Conditions: []metav1.Condition{
			cond(benchv1.ConditionTopologyReady, metav1.ConditionFalse, reason, msg),
		}}
	}
	loading := benchv1.BenchmarkRunStatus{Phase: benchv1.RunLoading, CurrentPhase: "load",
		Conditions: []metav1.Condition{cond(benchv1.ConditionTopologyReady, metav1.ConditionTrue, "Ready", "ready")}}
	running := loading
	running.Phase, running.CurrentPhase, running.Results = benchv1.RunRunning, "run", []benchv1.PhaseResult{load}
	failed := running
	failed.Phase = benchv1.RunFailed
	failed.Conditions = append([]metav1.Condition{cond(benchv1.ConditionFailed, metav1.ConditionTrue, "LoaderFailed", "Job x failed")}, failed.Conditions...)
	// A status rewrite that changes nothing a person follows.
	restarted := running
	restarted.Topology = &benchv1.TopologyStatus{Processes: []benchv1.ProcessStatus{{Pod: "p", Restarts: 1}}}

	loadLine := "finished=load type=Load ops/s=98.91 runtime=10.11s operations=1000 p99=1089us"
	runLine := "finished=run type=Run ops/s=751.50 runtime=2s operations=1503 p99=1084us"
	for _, tc := range []struct {
		name      string
		prev, cur *benchv1.BenchmarkRunStatus
		want      []string
	}{
		{"first observation, nothing yet", nil, &benchv1.BenchmarkRunStatus{}, []string{"phase=- current=-"}},
		{"first observation while provisioning", nil, ptr(provisioning("WaitingForPods", "0/1 pods ready")),
			[]string{`phase=Provisioning current=- topology=WaitingForPods message="0/1 pods ready"`}},
		{"pending to provisioning", &benchv1.BenchmarkRunStatus{Phase: benchv1.RunPending}, ptr(provisioning("Provisioning", "creating the MongoDB pods")),
			[]string{`phase=Provisioning current=- topology=Provisioning message="creating the MongoDB pods"`}},
		{"topology message changes", ptr(provisioning("Bootstrapping", "1/1 ready; bootstrap Job started")), ptr(provisioning("Bootstrapping", "1/1 ready; bootstrap Job running")),
			[]string{`phase=Provisioning current=- topology=Bootstrapping message="1/1 ready; bootstrap Job running"`}},
		{"topology unchanged", ptr(provisioning("WaitingForPods", "0/1")), ptr(provisioning("WaitingForPods", "0/1")), nil},
		{"loading starts: topology is no news any more", ptr(provisioning("WaitingForPods", "0/1")), &loading, []string{"phase=Loading current=load"}},
		{"a phase finishes with the move to the next", &loading, &running, []string{"phase=Running current=run " + loadLine}},
		{"nothing a person follows changed", &running, &restarted, nil},
		{"succeeded", &running, &done, []string{"phase=Succeeded current=run " + runLine}},
		{"first observation of a finished run", nil, &done, []string{"phase=Succeeded current=run " + loadLine, "phase=Succeeded current=run " + runLine}},
		{"failed", &running, &failed, []string{"phase=Failed current=run reason=LoaderFailed"}},
		{"failed without a condition", &running, &benchv1.BenchmarkRunStatus{Phase: benchv1.RunFailed, CurrentPhase: "run", Results: running.Results},
			[]string{"phase=Failed current=run reason=-"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := progressLines(tc.prev, tc.cur); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("progressLines =\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}

func TestProgressObserveStampsLines(t *testing.T) {
	var out bytes.Buffer
	clock := time.Date(2026, 5, 2, 12, 0, 1, 0, time.FixedZone("CEST", 2*3600))
	p := &progress{ref: Ref{KindRun, "demo"}, out: &out, now: func() time.Time { return clock }}
	r := &benchv1.BenchmarkRun{Status: benchv1.BenchmarkRunStatus{Phase: benchv1.RunLoading, CurrentPhase: "load"}}
	p.observe(r)
	p.observe(r) // no change, no line
	r.Status.Phase, r.Status.CurrentPhase = benchv1.RunRunning, "run"
	p.observe(r)
	want := "2026-05-02T10:00:01Z run/demo phase=Loading current=load\n" +
		"2026-05-02T10:00:01Z run/demo phase=Running current=run\n"
	if out.String() != want {
		t.Errorf("output\n%s\nwant\n%s", out.String(), want)
	}
}

func ptr[T any](v T) *T { return &v }
