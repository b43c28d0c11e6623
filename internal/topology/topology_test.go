package topology

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/contract"
)

var cfg = Config{LoaderImage: "ghcr.io/mongobench/mongobench-loader:v0.1.0", ClusterDomain: "cluster.local", BootstrapTimeout: 8 * time.Minute}

func sharded(shards int32) *benchv1.BenchmarkRun {
	return &benchv1.BenchmarkRun{
		ObjectMeta: metav1.ObjectMeta{Name: "ms", Namespace: "bench", UID: "uid-1"},
		Spec: benchv1.BenchmarkRunSpec{
			Topology: benchv1.TopologySpec{Mode: benchv1.TopologySharded, Shards: ptr.To(shards), Image: "mongo:8.0.4", WiredTigerCacheSizeGB: "1.5",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}},
			Loaders: 1,
		},
	}
}

func standalone() *benchv1.BenchmarkRun {
	r := sharded(1)
	r.Name = "sa"
	r.Spec.Topology.Mode = benchv1.TopologyStandalone
	r.Spec.Topology.Shards = nil
	return r
}

func TestProcesses(t *testing.T) {
	names := func(ps []Process) (out []string) {
		for _, p := range ps {
			out = append(out, string(p.Role)+":"+p.Name+":"+p.ReplSet)
		}
		return out
	}
	if got, want := names(Processes(standalone())), []string{"standalone:sa-mongod:"}; !reflect.DeepEqual(got, want) {
		t.Errorf("standalone: %v, want %v", got, want)
	}
	want := []string{"configsvr:ms-cfg:cfg", "shard:ms-shard0:shard0", "shard:ms-shard1:shard1", "shard:ms-shard2:shard2", "shard:ms-shard3:shard3", "mongos:ms-mongos:"}
	if got := names(Processes(sharded(4))); !reflect.DeepEqual(got, want) {
		t.Errorf("sharded: %v, want %v", got, want)
	}
}

func TestArgs(t *testing.T) {
	run := sharded(2)
	ps := Processes(run)
	cases := []struct {
		p    Process
		want string
	}{
		{Processes(standalone())[0], "mongod --port 27017 --dbpath /data/db --bind_ip_all --wiredTigerCacheSizeGB 1.5"},
		{ps[0], "mongod --configsvr --replSet cfg --port 27019 --dbpath /data/configdb --bind_ip_all --wiredTigerCacheSizeGB 0.25 --oplogSize 1024"},
		{ps[2], "mongod --shardsvr --replSet shard1 --port 27018 --dbpath /data/db --bind_ip_all --wiredTigerCacheSizeGB 1.5 --oplogSize 1024"},
		{ps[3], "mongos --configdb cfg/ms-cfg.ms-db.bench.svc.cluster.local:27019 --bind_ip_all --port 27017"},
	}
	for _, c := range cases {
		r := run
		if c.p.Role == benchv1.RoleStandalone {
			r = standalone()
		}
		got := strings.Join(Args(r, c.p, "cluster.local"), " ")
		if got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.p.Name, got, c.want)
		}
		if strings.Contains(got, "journal") {
			t.Errorf("%s: journal flags make MongoDB 7/8 refuse to start: %s", c.p.Name, got)
		}
	}
}

func TestPodIsRestrictedAndPinned(t *testing.T) {
	run := sharded(2)
	run.Spec.Placement = benchv1.PlacementSpec{NodeSelector: map[string]string{"disk": "ssd"}, Tolerations: []corev1.Toleration{{Key: "bench", Operator: corev1.TolerationOpExists}}}
	ps := Processes(run)
	first := Pod(run, ps[0], NodePlacement{}, cfg)
	if !reflect.DeepEqual(first.Spec.NodeSelector, map[string]string{"disk": "ssd"}) {
		t.Errorf("anchor pod selector %v", first.Spec.NodeSelector)
	}
	pod := Pod(run, ps[1], NodePlacement{Hostname: "node-7"}, cfg)
	if want := map[string]string{"disk": "ssd", HostnameLabel: "node-7"}; !reflect.DeepEqual(pod.Spec.NodeSelector, want) {
		t.Errorf("pinned selector %v, want %v", pod.Spec.NodeSelector, want)
	}
	if pod.Spec.NodeName != "" {
		t.Error("pods must go through the scheduler (resource fit), never spec.nodeName")
	}
	if len(pod.Spec.Tolerations) != 1 {
		t.Errorf("tolerations %v", pod.Spec.Tolerations)
	}
	if pod.Spec.Hostname != "ms-shard0" || pod.Spec.Subdomain != "ms-db" {
		t.Errorf("hostname %s.%s", pod.Spec.Hostname, pod.Spec.Subdomain)
	}
	sc := pod.Spec.SecurityContext
	if !*sc.RunAsNonRoot || *sc.RunAsUser != 999 || *sc.RunAsGroup != 999 || *sc.FSGroup != 999 || sc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Errorf("pod security context %+v", sc)
	}
	c := pod.Spec.Containers[0]
	csc := c.SecurityContext
	if *csc.AllowPrivilegeEscalation || !*csc.ReadOnlyRootFilesystem || !reflect.DeepEqual(csc.Capabilities.Drop, []corev1.Capability{"ALL"}) {
		t.Errorf("container security context %+v", csc)
	}
	if len(c.Command) != 0 {
		t.Error("command replaces the image's entrypoint; pass args only")
	}
	for _, pr := range []*corev1.Probe{c.StartupProbe, c.ReadinessProbe} {
		if pr == nil || pr.TCPSocket == nil || pr.Exec != nil || pr.TCPSocket.Port.IntValue() != PortShard {
			t.Errorf("probe %+v: want a TCP probe on %d", pr, PortShard)
		}
	}
	if c.LivenessProbe != nil {
		t.Error("a liveness probe would restart a busy mongod mid-benchmark")
	}
	mounts := map[string]string{}
	for _, m := range c.VolumeMounts {
		mounts[m.MountPath] = m.Name
	}
	if mounts["/tmp"] == "" || mounts["/data/db"] == "" {
		t.Errorf("mounts %v: want /tmp and /data/db", mounts)
	}
	if c.Resources.Requests.Cpu().String() != "1" {
		t.Errorf("shard resources %v", c.Resources)
	}
	wantLabels := map[string]string{benchv1.LabelName: "mongobench", benchv1.LabelInstance: "ms", benchv1.LabelComponent: "shard", benchv1.LabelManagedBy: "mongobench", benchv1.LabelRun: "ms", benchv1.LabelRunUID: "uid-1", benchv1.LabelRole: "shard", benchv1.LabelDatabase: "true", benchv1.LabelDataBearing: "true"}
	if !reflect.DeepEqual(pod.Labels, wantLabels) {
		t.Errorf("labels %v", pod.Labels)
	}
	checkOwner(t, pod)
	// mongos: no data volume, no shard resources.
	mongos := Pod(run, ps[3], NodePlacement{Hostname: "node-7"}, cfg)
	if len(mongos.Spec.Volumes) != 1 || mongos.Spec.Containers[0].Resources.Requests != nil {
		t.Errorf("mongos volumes %v resources %v", mongos.Spec.Volumes, mongos.Spec.Containers[0].Resources)
	}
}

func checkOwner(t *testing.T, obj metav1.Object) {
	t.Helper()
	refs := obj.GetOwnerReferences()
	if len(refs) != 1 || refs[0].Kind != "BenchmarkRun" || refs[0].UID != "uid-1" || refs[0].Controller == nil || !*refs[0].Controller {
		t.Errorf("%s: owner references %+v", obj.GetName(), refs)
	}
}

func TestStorage(t *testing.T) {
	size := resource.MustParse("20Gi")
	cases := []struct {
		medium    benchv1.StorageMedium
		claim     bool
		tmpfs     bool
		sizeLimit string
	}{
		{benchv1.StorageDisk, false, false, "21Gi"}, // 20Gi of data, the default 1Gi oplog
		{benchv1.StorageMemory, false, true, "21Gi"},
		{benchv1.StoragePersistentVolume, true, false, ""},
	}
	for _, c := range cases {
		run := sharded(1)
		run.Spec.Topology.Storage = benchv1.StorageSpec{Medium: c.medium, Size: &size, StorageClassName: ptr.To("fast")}
		shard := Processes(run)[1]
		pod := Pod(run, shard, NodePlacement{Hostname: "n"}, cfg)
		var data corev1.Volume
		for _, v := range pod.Spec.Volumes {
			if v.Name == dataVolume {
				data = v
			}
		}
		if got := data.PersistentVolumeClaim != nil; got != c.claim || NeedsClaim(run, shard) != c.claim {
			t.Errorf("%s: claim %v, want %v", c.medium, got, c.claim)
		}
		if c.claim {
			pvc := DataClaim(run, shard)
			if data.PersistentVolumeClaim.ClaimName != pvc.Name || pvc.Spec.Resources.Requests.Storage().String() != "21Gi" || *pvc.Spec.StorageClassName != "fast" {
				t.Errorf("claim %+v", pvc.Spec)
			}
			checkOwner(t, pvc)
			continue
		}
		if data.EmptyDir == nil || (data.EmptyDir.Medium == corev1.StorageMediumMemory) != c.tmpfs || data.EmptyDir.SizeLimit.String() != c.sizeLimit {
			t.Errorf("%s: data volume %+v", c.medium, data.VolumeSource)
		}
		if NeedsClaim(run, Processes(run)[0]) {
			t.Errorf("%s: the config server never gets a claim", c.medium)
		}
	}
}

// TestOplogSizesTheVolumes ties every replica-set member's --oplogSize
// and data volume to topology.oplogSizeMB: a shard's volume is the data's
// room plus its oplog, the config server's its oplog plus
// ConfigServerHeadroom (2Gi), whatever the medium; a standalone (no
// replica set, no oplog) and mongos (no data) get neither.
func TestOplogSizesTheVolumes(t *testing.T) {
	size := resource.MustParse("10Gi")
	cases := []struct {
		oplog  int32 // topology.oplogSizeMB; 0 = unset
		medium benchv1.StorageMedium
		// --oplogSize, shard volume, config server volume
		arg, shard, cfgsvr string
	}{
		{0, benchv1.StorageDisk, "1024", "11Gi", "3Gi"},
		{990, benchv1.StorageDisk, "990", "11230Mi", "3038Mi"},
		{4096, benchv1.StorageMemory, "4096", "14Gi", "6Gi"},
		{1048576, benchv1.StoragePersistentVolume, "1048576", "1034Gi", "1026Gi"},
	}
	volume := func(run *benchv1.BenchmarkRun, p Process) (string, *corev1.Volume) {
		for _, v := range Pod(run, p, NodePlacement{Hostname: "n"}, cfg).Spec.Volumes {
			if v.Name != dataVolume {
				continue
			}
			switch {
			case v.EmptyDir != nil:
				return v.EmptyDir.SizeLimit.String(), &v
			case v.PersistentVolumeClaim != nil:
				return DataClaim(run, p).Spec.Resources.Requests.Storage().String(), &v
			}
		}
		return "", nil
	}
	for _, c := range cases {
		name := fmt.Sprintf("oplog %d, %s", c.oplog, c.medium)
		run := sharded(2)
		run.Spec.Topology.OplogSizeMB = c.oplog
		run.Spec.Topology.Storage = benchv1.StorageSpec{Medium: c.medium, Size: &size}
		for _, p := range Processes(run) {
			args := Args(run, p, "cluster.local")
			i := slices.Index(args, "--oplogSize")
			got, v := volume(run, p)
			switch p.Role {
			case benchv1.RoleShard:
				if i < 0 || args[i+1] != c.arg || got != c.shard {
					t.Errorf("%s: %s: --oplogSize at %d of %v, volume %q; want %s and %s", name, p.Name, i, args, got, c.arg, c.shard)
				}
			case benchv1.RoleConfigServer:
				if i < 0 || args[i+1] != c.arg || got != c.cfgsvr || v.EmptyDir == nil || v.EmptyDir.Medium != "" {
					t.Errorf("%s: %s: --oplogSize at %d of %v, volume %q %+v; want %s and a %s emptyDir on disk", name, p.Name, i, args, got, v, c.arg, c.cfgsvr)
				}
			case benchv1.RoleMongos:
				if i >= 0 || v != nil {
					t.Errorf("%s: mongos has no oplog and no data: %v, %+v", name, args, v)
				}
			}
			if sz := DataVolumeSize(run, p); p.Role != benchv1.RoleMongos && sz.String() != got {
				t.Errorf("%s: %s: DataVolumeSize %s, volume %s", name, p.Name, sz.String(), got)
			}
		}
		sa := standalone()
		sa.Spec.Topology.OplogSizeMB = c.oplog
		sa.Spec.Topology.Storage = run.Spec.Topology.Storage
		p := Processes(sa)[0]
		if got, _ := volume(sa, p); slices.Contains(Args(sa, p, "cluster.local"), "--oplogSize") || got != "10Gi" {
			t.Errorf("%s: standalone args %v, volume %s; want no oplog and the data's 10Gi", name, Args(sa, p, "cluster.local"), got)
		}
	}
}

func TestServices(t *testing.T) {
	run := sharded(2)
	h := HeadlessService(run)
	if h.Spec.ClusterIP != corev1.ClusterIPNone || !h.Spec.PublishNotReadyAddresses || !reflect.DeepEqual(h.Spec.Selector, map[string]string{benchv1.LabelRun: "ms", benchv1.LabelDatabase: "true"}) {
		t.Errorf("headless %+v", h.Spec)
	}
	e := EntryService(run)
	if e.Spec.Selector[benchv1.LabelRole] != "mongos" || e.Spec.Ports[0].Port != 27017 {
		t.Errorf("entry %+v", e.Spec)
	}
	if EntryService(standalone()).Spec.Selector[benchv1.LabelRole] != "standalone" {
		t.Error("standalone entry must select the mongod")
	}
	checkOwner(t, h)
	checkOwner(t, e)
}

// issueExample is the run of the foundation issue's example manifest.
func issueExample() *benchv1.BenchmarkRun {
	run := sharded(4)
	run.Name = "microshard-4"
	run.Spec.Workload = benchv1.WorkloadSpec{
		Preset: "a", RecordCount: ptr.To[int64](100000), FieldCount: ptr.To[int32](10), FieldLength: ptr.To[int32](100), InsertOrder: "hashed",
		WorkloadParameters: benchv1.WorkloadParameters{
			OperationCount: ptr.To[int64](1000000), ReadProportion: ptr.To(0.5), UpdateProportion: ptr.To(0.5), RequestDistribution: "zipfian",
			Properties: map[string]benchv1.PropertyValue{"maxscanlength": "100"},
		},
	}
	run.Spec.Phases = []benchv1.PhaseSpec{
		{Name: "load", Type: benchv1.PhaseLoad, Threads: 32, BatchSize: ptr.To[int32](1)},
		{Name: "S2", Type: benchv1.PhaseRun, Threads: 32, MaxExecutionTime: &metav1.Duration{Duration: 10 * time.Minute},
			Workload: &benchv1.WorkloadParameters{ReadProportion: ptr.To(0.1), UpdateProportion: ptr.To(0.9)}},
	}
	run.Spec.Driver = benchv1.DriverSpec{WriteConcern: "1", Journal: ptr.To(false), ReadPreference: "primary", MaxPoolSize: ptr.To[int32](0)}
	run.Spec.Loaders = 3
	run.Spec.Target = 30000
	return run
}

func TestLoaderArgs(t *testing.T) {
	run := issueExample()
	url := "mongodb://microshard-4-mongo.bench.svc.cluster.local:27017/ycsb?w=1&journal=false&readPreference=primary&maxPoolSize=0&retryWrites=false"
	load := strings.Join(LoaderArgs(run, &run.Spec.Phases[0], "cluster.local"), " ")
	wantLoad := "load -P workloada -p recordcount=100000 -p fieldcount=10 -p fieldlength=100 -p insertorder=hashed -p maxscanlength=100 -p batchsize=1 " +
		"-p measurement.interval=op -p mongodb.url=" + url + " -p loader.count=3 -p status.interval=10 -threads 32 -target 30000 -s"
	if load != wantLoad {
		t.Errorf("load args:\n got %s\nwant %s", load, wantLoad)
	}
	s2 := strings.Join(LoaderArgs(run, &run.Spec.Phases[1], "cluster.local"), " ")
	wantS2 := "run -P workloada -p recordcount=100000 -p fieldcount=10 -p fieldlength=100 -p insertorder=hashed -p operationcount=1000000 " +
		"-p readproportion=0.1 -p updateproportion=0.9 -p requestdistribution=zipfian -p maxscanlength=100 -p maxexecutiontime=600 " +
		"-p measurement.interval=op -p mongodb.url=" + url + " -p loader.count=3 -p status.interval=10 -threads 32 -target 30000 -s"
	if s2 != wantS2 {
		t.Errorf("S2 args:\n got %s\nwant %s", s2, wantS2)
	}
	// The run's measurement.interval, a phase's own, and the warm-ups.
	run.Spec.Measurement.Interval = benchv1.MeasureIntended
	run.Spec.Phases[0].Warmup = &benchv1.WarmupSpec{Operations: ptr.To[int64](3000)}
	run.Spec.Phases[1].Warmup = &benchv1.WarmupSpec{Duration: &metav1.Duration{Duration: 90 * time.Second}}
	run.Spec.Phases[1].Measurement = &benchv1.MeasurementSpec{Interval: benchv1.MeasureBoth}
	if load := strings.Join(LoaderArgs(run, &run.Spec.Phases[0], "cluster.local"), " "); !strings.Contains(load,
		"-p batchsize=1 -p measurement.interval=intended -p warmupoperations=3000 -p mongodb.url=") {
		t.Errorf("load args with a warm-up: %s", load)
	}
	if s2 := strings.Join(LoaderArgs(run, &run.Spec.Phases[1], "cluster.local"), " "); !strings.Contains(s2,
		"-p maxexecutiontime=600 -p measurement.interval=both -p warmuptime=90 -p mongodb.url=") {
		t.Errorf("S2 args with a warm-up: %s", s2)
	}
	run.Spec.Measurement.Interval = ""
	run.Spec.Phases[0].Warmup, run.Spec.Phases[1].Warmup, run.Spec.Phases[1].Measurement = nil, nil, nil
	// A second Run phase inserts into its own key range.
	run.Spec.Phases = append(run.Spec.Phases, benchv1.PhaseSpec{Name: "S3", Type: benchv1.PhaseRun, Threads: 32})
	if s3 := strings.Join(LoaderArgs(run, &run.Spec.Phases[2], "cluster.local"), " "); !strings.Contains(s3, "-p loader.insertkeyoffset=1099511627776 ") {
		t.Errorf("S3 args lack the insert key offset: %s", s3)
	}
	if strings.Contains(s2, "insertkeyoffset") || strings.Contains(load, "insertkeyoffset") {
		t.Error("the load and first Run phase must keep YCSB's key layout")
	}
	// A phase's target wins; 0 means unthrottled, so no -target at all.
	run.Spec.Phases[1].Target = ptr.To[int64](0)
	if a := LoaderArgs(run, &run.Spec.Phases[1], "cluster.local"); slices.Contains(a, "-target") {
		t.Errorf("unthrottled phase passes -target: %v", a)
	}
}

// TestPhaseProperties: what status.environment records of a phase is every
// value of its loaders' command line, the flags' under YCSB's names for
// them, and an unthrottled phase says target 0.
func TestPhaseProperties(t *testing.T) {
	run := issueExample()
	url := MongoURL(run, "cluster.local")
	got := PhaseProperties(run, &run.Spec.Phases[0], "cluster.local")
	want := map[string]string{"workload": "workloada", "recordcount": "100000", "fieldcount": "10", "fieldlength": "100",
		"insertorder": "hashed", "maxscanlength": "100", "batchsize": "1", "measurement.interval": "op", "mongodb.url": url,
		"loader.count": "3", "status.interval": "10", "threadcount": "32", "target": "30000"}
	if !maps.Equal(got, want) {
		t.Errorf("load properties:\n got %v\nwant %v", got, want)
	}
	for _, tc := range []struct {
		name                string
		edit                func(*benchv1.PhaseSpec)
		threadcount, target string
	}{
		{"the run's target", func(*benchv1.PhaseSpec) {}, "32", "30000"},
		{"the phase's target", func(p *benchv1.PhaseSpec) { p.Target = ptr.To[int64](500) }, "32", "500"},
		{"unthrottled", func(p *benchv1.PhaseSpec) { p.Target = ptr.To[int64](0) }, "32", "0"},
		{"threads unset", func(p *benchv1.PhaseSpec) { p.Threads = 0 }, "1", "30000"},
	} {
		ph := run.Spec.Phases[1].DeepCopy()
		tc.edit(ph)
		got := PhaseProperties(run, ph, "cluster.local")
		if got["threadcount"] != tc.threadcount || got["target"] != tc.target {
			t.Errorf("%s: threadcount %q target %q, want %q %q", tc.name, got["threadcount"], got["target"], tc.threadcount, tc.target)
		}
	}
	// Every flag of a load or run command line is read: a new one must be
	// recorded too.
	for i := range run.Spec.Phases {
		args := LoaderArgs(run, &run.Spec.Phases[i], "cluster.local")
		for _, a := range args[1:] {
			if strings.HasPrefix(a, "-") && !slices.Contains([]string{"-P", "-p", "-threads", "-target", "-s"}, a) {
				t.Errorf("phase %s: PhaseProperties does not read LoaderArgs' %s", run.Spec.Phases[i].Name, a)
			}
		}
	}
	// A Grow phase's are its own properties, no YCSB client ones.
	grow := benchv1.PhaseSpec{Name: "grow", Type: benchv1.PhaseGrow, Grow: &benchv1.GrowSpec{TargetRecords: 1000, InsertThreads: 4}}
	got = PhaseProperties(run, &grow, "cluster.local")
	want = map[string]string{}
	for _, kv := range GrowProperties(run, &grow, "cluster.local") {
		want[kv[0]] = kv[1]
	}
	if !maps.Equal(got, want) {
		t.Errorf("grow properties:\n got %v\nwant %v", got, want)
	}
}

// TestMongoURLSaysRetryWrites: every URL the Jobs get says retryWrites
// explicitly, false unless spec.driver.retryWrites: the driver's own
// default (true) would make sharded writes retryable and standalone ones
// not.
func TestMongoURLSaysRetryWrites(t *testing.T) {
	for _, retry := range []bool{false, true} {
		run := issueExample()
		run.Spec.Driver.RetryWrites = retry
		want := fmt.Sprintf("retryWrites=%t", retry)
		if u := MongoURL(run, "cluster.local"); !strings.HasSuffix(u, "&"+want) {
			t.Errorf("retryWrites %t: url %s", retry, u)
		}
		for i := range run.Spec.Phases {
			ph := &run.Spec.Phases[i]
			if args := strings.Join(LoaderArgs(run, ph, "cluster.local"), " "); !strings.Contains(args, want+" ") {
				t.Errorf("retryWrites %t: phase %s args %s", retry, ph.Name, args)
			}
		}
		run.Spec.Collection = &benchv1.CollectionSpec{Validator: runtime.RawExtension{Raw: []byte(`{}`)}}
		if args := strings.Join(ValidatorJob(run, cfg).Spec.Template.Spec.Containers[0].Args, " "); !strings.Contains(args, want+" ") {
			t.Errorf("retryWrites %t: validator args %s", retry, args)
		}
	}
}

func TestPropertiesOverridesAndRounding(t *testing.T) {
	run := standalone()
	run.Spec.Workload.Properties = map[string]benchv1.PropertyValue{"b": "base", "a": "base"}
	ph := &benchv1.PhaseSpec{Name: "r", Type: benchv1.PhaseRun, MaxExecutionTime: &metav1.Duration{Duration: 1500 * time.Millisecond},
		Workload: &benchv1.WorkloadParameters{Properties: map[string]benchv1.PropertyValue{"b": "phase"}, WriteAllFields: ptr.To(true)}}
	got := map[string]string{}
	var order []string
	for _, kv := range Properties(run, ph, "cluster.local") {
		got[kv[0]] = kv[1]
		order = append(order, kv[0])
	}
	if got["a"] != "base" || got["b"] != "phase" || got["writeallfields"] != "true" || got["maxexecutiontime"] != "2" {
		t.Errorf("properties %v", got)
	}
	if i, j := slices.Index(order, "a"), slices.Index(order, "b"); i > j {
		t.Errorf("properties not sorted: %v", order)
	}
	if strings.Contains(got["mongodb.url"], "journal") || !strings.Contains(got["mongodb.url"], "w=1") {
		t.Errorf("url %s", got["mongodb.url"])
	}
}

func TestPhaseJob(t *testing.T) {
	run := issueExample()
	j := PhaseJob(run, &run.Spec.Phases[1], 15*time.Minute, cfg)
	if j.Name != "microshard-4-s2" {
		t.Errorf("name %s", j.Name)
	}
	s := j.Spec
	if *s.Completions != 3 || *s.Parallelism != 3 || *s.CompletionMode != batchv1.IndexedCompletion || *s.BackoffLimit != 0 || *s.ActiveDeadlineSeconds != 900 {
		t.Errorf("job spec %+v", s)
	}
	ps := s.Template.Spec
	if ps.RestartPolicy != corev1.RestartPolicyNever || ps.ServiceAccountName != "microshard-4-jobs" || !*ps.AutomountServiceAccountToken || *ps.SecurityContext.RunAsUser != LoaderUID {
		t.Errorf("pod spec %+v", ps)
	}
	c := ps.Containers[0]
	if c.Image != cfg.LoaderImage || c.Args[0] != "run" || !*c.SecurityContext.ReadOnlyRootFilesystem {
		t.Errorf("container %+v", c)
	}
	args := strings.Join(c.Args, " ")
	for _, want := range []string{"--result-configmap microshard-4-s2-result", "--result-owner bench.mongobench.io/v1alpha1,BenchmarkRun,microshard-4,uid-1", "mongobench"} {
		if !strings.Contains(args, want) {
			t.Errorf("args lack %q: %s", want, args)
		}
	}
	if j.Labels[benchv1.LabelPhase] != "s2" || s.Template.Labels[benchv1.LabelRun] != "microshard-4" {
		t.Errorf("labels %v / %v", j.Labels, s.Template.Labels)
	}
	checkOwner(t, j)
}

func TestLoaderPlacement(t *testing.T) {
	cases := map[benchv1.LoaderPlacement]func(a *corev1.Affinity) bool{
		benchv1.LoaderPreferOtherNode: func(a *corev1.Affinity) bool {
			return a != nil && a.PodAntiAffinity != nil && len(a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution) == 1 &&
				a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil &&
				a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution[0].PodAffinityTerm.TopologyKey == HostnameLabel
		},
		benchv1.LoaderSameNode: func(a *corev1.Affinity) bool {
			return a != nil && a.PodAffinity != nil && len(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution) == 1
		},
		benchv1.LoaderAnyNode: func(a *corev1.Affinity) bool { return a == nil },
	}
	for placement, ok := range cases {
		run := issueExample()
		run.Spec.Placement.LoaderPlacement = placement
		j := PhaseJob(run, &run.Spec.Phases[0], time.Hour, cfg)
		if !ok(j.Spec.Template.Spec.Affinity) {
			t.Errorf("%s: affinity %+v", placement, j.Spec.Template.Spec.Affinity)
		}
	}
}

func TestBootstrapJob(t *testing.T) {
	got := strings.Join(BootstrapJob(sharded(2), cfg).Spec.Template.Spec.Containers[0].Args, " ")
	want := "bootstrap --namespace ycsb.usertable --timeout 8m0s --mode sharded --shard-key hashed " +
		"--config-server cfg=ms-cfg.ms-db.bench.svc.cluster.local:27019 " +
		"--shard shard0=ms-shard0.ms-db.bench.svc.cluster.local:27018 --shard shard1=ms-shard1.ms-db.bench.svc.cluster.local:27018 " +
		"--mongos ms-mongos.ms-db.bench.svc.cluster.local:27017 --result-configmap ms-bootstrap-result"
	if !strings.HasPrefix(got, want) {
		t.Errorf("sharded bootstrap:\n got %s\nwant %s...", got, want)
	}
	if strings.Contains(got, " -P ") || strings.Contains(got, " -p ") {
		t.Errorf("hashed bootstrap gets the Load phase's properties: %s", got)
	}
	// Ranged: the Load phase's preset and the properties that decide its
	// keys (ycsb.LoadKeyProperties), taken from its own command line.
	run := issueExample()
	run.Spec.Topology.ShardKey = benchv1.ShardKeyRanged
	run.Spec.Workload.InsertOrder = "ordered"
	run.Spec.Workload.ZeroPadding = ptr.To[int32](12)
	got = strings.Join(BootstrapJob(run, cfg).Spec.Template.Spec.Containers[0].Args, " ")
	want = "--mode sharded --shard-key ranged -P workloada -p recordcount=100000 -p insertorder=ordered -p zeropadding=12 " +
		"-p loader.count=3 --config-server "
	if !strings.Contains(got, want) {
		t.Errorf("ranged bootstrap:\n got %s\nwant ...%s...", got, want)
	}
	got = strings.Join(BootstrapJob(standalone(), cfg).Spec.Template.Spec.Containers[0].Args, " ")
	if !strings.Contains(got, "--mode standalone --standalone sa-mongod.sa-db.bench.svc.cluster.local:27017") {
		t.Errorf("standalone bootstrap: %s", got)
	}
}

func TestValidatorJob(t *testing.T) {
	run := standalone()
	run.Spec.Collection = &benchv1.CollectionSpec{Validator: runtime.RawExtension{Raw: []byte(`{"$jsonSchema":{"required":["field0"]}}`)}, ValidationLevel: "strict", ValidationAction: "warn"}
	args := strings.Join(ValidatorJob(run, cfg).Spec.Template.Spec.Containers[0].Args, " ")
	want := `collmod --uri mongodb://sa-mongo.bench.svc.cluster.local:27017/ycsb?w=1&readPreference=primary&retryWrites=false --namespace ycsb.usertable --validator {"$jsonSchema":{"required":["field0"]}} --validation-level strict --validation-action warn`
	if !strings.HasPrefix(args, want) {
		t.Errorf("validator args:\n got %s\nwant %s", args, want)
	}
}

func TestJobRBACIsMinimal(t *testing.T) {
	run := standalone()
	role := JobRole(run)
	if len(role.Rules) != 1 || !reflect.DeepEqual(role.Rules[0].Verbs, []string{"create"}) || !reflect.DeepEqual(role.Rules[0].Resources, []string{"configmaps"}) {
		t.Errorf("rules %+v", role.Rules)
	}
	rb := JobRoleBinding(run)
	if rb.RoleRef.Name != role.Name || rb.Subjects[0].Name != JobServiceAccount(run).Name || rb.Subjects[0].Namespace != "bench" {
		t.Errorf("binding %+v", rb)
	}
	if *JobServiceAccount(run).AutomountServiceAccountToken {
		t.Error("the service account must not mount tokens by default; only the Jobs opt in")
	}
}

// TestStartBarrier: the phases of several loaders wait at a start barrier
// (Load and Run, not Grow, not one loader); their Jobs say where, the Role
// lets the loaders read exactly those start ConfigMaps, and the controller's
// start ConfigMap holds the instant.
func TestStartBarrier(t *testing.T) {
	cfg := Config{LoaderImage: "loader", ClusterDomain: "cluster.local"}
	run := issueExample() // 3 loaders
	for i := range run.Spec.Phases {
		ph := &run.Spec.Phases[i]
		args := strings.Join(PhaseJob(run, ph, time.Hour, cfg).Spec.Template.Spec.Containers[0].Args, " ")
		if want := "--start-barrier " + PhaseJobName(run, ph.Name); !strings.HasSuffix(args, want) {
			t.Errorf("phase %s: args end %q, want %q", ph.Name, args[max(len(args)-60, 0):], want)
		}
	}
	role := JobRole(run)
	want := []string{contract.StartConfigMapName(PhaseJobName(run, "load")), contract.StartConfigMapName(PhaseJobName(run, "S2"))}
	if len(role.Rules) != 2 || !reflect.DeepEqual(role.Rules[1].Verbs, []string{"get"}) || !reflect.DeepEqual(role.Rules[1].ResourceNames, want) {
		t.Errorf("rules %+v, want get on %v", role.Rules, want)
	}
	run.Spec.Loaders = 1
	if args := strings.Join(PhaseJob(run, &run.Spec.Phases[0], time.Hour, cfg).Spec.Template.Spec.Containers[0].Args, " "); strings.Contains(args, "start-barrier") {
		t.Errorf("one loader waits at a barrier: %s", args)
	}
	if len(JobRole(run).Rules) != 1 {
		t.Errorf("one loader may read ConfigMaps: %+v", JobRole(run).Rules)
	}
	at := time.Date(2026, 11, 26, 10, 0, 0, 123456789, time.UTC)
	cm := StartConfigMap(run, PhaseJobName(run, "S2"), at.In(time.FixedZone("x", 3600)))
	if cm.Name != PhaseJobName(run, "S2")+"-start" || cm.Data[contract.StartAtKey] != "2026-11-26T10:00:00.123456789Z" ||
		!*cm.Immutable || cm.OwnerReferences[0].UID != run.UID {
		t.Errorf("start ConfigMap %+v", cm)
	}
}

func TestDatabaseAffinity(t *testing.T) {
	antiAffinity := func(a *corev1.Affinity) string {
		if a == nil || a.PodAntiAffinity == nil {
			return ""
		}
		terms := a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution
		if len(terms) != 1 || terms[0].TopologyKey != HostnameLabel || terms[0].NamespaceSelector == nil || len(terms[0].NamespaceSelector.MatchLabels)+len(terms[0].NamespaceSelector.MatchExpressions) != 0 {
			return fmt.Sprintf("bad terms %+v", terms)
		}
		sel, err := metav1.LabelSelectorAsSelector(terms[0].LabelSelector)
		if err != nil {
			return err.Error()
		}
		return sel.String()
	}
	nodeAffinity := func(a *corev1.Affinity) string {
		if a == nil || a.NodeAffinity == nil {
			return ""
		}
		terms := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
		if len(terms) != 1 || len(terms[0].MatchExpressions) != 1 {
			return fmt.Sprintf("bad terms %+v", terms)
		}
		e := terms[0].MatchExpressions[0]
		return fmt.Sprintf("%s %s %v", e.Key, e.Operator, e.Values)
	}
	cases := []struct {
		name      string
		exclusive *bool
		np        NodePlacement
		anti      string
		node      string
	}{
		{"exclusive by default", nil, NodePlacement{}, "bench.mongobench.io/run-uid,bench.mongobench.io/run-uid notin (uid-1)", ""},
		{"exclusive, pinned", ptr.To(true), NodePlacement{Hostname: "h1", Candidates: []string{"h1", "h2"}}, "bench.mongobench.io/run-uid,bench.mongobench.io/run-uid notin (uid-1)", ""},
		{"exclusive, anchor with candidates", nil, NodePlacement{Candidates: []string{"h1", "h2"}}, "bench.mongobench.io/run-uid,bench.mongobench.io/run-uid notin (uid-1)", "kubernetes.io/hostname In [h1 h2]"},
		{"shared", ptr.To(false), NodePlacement{}, "", ""},
		{"shared, anchor with candidates", ptr.To(false), NodePlacement{Candidates: []string{"h2"}}, "", "kubernetes.io/hostname In [h2]"},
	}
	for _, c := range cases {
		run := sharded(2)
		run.Spec.Placement.Exclusive = c.exclusive
		for _, p := range Processes(run) {
			pod := Pod(run, p, c.np, cfg)
			if got := antiAffinity(pod.Spec.Affinity); got != c.anti {
				t.Errorf("%s: %s: pod anti-affinity %q, want %q", c.name, p.Name, got, c.anti)
			}
			if got := nodeAffinity(pod.Spec.Affinity); got != c.node {
				t.Errorf("%s: %s: node affinity %q, want %q", c.name, p.Name, got, c.node)
			}
			if c.anti == "" && c.node == "" && pod.Spec.Affinity != nil {
				t.Errorf("%s: affinity %+v, want none", c.name, pod.Spec.Affinity)
			}
			if pod.Labels[benchv1.LabelRunUID] != "uid-1" {
				t.Errorf("%s: %s lacks the run-uid label: %v", c.name, p.Name, pod.Labels)
			}
		}
	}
	// Loader pods carry the label too, so other runs' database pods avoid
	// the nodes where this run's loaders are active.
	run := issueExample()
	if got := PhaseJob(run, &run.Spec.Phases[0], time.Hour, cfg).Spec.Template.Labels[benchv1.LabelRunUID]; got != "uid-1" {
		t.Errorf("loader pod run-uid label %q", got)
	}
}

func TestRequests(t *testing.T) {
	run := sharded(2)
	run.Spec.Topology.Resources = corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")},
		Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("3Gi")},
	}
	run.Spec.Topology.MongosResources = &corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")}}
	ps := Processes(run)
	got := map[string]string{}
	for _, p := range ps {
		r := Requests(run, p)
		got[p.Name] = fmt.Sprintf("cpu=%s memory=%s", r.Cpu(), r.Memory())
	}
	want := map[string]string{
		"ms-cfg":    "cpu=0 memory=0",
		"ms-shard0": "cpu=2 memory=3Gi", // request wins over limit; a limit alone counts as the request
		"ms-shard1": "cpu=2 memory=3Gi",
		"ms-mongos": "cpu=500m memory=0",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("requests %v, want %v", got, want)
	}
}

func TestImageMajorVersion(t *testing.T) {
	for image, want := range map[string]int{
		"mongo:8.0.16":                          8,
		"mongo:8.0":                             8,
		"mongo:7.0.28":                          7,
		"mongo:6.0.19-jammy":                    6,
		"registry.example.com:5000/mongo:8.2.2": 8,
		"mongodb/mongodb-community-server:8.0.4-ubuntu2204": 8,
		"mongo:10.1.0@sha256:0123abcd":                      10,
		"mongo:latest":                                      -1,
		"mongo":                                             -1,
		"registry.example.com:5000/mongo":                   -1,
		"mongo@sha256:0123abcd":                             -1,
	} {
		got, ok := ImageMajorVersion(image)
		if (want < 0 && ok) || (want >= 0 && (!ok || got != want)) {
			t.Errorf("%s: %d, %v; want %d", image, got, ok, want)
		}
	}
}

// TestMongoEnv: GLIBC_TUNABLES leaves rseq to TCMalloc on 8.0+ images (and
// images of unknown version) in every MongoDB container; env is
// added and replaces it by name.
func TestMongoEnv(t *testing.T) {
	envOf := func(run *benchv1.BenchmarkRun) map[string][]corev1.EnvVar {
		out := map[string][]corev1.EnvVar{}
		for _, p := range Processes(run) {
			pod := Pod(run, p, NodePlacement{Hostname: "n"}, cfg)
			out[p.Name] = pod.Spec.Containers[0].Env
		}
		return out
	}
	rseq := corev1.EnvVar{Name: "GLIBC_TUNABLES", Value: "glibc.pthread.rseq=0"}
	for _, tc := range []struct {
		image string
		env   []corev1.EnvVar
		want  []corev1.EnvVar
	}{
		{"mongo:8.0.16", nil, []corev1.EnvVar{rseq}},
		{"mongo:latest", nil, []corev1.EnvVar{rseq}},
		{"mongo:7.0.28", nil, nil},
		{"mongo:8.0.16", []corev1.EnvVar{{Name: "TZ", Value: "UTC"}}, []corev1.EnvVar{rseq, {Name: "TZ", Value: "UTC"}}},
		{"mongo:7.0.28", []corev1.EnvVar{{Name: "TZ", Value: "UTC"}}, []corev1.EnvVar{{Name: "TZ", Value: "UTC"}}},
		{"mongo:8.0.16", []corev1.EnvVar{{Name: "GLIBC_TUNABLES", Value: "glibc.malloc.arena_max=2"}},
			[]corev1.EnvVar{{Name: "GLIBC_TUNABLES", Value: "glibc.malloc.arena_max=2"}}},
	} {
		run := sharded(2)
		run.Spec.Topology.Image, run.Spec.Topology.Env = tc.image, tc.env
		got := envOf(run)
		if len(got) != 4 { // cfg, shard0, shard1, mongos
			t.Fatalf("%d roles: %v", len(got), got)
		}
		for name, env := range got {
			if !reflect.DeepEqual(env, tc.want) {
				t.Errorf("%s with env %v, %s: %v, want %v", tc.image, tc.env, name, env, tc.want)
			}
		}
		sa := standalone()
		sa.Spec.Topology.Image, sa.Spec.Topology.Env = tc.image, tc.env
		if env := envOf(sa)["sa-mongod"]; !reflect.DeepEqual(env, tc.want) {
			t.Errorf("standalone %s with env %v: %v, want %v", tc.image, tc.env, env, tc.want)
		}
	}
}

// TestPropertiesWithoutPresetDefaultCounts: without a preset, recordcount
// and operationcount default to 1000 (YCSB's own 0 would load nothing and
// run until the Job's deadline); a preset's or the spec's value is left to
// them.
func TestPropertiesWithoutPresetDefaultCounts(t *testing.T) {
	load := &benchv1.PhaseSpec{Name: "load", Type: benchv1.PhaseLoad}
	runPhase := &benchv1.PhaseSpec{Name: "run", Type: benchv1.PhaseRun}
	get := func(run *benchv1.BenchmarkRun, ph *benchv1.PhaseSpec, key string) string {
		for _, kv := range Properties(run, ph, "cluster.local") {
			if kv[0] == key {
				return kv[1]
			}
		}
		return "(unset)"
	}
	for _, tc := range []struct {
		name             string
		preset           benchv1.WorkloadPreset
		records, ops     *int64
		wantRec, wantOps string
	}{
		{"no preset: 1000 each", "", nil, nil, "1000", "1000"},
		{"no preset, counts set", "", ptr.To[int64](5), ptr.To[int64](0), "5", "0"},
		{"preset: its file decides", "a", nil, nil, "(unset)", "(unset)"},
		{"preset, counts set", "a", ptr.To[int64](7), ptr.To[int64](9), "7", "9"},
	} {
		run := standalone()
		run.Spec.Workload.Preset = tc.preset
		run.Spec.Workload.RecordCount, run.Spec.Workload.OperationCount = tc.records, tc.ops
		if got := get(run, load, "recordcount"); got != tc.wantRec {
			t.Errorf("%s: load recordcount %s, want %s", tc.name, got, tc.wantRec)
		}
		if got := get(run, runPhase, "recordcount"); got != tc.wantRec {
			t.Errorf("%s: run recordcount %s, want %s", tc.name, got, tc.wantRec)
		}
		if got := get(run, runPhase, "operationcount"); got != tc.wantOps {
			t.Errorf("%s: operationcount %s, want %s", tc.name, got, tc.wantOps)
		}
		if got := get(run, load, "operationcount"); got != "(unset)" {
			t.Errorf("%s: a Load phase got operationcount %s", tc.name, got)
		}
	}
}

func TestTelemetryConfigMap(t *testing.T) {
	run := sharded(2)
	report := []byte{0x1f, 0x8b, 1, 2, 3}
	cm := TelemetryConfigMap(run, "S2", report)
	if cm.Name != "ms-telemetry-s2" || cm.Name != TelemetryConfigMapName(run, "S2") || cm.Namespace != "bench" {
		t.Errorf("name %s/%s", cm.Namespace, cm.Name)
	}
	checkOwner(t, cm)
	if got := cm.BinaryData["telemetry.json.gz"]; !reflect.DeepEqual(got, report) || len(cm.BinaryData) != 1 || cm.Data != nil {
		t.Errorf("data %v binary %v", cm.Data, cm.BinaryData)
	}
	if cm.Labels[benchv1.LabelComponent] != benchv1.ComponentTelemetry || cm.Labels[benchv1.LabelPhase] != "s2" || cm.Labels[benchv1.LabelRun] != "ms" ||
		cm.Labels[benchv1.LabelManagedBy] != benchv1.ManagedBy {
		t.Errorf("labels %v", cm.Labels)
	}
}

func TestHistogramsConfigMap(t *testing.T) {
	run := sharded(2)
	merged := []byte{0x1f, 0x8b, 4, 5, 6}
	cm := HistogramsConfigMap(run, "S2", merged)
	if cm.Name != "ms-s2-histograms" || cm.Name != HistogramsConfigMapName(run, "S2") || cm.Namespace != "bench" {
		t.Errorf("name %s/%s", cm.Namespace, cm.Name)
	}
	checkOwner(t, cm)
	if got := cm.BinaryData["result.json.gz"]; !reflect.DeepEqual(got, merged) || len(cm.BinaryData) != 1 || cm.Data != nil {
		t.Errorf("data %v binary %v", cm.Data, cm.BinaryData)
	}
	if cm.Labels[benchv1.LabelComponent] != benchv1.ComponentHistograms || cm.Labels[benchv1.LabelPhase] != "s2" || cm.Labels[benchv1.LabelRun] != "ms" ||
		cm.Labels[benchv1.LabelManagedBy] != benchv1.ManagedBy {
		t.Errorf("labels %v", cm.Labels)
	}
}

// TestRunConfigMapNamesAreDistinct: with phase names the API accepts,
// chosen to come as close as they can, no two ConfigMaps of a run share a
// name: the diagnostics, each phase's telemetry and histograms, and the
// result ConfigMaps of the bootstrap Job and of every loader.
func TestRunConfigMapNamesAreDistinct(t *testing.T) {
	run := sharded(2)
	phases := []string{"load", "S2", "histograms", "x-histograms", "result-0", "x-result-0", "telemetryx",
		"histograms-result", "s2-histograms", "diagnosticsx"}
	owner := map[string]string{}
	add := func(name, what string) {
		if prev, ok := owner[name]; ok {
			t.Errorf("ConfigMap %s is both %s and %s", name, prev, what)
		}
		owner[name] = what
	}
	add(DiagnosticsConfigMapName(run), "the diagnostics")
	add(contract.ResultConfigMapName(BootstrapJobName(run), 0), "the bootstrap result")
	for _, ph := range phases {
		add(TelemetryConfigMapName(run, ph), ph+"'s telemetry")
		add(HistogramsConfigMapName(run, ph), ph+"'s histograms")
		for i := 0; i < 3; i++ {
			add(contract.ResultConfigMapName(PhaseJobName(run, ph), i), fmt.Sprintf("%s's result %d", ph, i))
		}
	}
}

// TestTelemetryArgs shows the telemetry part of a phase Job's command line
// as a person reads it; internal/contract's tests prove the loader parses
// it into what topology means.
func TestTelemetryArgs(t *testing.T) {
	load := &benchv1.PhaseSpec{Name: "load", Type: benchv1.PhaseLoad}
	run := &benchv1.PhaseSpec{Name: "S2", Type: benchv1.PhaseRun}
	sh := sharded(2)
	sh.Spec.Telemetry.Interval = &metav1.Duration{Duration: 5 * time.Second}
	off := standalone()
	off.Spec.Telemetry.Enabled = ptr.To(false)
	for _, tc := range []struct {
		name  string
		run   *benchv1.BenchmarkRun
		phase *benchv1.PhaseSpec
		want  string
	}{
		{"standalone load, defaults", standalone(), load, "--telemetry-interval 1s" +
			" --telemetry-process standalone,sa-mongod,sa-mongod.sa-db.bench.svc.cluster.local:27017" +
			" --telemetry-collection sa-mongo.bench.svc.cluster.local:27017,ycsb,usertable --telemetry-collection-every 10s"},
		{"sharded run", sh, run, "--telemetry-interval 5s" +
			" --telemetry-process configsvr,ms-cfg,ms-cfg.ms-db.bench.svc.cluster.local:27019" +
			" --telemetry-process shard,ms-shard0,ms-shard0.ms-db.bench.svc.cluster.local:27018" +
			" --telemetry-process shard,ms-shard1,ms-shard1.ms-db.bench.svc.cluster.local:27018" +
			" --telemetry-process mongos,ms-mongos,ms-mongos.ms-db.bench.svc.cluster.local:27017" +
			" --telemetry-collection ms-mongo.bench.svc.cluster.local:27017,ycsb,usertable"},
		{"off", off, load, ""},
	} {
		if got := strings.Join(TelemetryArgs(tc.run, tc.phase, cfg.ClusterDomain), " "); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
		job := PhaseJob(tc.run, tc.phase, time.Hour, cfg)
		if args := strings.Join(job.Spec.Template.Spec.Containers[0].Args, " "); !strings.Contains(args, tc.want) {
			t.Errorf("%s: the phase Job's args lack them: %s", tc.name, args)
		}
	}
}
