package plugin

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// progressTimeLayout stamps progress lines: RFC 3339 in UTC, so lines from
// CI machines in different zones sort and compare.
const progressTimeLayout = "2006-01-02T15:04:05Z07:00"

// progress prints a line for every change it observes in a run's status.
type progress struct {
	ref  Ref
	out  io.Writer
	now  func() time.Time
	prev *benchv1.BenchmarkRunStatus
}

// observe prints what changed since the previous observation (everything
// worth saying on the first).
func (p *progress) observe(run *benchv1.BenchmarkRun) {
	ts := p.now().UTC().Format(progressTimeLayout)
	for _, l := range progressLines(p.prev, &run.Status) {
		// Progress is for people; a closed stdout must not end the wait,
		// whose verdict is the exit code.
		_, _ = fmt.Fprintf(p.out, "%s %s %s\n", ts, p.ref, l)
	}
	p.prev = run.Status.DeepCopy()
}

// progressLines describes the changes from prev to cur (prev nil: the first
// observation), one line per change, for people and grep. Every line
// starts with the run's state, "phase=P current=C" (plus "reason=R" once
// failed, "invalid=R" once succeeded but not valid); a change adds
// fields:
//
//   - topology=REASON message="..." while the topology is provisioned (the
//     TopologyReady condition's reason and message changed);
//   - finished=NAME type=T ops/s=X runtime=D operations=N p99=Nus for
//     every benchmark phase whose results appeared;
//
// and a change of phase or current phase alone prints the state line.
// Nothing is printed when nothing a person follows changed (status
// rewrites, process restarts, time series points).
func progressLines(prev, cur *benchv1.BenchmarkRunStatus) []string {
	first := prev == nil
	if first {
		prev = &benchv1.BenchmarkRunStatus{}
	}
	state := runState(cur)
	var lines []string
	if provisioning(cur.Phase) {
		c := meta.FindStatusCondition(cur.Conditions, benchv1.ConditionTopologyReady)
		pc := meta.FindStatusCondition(prev.Conditions, benchv1.ConditionTopologyReady)
		if c != nil && (pc == nil || c.Status != pc.Status || c.Reason != pc.Reason || c.Message != pc.Message) {
			lines = append(lines, state+" topology="+orDash(c.Reason)+" message="+strconv.Quote(c.Message))
		}
	}
	seen := make(map[string]bool, len(prev.Results))
	for _, r := range prev.Results {
		seen[r.Name] = true
	}
	for i := range cur.Results {
		r := &cur.Results[i]
		if seen[r.Name] {
			continue
		}
		lines = append(lines, state+" "+finishedFields(r))
	}
	if len(lines) == 0 && (first || cur.Phase != prev.Phase || cur.CurrentPhase != prev.CurrentPhase) {
		lines = append(lines, state)
	}
	return lines
}

// runState is a run's state as progress lines (and top's frames) start
// with it: "phase=P current=C", plus "reason=R" once failed and
// "invalid=R" once succeeded but not valid.
func runState(st *benchv1.BenchmarkRunStatus) string {
	state := "phase=" + orDash(string(st.Phase)) + " current=" + orDash(st.CurrentPhase)
	if failed, reason, _ := runFailed(st); failed {
		state += " reason=" + orDash(reason)
	}
	if c := runInvalid(st); c != nil {
		state += " invalid=" + orDash(c.Reason)
	}
	return state
}

// finishedFields describes a finished benchmark phase's results:
// "finished=NAME type=T ops/s=X runtime=D operations=N p99=Nus".
func finishedFields(r *benchv1.PhaseResult) string {
	return fmt.Sprintf("finished=%s type=%s ops/s=%s runtime=%s operations=%d p99=%dus",
		r.Name, r.Type, strconv.FormatFloat(r.Throughput, 'f', 2, 64),
		time.Duration(r.RuntimeMillis)*time.Millisecond, r.Operations, r.P99Micros)
}

// provisioning reports whether the run is still setting up its topology:
// the only time the TopologyReady condition is news.
func provisioning(p benchv1.RunLifecycle) bool {
	return p == "" || p == benchv1.RunPending || p == benchv1.RunProvisioning
}

// runFailed reads the run's failure from its Failed condition (conditions
// are for tools), or from the phase should the condition be missing.
func runFailed(st *benchv1.BenchmarkRunStatus) (failed bool, reason, message string) {
	if c := meta.FindStatusCondition(st.Conditions, benchv1.ConditionFailed); c != nil && c.Status == metav1.ConditionTrue {
		return true, c.Reason, c.Message
	}
	return st.Phase == benchv1.RunFailed, "", ""
}

// runSucceeded reads success from the Complete condition, or the phase.
func runSucceeded(st *benchv1.BenchmarkRunStatus) bool {
	return meta.IsStatusConditionTrue(st.Conditions, benchv1.ConditionComplete) || st.Phase == benchv1.RunSucceeded
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
