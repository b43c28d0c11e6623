package topology

import (
	"fmt"
	"strings"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// ReplicaSetName is the replica set of a ReplicaSet topology (--replSet).
const ReplicaSetName = "rs0"

// DefaultMembers is the members of a ReplicaSet topology when
// topology.members is unset; the write-concern rule of BenchmarkRunSpec
// says the same (a test ties them).
const DefaultMembers int32 = 3

// Members is the number of members of a ReplicaSet topology's replica set
// (topology.members, default DefaultMembers).
func Members(run *benchv1.BenchmarkRun) int32 {
	return ptrOr(run.Spec.Topology.Members, DefaultMembers)
}

// MemberName is the pod (and host) name of member i of a ReplicaSet
// topology: <run>-rs0-<i>.
func MemberName(run *benchv1.BenchmarkRun, i int) string {
	return fmt.Sprintf("%s-%s-%d", run.Name, ReplicaSetName, i)
}

// replicaSetProcesses are the members of a ReplicaSet topology, member 0
// first: it is the anchor the others follow to its node, and the member
// the bootstrap sends replSetInitiate to. Each listens on the standard
// port, as a standalone does: the set is the entry point.
func replicaSetProcesses(run *benchv1.BenchmarkRun) []Process {
	n := int(Members(run))
	ps := make([]Process, 0, n)
	for i := range n {
		ps = append(ps, Process{Role: benchv1.RoleMember, Name: MemberName(run, i), ReplSet: ReplicaSetName, Port: PortMongod, Member: i})
	}
	return ps
}

// memberAddresses are the host:port of every member of a ReplicaSet
// topology, in member order.
func memberAddresses(run *benchv1.BenchmarkRun, clusterDomain string) []string {
	var out []string
	for _, p := range Processes(run) {
		if p.Role == benchv1.RoleMember {
			out = append(out, Address(run, p, clusterDomain))
		}
	}
	return out
}

// replicaSetArg is the bootstrap's --replica-set value: NAME=HOST:PORT,...
// with every member's address in member order (member 0 first).
func replicaSetArg(run *benchv1.BenchmarkRun, clusterDomain string) string {
	return ReplicaSetName + "=" + strings.Join(memberAddresses(run, clusterDomain), ",")
}
