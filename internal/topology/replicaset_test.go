package topology

import (
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/connstring"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/contract"
)

func replicaSet(members *int32) *benchv1.BenchmarkRun {
	r := sharded(1)
	r.Name = "rs"
	r.Spec.Topology.Mode = benchv1.TopologyReplicaSet
	r.Spec.Topology.Shards = nil
	r.Spec.Topology.Members = members
	return r
}

// TestReplicaSetProcesses: one pod per member, member 0 first (the anchor,
// and where replSetInitiate goes), default 3.
func TestReplicaSetProcesses(t *testing.T) {
	for _, tc := range []struct {
		members *int32
		want    []string
	}{
		{nil, []string{"rs-rs0-0", "rs-rs0-1", "rs-rs0-2"}},
		{ptr.To[int32](1), []string{"rs-rs0-0"}},
		{ptr.To[int32](7), []string{"rs-rs0-0", "rs-rs0-1", "rs-rs0-2", "rs-rs0-3", "rs-rs0-4", "rs-rs0-5", "rs-rs0-6"}},
	} {
		ps := Processes(replicaSet(tc.members))
		var got []string
		for i, p := range ps {
			got = append(got, p.Name)
			if p.Role != benchv1.RoleMember || p.ReplSet != ReplicaSetName || p.Port != PortMongod || p.Member != i {
				t.Errorf("member %d: %+v, want role member, replSet %s, port %d, member %d", i, p, ReplicaSetName, PortMongod, i)
			}
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("members %v: pods %v, want %v", tc.members, got, tc.want)
		}
	}
}

// TestReplicaSetPods: every member is a data-bearing mongod with
// --replSet and --oplogSize, the run's cache, resources and a data volume
// of storage.size plus the oplog, a claim of its own on PersistentVolume.
func TestReplicaSetPods(t *testing.T) {
	run := replicaSet(ptr.To[int32](3))
	run.Spec.Topology.Storage.Size = ptr.To(resource.MustParse("5Gi"))
	run.Spec.Topology.OplogSizeMB = 2048
	wantSize := resource.MustParse("7Gi")
	for _, p := range Processes(run) {
		pod := Pod(run, p, NodePlacement{Hostname: "n1"}, cfg)
		wantArgs := []string{"mongod", "--replSet", "rs0", "--port", "27017", "--dbpath", "/data/db", "--bind_ip_all",
			"--wiredTigerCacheSizeGB", "1.5", "--oplogSize", "2048"}
		c := pod.Spec.Containers[0]
		if !reflect.DeepEqual(c.Args, wantArgs) {
			t.Errorf("%s args %v, want %v", p.Name, c.Args, wantArgs)
		}
		if !reflect.DeepEqual(c.Resources, run.Spec.Topology.Resources) {
			t.Errorf("%s resources %v, want topology.resources", p.Name, c.Resources)
		}
		if pod.Spec.Hostname != p.Name || pod.Spec.Subdomain != HeadlessServiceName(run) {
			t.Errorf("%s: hostname %q subdomain %q: the member's stable name is its config's host", p.Name, pod.Spec.Hostname, pod.Spec.Subdomain)
		}
		if pod.Labels[benchv1.LabelRole] != "member" || pod.Labels[benchv1.LabelDatabase] != "true" {
			t.Errorf("%s labels %v", p.Name, pod.Labels)
		}
		var data *resource.Quantity
		for _, v := range pod.Spec.Volumes {
			if v.Name == dataVolume && v.EmptyDir != nil {
				data = v.EmptyDir.SizeLimit
			}
		}
		if data == nil || data.Cmp(wantSize) != 0 {
			t.Errorf("%s data volume %v, want %s (storage.size + oplog)", p.Name, data, wantSize.String())
		}
		if NeedsClaim(run, p) {
			t.Errorf("%s: a claim on Disk", p.Name)
		}
	}
	want := resource.MustParse("21Gi")
	if got := NodeDiskVolumes(run); got.Cmp(want) != 0 {
		t.Errorf("NodeDiskVolumes = %s, want %s (3 × 7Gi)", got.String(), want.String())
	}
	run.Spec.Topology.Storage.Medium = benchv1.StoragePersistentVolume
	for _, p := range Processes(run) {
		if !NeedsClaim(run, p) {
			t.Errorf("%s: no claim on PersistentVolume", p.Name)
		}
		c := DataClaim(run, p)
		if got := c.Spec.Resources.Requests.Storage(); got.Cmp(wantSize) != 0 {
			t.Errorf("%s claim %s, want %s", p.Name, got.String(), wantSize.String())
		}
	}
}

// TestReplicaSetBootstrapJob: --mode replicaset and one --replica-set with
// every member's stable address, member 0 first.
func TestReplicaSetBootstrapJob(t *testing.T) {
	job := BootstrapJob(replicaSet(nil), cfg)
	args := job.Spec.Template.Spec.Containers[0].Args
	i := slices.Index(args, "--mode")
	if i < 0 || args[i+1] != contract.FlagValue(benchv1.TopologyReplicaSet) {
		t.Fatalf("args %v: want --mode replicaset", args)
	}
	j := slices.Index(args, "--replica-set")
	want := "rs0=rs-rs0-0.rs-db.bench.svc.cluster.local:27017,rs-rs0-1.rs-db.bench.svc.cluster.local:27017,rs-rs0-2.rs-db.bench.svc.cluster.local:27017"
	if j < 0 || args[j+1] != want {
		t.Fatalf("args %v: want --replica-set %s", args, want)
	}
	for _, f := range []string{"--shard", "--config-server", "--mongos", "--standalone", "--shard-key"} {
		if slices.Contains(args, f) {
			t.Errorf("args %v carry %s", args, f)
		}
	}
}

// TestReplicaSetMongoURL: the loaders' URL names every member and the set,
// so the driver follows the primary; readConcernLevel only when set. The
// driver's own parser must read back what was meant.
func TestReplicaSetMongoURL(t *testing.T) {
	run := replicaSet(ptr.To[int32](2))
	run.Spec.Driver = benchv1.DriverSpec{WriteConcern: "majority", ReadPreference: "secondaryPreferred", ReadConcern: "majority"}
	u := MongoURL(run, "cluster.local")
	cs, err := connstring.ParseAndValidate(u)
	if err != nil {
		t.Fatalf("%s: %v", u, err)
	}
	wantHosts := []string{"rs-rs0-0.rs-db.bench.svc.cluster.local:27017", "rs-rs0-1.rs-db.bench.svc.cluster.local:27017"}
	if !reflect.DeepEqual(cs.Hosts, wantHosts) || cs.ReplicaSet != "rs0" {
		t.Errorf("%s: hosts %v replicaSet %q, want %v and rs0", u, cs.Hosts, cs.ReplicaSet, wantHosts)
	}
	if cs.WString != "majority" || cs.ReadPreference != "secondaryPreferred" || cs.ReadConcernLevel != "majority" || cs.Database != Database {
		t.Errorf("%s: w %q readPreference %q readConcern %q db %q", u, cs.WString, cs.ReadPreference, cs.ReadConcernLevel, cs.Database)
	}

	// Unset readConcern sends none; standalone and sharded URLs are as before.
	for _, r := range []*benchv1.BenchmarkRun{standalone(), sharded(2), replicaSet(nil)} {
		u := MongoURL(r, "cluster.local")
		q, _ := url.ParseQuery(u[strings.Index(u, "?")+1:])
		if q.Has("readConcernLevel") {
			t.Errorf("%s: readConcernLevel without spec.driver.readConcern", u)
		}
		if r.Spec.Topology.Mode != benchv1.TopologyReplicaSet && (q.Has("replicaSet") || !strings.Contains(u, EntryAddress(r, "cluster.local"))) {
			t.Errorf("%s: want the entry Service and no replicaSet", u)
		}
	}
}

// TestReplicaSetEntryService selects every member (any answers the
// collection statistics; the loaders do not go through it).
func TestReplicaSetEntryService(t *testing.T) {
	run := replicaSet(nil)
	if got := EntryService(run).Spec.Selector[benchv1.LabelRole]; got != string(benchv1.RoleMember) {
		t.Errorf("entry selector role %q, want member", got)
	}
	if got := len(TelemetryArgs(run, &benchv1.PhaseSpec{Name: "run", Type: benchv1.PhaseRun}, "cluster.local")); got != 2+2*3+2 {
		t.Errorf("telemetry args: %d, want the interval, the 3 members and the collection", got)
	}
}

// TestShardedMembers: shards and a config server of several members; one
// member (the default) keeps every name and argument as they were.
func TestShardedMembers(t *testing.T) {
	run := sharded(2)
	run.Spec.Topology.ShardMembers = ptr.To[int32](3)
	run.Spec.Topology.ConfigServerMembers = ptr.To[int32](3)
	var got []string
	for _, p := range Processes(run) {
		got = append(got, fmt.Sprintf("%s:%s:%s:%d", p.Role, p.Name, p.ReplSet, p.Member))
	}
	want := []string{"configsvr:ms-cfg:cfg:0", "configsvr:ms-cfg-1:cfg:1", "configsvr:ms-cfg-2:cfg:2",
		"shard:ms-shard0:shard0:0", "shard:ms-shard0-1:shard0:1", "shard:ms-shard0-2:shard0:2",
		"shard:ms-shard1:shard1:0", "shard:ms-shard1-1:shard1:1", "shard:ms-shard1-2:shard1:2", "mongos:ms-mongos::0"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("processes\n%v\nwant\n%v", got, want)
	}
	ps := Processes(run)
	if args := Args(run, ps[4], "cluster.local"); !slices.Contains(args, "--shardsvr") || args[slices.Index(args, "--replSet")+1] != "shard0" {
		t.Errorf("shard member args %v", args)
	}
	// Every data-bearing member's volume: storage.size + oplog; every
	// config server member's: oplog + headroom.
	wantDisk := resource.MustParse("10Gi")
	wantDisk.Add(resource.MustParse("1Gi"))
	total := resource.Quantity{}
	for range 6 {
		total.Add(wantDisk)
	}
	for range 3 {
		total.Add(resource.MustParse("3Gi"))
	}
	if got := NodeDiskVolumes(run); got.Cmp(total) != 0 {
		t.Errorf("NodeDiskVolumes %s, want %s", got.String(), total.String())
	}
	mongos := Args(run, ps[len(ps)-1], "cluster.local")
	if want := "cfg/ms-cfg.ms-db.bench.svc.cluster.local:27019,ms-cfg-1.ms-db.bench.svc.cluster.local:27019,ms-cfg-2.ms-db.bench.svc.cluster.local:27019"; mongos[2] != want {
		t.Errorf("mongos --configdb %s, want %s", mongos[2], want)
	}
	args := strings.Join(BootstrapJob(run, cfg).Spec.Template.Spec.Containers[0].Args, " ")
	if strings.Count(args, "--shard ") != 2 || strings.Count(args, "--config-server ") != 1 ||
		!strings.Contains(args, "--shard shard0=ms-shard0.ms-db.bench.svc.cluster.local:27018,ms-shard0-1.ms-db.bench.svc.cluster.local:27018,ms-shard0-2.ms-db.bench.svc.cluster.local:27018 ") {
		t.Errorf("bootstrap args %s", args)
	}

	// Explicit 1 is the default: the same objects as unset.
	one := sharded(2)
	one.Spec.Topology.ShardMembers, one.Spec.Topology.ConfigServerMembers = ptr.To[int32](1), ptr.To[int32](1)
	if !reflect.DeepEqual(Processes(one), Processes(sharded(2))) ||
		!reflect.DeepEqual(BootstrapJob(one, cfg).Spec, BootstrapJob(sharded(2), cfg).Spec) {
		t.Error("shardMembers/configServerMembers 1 differ from unset")
	}
}
