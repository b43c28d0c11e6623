package controllers_test

import (
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/topology"
)

// TestReplicaSetLifecycle: a three-member set with w: majority, step by
// step: member 0 is the anchor and the others follow it to its node; the
// bootstrap waits for every member's pod and is given every member; the
// members' states reach status.topology; the loaders connect to the set.
func TestReplicaSetLifecycle(t *testing.T) {
	k := newCluster(t)
	startManager(t, &counters{}, testLimits)
	run := newRun("rs", benchv1.TopologyReplicaSet, 0, 1)
	run.Spec.Topology.Members = ptr.To[int32](3)
	run.Spec.Driver = benchv1.DriverSpec{WriteConcern: "majority", ReadConcern: "majority", ReadPreference: "primaryPreferred"}
	run = k.create(run)

	anchor := k.pod("rs-rs0-0")
	if k.exists(&corev1.Pod{}, "rs-rs0-1") {
		t.Fatal("members created before member 0 was scheduled")
	}
	k.schedule(anchor, "node-a")
	k.bringUp("rs-rs0-0")
	for _, name := range []string{"rs-rs0-1", "rs-rs0-2"} {
		p := k.pod(name)
		if p.Spec.NodeSelector[topology.HostnameLabel] != "host-a" {
			t.Errorf("%s selector %v: want member 0's node", name, p.Spec.NodeSelector)
		}
		if got := strings.Join(p.Spec.Containers[0].Args, " "); !strings.HasPrefix(got, "mongod --replSet rs0 --port 27017 ") || !strings.Contains(got, "--oplogSize 1024") {
			t.Errorf("%s args %s", name, got)
		}
	}
	k.bringUp("rs-rs0-1")
	k.waitRun("rs", "2/3 members", func(r *benchv1.BenchmarkRun) bool {
		c := cond(r, benchv1.ConditionTopologyReady)
		return c != nil && strings.Contains(c.Message, "2/3 replica-set members ready")
	})
	if k.exists(&batchv1.Job{}, "rs-bootstrap") {
		t.Fatal("bootstrap before every member is ready: the initiate's quorum check needs them all")
	}
	k.bringUp("rs-rs0-2")
	job := k.job("rs-bootstrap")
	domain := "." + k.ns + ".svc.cluster.local:27017"
	wantSet := "--mode replicaset --replica-set rs0=rs-rs0-0.rs-db" + domain + ",rs-rs0-1.rs-db" + domain + ",rs-rs0-2.rs-db" + domain
	if got := strings.Join(job.Spec.Template.Spec.Containers[0].Args, " "); !strings.Contains(got, wantSet) {
		t.Errorf("bootstrap args %s\nwant %s", got, wantSet)
	}
	k.finishBootstrap(run)
	r := k.waitLifecycle("rs", benchv1.RunLoading)
	if c := cond(r, benchv1.ConditionTopologyReady); c.Status != metav1.ConditionTrue {
		t.Errorf("TopologyReady %+v", c)
	}
	var got []string
	for _, p := range r.Status.Topology.Processes {
		got = append(got, string(p.Role)+" "+p.Pod+" "+p.ReplicaSet+" "+p.State)
	}
	want := []string{"member rs-rs0-0 rs0 PRIMARY", "member rs-rs0-1 rs0 SECONDARY", "member rs-rs0-2 rs0 SECONDARY"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("status.topology.processes:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// The loaders connect to the set, with its driver settings.
	load := k.job(topology.PhaseJobName(run, "load"))
	args := strings.Join(load.Spec.Template.Spec.Containers[0].Args, " ")
	for _, w := range []string{"replicaSet=rs0", "w=majority", "readConcernLevel=majority", "readPreference=primaryPreferred",
		contract.PropMongoDBURL + "=mongodb://rs-rs0-0.rs-db" + domain + ",rs-rs0-1.rs-db" + domain + ",rs-rs0-2.rs-db" + domain + "/ycsb?"} {
		if !strings.Contains(args, w) {
			t.Errorf("load Job args lack %q: %s", w, args)
		}
	}
	for _, ph := range run.Spec.Phases {
		k.job(topology.PhaseJobName(run, ph.Name))
		k.finishPhase(run, ph)
	}
	r = k.waitLifecycle("rs", benchv1.RunSucceeded)
	assertResults(t, r)
	// The states survive the reconciles after the bootstrap.
	for _, p := range r.Status.Topology.Processes {
		if p.State == "" || p.ReplicaSet != "rs0" {
			t.Errorf("after the run: %+v", p)
		}
	}
}

// TestShardedMembersLifecycle: shards of three members and a config
// server of three: member 0 keeps the one-member name, the others follow
// it to its node; mongos is given every config server member, the
// bootstrap every member of every set; a shard is ready when all its
// members are; the members' states reach status.
func TestShardedMembersLifecycle(t *testing.T) {
	k := newCluster(t)
	startManager(t, &counters{}, testLimits)
	run := newRun("sm", benchv1.TopologySharded, 2, 1)
	run.Spec.Topology.ShardMembers = ptr.To[int32](3)
	run.Spec.Topology.ConfigServerMembers = ptr.To[int32](3)
	run.Spec.Driver = benchv1.DriverSpec{WriteConcern: "3"}
	run = k.create(run)

	k.schedule(k.pod("sm-cfg"), "node-a")
	k.bringUp("sm-cfg")
	domain := ".sm-db." + k.ns + ".svc.cluster.local"
	pods := []string{"sm-cfg-1", "sm-cfg-2", "sm-shard0", "sm-shard0-1", "sm-shard0-2", "sm-shard1", "sm-shard1-1", "sm-shard1-2"}
	for _, name := range pods {
		if p := k.pod(name); p.Spec.NodeSelector[topology.HostnameLabel] != "host-a" {
			t.Errorf("%s selector %v", name, p.Spec.NodeSelector)
		}
	}
	if got, want := strings.Join(k.pod("sm-mongos").Spec.Containers[0].Args, " "),
		"mongos --configdb cfg/sm-cfg"+domain+":27019,sm-cfg-1"+domain+":27019,sm-cfg-2"+domain+":27019 --bind_ip_all --port 27017"; got != want {
		t.Errorf("mongos args %s\nwant %s", got, want)
	}
	for _, name := range pods[:6] {
		k.bringUp(name)
	}
	k.waitRun("sm", "1/2 shards", func(r *benchv1.BenchmarkRun) bool {
		c := cond(r, benchv1.ConditionTopologyReady)
		return c != nil && strings.Contains(c.Message, "config server ready, 1/2 shards ready, mongos not ready")
	})
	for _, name := range pods[6:] {
		k.bringUp(name)
	}
	job := k.job("sm-bootstrap")
	args := strings.Join(job.Spec.Template.Spec.Containers[0].Args, " ")
	for _, w := range []string{
		"--config-server cfg=sm-cfg" + domain + ":27019,sm-cfg-1" + domain + ":27019,sm-cfg-2" + domain + ":27019",
		"--shard shard1=sm-shard1" + domain + ":27018,sm-shard1-1" + domain + ":27018,sm-shard1-2" + domain + ":27018",
	} {
		if !strings.Contains(args, w) {
			t.Errorf("bootstrap args %s\nlack %s", args, w)
		}
	}
	if strings.Count(args, "--shard ") != 2 || strings.Count(args, "--config-server ") != 1 {
		t.Errorf("bootstrap args %s: want one flag per set", args)
	}
	k.finishBootstrap(run)
	k.bringUp("sm-mongos")
	r := k.waitLifecycle("sm", benchv1.RunLoading)
	states := map[string]string{}
	for _, p := range r.Status.Topology.Processes {
		states[p.Pod] = p.ReplicaSet + " " + p.State
	}
	for pod, want := range map[string]string{"sm-cfg": "cfg PRIMARY", "sm-cfg-2": "cfg SECONDARY", "sm-shard1": "shard1 PRIMARY",
		"sm-shard1-1": "shard1 SECONDARY", "sm-mongos": " "} {
		if states[pod] != want {
			t.Errorf("%s: %q, want %q", pod, states[pod], want)
		}
	}
}
