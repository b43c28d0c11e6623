package topology

import (
	"reflect"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
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

// TestShardedDisruptionTargets: a disruption of a Sharded topology reaches
// the loaders with the replica set it hits and its members' addresses, in
// member order (every loader watches that set; loader 0 steps it down);
// KillMongos and a ReplicaSet's disruptions carry none.
func TestShardedDisruptionTargets(t *testing.T) {
	run := sharded(2)
	run.Spec.Topology.ShardMembers = ptr.To[int32](3)
	run.Spec.Topology.ConfigServerMembers = ptr.To[int32](3)
	run.Spec.Phases = []benchv1.PhaseSpec{{Name: "run", Type: benchv1.PhaseRun, Disruptions: []benchv1.Disruption{
		{At: metav1.Duration{Duration: 10 * time.Second}, Action: benchv1.DisruptionStepDown, Target: ptr.To(intstr.FromInt32(1))},
		{At: metav1.Duration{Duration: 20 * time.Second}, Action: benchv1.DisruptionRestartMember, Member: ptr.To(intstr.FromInt32(2)),
			Target: ptr.To(intstr.FromString(benchv1.TargetConfigServer))},
		{At: metav1.Duration{Duration: 30 * time.Second}, Action: benchv1.DisruptionKillMongos},
	}}}
	ds := Disruptions(run, &run.Spec.Phases[0], "cluster.local")
	dom := "." + HeadlessServiceName(run) + "." + run.Namespace + ".svc.cluster.local"
	want := []contract.Disruption{
		{Index: 0, Action: "StepDown", At: 10 * time.Second, StepDownSecs: 60, CatchUpSecs: 10, Target: "shard1",
			Hosts: []string{run.Name + "-shard1" + dom + ":27018", run.Name + "-shard1-1" + dom + ":27018", run.Name + "-shard1-2" + dom + ":27018"}},
		{Index: 1, Action: "RestartMember", At: 20 * time.Second, Member: "2", Target: "cfg",
			Hosts: []string{run.Name + "-cfg" + dom + ":27019", run.Name + "-cfg-1" + dom + ":27019", run.Name + "-cfg-2" + dom + ":27019"}},
		{Index: 2, Action: "KillMongos", At: 30 * time.Second},
	}
	if !reflect.DeepEqual(ds, want) {
		t.Fatalf("disruptions\n%+v\nwant\n%+v", ds, want)
	}
	for _, d := range ds {
		got, err := contract.DecodeDisruption(contract.EncodeDisruption(d))
		if err != nil || !reflect.DeepEqual(got, d) {
			t.Errorf("round trip of %+v: %+v, %v", d, got, err)
		}
	}
	// The pods a deletion may hit are the target's, by member index.
	procs := DisruptionTargetProcesses(run, &run.Spec.Phases[0].Disruptions[1])
	if len(procs) != 3 || procs[2].Name != run.Name+"-cfg-2" || procs[2].Member != 2 {
		t.Errorf("config server's members %+v", procs)
	}
	if procs := DisruptionTargetProcesses(run, &run.Spec.Phases[0].Disruptions[2]); len(procs) != 1 || procs[0].Role != benchv1.RoleMongos {
		t.Errorf("KillMongos' processes %+v", procs)
	}
	rs := replicaSet(nil)
	d := benchv1.Disruption{Action: benchv1.DisruptionKillPrimary}
	if procs := DisruptionTargetProcesses(rs, &d); len(procs) != 3 || DisruptionReplSet(&d) != "" {
		t.Errorf("a ReplicaSet's members %+v", procs)
	}
}

// TestPauseBuilders: a run with a Pause gets database pods that share
// their process namespace (so that mongod is not PID 1 and can be
// stopped), any other run keeps them as they were; the Pause reaches the
// loaders with its member and duration; its freezing container runs
// `loader freeze` on mongod for the duration, as the mongod's user, under
// the restricted profile, and its name is fixed by the ledger's.
func TestPauseBuilders(t *testing.T) {
	run := replicaSet(nil)
	if p := Pod(run, Processes(run)[0], NodePlacement{}, cfg); p.Spec.ShareProcessNamespace != nil {
		t.Errorf("a run without a Pause shares its pods' process namespace: %v", *p.Spec.ShareProcessNamespace)
	}
	run.Spec.Phases = []benchv1.PhaseSpec{{Name: "run", Type: benchv1.PhaseRun, Disruptions: []benchv1.Disruption{
		{At: metav1.Duration{Duration: 10 * time.Second}, Action: benchv1.DisruptionPause, Member: ptr.To(intstr.FromString("primary")),
			Duration: &metav1.Duration{Duration: 15 * time.Second}}}}}
	for _, p := range Processes(run) {
		if pod := Pod(run, p, NodePlacement{}, cfg); pod.Spec.ShareProcessNamespace == nil || !*pod.Spec.ShareProcessNamespace {
			t.Errorf("pod %s does not share its process namespace", pod.Name)
		}
	}
	ds := Disruptions(run, &run.Spec.Phases[0], "cluster.local")
	if len(ds) != 1 || contract.EncodeDisruption(ds[0]) != "0,Pause,10s,member=primary,duration=15s" {
		t.Errorf("disruptions %+v", ds)
	}
	ledger := contract.DisruptionLedgerName(PhaseJobName(run, "run"), 0)
	c := PauseContainer(ledger, 15*time.Second, cfg)
	if c.Name != PauseContainerName(ledger) || len(c.Name) > 63 || c.Name == PauseContainerName(ledger+"x") {
		t.Errorf("container name %q", c.Name)
	}
	want := []string{contract.CommandFreeze, "--" + contract.FlagFreezeProcess, "mongod", "--" + contract.FlagFreezeFor, "15s"}
	if c.Image != cfg.LoaderImage || !reflect.DeepEqual(c.Args, want) {
		t.Errorf("container %s %v, want the loader image with %v", c.Image, c.Args, want)
	}
	sc := c.SecurityContext
	if sc == nil || *sc.RunAsUser != MongoUID || *sc.AllowPrivilegeEscalation || !*sc.RunAsNonRoot || len(sc.Capabilities.Drop) != 1 ||
		c.TerminationMessagePolicy != corev1.TerminationMessageReadFile {
		t.Errorf("security %+v, termination message policy %s", sc, c.TerminationMessagePolicy)
	}
}
