package controllers

import (
	"context"
	"fmt"
	"math"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/topology"
)

// ensureIdentity creates the run's Services (stable DNS names, the entry
// point), the identity its Jobs use to write their result ConfigMaps,
// unless security.networkPolicy is off, the NetworkPolicy that lets only
// the run's own pods reach its database pods, and with security.auth the
// Secrets of its keyfile and users (ensureAuthSecrets): before any of
// them exists, so that none is ever open to the cluster or starts
// without its keyfile.
func (r *BenchmarkRunReconciler) ensureIdentity(ctx context.Context, s *runState) (bool, error) {
	run := s.run
	var objs []client.Object
	if sa := topology.JobServiceAccount(run); s.serviceAccounts[sa.Name] == nil {
		objs = append(objs, sa)
	}
	if role := topology.JobRole(run); s.roles[role.Name] == nil {
		objs = append(objs, role)
	}
	if rb := topology.JobRoleBinding(run); s.roleBindings[rb.Name] == nil {
		objs = append(objs, rb)
	}
	// An External run has no database pod to fence or to name.
	if np := topology.NetworkPolicy(run); topology.NetworkPolicyEnabled(run) && !topology.External(run) && s.networkPolicies[np.Name] == nil {
		objs = append(objs, np)
	}
	for _, svc := range []*corev1.Service{topology.HeadlessService(run), topology.EntryService(run)} {
		if s.services[svc.Name] == nil && !topology.External(run) {
			objs = append(objs, svc)
		}
	}
	for _, o := range objs {
		if err := r.create(ctx, o); err != nil {
			return false, err
		}
	}
	return r.ensureAuthSecrets(ctx, s)
}

// Provisioning creates the run's volumes and MongoDB pods, all on one
// node: the first ("anchor") pod is placed by the scheduler (or on
// placement.nodeName), the others follow it with a kubernetes.io/hostname
// selector. Until the anchor is scheduled the run stays Pending. Once the
// topology is ready, nothing is re-created: a pod lost after that is a lost
// benchmark (watchTopology). It takes three steps: ensureClaims,
// placePods and checkPods.

// ensureClaims creates the data volume claims of the processes that need
// one (storage.medium PersistentVolume).
func (r *BenchmarkRunReconciler) ensureClaims(ctx context.Context, s *runState) (bool, error) {
	run := s.run
	if s.topologyWasReady() {
		return true, nil
	}
	for _, p := range topology.Processes(run) {
		if topology.NeedsClaim(run, p) && s.claims[topology.DataClaimName(p)] == nil {
			if err := r.create(ctx, topology.DataClaim(run, p)); err != nil {
				return false, err
			}
		}
	}
	return true, nil
}

// placePods creates the missing MongoDB pods and, once the anchor's node is
// known, records it and moves the run to Provisioning.
func (r *BenchmarkRunReconciler) placePods(ctx context.Context, s *runState) (bool, error) {
	run := s.run
	if s.topologyWasReady() {
		// Nothing is created any more, but the nodes are recorded again
		// if the status patch that held them was lost to a conflict after
		// the benchmark Jobs had been created (topologyWasReady): the
		// pods are still where they were, and without status.nodeName the
		// run would report its topology ready on no node and check no
		// node's disk (recordEnvironment).
		recordNodes(s)
		return true, nil
	}
	if topology.Spread(run) {
		return true, r.placeSpreadPods(ctx, s)
	}
	procs := topology.Processes(run)
	node := nodeName(run, s.pods[procs[0].Name])
	if err := r.createPods(ctx, s, procs, node); err != nil || terminal(run) {
		return false, err
	}
	if node != "" {
		s.setLifecycle(benchv1.RunProvisioning)
		recordNodes(s)
	}
	return true, nil
}

// recordNodes records the nodes the run's pods are on, once they are
// known: status.nodeName (the anchor's node, which every pod of a
// one-node run shares) and status.nodes (each role's node, once every pod
// is placed), with the NodeSelected event. What is recorded stays.
func recordNodes(s *runState) {
	run := s.run
	procs := topology.Processes(run)
	if topology.Spread(run) {
		if run.Status.Nodes != nil || len(unplacedPods(s, procs)) > 0 {
			return
		}
		run.Status.Nodes = roleNodes(procs, func(p topology.Process) string { return s.pods[p.Name].Spec.NodeName })
		s.eventf(benchv1.EventNodeSelected, "the MongoDB pods of this run run on %s", describeNodes(run.Status.Nodes))
		return
	}
	node := nodeName(run, s.pods[procs[0].Name])
	if node == "" {
		return
	}
	if run.Status.NodeName == "" {
		run.Status.NodeName = node
		s.eventf(benchv1.EventNodeSelected, "every MongoDB pod of this run runs on node %s", node)
	}
	if run.Status.Nodes == nil && !s.missingPod(procs) {
		run.Status.Nodes = roleNodes(procs, func(topology.Process) string { return node })
	}
}

// checkPods fails the run when a MongoDB pod cannot make progress, records
// the processes in status, and holds the run while the anchor waits for a
// node (TopologyReady False, WaitingForNode).
func (r *BenchmarkRunReconciler) checkPods(ctx context.Context, s *runState) (bool, error) {
	run := s.run
	if s.topologyWasReady() {
		return true, nil
	}
	if topology.Spread(run) {
		return r.checkSpreadPods(ctx, s)
	}
	procs := topology.Processes(run)
	waiting, err := r.waitingForNode(ctx, s, procs[0])
	if err != nil {
		return false, err
	}
	exempt := map[string]bool{}
	if waiting != "" {
		exempt[procs[0].Name] = true
	}
	if r.failOnPodProblems(s, procs, exempt) {
		return false, nil
	}
	s.recordProcesses(procs, r.Topology.ClusterDomain)
	if nodeName(run, s.pods[procs[0].Name]) == "" {
		_, _, msg := readiness(s, procs)
		if waiting == "" {
			waiting = fmt.Sprintf("waiting for pod %s to be scheduled (the other pods follow it to its node)", procs[0].Name)
		}
		s.setCondition(benchv1.ConditionTopologyReady, metav1.ConditionFalse, benchv1.ReasonWaitingForNode, waiting+"; "+msg)
		return false, nil
	}
	return true, nil
}

// createPods creates the missing MongoDB pods: the anchor first (placed by
// the scheduler among the pre-flight's candidates), the others once the
// anchor's node is known.
func (r *BenchmarkRunReconciler) createPods(ctx context.Context, s *runState, procs []topology.Process, node string) error {
	if !s.missingPod(procs) {
		return nil
	}
	np := topology.NodePlacement{Candidates: s.candidates}
	if node != "" {
		// Read the Node only when a pod still has to be pinned to it: once
		// every pod exists, a reconcile does no uncached read.
		h, ok, err := r.hostname(ctx, s, node)
		if err != nil || !ok {
			return err
		}
		np.Hostname = h
	}
	for i, p := range procs {
		if s.pods[p.Name] != nil {
			continue
		}
		if node == "" && i > 0 {
			break // wait until the anchor is scheduled
		}
		if err := r.create(ctx, topology.Pod(s.run, p, np, r.Topology)); err != nil {
			return err
		}
		if node == "" {
			s.eventf(benchv1.ReasonProvisioning, "created %s; the other MongoDB pods follow it to its node once it is scheduled", p.Name)
		}
	}
	return nil
}

// waitingForNode explains an exclusive run's anchor pod that the scheduler
// cannot place because every node that fits is busy with other benchmarks
// (its required anti-affinity). That is waiting, not failing: bounded by
// spec.timeout, never by the unschedulable timeout. It returns "" when the
// anchor is not waiting for that reason.
func (r *BenchmarkRunReconciler) waitingForNode(ctx context.Context, s *runState, anchor topology.Process) (string, error) {
	msg, ok := unschedulable(s.pods[anchor.Name])
	if !ok || !topology.Exclusive(s.run) {
		return "", nil
	}
	busy, err := r.busyNodes(ctx, s.run)
	if err != nil {
		return "", err
	}
	switch {
	case len(busy) > 0:
		return "waiting for a node free of other benchmarks (placement.exclusive): " + describeBusy(busy), nil
	case strings.Contains(msg, "anti-affinity"):
		// Busy with runs this manager cannot see (another namespace of a
		// namespace-scoped install): the scheduler's word is enough.
		return "waiting for a node free of other benchmarks (placement.exclusive): " + msg, nil
	}
	return "", nil
}

// nodeName is the node the run's pods live on: the one recorded in status,
// else placement.nodeName, else the node the scheduler gave the anchor pod.
func nodeName(run *benchv1.BenchmarkRun, anchor *corev1.Pod) string {
	switch {
	case run.Status.NodeName != "":
		return run.Status.NodeName
	case run.Spec.Placement.NodeName != "":
		return run.Spec.Placement.NodeName
	case anchor != nil:
		return anchor.Spec.NodeName
	}
	return ""
}

func (s *runState) missingPod(procs []topology.Process) bool {
	for _, p := range procs {
		if s.pods[p.Name] == nil {
			return true
		}
	}
	return false
}

// hostname is the value pods select the node by: its kubernetes.io/hostname
// label, which usually equals the node name but not on every cloud. ok is
// false when the run failed (placement.nodeName names no node).
func (r *BenchmarkRunReconciler) hostname(ctx context.Context, s *runState, name string) (string, bool, error) {
	node := &corev1.Node{}
	err := r.APIReader.Get(ctx, client.ObjectKey{Name: name}, node)
	switch {
	case err == nil:
		if h := node.Labels[topology.HostnameLabel]; h != "" {
			return h, true, nil
		}
		return name, true, nil
	case apierrors.IsForbidden(err):
		// A namespace-scoped install may not read Nodes: assume the usual
		// kubernetes.io/hostname == node name.
		return name, true, nil
	case apierrors.IsNotFound(err) && s.run.Spec.Placement.NodeName != "" && s.run.Status.NodeName == "":
		s.fail(benchv1.ReasonNodeNotFound, "placement.nodeName %q: no such node", name)
		return "", false, nil
	case apierrors.IsNotFound(err):
		// The node vanished under a running topology: its pods will fail.
		return name, true, nil
	default:
		return "", false, fmt.Errorf("get node %s: %w", name, err)
	}
}

// failOnPodProblems fails the run when a MongoDB pod cannot make progress
// (unschedulable, image not pullable, crash-looping); it reports whether it
// did. waiting exempts the pods it names from the unschedulable timeout
// while they wait for a node free of other benchmarks.
func (r *BenchmarkRunReconciler) failOnPodProblems(s *runState, procs []topology.Process, waiting map[string]bool) bool {
	for _, p := range procs {
		pod := s.pods[p.Name]
		if pod == nil {
			continue
		}
		lim := r.Limits
		if waiting[p.Name] {
			lim.Unschedulable = math.MaxInt64
		}
		pr := podProblem(pod, s.now, lim)
		if pr.fatal != "" {
			s.fail(benchv1.ReasonTopologyFailed, "%s", pr.fatal)
			return true
		}
		if pr.wait > 0 {
			s.wakeAfter(pr.wait)
		}
	}
	return false
}

// recordProcesses fills status.topology.processes and the TopologyReady
// condition's explanation while the topology is not ready.
func (s *runState) recordProcesses(procs []topology.Process, domain string) {
	run := s.run
	t := s.topologyStatus()
	t.EntryPoint = topology.EntryAddress(run, domain)
	baseline := recordedRestarts(t)
	states := recordedStates(t)
	out := make([]benchv1.ProcessStatus, 0, len(procs))
	for _, p := range procs {
		ps := benchv1.ProcessStatus{Role: p.Role, Pod: p.Name, Address: topology.Address(run, p, domain), Restarts: baseline[p.Name],
			ReplicaSet: p.ReplSet, State: states[p.Name]}
		if pod := s.pods[p.Name]; pod != nil {
			ps.Ready = podReady(pod)
			if !conditionTrue(run, benchv1.ConditionTopologyReady) {
				// Before the topology is ready, restarts are expected
				// (mongos waits for its config server); track them.
				ps.Restarts = restarts(pod)
			}
		}
		out = append(out, ps)
	}
	t.Processes = out
}

// topologyStatus is status.topology, created on first use: the one place
// that sets it up.
func (s *runState) topologyStatus() *benchv1.TopologyStatus {
	if s.run.Status.Topology == nil {
		s.run.Status.Topology = &benchv1.TopologyStatus{}
	}
	return s.run.Status.Topology
}

// recordedStates maps each process's pod to the replica-set state status
// recorded for it (recordMemberStates): processes are listed again at
// every reconcile, the states only once, from the bootstrap's result.
func recordedStates(t *benchv1.TopologyStatus) map[string]string {
	out := map[string]string{}
	if t == nil {
		return out
	}
	for _, p := range t.Processes {
		out[p.Pod] = p.State
	}
	return out
}

// recordedRestarts maps each process's pod to the restarts status recorded
// for it: the baseline against which a restart after the topology became
// ready is a lost topology.
func recordedRestarts(t *benchv1.TopologyStatus) map[string]int32 {
	out := map[string]int32{}
	if t == nil {
		return out
	}
	for _, p := range t.Processes {
		out[p.Pod] = p.Restarts
	}
	return out
}

func podReady(p *corev1.Pod) bool {
	if p.DeletionTimestamp != nil {
		return false
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func restarts(p *corev1.Pod) int32 {
	var n int32
	for _, cs := range p.Status.ContainerStatuses {
		n += cs.RestartCount
	}
	return n
}

// readiness summarises which processes are ready, for the TopologyReady
// condition: "config server ready, 2/4 shards ready, mongos not ready".
// dataReady covers every process but mongos, which can only become ready
// once its config server replica set is initiated by the bootstrap Job.
func readiness(s *runState, procs []topology.Process) (all, dataReady bool, msg string) {
	var members, membersReady int
	var mongos, standalone []string
	// A shard, and the config server, is ready when every member of its
	// replica set is: counted by set, in order of appearance.
	var shardSets []string
	setReady := map[string]bool{}
	cfgSeen, cfgReady := false, true
	all, dataReady = true, true
	for _, p := range procs {
		ready := s.pods[p.Name] != nil && podReady(s.pods[p.Name])
		all = all && ready
		if p.Role != benchv1.RoleMongos {
			dataReady = dataReady && ready
		}
		switch p.Role {
		case benchv1.RoleShard:
			if _, ok := setReady[p.ReplSet]; !ok {
				shardSets = append(shardSets, p.ReplSet)
				setReady[p.ReplSet] = true
			}
			setReady[p.ReplSet] = setReady[p.ReplSet] && ready
		case benchv1.RoleMember:
			members++
			if ready {
				membersReady++
			}
		case benchv1.RoleConfigServer:
			cfgSeen, cfgReady = true, cfgReady && ready
		case benchv1.RoleMongos:
			mongos = append(mongos, "mongos "+readyWord(ready))
		case benchv1.RoleStandalone:
			standalone = append(standalone, "mongod "+readyWord(ready))
		}
	}
	parts := standalone
	if cfgSeen {
		parts = append(parts, "config server "+readyWord(cfgReady))
	}
	if len(shardSets) > 0 {
		shardsReady := 0
		for _, rs := range shardSets {
			if setReady[rs] {
				shardsReady++
			}
		}
		parts = append(parts, fmt.Sprintf("%d/%d shards ready", shardsReady, len(shardSets)))
	}
	if members > 0 {
		parts = append(parts, fmt.Sprintf("%d/%d replica-set members ready", membersReady, members))
	}
	parts = append(parts, mongos...)
	return all, dataReady, strings.Join(parts, ", ")
}

func readyWord(ready bool) string {
	if ready {
		return "ready"
	}
	return "not ready"
}
