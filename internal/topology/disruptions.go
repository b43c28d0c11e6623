package topology

import (
	"fmt"
	"hash/fnv"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/contract"
)

// A phase's disruptions (spec.phases[].disruptions) are the loaders' to run
// and measure: every loader of the phase's Job gets every disruption, with
// the API's defaults applied here, so that the loader never guesses them.
// Loader 0 acts (a MongoDB command; for a pod deletion, the request the
// controller carries out) and keeps an exactly-once ledger per disruption
// in a ConfigMap (contract.DisruptionLedgerName).

// Disruptions are a phase's disruptions as the loaders receive them
// (contract.Disruption), defaults applied, and for a Sharded topology the
// replica set each hits with its members' addresses; none for a Grow
// phase, which the API refuses them on.
func Disruptions(run *benchv1.BenchmarkRun, phase *benchv1.PhaseSpec, clusterDomain string) []contract.Disruption {
	if phase.Type == benchv1.PhaseGrow {
		return nil
	}
	out := make([]contract.Disruption, 0, len(phase.Disruptions))
	for i := range phase.Disruptions {
		d := &phase.Disruptions[i]
		c := contract.Disruption{Index: i, Action: string(d.Action), At: d.At.Duration}
		switch d.Action {
		case benchv1.DisruptionStepDown:
			c.StepDownSecs, c.CatchUpSecs = int(d.StepDownSeconds()), int(d.CatchUpSeconds())
		case benchv1.DisruptionRestartMember, benchv1.DisruptionPause:
			if d.Member != nil {
				c.Member = d.Member.String() // an index as its decimal digits
			}
			if d.Duration != nil {
				c.Duration = d.Duration.Duration
			}
		}
		if set := DisruptionReplSet(d); set != "" {
			c.Target = set
			for _, p := range DisruptionTargetProcesses(run, d) {
				c.Hosts = append(c.Hosts, Address(run, p, clusterDomain))
			}
		}
		out = append(out, c)
	}
	return out
}

// DisruptionReplSet is the replica set a disruption of a Sharded topology
// hits: ShardName(target) or ConfigReplSet; "" when it has no target (a
// ReplicaSet topology's, or KillMongos).
func DisruptionReplSet(d *benchv1.Disruption) string {
	if d.Target == nil || d.Action == benchv1.DisruptionKillMongos {
		return ""
	}
	if d.Target.Type == intstr.Int {
		return ShardName(int(d.Target.IntVal))
	}
	if d.Target.StrVal == benchv1.TargetConfigServer {
		return ConfigReplSet
	}
	return ""
}

// DisruptionTargetProcesses are the members of the replica set a
// disruption hits, in member order: its target's (Sharded), else the
// ReplicaSet topology's; the mongos for KillMongos. None when the target
// names nothing of the run (the API refuses that).
func DisruptionTargetProcesses(run *benchv1.BenchmarkRun, d *benchv1.Disruption) []Process {
	var out []Process
	set := DisruptionReplSet(d)
	for _, p := range Processes(run) {
		switch {
		case d.Action == benchv1.DisruptionKillMongos:
			if p.Role == benchv1.RoleMongos {
				out = append(out, p)
			}
		case set != "":
			if p.ReplSet == set && (p.Role == benchv1.RoleShard || p.Role == benchv1.RoleConfigServer) {
				out = append(out, p)
			}
		case p.Role == benchv1.RoleMember:
			out = append(out, p)
		}
	}
	return out
}

// disruptionArgs is one --disruption flag per disruption of the phase.
func disruptionArgs(run *benchv1.BenchmarkRun, phase *benchv1.PhaseSpec, clusterDomain string) []string {
	ds := Disruptions(run, phase, clusterDomain)
	args := make([]string, 0, 2*len(ds))
	for _, d := range ds {
		args = append(args, "--"+contract.FlagDisruption, contract.EncodeDisruption(d))
	}
	return args
}

// DisruptionLedgerNames are the ledger ConfigMaps the phase's loader 0 may
// create, one per disruption, in index order.
func DisruptionLedgerNames(run *benchv1.BenchmarkRun, phase *benchv1.PhaseSpec) []string {
	if phase.Type == benchv1.PhaseGrow || len(phase.Disruptions) == 0 {
		return nil
	}
	job := PhaseJobName(run, phase.Name)
	out := make([]string, 0, len(phase.Disruptions))
	for i := range phase.Disruptions {
		out = append(out, contract.DisruptionLedgerName(job, i))
	}
	return out
}

// HasPause reports whether a phase of the run has a Pause.
func HasPause(run *benchv1.BenchmarkRun) bool {
	for i := range run.Spec.Phases {
		for j := range run.Spec.Phases[i].Disruptions {
			if run.Spec.Phases[i].Disruptions[j].Action == benchv1.DisruptionPause {
				return true
			}
		}
	}
	return false
}

// sharedProcessNamespace is the database pods' shareProcessNamespace:
// true for a run with a Pause, nil otherwise (the pods stay as they were).
// The freezing container (PauseContainer) must signal mongod, and mongod
// is otherwise PID 1 of its container's namespace: the image's entrypoint
// execs it. A PID namespace's init receives from the namespace's own
// processes only the signals it handles, and SIGSTOP cannot be handled
// (pid_namespaces(7)), so a container that joined mongod's namespace
// could not stop it. In a pod that shares one process namespace, the
// pod's pause container is PID 1 and mongod an ordinary process
// (Kubernetes, "Share Process Namespace between Containers in a Pod").
// The field cannot change on a running pod: it is set at provisioning,
// for every database pod of such a run.
func sharedProcessNamespace(run *benchv1.BenchmarkRun) *bool {
	if !HasPause(run) {
		return nil
	}
	return ptr.To(true)
}

// PauseContainerName is the ephemeral container that carries out the
// Pause whose ledger is ledger: "mongobench-pause-" and a hash of the
// ledger's name (a container name is a DNS label; a ledger's name can be
// longer). One name per disruption: an ephemeral container is never
// removed or restarted, and the API server refuses a second one of the
// same name, so adding it is done once whatever the controller retries.
func PauseContainerName(ledger string) string {
	h := fnv.New32a()
	_, _ = h.Write([]byte(ledger))
	return fmt.Sprintf("mongobench-pause-%08x", h.Sum32())
}

// PauseContainer is the ephemeral container that freezes the mongod of
// its pod for d (`loader freeze`): the loader image, as the mongod's user
// (kill(2) needs the same uid, and it keeps the restricted profile), in
// the pod's shared process namespace (sharedProcessNamespace). It writes
// when it stopped and continued the process to its termination message,
// which the controller copies into the ledger.
func PauseContainer(ledger string, d time.Duration, cfg Config) corev1.EphemeralContainer {
	sec := restrictedContainerSecurity()
	sec.RunAsUser, sec.RunAsGroup = ptr.To[int64](MongoUID), ptr.To[int64](MongoUID)
	return corev1.EphemeralContainer{EphemeralContainerCommon: corev1.EphemeralContainerCommon{
		Name:            PauseContainerName(ledger),
		Image:           cfg.LoaderImage,
		ImagePullPolicy: cfg.LoaderImagePullPolicy,
		Args: []string{contract.CommandFreeze, "--" + contract.FlagFreezeProcess, contract.FreezeDefaultProcess,
			"--" + contract.FlagFreezeFor, d.String()},
		SecurityContext:          sec,
		TerminationMessagePath:   corev1.TerminationMessagePathDefault,
		TerminationMessagePolicy: corev1.TerminationMessageReadFile,
	}}
}
