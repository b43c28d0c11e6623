package topology

import (
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// HostnameLabel is the node label pods are pinned with.
const HostnameLabel = "kubernetes.io/hostname"

// ConfigServerCacheGB is the config server's WiredTiger cache: it holds only
// metadata (the reference's 0.25–0.5 GB range).
const ConfigServerCacheGB = "0.25"

const (
	dataVolume = "data"
	tmpVolume  = "tmp"
)

// DefaultStorageSize is used when a run's storage size is unset.
var DefaultStorageSize = resource.MustParse("10Gi")

// DefaultOplogSizeMB is the oplog of each replica-set member when a run's
// topology.oplogSizeMB is unset (its +kubebuilder:default says the same).
const DefaultOplogSizeMB int32 = 1024

// ConfigServerHeadroom is what the config server's volume holds besides
// its oplog: the WiredTiger journal, whose files are 100 MB each
// (wiredtiger dist/api_data.py: log file_max default '100MB'; mongod's
// "log=(enabled=true,remove=true,path=journal,compressor=snappy)" keeps
// that size) with one preallocated beyond the current one and more kept
// until the next checkpoint; diagnostic.data, which mongod caps at
// diagnosticDataCollectionDirectorySizeMB (250 MiB in current sources,
// src/mongo/db/ftdc/config.h kMaxDirectorySizeBytesDefault; 200 in older
// releases); and the config database itself, a few MiB for a handful of
// shards and one sharded collection. 2 GiB holds a 500 MiB journal, a full
// diagnostic.data and the catalog with more than half of it to spare.
var ConfigServerHeadroom = resource.MustParse("2Gi")

// NodePlacement is where the controller lets a database pod go.
type NodePlacement struct {
	// Hostname, when not empty, pins the pod with a kubernetes.io/hostname
	// node selector (it goes through the scheduler, so resource fit is
	// still checked — unlike spec.nodeName).
	Hostname string
	// Candidates, when not empty, restricts an unpinned pod (the anchor) to
	// the nodes with these kubernetes.io/hostname labels: those that can
	// hold the whole topology, found by the controller's pre-flight check.
	Candidates []string
}

// Pod builds the pod of process p, placed as np says.
func Pod(run *benchv1.BenchmarkRun, p Process, np NodePlacement, cfg Config) *corev1.Pod {
	topo := run.Spec.Topology
	nodeSelector := map[string]string{}
	for k, v := range run.Spec.Placement.NodeSelector {
		nodeSelector[k] = v
	}
	if np.Hostname != "" {
		nodeSelector[HostnameLabel] = np.Hostname
	}
	if len(nodeSelector) == 0 {
		nodeSelector = nil
	}

	dataPath := "/data/db"
	if p.Role == benchv1.RoleConfigServer {
		dataPath = "/data/configdb"
	}
	mounts := []corev1.VolumeMount{{Name: tmpVolume, MountPath: "/tmp"}}
	tmp := corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: ptr.To(resource.MustParse("256Mi"))}}
	volumes := []corev1.Volume{{Name: tmpVolume, VolumeSource: tmp}}
	if p.Role != benchv1.RoleMongos {
		mounts = append(mounts, corev1.VolumeMount{Name: dataVolume, MountPath: dataPath})
		volumes = append(volumes, corev1.Volume{Name: dataVolume, VolumeSource: dataVolumeSource(run, p)})
	}

	pod := &corev1.Pod{
		ObjectMeta: objectMeta(run, p.Name, ProcessLabels(run, p)),
		Spec: corev1.PodSpec{
			// Hostname + subdomain give the pod its stable DNS name through
			// the headless Service; replica set members are initiated with it.
			Hostname:                      p.Name,
			Subdomain:                     HeadlessServiceName(run),
			NodeSelector:                  nodeSelector,
			Affinity:                      databaseAffinity(run, p, np),
			Tolerations:                   run.Spec.Placement.Tolerations,
			RestartPolicy:                 corev1.RestartPolicyAlways,
			SecurityContext:               restrictedPodSecurity(MongoUID),
			AutomountServiceAccountToken:  ptr.To(false),
			EnableServiceLinks:            ptr.To(false),
			TerminationGracePeriodSeconds: ptr.To[int64](30),
			ShareProcessNamespace:         sharedProcessNamespace(run),
			Containers: []corev1.Container{{
				Name:  string(p.Role),
				Image: topo.Image,
				// args, not command: the image's entrypoint stays in charge
				// (numactl, and the mongod/mongos dispatch).
				Args:            Args(run, p, cfg.ClusterDomain),
				Env:             Env(run),
				ImagePullPolicy: topo.ImagePullPolicy,
				Ports:           []corev1.ContainerPort{{Name: "mongodb", ContainerPort: p.Port, Protocol: corev1.ProtocolTCP}},
				Resources:       processResources(run, p),
				SecurityContext: restrictedContainerSecurity(),
				VolumeMounts:    mounts,
				// TCP probes: a shell or mongosh per probe on N+2 processes
				// would burn CPU on the node being measured.
				StartupProbe: &corev1.Probe{
					ProbeHandler:     corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(p.Port)}},
					PeriodSeconds:    2,
					FailureThreshold: 150,
				},
				ReadinessProbe: &corev1.Probe{
					ProbeHandler:     corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(p.Port)}},
					PeriodSeconds:    10,
					TimeoutSeconds:   5,
					FailureThreshold: 3,
				},
				TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
			}},
			Volumes: volumes,
		},
	}
	if AuthEnabled(run) {
		withKeyfile(run, p, pod)
	}
	return pod
}

// Exclusive reports whether a run keeps other benchmarks off its node
// (placement.exclusive, default true).
func Exclusive(run *benchv1.BenchmarkRun) bool {
	if External(run) {
		// No database pod of its own to keep a node for: the cluster
		// under test is the user's, and sharing it is the user's call
		// (a sweep's parallelism: 1).
		return false
	}
	return run.Spec.Placement.Exclusive == nil || *run.Spec.Placement.Exclusive
}

// databaseAffinity is the scheduling constraint of a database pod:
//   - exclusive runs: required pod anti-affinity, in every namespace,
//     against the pods of any other run (database pods, loaders, Jobs).
//     The scheduler enforces required anti-affinity both ways, so while
//     these pods run, no other run's pod is placed on their node either,
//     and two runs created at the same moment are serialised by the
//     scheduler itself rather than by a queue of ours;
//   - np.Candidates: required node affinity to the nodes big enough for
//     the whole topology, so the anchor does not land where its followers
//     cannot fit;
//   - layout Spread, for a data-bearing pod: spreadAffinity.
func databaseAffinity(run *benchv1.BenchmarkRun, p Process, np NodePlacement) *corev1.Affinity {
	var a corev1.Affinity
	if Exclusive(run) {
		a.PodAntiAffinity = &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
			LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: benchv1.LabelRunUID, Operator: metav1.LabelSelectorOpExists},
				{Key: benchv1.LabelRunUID, Operator: metav1.LabelSelectorOpNotIn, Values: []string{string(run.UID)}},
			}},
			NamespaceSelector: &metav1.LabelSelector{}, // every namespace
			TopologyKey:       HostnameLabel,
		}}}
	}
	if np.Hostname == "" && len(np.Candidates) > 0 {
		a.NodeAffinity = &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
				{Key: HostnameLabel, Operator: corev1.NodeSelectorOpIn, Values: np.Candidates},
			}}},
		}}
	}
	if Spread(run) && DataBearing(p) {
		spreadAffinity(run, &a)
	}
	if a.PodAntiAffinity == nil && a.NodeAffinity == nil {
		return nil
	}
	return &a
}

// Requests are the resources a process's pod asks of its node: the
// requests, or the limits where no request is set (the API server's
// defaulting does the same).
func Requests(run *benchv1.BenchmarkRun, p Process) corev1.ResourceList {
	res := processResources(run, p)
	out := corev1.ResourceList{}
	for name, q := range res.Limits {
		out[name] = q.DeepCopy()
	}
	for name, q := range res.Requests {
		out[name] = q.DeepCopy()
	}
	return out
}

// Args are the process's command-line arguments for the mongo image's
// entrypoint. --bind_ip_all is always explicit (the entrypoint adds it to
// mongod only, never to mongos), the WiredTiger cache is always explicit (the
// default would let every co-located mongod claim half the node), and
// --journal/--nojournal are never passed (7.0/8.0 refuse them). Every
// replica-set member (shards, config server, the members of a ReplicaSet
// topology) gets --oplogSize: without it
// mongod sizes the oplog at 5% of the free space of its dbpath's
// filesystem, clamped to [990 MB, 50 GB] (src/mongo/db/repl/oplog.cpp,
// getNewOplogSizeBytes), i.e. from the node's disk, not from the volume.
// The value is in MiB (src/mongo/db/mongod_options.cpp:
// setOplogSizeBytes(x * 1024 * 1024)) and applies when the oplog is
// created, which for these fresh volumes is at the first start. With
// security.auth every process ends with KeyfileArgs.
func Args(run *benchv1.BenchmarkRun, p Process, clusterDomain string) []string {
	args := processArgs(run, p, clusterDomain)
	if AuthEnabled(run) {
		args = append(args, KeyfileArgs()...)
	}
	return args
}

// processArgs are Args without security.auth's.
func processArgs(run *benchv1.BenchmarkRun, p Process, clusterDomain string) []string {
	port := strconv.Itoa(int(p.Port))
	cache := run.Spec.Topology.WiredTigerCacheSizeGB
	if cache == "" {
		cache = "1"
	}
	oplog := strconv.Itoa(int(OplogSizeMB(run)))
	switch p.Role {
	case benchv1.RoleConfigServer:
		return []string{"mongod", "--configsvr", "--replSet", p.ReplSet, "--port", port, "--dbpath", "/data/configdb", "--bind_ip_all",
			"--wiredTigerCacheSizeGB", ConfigServerCacheGB, "--oplogSize", oplog}
	case benchv1.RoleShard:
		return []string{"mongod", "--shardsvr", "--replSet", p.ReplSet, "--port", port, "--dbpath", "/data/db", "--bind_ip_all",
			"--wiredTigerCacheSizeGB", cache, "--oplogSize", oplog}
	case benchv1.RoleMember:
		return []string{"mongod", "--replSet", p.ReplSet, "--port", port, "--dbpath", "/data/db", "--bind_ip_all",
			"--wiredTigerCacheSizeGB", cache, "--oplogSize", oplog}
	case benchv1.RoleMongos:
		// Every member of the config server's set: mongos monitors them
		// and follows its primary.
		cfg := strings.Join(setAddresses(run, ConfigReplSet, clusterDomain), ",")
		return []string{"mongos", "--configdb", ConfigReplSet + "/" + cfg, "--bind_ip_all", "--port", port}
	default:
		return []string{"mongod", "--port", port, "--dbpath", "/data/db", "--bind_ip_all", "--wiredTigerCacheSizeGB", cache}
	}
}

func processResources(run *benchv1.BenchmarkRun, p Process) corev1.ResourceRequirements {
	topo := run.Spec.Topology
	switch p.Role {
	case benchv1.RoleMongos:
		if topo.MongosResources != nil {
			return *topo.MongosResources
		}
		return corev1.ResourceRequirements{}
	case benchv1.RoleConfigServer:
		if topo.ConfigServerResources != nil {
			return *topo.ConfigServerResources
		}
		return corev1.ResourceRequirements{}
	}
	return topo.Resources
}

// OplogSizeMB is the oplog of each replica-set member of the run, in MiB
// (topology.oplogSizeMB, default DefaultOplogSizeMB).
func OplogSizeMB(run *benchv1.BenchmarkRun) int32 {
	if n := run.Spec.Topology.OplogSizeMB; n > 0 {
		return n
	}
	return DefaultOplogSizeMB
}

// oplogQuantity is the oplog's size as a quantity (MiB, as mongod counts).
func oplogQuantity(run *benchv1.BenchmarkRun) resource.Quantity {
	return *resource.NewQuantity(int64(OplogSizeMB(run))<<20, resource.BinarySI)
}

// DataVolumeSize is the size of process p's data volume (its emptyDir
// size limit or its claim's request): storage.size for a standalone,
// storage.size plus the oplog for a shard or a replica-set member, the
// oplog plus
// ConfigServerHeadroom for the config server. Zero for mongos, which has
// none.
func DataVolumeSize(run *benchv1.BenchmarkRun, p Process) resource.Quantity {
	size := DefaultStorageSize.DeepCopy()
	if s := run.Spec.Topology.Storage.Size; s != nil {
		size = s.DeepCopy()
	}
	switch p.Role {
	case benchv1.RoleStandalone:
		return size
	case benchv1.RoleShard, benchv1.RoleMember:
		size.Add(oplogQuantity(run))
		return size
	case benchv1.RoleConfigServer:
		size = ConfigServerHeadroom.DeepCopy()
		size.Add(oplogQuantity(run))
		return size
	default:
		return resource.Quantity{}
	}
}

// NodeDiskVolume is what process p's emptyDir data volume on its node's
// disk may grow to: the config server's always (its volume is an emptyDir
// on the disk whatever storage.medium is), the standalone's, a shard's or a
// replica-set member's with storage.medium Disk; zero for mongos, and for
// a Memory emptyDir (charged to the pod's memory, which its requests hold)
// or a claim (its own volume, not the node's). The one home of that rule:
// NodeDiskVolumes sums it for SameNode, and a Spread run checks each
// process against the nodes that may take it.
func NodeDiskVolume(run *benchv1.BenchmarkRun, p Process) resource.Quantity {
	onDisk := run.Spec.Topology.Storage.Medium == "" || run.Spec.Topology.Storage.Medium == benchv1.StorageDisk
	if p.Role == benchv1.RoleConfigServer || onDisk && dataBearing(p) {
		return DataVolumeSize(run, p)
	}
	return resource.Quantity{}
}

// NodeDiskVolumes is what the run's emptyDir data volumes on the node's
// disk may grow to, together, when all its pods share one node (layout
// SameNode). The kubelet evicts a pod whose emptyDir outgrows its
// sizeLimit, and a node whose disk fills evicts pods too, so the node
// should have this much allocatable ephemeral storage.
func NodeDiskVolumes(run *benchv1.BenchmarkRun) resource.Quantity {
	var total resource.Quantity
	for _, p := range Processes(run) {
		total.Add(NodeDiskVolume(run, p))
	}
	return total
}

func dataVolumeSource(run *benchv1.BenchmarkRun, p Process) corev1.VolumeSource {
	st := run.Spec.Topology.Storage
	size := DataVolumeSize(run, p)
	if p.Role == benchv1.RoleConfigServer {
		// Metadata, its oplog and journal: an emptyDir on the node's disk
		// whatever the data storage is.
		return corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: &size}}
	}
	switch st.Medium {
	case benchv1.StorageMemory:
		return corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory, SizeLimit: &size}}
	case benchv1.StoragePersistentVolume:
		return corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: DataClaimName(p)}}
	default:
		return corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: &size}}
	}
}

// NeedsClaim reports whether process p gets a PersistentVolumeClaim.
func NeedsClaim(run *benchv1.BenchmarkRun, p Process) bool {
	return run.Spec.Topology.Storage.Medium == benchv1.StoragePersistentVolume && dataBearing(p)
}

// dataBearing reports whether p holds the benchmark's data (the
// standalone, a shard, a replica-set member): those get storage.size and
// topology.resources.
func dataBearing(p Process) bool {
	return p.Role == benchv1.RoleStandalone || p.Role == benchv1.RoleShard || p.Role == benchv1.RoleMember
}

// DataClaim builds the PersistentVolumeClaim of process p.
func DataClaim(run *benchv1.BenchmarkRun, p Process) *corev1.PersistentVolumeClaim {
	st := run.Spec.Topology.Storage
	size := DataVolumeSize(run, p)
	return &corev1.PersistentVolumeClaim{
		ObjectMeta: objectMeta(run, DataClaimName(p), ProcessLabels(run, p)),
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			StorageClassName: st.StorageClassName,
			Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: size}},
		},
	}
}
