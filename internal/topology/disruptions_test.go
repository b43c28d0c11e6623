package topology

import (
	"reflect"
	"slices"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/contract"
)

// TestDisruptionArgs: every loader of a phase gets one --disruption per
// disruption, defaults applied, that the loader's decoder reads back as
// the API said; a phase without disruptions gets none.
func TestDisruptionArgs(t *testing.T) {
	run := replicaSet(nil)
	run.Spec.Loaders = 3
	run.Spec.Phases = []benchv1.PhaseSpec{
		{Name: "load", Type: benchv1.PhaseLoad, Disruptions: []benchv1.Disruption{{At: metav1.Duration{Duration: 0}, Action: benchv1.DisruptionStepDown}}},
		{Name: "run", Type: benchv1.PhaseRun, Disruptions: []benchv1.Disruption{
			{At: metav1.Duration{Duration: 30 * time.Second}, Action: benchv1.DisruptionStepDown},
			{At: metav1.Duration{Duration: 90*time.Second + 500*time.Millisecond}, Action: benchv1.DisruptionStepDown,
				StepDownSecs: ptr.To[int32](20), SecondaryCatchUpPeriodSecs: ptr.To[int32](0)},
		}},
		{Name: "quiet", Type: benchv1.PhaseRun},
		{Name: "kill", Type: benchv1.PhaseRun, Disruptions: []benchv1.Disruption{
			{At: metav1.Duration{Duration: 10 * time.Second}, Action: benchv1.DisruptionKillPrimary},
			{At: metav1.Duration{Duration: 20 * time.Second}, Action: benchv1.DisruptionRestartMember, Member: ptr.To(intstr.FromInt32(2))},
			{At: metav1.Duration{Duration: 30 * time.Second}, Action: benchv1.DisruptionRestartMember, Member: ptr.To(intstr.FromString("secondary"))},
		}},
	}
	flags := func(ph *benchv1.PhaseSpec) []string {
		args := PhaseJob(run, ph, time.Hour, cfg).Spec.Template.Spec.Containers[0].Args
		var out []string
		for i, a := range args {
			if a == "--"+contract.FlagDisruption {
				out = append(out, args[i+1])
			}
		}
		return out
	}
	if got, want := flags(&run.Spec.Phases[0]), []string{"0,StepDown,0s,stepDownSecs=60,catchUpSecs=10"}; !reflect.DeepEqual(got, want) {
		t.Errorf("load: %q, want %q", got, want)
	}
	got := flags(&run.Spec.Phases[1])
	want := []string{"0,StepDown,30s,stepDownSecs=60,catchUpSecs=10", "1,StepDown,1m30.5s,stepDownSecs=20,catchUpSecs=0"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("run: %q, want %q", got, want)
	}
	for i, s := range got {
		d, err := contract.DecodeDisruption(s)
		api := &run.Spec.Phases[1].Disruptions[i]
		if err != nil || d.Index != i || d.At != api.At.Duration || d.StepDownSecs != int(api.StepDownSeconds()) || d.CatchUpSecs != int(api.CatchUpSeconds()) {
			t.Errorf("%q decodes to %+v, %v; want disruption %d of the API", s, d, err, i)
		}
	}
	if got := flags(&run.Spec.Phases[2]); len(got) != 0 {
		t.Errorf("a phase without disruptions: %q", got)
	}
	// The pod deletions reach the loader with RestartMember's member.
	got = flags(&run.Spec.Phases[3])
	want = []string{"0,KillPrimary,10s", "1,RestartMember,20s,member=2", "2,RestartMember,30s,member=secondary"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("kill: %q, want %q", got, want)
	}
	for i, s := range got {
		d, err := contract.DecodeDisruption(s)
		api := &run.Spec.Phases[3].Disruptions[i]
		if err != nil || d.Action != string(api.Action) || contract.DeletesPod(d.Action) != api.Action.DeletesPod() {
			t.Errorf("%q decodes to %+v, %v; want disruption %d of the API", s, d, err, i)
		}
	}

	// The Role lets the loaders read and update exactly the ledgers.
	role := JobRole(run)
	ledgers := []string{"rs-load-disruption-0", "rs-run-disruption-0", "rs-run-disruption-1", "rs-kill-disruption-0", "rs-kill-disruption-1",
		"rs-kill-disruption-2"}
	i := slices.IndexFunc(role.Rules, func(r rbacv1.PolicyRule) bool { return slices.Contains(r.Verbs, "patch") })
	if i < 0 || !reflect.DeepEqual(role.Rules[i].Verbs, []string{"get", "patch"}) || !reflect.DeepEqual(role.Rules[i].ResourceNames, ledgers) ||
		!reflect.DeepEqual(role.Rules[i].Resources, []string{"configmaps"}) {
		t.Errorf("rules %+v, want get and patch on %v", role.Rules, ledgers)
	}
	if got := DisruptionLedgerNames(run, &run.Spec.Phases[1]); !reflect.DeepEqual(got, ledgers[1:3]) {
		t.Errorf("ledger names %v", got)
	}
	for _, r := range role.Rules {
		if len(r.ResourceNames) == 0 && !reflect.DeepEqual(r.Verbs, []string{"create"}) {
			t.Errorf("a rule without resource names allows %v", r.Verbs)
		}
	}
}
