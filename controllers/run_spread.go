package controllers

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/topology"
)

// spreadCheck is preflightCheck for layout Spread. Each data-bearing
// mongod needs a SpreadTopologyKey domain of its own (a node, with the
// hostname key) that holds a node fitting that mongod's requests: the
// scheduler would otherwise leave the last members Pending for good,
// since the run's own anti-affinity forbids them every other domain. It
// counts the domains, among the Ready, schedulable nodes matching the
// placement, in which some node fits one member, and fails the run when
// there are fewer than members. The config server and mongos go where
// they fit: each must fit some eligible node on its own. Which nodes are
// busy with other runs is not counted: an exclusive run waits for them.
// Nor is the disk: the volumes' sizes are limits the scheduler does not
// count, so too little room is a warning (spreadDiskRoom), not a failure.
func spreadCheck(run *benchv1.BenchmarkRun, nodes []corev1.Node, log logr.Logger) (fit fitResult, reason benchv1.Reason, msg string) {
	key := topology.SpreadTopologyKey(run)
	var members, others []topology.Process
	for _, p := range topology.Processes(run) {
		if topology.DataBearing(p) {
			members = append(members, p)
		} else {
			others = append(others, p)
		}
	}
	// Every member of a topology requests the same (topology.resources).
	need := topology.Requests(run, members[0])
	domains := map[string]bool{}
	bestScore := -1.0
	for i := range nodes {
		n := &nodes[i]
		if !eligible(run, n, log) {
			continue
		}
		fit.eligible++
		domain, labelled := n.Labels[key]
		if key == topology.HostnameLabel {
			domain, labelled = hostnameOf(n), true
		}
		if !labelled {
			continue // spreadAffinity keeps members off it
		}
		score := fitScore(n.Status.Allocatable, need)
		if score > bestScore {
			bestScore, fit.largest = score, n
		}
		if score >= 1 {
			domains[domain] = true
			fit.candidates = append(fit.candidates, hostnameOf(n))
		}
	}
	sort.Strings(fit.candidates)
	if len(domains) < len(members) {
		return fit, benchv1.ReasonInsufficientResources, explainSpread(run, len(members), len(domains), fit, need)
	}
	for _, p := range others {
		req := topology.Requests(run, p)
		if !someNodeFits(run, nodes, req, log) {
			return fit, benchv1.ReasonInsufficientResources, fmt.Sprintf(
				"the %s (%s) requests %s, and no Ready, schedulable node matching the run's placement has that much allocatable",
				p.Role, p.Name, formatResources(req))
		}
	}
	return fit, "", ""
}

// explainSpread says how many nodes (domains) a Spread run needs and how
// many fit.
func explainSpread(run *benchv1.BenchmarkRun, members, fitting int, fit fitResult, need corev1.ResourceList) string {
	key := topology.SpreadTopologyKey(run)
	unit, units := "node", "nodes"
	if key != topology.HostnameLabel {
		unit, units = key+" domain", key+" domains"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "layout Spread puts each of the topology's %d data-bearing mongods on a %s of its own: %d %s needed, %d fit",
		members, unit, members, units, fitting)
	if len(need) > 0 {
		fmt.Fprintf(&b, " (each mongod requests %s", formatResources(need))
		if fit.largest != nil {
			fmt.Fprintf(&b, "; the largest of the %d Ready, schedulable nodes matching the run's placement, %s, has %s",
				fit.eligible, fit.largest.Name, formatResources(onlyNamed(fit.largest.Status.Allocatable, need)))
		}
		b.WriteString(")")
	}
	if fit.eligible == 0 {
		b.WriteString("; no Ready, schedulable node matches the run's placement (nodeSelector, tolerations)")
	}
	return b.String()
}

// spreadDiskRoom is diskRoomFor for a Spread run: what it says when too
// few of the nodes that could take the run's pods have the allocatable
// ephemeral storage their emptyDir data volumes may grow to
// (topology.NodeDiskVolume), "" otherwise. Each data-bearing mongod needs
// a domain of its own in which some node fits its requests and has room
// for its volume; the config server needs some node that does. Only a
// warning, never a failure, for the reasons preflight gives: the scheduler
// does not count a sizeLimit, and a run that never fills its volumes runs.
// Unlike SameNode there is no anchor to steer to the roomy nodes: the
// scheduler places every pod, so the run is told, not steered. A node
// that does not say its ephemeral storage counts as roomy.
func spreadDiskRoom(run *benchv1.BenchmarkRun, nodes []corev1.Node, log logr.Logger) string {
	key := topology.SpreadTopologyKey(run)
	unit, units := "node", "nodes"
	if key != topology.HostnameLabel {
		unit, units = key+" domain", key+" domains"
	}
	var warnings []string
	var members []topology.Process
	for _, p := range topology.Processes(run) {
		if topology.DataBearing(p) {
			members = append(members, p)
			continue
		}
		vol := topology.NodeDiskVolume(run, p)
		if vol.IsZero() {
			continue
		}
		req := topology.Requests(run, p)
		fits, roomy := 0, 0
		for i := range nodes {
			n := &nodes[i]
			if !eligible(run, n, log) || fitScore(n.Status.Allocatable, req) < 1 {
				continue
			}
			fits++
			if hasDiskRoom(n, vol) {
				roomy++
			}
		}
		if fits > 0 && roomy == 0 {
			warnings = append(warnings, fmt.Sprintf("the %s's (%s) data volume may grow to %s, and none of the %d nodes that fit its requests "+
				"has that much allocatable ephemeral storage: a phase that fills it gets its pod evicted", p.Role, p.Name, vol.String(), fits))
		}
	}
	// Every member of a topology has the same requests and volume.
	vol := topology.NodeDiskVolume(run, members[0])
	if !vol.IsZero() {
		req := topology.Requests(run, members[0])
		fitting, roomy := map[string]bool{}, map[string]bool{}
		for i := range nodes {
			n := &nodes[i]
			if !eligible(run, n, log) {
				continue
			}
			domain, labelled := n.Labels[key]
			if key == topology.HostnameLabel {
				domain, labelled = hostnameOf(n), true
			}
			if !labelled || fitScore(n.Status.Allocatable, req) < 1 {
				continue
			}
			fitting[domain] = true
			if hasDiskRoom(n, vol) {
				roomy[domain] = true
			}
		}
		// Fewer fitting domains than members fails the run (spreadCheck);
		// this speaks only of the disk.
		if len(fitting) >= len(members) && len(roomy) < len(members) {
			warnings = append(warnings, fmt.Sprintf("layout Spread puts each of the topology's %d data-bearing mongods on a %s of its own, "+
				"and each one's data volumes on its node's disk may grow to %s (storage.size, plus the oplog of a shard or replica-set member): "+
				"%d %s with that much allocatable ephemeral storage needed, %d have it (of %d that fit the requests); "+
				"a phase that fills them gets its pods evicted", len(members), unit, vol.String(), len(members), units, len(roomy), len(fitting)))
		}
	}
	return strings.Join(warnings, "\n")
}

// hasDiskRoom: node n's allocatable ephemeral storage holds vol, or n
// does not say.
func hasDiskRoom(n *corev1.Node, vol resource.Quantity) bool {
	alloc, ok := n.Status.Allocatable[corev1.ResourceEphemeralStorage]
	return !ok || alloc.Cmp(vol) >= 0
}

// someNodeFits: some eligible node has need allocatable.
func someNodeFits(run *benchv1.BenchmarkRun, nodes []corev1.Node, need corev1.ResourceList, log logr.Logger) bool {
	for i := range nodes {
		if eligible(run, &nodes[i], log) && fitScore(nodes[i].Status.Allocatable, need) >= 1 {
			return true
		}
	}
	return false
}

// Provisioning a Spread run: there is no anchor. Every pod is created at
// once and placed by the scheduler on its own merits: the data-bearing
// mongods apart from each other (spreadAffinity), the config server and
// mongos where they fit; with placement.exclusive, all of them away from
// other runs. The run stays Pending until every pod is scheduled, then
// records the nodes (status.nodes) and moves to Provisioning.

// placeSpreadPods creates the missing MongoDB pods of a Spread run and,
// once all of them are scheduled, records their nodes.
func (r *BenchmarkRunReconciler) placeSpreadPods(ctx context.Context, s *runState) error {
	run := s.run
	procs := topology.Processes(run)
	created := 0
	for _, p := range procs {
		if s.pods[p.Name] != nil {
			continue
		}
		if err := r.create(ctx, topology.Pod(run, p, topology.NodePlacement{}, r.Topology)); err != nil {
			return err
		}
		created++
	}
	if created > 0 {
		s.eventf(benchv1.ReasonProvisioning, "created %d MongoDB pods; layout Spread puts each data-bearing mongod on a node of its own (%s)",
			created, topology.SpreadTopologyKey(run))
	}
	if run.Status.Nodes != nil || len(unplacedPods(s, procs)) > 0 {
		return nil
	}
	s.setLifecycle(benchv1.RunProvisioning)
	recordNodes(s)
	return nil
}

// checkSpreadPods is checkPods for a Spread run: it fails the run when a
// pod cannot make progress, and holds it while any pod waits for a node.
func (r *BenchmarkRunReconciler) checkSpreadPods(ctx context.Context, s *runState) (bool, error) {
	run := s.run
	procs := topology.Processes(run)
	exempt, waiting, err := r.spreadWaiting(ctx, s, procs)
	if err != nil {
		return false, err
	}
	if r.failOnPodProblems(s, procs, exempt) {
		return false, nil
	}
	if err := r.nudgeWaiting(ctx, s, exempt); err != nil {
		return false, err
	}
	s.recordProcesses(procs, r.Topology.ClusterDomain)
	if unplaced := unplacedPods(s, procs); len(unplaced) > 0 {
		_, _, msg := readiness(s, procs)
		if waiting == "" {
			waiting = fmt.Sprintf("waiting for %s to be scheduled (layout Spread: each data-bearing mongod on a node of its own)", strings.Join(unplaced, ", "))
		}
		s.setCondition(benchv1.ConditionTopologyReady, metav1.ConditionFalse, benchv1.ReasonWaitingForNode, waiting+"; "+msg)
		return false, nil
	}
	return true, nil
}

// spreadWaiting finds the pods of an exclusive Spread run that the
// scheduler cannot place because the nodes that would take them are busy
// with other benchmarks, as waitingForNode does for a SameNode run's
// anchor: they wait, bounded by spec.timeout, never by the unschedulable
// timeout. It returns them and the explanation.
func (r *BenchmarkRunReconciler) spreadWaiting(ctx context.Context, s *runState, procs []topology.Process) (map[string]bool, string, error) {
	if !topology.Exclusive(s.run) {
		return nil, "", nil
	}
	var unsched []string
	for _, p := range procs {
		if _, ok := unschedulable(s.pods[p.Name]); ok {
			unsched = append(unsched, p.Name)
		}
	}
	if len(unsched) == 0 {
		return nil, "", nil
	}
	busy, err := r.busyNodes(ctx, s.run)
	if err != nil {
		return nil, "", err
	}
	exempt := map[string]bool{}
	var schedulerSays string
	for _, name := range unsched {
		msg, _ := unschedulable(s.pods[name])
		// Busy with runs this manager cannot see (another namespace of a
		// namespace-scoped install): the scheduler's word is enough.
		if len(busy) > 0 || strings.Contains(msg, "anti-affinity") {
			exempt[name] = true
			if schedulerSays == "" {
				schedulerSays = msg
			}
		}
	}
	if len(exempt) == 0 {
		return nil, "", nil
	}
	waiting := slices.DeleteFunc(slices.Clone(unsched), func(n string) bool { return !exempt[n] })
	why := schedulerSays
	if len(busy) > 0 {
		why = describeBusy(busy)
	}
	return exempt, fmt.Sprintf("%s waiting for a node free of other benchmarks (placement.exclusive): %s", strings.Join(waiting, ", "), why), nil
}

// spreadRecheck is how often a Spread run whose pods wait for nodes busy
// with other runs looks whether those runs' pods changed.
const spreadRecheck = 10 * time.Second

// +kubebuilder:rbac:groups="",resources=pods,verbs=patch

// nudgeWaiting makes the scheduler try a Spread run's waiting pods again
// once the other runs' pods change, by relabelling them
// (LabelPlacementRetry). Without it they would wait up to the scheduler's
// periodic flush of unschedulable pods (5 minutes) after a node frees:
// kube-scheduler's interpodaffinity queueing hint retries a pod on another
// pod's deletion only when the deleted pod matches all of the waiting
// pod's anti-affinity terms, or the waiting pod all of the deleted one's
// (pkg/scheduler/framework/plugins/interpodaffinity/plugin.go,
// isSchedulableAfterPodChange), and a data-bearing pod of a Spread run has
// two (other runs; its own run's data-bearing pods), which no other run's
// data-bearing pod matches both of. A change of the waiting pod's own
// labels is always retried. The mark counts pods being deleted, which the
// scheduler counts until they are gone.
func (r *BenchmarkRunReconciler) nudgeWaiting(ctx context.Context, s *runState, waiting map[string]bool) error {
	if len(waiting) == 0 {
		return nil
	}
	var pods corev1.PodList
	if err := r.List(ctx, &pods, client.HasLabels{benchv1.LabelRunUID}); err != nil {
		return fmt.Errorf("list pods of other runs: %w", err)
	}
	var others []string
	for i := range pods.Items {
		p := &pods.Items[i]
		if p.Labels[benchv1.LabelRunUID] != string(s.run.UID) && p.Spec.NodeName != "" {
			others = append(others, p.Namespace+"/"+p.Name+"@"+p.Spec.NodeName)
		}
	}
	sort.Strings(others)
	sum := sha256.Sum256([]byte(strings.Join(others, "\n")))
	mark := hex.EncodeToString(sum[:8])
	for name := range waiting {
		pod := s.pods[name]
		if pod.Labels[benchv1.LabelPlacementRetry] == mark {
			continue
		}
		patch := client.MergeFrom(pod.DeepCopy())
		pod.Labels[benchv1.LabelPlacementRetry] = mark
		if err := r.Patch(ctx, pod, patch); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("relabel waiting pod %s: %w", name, err)
		}
	}
	s.wakeAfter(spreadRecheck)
	return nil
}

// unplacedPods names the processes whose pods are missing or not yet
// bound to a node.
func unplacedPods(s *runState, procs []topology.Process) []string {
	var out []string
	for _, p := range procs {
		if pod := s.pods[p.Name]; pod == nil || pod.Spec.NodeName == "" {
			out = append(out, p.Name)
		}
	}
	return out
}

// roleNodes is status.nodes: one entry per role and node, sorted by role
// then node.
func roleNodes(procs []topology.Process, nodeOf func(topology.Process) string) []benchv1.RoleNode {
	out := []benchv1.RoleNode{}
	for _, p := range procs {
		rn := benchv1.RoleNode{Role: p.Role, Node: nodeOf(p)}
		if !slices.Contains(out, rn) {
			out = append(out, rn)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Role != out[j].Role {
			return out[i].Role < out[j].Role
		}
		return out[i].Node < out[j].Node
	})
	return out
}

// nodeRoles groups status.nodes by node: each node's roles, sorted, in
// the order of the nodes' names.
func nodeRoles(nodes []benchv1.RoleNode) (names []string, roles map[string][]benchv1.ProcessRole) {
	roles = map[string][]benchv1.ProcessRole{}
	for _, rn := range nodes {
		if _, ok := roles[rn.Node]; !ok {
			names = append(names, rn.Node)
		}
		if !slices.Contains(roles[rn.Node], rn.Role) {
			roles[rn.Node] = append(roles[rn.Node], rn.Role)
		}
	}
	sort.Strings(names)
	for _, r := range roles {
		slices.Sort(r)
	}
	return names, roles
}

// describeNodes: "nodes a (shard), b (configsvr, mongos, shard)".
func describeNodes(nodes []benchv1.RoleNode) string {
	names, roles := nodeRoles(nodes)
	parts := make([]string, 0, len(names))
	for _, n := range names {
		rs := make([]string, 0, len(roles[n]))
		for _, r := range roles[n] {
			rs = append(rs, string(r))
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", n, strings.Join(rs, ", ")))
	}
	return "nodes " + strings.Join(parts, ", ")
}

// placedOn says where the run's database pods are, for messages: "node
// a", or for a Spread run "nodes a (shard), b (…)".
func placedOn(run *benchv1.BenchmarkRun) string {
	if topology.External(run) {
		return "an external cluster"
	}
	if topology.Spread(run) {
		return describeNodes(run.Status.Nodes)
	}
	return "node " + run.Status.NodeName
}

// spreadNodeEnvironments reads every node of a Spread run (status.nodes)
// for status.environment.nodes: each with the roles it holds, sorted by
// roles then name. A node the manager may not read, or that is gone, is
// recorded by name.
func (r *BenchmarkRunReconciler) spreadNodeEnvironments(ctx context.Context, run *benchv1.BenchmarkRun) ([]benchv1.RoleNodeEnvironment, error) {
	names, roles := nodeRoles(run.Status.Nodes)
	out := make([]benchv1.RoleNodeEnvironment, 0, len(names))
	for _, name := range names {
		n := &corev1.Node{}
		ne := &benchv1.NodeEnvironment{Name: name}
		err := r.APIReader.Get(ctx, client.ObjectKey{Name: name}, n)
		switch {
		case err == nil:
			ne = nodeEnvironment(n)
		case apierrors.IsForbidden(err) || apierrors.IsNotFound(err):
		default:
			return nil, fmt.Errorf("get node %s: %w", name, err)
		}
		out = append(out, benchv1.RoleNodeEnvironment{Roles: roles[name], NodeEnvironment: *ne})
	}
	sort.SliceStable(out, func(i, j int) bool { return rolesKey(out[i].Roles) < rolesKey(out[j].Roles) })
	return out, nil
}

// spreadFingerprint is what a Spread run adds to the fingerprint: the
// layout with its topology key (a run spread over zones crosses a network
// that one spread over hosts may not), and every node's facts with its
// roles, without names and zones, sorted by roles then by the facts
// themselves, so that two runs on alike nodes named otherwise hash alike.
func spreadFingerprint(run *benchv1.BenchmarkRun, nodes []benchv1.RoleNodeEnvironment) (string, []benchv1.RoleNodeEnvironment, error) {
	type keyed struct {
		key  string
		node benchv1.RoleNodeEnvironment
	}
	ks := make([]keyed, 0, len(nodes))
	for _, n := range nodes {
		c := *n.DeepCopy()
		c.Name, c.Zone = "", ""
		facts, err := json.Marshal(c.NodeEnvironment)
		if err != nil {
			return "", nil, fmt.Errorf("fingerprint node %s: %w", n.Name, err)
		}
		ks = append(ks, keyed{key: rolesKey(c.Roles) + "|" + string(facts), node: c})
	}
	sort.SliceStable(ks, func(i, j int) bool { return ks[i].key < ks[j].key })
	out := make([]benchv1.RoleNodeEnvironment, len(ks))
	for i, k := range ks {
		out[i] = k.node
	}
	return string(benchv1.LayoutSpread) + "/" + topology.SpreadTopologyKey(run), out, nil
}

func rolesKey(roles []benchv1.ProcessRole) string {
	parts := make([]string, len(roles))
	for i, r := range roles {
		parts[i] = string(r)
	}
	return strings.Join(parts, ",")
}

// spreadDiskWarning is spreadDiskRoom among the cluster's nodes, read
// uncached; "" when the manager may not list them.
func (r *BenchmarkRunReconciler) spreadDiskWarning(ctx context.Context, run *benchv1.BenchmarkRun) (string, error) {
	nodes, err := listNodes(ctx, r.APIReader)
	if err != nil {
		return "", fmt.Errorf("disk room of a Spread run: %w", err)
	}
	return spreadDiskRoom(run, nodes, logf.FromContext(ctx)), nil
}
