package controllers

import (
	"fmt"
	"sort"
	"strings"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"

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
			return fit, benchv1.ReasonInsufficientResources, fmt.Sprintf("the %s (%s) requests %s, and no Ready, schedulable node matching the run's placement has that much allocatable",
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
	fmt.Fprintf(&b, "layout Spread puts each of the topology's %d data-bearing mongods on a %s of its own: %d %s needed, %d fit", members, unit, members, units, fitting)
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

// someNodeFits: some eligible node has need allocatable.
func someNodeFits(run *benchv1.BenchmarkRun, nodes []corev1.Node, need corev1.ResourceList, log logr.Logger) bool {
	for i := range nodes {
		if eligible(run, &nodes[i], log) && fitScore(nodes[i].Status.Allocatable, need) >= 1 {
			return true
		}
	}
	return false
}
