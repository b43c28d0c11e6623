package controllers

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/topology"
)

// provision creates the run's identity for Jobs, its Services and volumes,
// and its MongoDB pods, all on one node: the first ("anchor") pod is placed
// by the scheduler (or on placement.nodeName), the others follow it with a
// kubernetes.io/hostname selector. Once the topology is ready, nothing is
// re-created: a pod lost after that is a lost benchmark (watchTopology).
func (r *BenchmarkRunReconciler) provision(ctx context.Context, s *runState) (bool, error) {
	run := s.run
	if err := r.ensureJobIdentity(ctx, s); err != nil {
		return false, err
	}
	for _, svc := range []*corev1.Service{topology.HeadlessService(run), topology.EntryService(run)} {
		if s.services[svc.Name] == nil {
			if err := r.create(ctx, svc); err != nil {
				return false, err
			}
		}
	}
	if conditionTrue(run, benchv1.ConditionTopologyReady) {
		return true, nil
	}

	procs := topology.Processes(run)
	for _, p := range procs {
		if topology.NeedsClaim(run, p) && s.claims[topology.DataClaimName(p)] == nil {
			if err := r.create(ctx, topology.DataClaim(run, p)); err != nil {
				return false, err
			}
		}
	}

	node := nodeName(run, s.pods[procs[0].Name])
	var hostname string
	if node != "" && s.missingPod(procs) {
		// Read the Node only when a pod still has to be pinned to it: once
		// every pod exists, a reconcile does no uncached read.
		h, ok, err := r.hostname(ctx, s, node)
		if err != nil || !ok {
			return false, err
		}
		hostname = h
	}
	if node != "" && run.Status.NodeName == "" {
		run.Status.NodeName = node
		s.eventf("NodeSelected", "every MongoDB pod of this run runs on node %s", node)
	}
	for i, p := range procs {
		if s.pods[p.Name] != nil {
			continue
		}
		if node == "" && i > 0 {
			continue // wait until the anchor is scheduled
		}
		// The anchor without a node: the scheduler picks it (hostname "").
		if err := r.create(ctx, topology.Pod(run, p, hostname, r.Topology)); err != nil {
			return false, err
		}
		if node == "" {
			s.eventf("Provisioning", "created %s; the other MongoDB pods follow it to its node once it is scheduled", p.Name)
		}
	}

	if r.failOnPodProblems(s, procs) {
		return false, nil
	}
	s.recordProcesses(procs, r.Topology.ClusterDomain)
	if node == "" {
		_, _, msg := readiness(s, procs)
		s.setCondition(benchv1.ConditionTopologyReady, metav1.ConditionFalse, "WaitingForNode",
			fmt.Sprintf("waiting for pod %s to be scheduled (the other pods follow it to its node); %s", procs[0].Name, msg))
		return false, nil
	}
	return true, nil
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
		s.fail("NodeNotFound", "placement.nodeName %q: no such node", name)
		return "", false, nil
	case apierrors.IsNotFound(err):
		// The node vanished under a running topology: its pods will fail.
		return name, true, nil
	default:
		return "", false, fmt.Errorf("get node %s: %w", name, err)
	}
}

// ensureJobIdentity creates the ServiceAccount, Role and RoleBinding the
// run's Jobs use to write their result ConfigMaps.
func (r *BenchmarkRunReconciler) ensureJobIdentity(ctx context.Context, s *runState) error {
	objs := []struct {
		kind string
		obj  client.Object
	}{
		{"ServiceAccount", topology.JobServiceAccount(s.run)},
		{"Role", topology.JobRole(s.run)},
		{"RoleBinding", topology.JobRoleBinding(s.run)},
	}
	for _, o := range objs {
		if s.rbac[o.kind+"/"+o.obj.GetName()] {
			continue
		}
		if err := r.create(ctx, o.obj); err != nil {
			return err
		}
	}
	return nil
}

// failOnPodProblems fails the run when a MongoDB pod cannot make progress
// (unschedulable, image not pullable, crash-looping); it reports whether it did.
func (r *BenchmarkRunReconciler) failOnPodProblems(s *runState, procs []topology.Process) bool {
	for _, p := range procs {
		pod := s.pods[p.Name]
		if pod == nil {
			continue
		}
		pr := podProblem(pod, s.now, r.Limits)
		if pr.fatal != "" {
			s.fail("TopologyFailed", "%s", pr.fatal)
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
	if run.Status.Topology == nil {
		run.Status.Topology = &benchv1.TopologyStatus{}
	}
	t := run.Status.Topology
	t.EntryPoint = topology.EntryAddress(run, domain)
	baseline := map[string]int32{}
	for _, p := range t.Processes {
		baseline[p.Pod] = p.Restarts
	}
	out := make([]benchv1.ProcessStatus, 0, len(procs))
	for _, p := range procs {
		ps := benchv1.ProcessStatus{Role: p.Role, Pod: p.Name, Address: topology.Address(run, p, domain), Restarts: baseline[p.Name]}
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
	var shards, shardsReady int
	var cfg, mongos, standalone []string
	all, dataReady = true, true
	for _, p := range procs {
		ready := s.pods[p.Name] != nil && podReady(s.pods[p.Name])
		all = all && ready
		if p.Role != benchv1.RoleMongos {
			dataReady = dataReady && ready
		}
		switch p.Role {
		case benchv1.RoleShard:
			shards++
			if ready {
				shardsReady++
			}
		case benchv1.RoleConfigServer:
			cfg = append(cfg, "config server "+readyWord(ready))
		case benchv1.RoleMongos:
			mongos = append(mongos, "mongos "+readyWord(ready))
		case benchv1.RoleStandalone:
			standalone = append(standalone, "mongod "+readyWord(ready))
		}
	}
	parts := append(standalone, cfg...)
	if shards > 0 {
		parts = append(parts, fmt.Sprintf("%d/%d shards ready", shardsReady, shards))
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
