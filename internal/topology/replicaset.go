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

// DefaultShardMembers is the members of each shard when
// topology.shardMembers is unset: the one-member micro-shards. The
// write-concern rule of BenchmarkRunSpec says the same (a test ties them).
const DefaultShardMembers int32 = 1

// DefaultConfigServerMembers is the config server's members when
// topology.configServerMembers is unset.
const DefaultConfigServerMembers int32 = 1

// ShardMembers is the members of each shard's replica set
// (topology.shardMembers, default DefaultShardMembers).
func ShardMembers(run *benchv1.BenchmarkRun) int32 {
	return ptrOr(run.Spec.Topology.ShardMembers, DefaultShardMembers)
}

// ConfigServerMembers is the members of the config server's replica set
// (topology.configServerMembers, default DefaultConfigServerMembers).
func ConfigServerMembers(run *benchv1.BenchmarkRun) int32 {
	return ptrOr(run.Spec.Topology.ConfigServerMembers, DefaultConfigServerMembers)
}

// memberPodName names member m of a sharded cluster's replica set whose
// member 0 is base: base itself, so that one-member shards and config
// servers keep the names they always had, then base-<m>.
func memberPodName(base string, m int) string {
	if m == 0 {
		return base
	}
	return fmt.Sprintf("%s-%d", base, m)
}

// setAddresses are the host:port of every member of replica set name, in
// member order.
func setAddresses(run *benchv1.BenchmarkRun, name, clusterDomain string) []string {
	var out []string
	for _, p := range Processes(run) {
		if p.ReplSet == name {
			out = append(out, Address(run, p, clusterDomain))
		}
	}
	return out
}

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
	return setAddresses(run, ReplicaSetName, clusterDomain)
}

// replicaSetArg is the bootstrap's --replica-set value: NAME=HOST:PORT,...
// with every member's address in member order (member 0 first).
func replicaSetArg(run *benchv1.BenchmarkRun, clusterDomain string) string {
	return ReplicaSetName + "=" + strings.Join(memberAddresses(run, clusterDomain), ",")
}
