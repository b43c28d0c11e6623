package controllers

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/topology"
)

// preflight checks, before the first database pod exists, that some node
// can hold the whole topology: every database pod of a run goes to one
// node, so a topology that fits no node would otherwise fail minutes later
// as "unschedulable" on whichever node its first pod happened to get. It
// fails the run at once when no node is big enough, and otherwise
// restricts the anchor pod to the nodes that are (s.candidates).
//
// It counts what the scheduler counts, the containers' requests, and so
// predicts its verdict. The data volumes' sizes (storage.size, plus the
// oplog for replica-set members: topology.DataVolumeSize) are limits, not
// requests: the scheduler places a pod whatever its emptyDir sizeLimit
// (kubernetes/kubernetes pkg/scheduler/framework/plugins/noderesources
// fits container requests only), and the kubelet evicts a pod whose
// emptyDir outgrows its sizeLimit (pkg/kubelet/eviction/eviction_manager.go,
// signalEmptyDirFsLimit). Adding them here would fail runs the scheduler
// places and that never fill their volumes; a Memory emptyDir's pages are
// charged to the pod's memory limit, which the requests already hold. What
// the volumes on the node's disk may grow to together
// (topology.NodeDiskVolumes) is counted another way: among the nodes that
// fit, the anchor goes to those whose allocatable ephemeral storage holds
// it, if any does; when none does, the run goes on and its Warnings
// condition says so (recordEnvironment).
//
// It reads Nodes uncached, and only until the anchor pod exists.
func (r *BenchmarkRunReconciler) preflight(ctx context.Context, s *runState) (bool, error) {
	run := s.run
	if s.topologyWasReady() || s.pods[topology.Processes(run)[0].Name] != nil {
		return true, nil
	}
	nodes, err := listNodes(ctx, r.APIReader)
	if err != nil {
		return false, err
	}
	if nodes == nil {
		return true, nil // the manager may not list Nodes
	}
	fit, reason, msg := preflightCheck(run, nodes, logf.FromContext(ctx))
	switch {
	case reason != "":
		s.fail(reason, "%s", msg)
		return false, nil
	case topology.Spread(run):
		// No anchor: each pod is placed on its own merits.
	case len(fit.roomy) > 0 && len(fit.roomy) < len(fit.candidates):
		s.candidates = fit.roomy
	case len(fit.candidates) < fit.eligible:
		s.candidates = fit.candidates
	}
	return true, nil
}

// listNodes lists the Nodes uncached for a pre-flight check; nil, and no
// error, when the manager may not: a namespace-scoped install may not list
// Nodes, and the scheduler still enforces fit, only later.
func listNodes(ctx context.Context, reader client.Reader) ([]corev1.Node, error) {
	var list corev1.NodeList
	if err := reader.List(ctx, &list); err != nil {
		if apierrors.IsForbidden(err) {
			logf.FromContext(ctx).V(1).Info("cannot list nodes; skipping the pre-flight fit check")
			return nil, nil
		}
		return nil, fmt.Errorf("list nodes: %w", err)
	}
	if list.Items == nil {
		return []corev1.Node{}, nil // none is an answer: nothing fits
	}
	return list.Items, nil
}

// preflightCheck is the pre-flight verdict on a run's topology among
// nodes, the one both a run (preflight) and a sweep, for each cell before
// it creates anything (BenchmarkSweepReconciler.checkCapacity), reach: the
// sum of the database pods' requests against the Ready, schedulable
// nodes that match the run's placement. When the run cannot run it
// returns the reason and message the run fails with; fit says which nodes
// can hold it.
func preflightCheck(run *benchv1.BenchmarkRun, nodes []corev1.Node, log logr.Logger) (fit fitResult, reason benchv1.Reason, msg string) {
	if topology.Spread(run) {
		return spreadCheck(run, nodes, log)
	}
	procs := topology.Processes(run)
	need := corev1.ResourceList{}
	for _, p := range procs {
		addResources(need, topology.Requests(run, p))
	}
	fit = checkFit(run, nodes, need, log)
	switch {
	case run.Spec.Placement.NodeName != "" && !fit.named:
		return fit, benchv1.ReasonNodeNotFound, fmt.Sprintf("placement.nodeName %q: no such node", run.Spec.Placement.NodeName)
	case len(fit.candidates) == 0:
		return fit, benchv1.ReasonInsufficientResources, fit.explain(len(procs), need)
	}
	return fit, "", ""
}

// fitResult is the outcome of the pre-flight check.
type fitResult struct {
	// named: placement.nodeName names an existing node.
	named bool
	// eligible counts the Ready, schedulable nodes matching the placement.
	eligible int
	// candidates are the kubernetes.io/hostname labels of the eligible nodes
	// with enough allocatable resources, sorted.
	candidates []string
	// roomy are the candidates whose allocatable ephemeral storage holds
	// the run's disk volumes (or that do not say), sorted.
	roomy []string
	// largest is the eligible node closest to fitting.
	largest *corev1.Node
}

// checkFit finds the nodes that can hold a topology needing need.
func checkFit(run *benchv1.BenchmarkRun, nodes []corev1.Node, need corev1.ResourceList, log logr.Logger) fitResult {
	var res fitResult
	bestScore := -1.0
	for i := range nodes {
		n := &nodes[i]
		if run.Spec.Placement.NodeName != "" {
			if n.Name != run.Spec.Placement.NodeName {
				continue
			}
			res.named = true
		}
		if !eligible(run, n, log) {
			continue
		}
		res.eligible++
		score := fitScore(n.Status.Allocatable, need)
		if score > bestScore {
			bestScore, res.largest = score, n
		}
		if score >= 1 {
			res.candidates = append(res.candidates, hostnameOf(n))
			if diskRoomFor(run, n) == "" {
				res.roomy = append(res.roomy, hostnameOf(n))
			}
		}
	}
	sort.Strings(res.candidates)
	sort.Strings(res.roomy)
	return res
}

// diskRoomFor says, when node n's allocatable ephemeral storage is smaller
// than what the run's volumes on its disk may grow to, how much smaller;
// "" when it is big enough or the node does not say.
func diskRoomFor(run *benchv1.BenchmarkRun, n *corev1.Node) string {
	need := topology.NodeDiskVolumes(run)
	if hasDiskRoom(n, need) {
		return ""
	}
	alloc := n.Status.Allocatable[corev1.ResourceEphemeralStorage]
	return fmt.Sprintf("the data volumes on node %s's disk may grow to %s (storage.size, plus the oplog of every replica-set member and "+
		"the config server's volume), and it has %s of allocatable ephemeral storage: a phase that fills them gets its pods evicted",
		n.Name, need.String(), alloc.String())
}

// explain says why no node fits.
func (f fitResult) explain(pods int, need corev1.ResourceList) string {
	if f.largest == nil {
		return fmt.Sprintf("no Ready, schedulable node matches the run's placement (nodeName, nodeSelector, tolerations) for its %d database pods", pods)
	}
	msg := fmt.Sprintf("the topology's %d database pods request %s in total, and all of them run on one node", pods, formatResources(need))
	return fmt.Sprintf("%s; no Ready, schedulable node matching the run's placement has that much allocatable (%d such nodes; the largest, %s, has %s)",
		msg, f.eligible, f.largest.Name, formatResources(onlyNamed(f.largest.Status.Allocatable, need)))
}

// eligible: Ready, not cordoned, matching the run's node selector, and
// with no NoSchedule/NoExecute taint the run does not tolerate.
func eligible(run *benchv1.BenchmarkRun, n *corev1.Node, log logr.Logger) bool {
	if n.Spec.Unschedulable || n.DeletionTimestamp != nil {
		return false
	}
	ready := false
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			ready = c.Status == corev1.ConditionTrue
		}
	}
	if !ready {
		return false
	}
	if !labels.SelectorFromSet(run.Spec.Placement.NodeSelector).Matches(labels.Set(n.Labels)) {
		return false
	}
	for i := range n.Spec.Taints {
		taint := &n.Spec.Taints[i]
		if taint.Effect == corev1.TaintEffectPreferNoSchedule {
			continue
		}
		tolerated := slices.ContainsFunc(run.Spec.Placement.Tolerations, func(t corev1.Toleration) bool {
			return t.ToleratesTaint(log, taint, false)
		})
		if !tolerated {
			return false
		}
	}
	return true
}

// fitScore is min over the needed resources of allocatable/needed: ≥ 1
// means the node can hold it all.
func fitScore(allocatable, need corev1.ResourceList) float64 {
	score := 1e300
	for name, q := range need {
		if q.IsZero() {
			continue
		}
		a := allocatable[name]
		score = min(score, a.AsApproximateFloat64()/q.AsApproximateFloat64())
	}
	return score
}

func hostnameOf(n *corev1.Node) string {
	if h := n.Labels[topology.HostnameLabel]; h != "" {
		return h
	}
	return n.Name
}

func addResources(total, add corev1.ResourceList) {
	for name, q := range add {
		sum := total[name]
		sum.Add(q)
		total[name] = sum
	}
}

// onlyNamed keeps the resources of list that need names.
func onlyNamed(list, need corev1.ResourceList) corev1.ResourceList {
	out := corev1.ResourceList{}
	for name := range need {
		if q, ok := list[name]; ok {
			out[name] = q
		} else {
			out[name] = resource.Quantity{}
		}
	}
	return out
}

// formatResources lists resources sorted by name: "cpu=2, memory=4Gi".
func formatResources(list corev1.ResourceList) string {
	if len(list) == 0 {
		return "no resources"
	}
	names := make([]string, 0, len(list))
	for n := range list {
		names = append(names, string(n))
	}
	sort.Strings(names)
	parts := make([]string, 0, len(names))
	for _, n := range names {
		q := list[corev1.ResourceName(n)]
		parts = append(parts, n+"="+q.String())
	}
	return strings.Join(parts, ", ")
}

// busyNodes maps each node to the other runs ("namespace/name") whose
// database pods, loaders or Jobs are active on it: what an exclusive run
// waits for. It reads the manager's cache (pods labelled as ours), so in a
// namespace-scoped install it sees only that namespace; the scheduler
// still enforces exclusivity everywhere.
func (r *BenchmarkRunReconciler) busyNodes(ctx context.Context, run *benchv1.BenchmarkRun) (map[string][]string, error) {
	var pods corev1.PodList
	if err := r.List(ctx, &pods, client.HasLabels{benchv1.LabelRunUID}); err != nil {
		return nil, fmt.Errorf("list pods of other runs: %w", err)
	}
	busy := map[string][]string{}
	for i := range pods.Items {
		p := &pods.Items[i]
		if p.Labels[benchv1.LabelRunUID] == string(run.UID) || p.Spec.NodeName == "" || p.DeletionTimestamp != nil ||
			p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		other := p.Namespace + "/" + p.Labels[benchv1.LabelRun]
		if !slices.Contains(busy[p.Spec.NodeName], other) {
			busy[p.Spec.NodeName] = append(busy[p.Spec.NodeName], other)
		}
	}
	return busy, nil
}

// describeBusy: "node-a (used by bench/r1, bench/r2), node-b (used by bench/r3)".
func describeBusy(busy map[string][]string) string {
	nodes := make([]string, 0, len(busy))
	for n := range busy {
		nodes = append(nodes, n)
	}
	sort.Strings(nodes)
	parts := make([]string, 0, len(nodes))
	for _, n := range nodes {
		runs := slices.Clone(busy[n])
		sort.Strings(runs)
		parts = append(parts, fmt.Sprintf("%s (used by %s)", n, strings.Join(runs, ", ")))
	}
	return strings.Join(parts, ", ")
}

// unschedulable returns the scheduler's message when the pod is Pending
// as Unschedulable.
func unschedulable(pod *corev1.Pod) (string, bool) {
	if pod == nil || pod.Spec.NodeName != "" {
		return "", false
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
			return c.Message, true
		}
	}
	return "", false
}
