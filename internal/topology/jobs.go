package topology

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/ycsb"
)

// LoaderUID is the nonroot user of the distroless loader image.
const LoaderUID = 65532

// BootstrapJob runs `loader bootstrap`: initiate replica sets, add shards,
// stop the balancer, shard the collection (a ranged one pre-split into one
// range per shard), and report (design rule: the manager never talks to
// MongoDB itself).
func BootstrapJob(run *benchv1.BenchmarkRun, cfg Config) *batchv1.Job {
	if External(run) {
		name := BootstrapJobName(run)
		args := append(externalBootstrapArgs(run, cfg), resultArgs(run, name)...)
		j := job(run, name, benchv1.ComponentBootstrap, "", 1, cfg.BootstrapTimeout+5*time.Minute, container("bootstrap", args, cfg, nil), nil)
		withExternalConnection(run, j, false)
		return j
	}
	args := []string{"bootstrap", "--namespace", Namespace, "--timeout", cfg.BootstrapTimeout.String()}
	ps := Processes(run)
	switch run.Spec.Topology.Mode {
	case benchv1.TopologySharded:
		key := benchv1.ShardKeyHashed
		if run.Spec.Topology.ShardKey == benchv1.ShardKeyRanged {
			key = benchv1.ShardKeyRanged
		}
		args = append(args, "--mode", contract.FlagValue(benchv1.TopologySharded), "--shard-key", contract.FlagValue(key))
		if key == benchv1.ShardKeyRanged {
			args = append(args, loadKeyArgs(run, cfg.ClusterDomain)...)
		}
		// One flag per replica set, with every member (member 0 first).
		for _, p := range ps {
			switch {
			case p.Member > 0:
			case p.Role == benchv1.RoleConfigServer:
				args = append(args, "--config-server", p.ReplSet+"="+strings.Join(setAddresses(run, p.ReplSet, cfg.ClusterDomain), ","))
			case p.Role == benchv1.RoleShard:
				args = append(args, "--shard", p.ReplSet+"="+strings.Join(setAddresses(run, p.ReplSet, cfg.ClusterDomain), ","))
			case p.Role == benchv1.RoleMongos:
				args = append(args, "--mongos", Address(run, p, cfg.ClusterDomain))
			}
		}
	case benchv1.TopologyReplicaSet:
		args = append(args, "--mode", contract.FlagValue(benchv1.TopologyReplicaSet), "--replica-set", replicaSetArg(run, cfg.ClusterDomain))
	default:
		args = append(args, "--mode", contract.FlagValue(benchv1.TopologyStandalone), "--standalone", Address(run, ps[0], cfg.ClusterDomain))
	}
	name := BootstrapJobName(run)
	args = append(args, resultArgs(run, name)...)
	// Room for the bootstrap's own deadline plus image pull and start-up.
	deadline := cfg.BootstrapTimeout + 5*time.Minute
	j := job(run, name, benchv1.ComponentBootstrap, "", 1, deadline, container("bootstrap", args, cfg, nil), nil)
	if AuthEnabled(run) {
		withBootstrapCredentials(run, j)
	}
	return j
}

// loadKeyArgs tell the bootstrap which keys the Load phase inserts, so that
// it pre-splits a ranged collection at their quantiles: the -P and the -p of
// the Load phase Job's own command line (LoaderArgs), restricted to the
// properties that decide the keys (ycsb.LoadKeyProperties, the only ones
// ycsb.LoadKeys reads).
func loadKeyArgs(run *benchv1.BenchmarkRun, clusterDomain string) []string {
	var load *benchv1.PhaseSpec
	for i := range run.Spec.Phases {
		if run.Spec.Phases[i].Type == benchv1.PhaseLoad {
			load = &run.Spec.Phases[i]
			break
		}
	}
	if load == nil {
		// The API requires a Load phase; without one the bootstrap fails
		// with a usage error naming the missing properties.
		return nil
	}
	keep := map[string]bool{}
	for _, k := range ycsb.LoadKeyProperties() {
		keep[k] = true
	}
	var args []string
	full := LoaderArgs(run, load, clusterDomain)
	for i := 0; i+1 < len(full); i++ {
		switch flag, value := full[i], full[i+1]; flag {
		case "-P":
			args = append(args, flag, value)
			i++
		case "-p":
			if name, _, _ := strings.Cut(value, "="); keep[name] {
				args = append(args, flag, value)
			}
			i++
		}
	}
	return args
}

// ValidatorJob applies spec.collection (collMod) after the Load phase.
func ValidatorJob(run *benchv1.BenchmarkRun, cfg Config) *batchv1.Job {
	c := run.Spec.Collection
	args := []string{"collmod"}
	if !External(run) {
		// An External run's validator connects with contract.EnvURI.
		args = append(args, "--uri", MongoURL(run, cfg.ClusterDomain))
	}
	args = append(args, "--namespace", RunNamespace(run),
		"--validator", string(c.Validator.Raw), "--validation-level", c.ValidationLevel, "--validation-action", c.ValidationAction,
		"--timeout", "2m")
	ct := container("validator", args, cfg, nil)
	if AuthEnabled(run) {
		ct.Env = append(ct.Env, userEnv(run)...)
	}
	j := job(run, ValidatorJobName(run), benchv1.ComponentValidator, "", 1, 10*time.Minute, ct, nil)
	if External(run) {
		withExternalConnection(run, j, false)
	}
	return j
}

// PhaseJob runs one phase with spec.loaders loader pods: an Indexed Job
// whose completion index is the loader's index (JOB_COMPLETION_INDEX).
// deadline bounds the Job (activeDeadlineSeconds).
func PhaseJob(run *benchv1.BenchmarkRun, phase *benchv1.PhaseSpec, deadline time.Duration, cfg Config) *batchv1.Job {
	name := PhaseJobName(run, phase.Name)
	telemetry := TelemetryArgs(run, phase, cfg.ClusterDomain)
	args := append(LoaderArgs(run, phase, cfg.ClusterDomain), telemetry...)
	args = append(args, resultArgs(run, name)...)
	args = append(args, metricsArgs(run, phase)...)
	args = append(args, disruptionArgs(run, phase, cfg.ClusterDomain)...)
	if StartBarrier(run, phase) {
		args = append(args, "--"+contract.FlagStartBarrier, name)
	}
	c := container("loader", args, cfg, run.Spec.LoaderResources)
	c.Ports = []corev1.ContainerPort{{Name: contract.MetricsPortName, ContainerPort: contract.MetricsPort, Protocol: corev1.ProtocolTCP}}
	if AuthEnabled(run) {
		c.Env = append(c.Env, userEnv(run)...)
		// Loader 0 samples the servers as the monitor user when the
		// phase has telemetry; every pod of an Indexed Job has one
		// template, so each gets the pair and only loader 0 uses it.
		if len(telemetry) > 0 {
			c.Env = append(c.Env, monitorEnv(run)...)
		}
	}
	loaders := max(run.Spec.Loaders, 1)
	j := job(run, name, benchv1.ComponentLoader, phase.Name, loaders, deadline, c, loaderAffinity(run))
	if External(run) {
		// Loader 0 samples with the monitor URI when the phase has
		// telemetry; like the auth pair, every pod gets it.
		withExternalConnection(run, j, len(telemetry) > 0)
	}
	if phase.Type == benchv1.PhaseGrow {
		// A Grow phase can last days and resumes from the database: a
		// loader pod that is disrupted (evicted, preempted, its node
		// drained) is replaced by the Job without counting as a failure,
		// and the new pod carries on from the records it finds. Any other
		// failure still fails the phase at once (backoffLimit 0).
		j.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{
			Action:          batchv1.PodFailurePolicyActionIgnore,
			OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue}},
		}}}
		// The replacement starts only once the old pod is gone (its final
		// state saved on SIGTERM): two loaders never grow the collection
		// at once.
		j.Spec.PodReplacementPolicy = ptr.To(batchv1.Failed)
	}
	return j
}

// Resumable reports whether a phase Job replaces its disrupted pods (a
// Grow phase's): such a pod's failure is not the phase's.
func Resumable(job *batchv1.Job) bool {
	return job.Spec.PodFailurePolicy != nil
}

// LoaderArgs is the loader command line of a phase: YCSB's own interface
// (load|run, -P, -p, -threads, -target, -s), so the Job reads like the
// `bin/ycsb` invocation a person would type.
func LoaderArgs(run *benchv1.BenchmarkRun, phase *benchv1.PhaseSpec, clusterDomain string) []string {
	if phase.Type == benchv1.PhaseGrow {
		return GrowArgs(run, phase, clusterDomain)
	}
	args := []string{"run"}
	if phase.Type == benchv1.PhaseLoad {
		args[0] = "load"
	}
	for _, f := range WorkloadFiles(run) {
		args = append(args, "-P", f)
	}
	for _, kv := range Properties(run, phase, clusterDomain) {
		args = append(args, "-p", kv[0]+"="+kv[1])
	}
	args = append(args, "-threads", fmt.Sprint(max(phase.Threads, 1)))
	if t := target(run, phase); t > 0 {
		args = append(args, "-target", fmt.Sprint(t))
	}
	return append(args, "-s")
}

// flagProperty names the property a LoaderArgs flag with a value sets
// (-p sets the one it names; -s takes no value).
func flagProperty(flag string) (string, bool) {
	switch flag {
	case "-P":
		return "workload", true
	case "-threads":
		return contract.PropThreadCount, true
	case "-target":
		return contract.PropTarget, true
	}
	return "", false
}

// PhaseProperties is every value a phase's loaders run with, under the
// name the loader reads it by: LoaderArgs read back, so that what
// status.environment records, and the fingerprint hashes, is what the Job
// runs. -P workload<preset> is "workload", each -p name=value is itself,
// -threads is threadcount and -target is target, YCSB's names for what
// the flags set (YCSB's Client.java). A phase that passes no -target runs
// unthrottled, target 0, YCSB's default: recorded too, so that a
// throttled and an unthrottled phase never look alike. -s only prints
// status lines. A Grow phase's values are its -p properties.
func PhaseProperties(run *benchv1.BenchmarkRun, phase *benchv1.PhaseSpec, clusterDomain string) map[string]string {
	props := map[string]string{}
	if phase.Type != benchv1.PhaseGrow {
		props[contract.PropTarget] = "0"
	}
	args := LoaderArgs(run, phase, clusterDomain)
	for i := 1; i+1 < len(args); i++ { // args[0] is the command
		flag := args[i]
		if flag == "-s" {
			continue
		}
		i++
		if flag == "-p" {
			name, value, _ := strings.Cut(args[i], "=")
			props[name] = value
		} else if name, ok := flagProperty(flag); ok {
			props[name] = args[i]
		}
	}
	return props
}

// Telemetry defaults, for a run the API server has not defaulted
// (spec.telemetry's +kubebuilder:default markers say the same).
const (
	DefaultTelemetryInterval = time.Second
	// CollectionGrowthEvery is how often Load phases take the collection's
	// statistics while they run (telemetry.DefaultCollectionEvery).
	CollectionGrowthEvery = 10 * time.Second
)

// TelemetryEnabled reports whether the run's phases sample the servers
// (spec.telemetry.enabled, default true).
func TelemetryEnabled(run *benchv1.BenchmarkRun) bool {
	return run.Spec.Telemetry.Enabled == nil || *run.Spec.Telemetry.Enabled
}

// TelemetryInterval is spec.telemetry.interval, default 1s.
func TelemetryInterval(run *benchv1.BenchmarkRun) time.Duration {
	if i := run.Spec.Telemetry.Interval; i != nil && i.Duration > 0 {
		return i.Duration
	}
	return DefaultTelemetryInterval
}

// TelemetryArgs tell a phase's loaders (loader 0 samples) what server
// telemetry to take, in the contract's flags: every process of the
// topology, each at its own pod's address so that it is sampled alone;
// the benchmark collection through the entry Service (mongos, or the
// standalone mongod), also every CollectionGrowthEvery during a Load
// phase; the interval. None when telemetry is off.
func TelemetryArgs(run *benchv1.BenchmarkRun, phase *benchv1.PhaseSpec, clusterDomain string) []string {
	if !TelemetryEnabled(run) {
		return nil
	}
	args := []string{"--" + contract.FlagTelemetryInterval, TelemetryInterval(run).String()}
	if External(run) {
		// The processes of an External cluster are the ones the loader
		// discovers through the URI (contract.EnvMonitorURI, else
		// EnvURI): the controller knows no address to give it.
		return args
	}
	for _, p := range Processes(run) {
		tp := contract.TelemetryProcess{Role: string(p.Role), Pod: p.Name, Address: Address(run, p, clusterDomain)}
		args = append(args, "--"+contract.FlagTelemetryProcess, contract.EncodeTelemetryProcess(tp))
	}
	coll := contract.TelemetryCollection{Address: EntryAddress(run, clusterDomain), Database: Database, Collection: Collection}
	args = append(args, "--"+contract.FlagTelemetryCollection, contract.EncodeTelemetryCollection(coll))
	if phase.Type == benchv1.PhaseLoad {
		args = append(args, "--"+contract.FlagTelemetryCollectionEvery, CollectionGrowthEvery.String())
	}
	return args
}

func target(run *benchv1.BenchmarkRun, phase *benchv1.PhaseSpec) int64 {
	if phase.Target != nil {
		return *phase.Target
	}
	return run.Spec.Target
}

// DefaultCount is recordcount and operationcount when neither the run nor
// its preset sets them: the value of every standard workload file.
const DefaultCount int64 = 1000

// Properties renders the YCSB properties of a phase, in a stable order:
// spec.workload, then the phase's overrides, then what mongobench manages.
// With several loaders, recordcount, operationcount and target are totals
// that each loader divides by loader.count (see the loader's docs).
func Properties(run *benchv1.BenchmarkRun, phase *benchv1.PhaseSpec, clusterDomain string) [][2]string {
	w := run.Spec.Workload
	var out [][2]string
	add := func(k, v string) { out = append(out, [2]string{k, v}) }
	addInt := func(k string, v *int64) {
		if v != nil {
			add(k, fmt.Sprint(*v))
		}
	}
	addInt32 := func(k string, v *int32) {
		if v != nil {
			add(k, fmt.Sprint(*v))
		}
	}
	// Without a preset, YCSB's own defaults (recordcount and operationcount
	// 0) would mean an empty load and a run bounded only by the Job's
	// deadline; mongobench's default is the presets' 1000, as the API says.
	recordCount := w.RecordCount
	if recordCount == nil && w.Preset == "" {
		recordCount = ptr.To(DefaultCount)
	}
	addInt(contract.PropRecordCount, recordCount)
	addInt32(contract.PropFieldCount, w.FieldCount)
	addInt32(contract.PropFieldLength, w.FieldLength)
	if w.InsertOrder != "" {
		add(contract.PropInsertOrder, string(w.InsertOrder))
	}
	addInt32(contract.PropZeroPadding, w.ZeroPadding)

	params := w.WorkloadParameters
	props := map[string]string{}
	for k, v := range w.Properties {
		props[k] = string(v)
	}
	if phase.Type == benchv1.PhaseRun && phase.Workload != nil {
		params = overlay(params, *phase.Workload)
		for k, v := range phase.Workload.Properties {
			props[k] = string(v)
		}
	}
	if phase.Type == benchv1.PhaseRun {
		opCount := params.OperationCount
		if opCount == nil && w.Preset == "" {
			opCount = ptr.To(DefaultCount)
		}
		addInt(contract.PropOperationCount, opCount)
		for _, p := range []struct {
			k string
			v *float64
		}{
			{contract.PropReadProportion, params.ReadProportion},
			{contract.PropUpdateProportion, params.UpdateProportion},
			{contract.PropInsertProportion, params.InsertProportion},
			{contract.PropScanProportion, params.ScanProportion},
			{contract.PropReadModifyWriteProportion, params.ReadModifyWriteProportion},
		} {
			if p.v != nil {
				add(p.k, fmt.Sprint(*p.v))
			}
		}
		if params.RequestDistribution != "" {
			add(contract.PropRequestDistribution, string(params.RequestDistribution))
		}
	}
	if params.ReadAllFields != nil {
		add(contract.PropReadAllFields, fmt.Sprint(*params.ReadAllFields))
	}
	if params.WriteAllFields != nil {
		add(contract.PropWriteAllFields, fmt.Sprint(*params.WriteAllFields))
	}
	for _, k := range slices.Sorted(maps.Keys(props)) {
		add(k, props[k])
	}
	addInt32(contract.PropBatchSize, phase.BatchSize)
	if s := MaxExecutionSeconds(phase); s > 0 {
		add(contract.PropMaxExecutionTime, fmt.Sprint(s))
	}
	add(contract.PropMeasurementInterval, string(MeasurementIntervalOf(run, phase)))
	if w := phase.Warmup; w != nil {
		// The loader takes the warm-up's length in seconds (go-ycsb's
		// warmuptime), or its operations as a total that each loader
		// divides by loader.count, like operationcount.
		switch {
		case w.Duration != nil:
			add(contract.PropWarmupTime, strconv.FormatFloat(w.Duration.Seconds(), 'f', -1, 64))
		case w.Operations != nil:
			add(contract.PropWarmupOperations, fmt.Sprint(*w.Operations))
		}
	}
	if k := runPhaseOrdinal(run, phase); k > 0 {
		// Each Run phase inserts into its own key range: YCSB would start
		// every run's inserts at recordcount and collide with the previous
		// run's (see internal/ycsb/keyspace.go).
		add(contract.PropLoaderInsertKeyOffset, fmt.Sprint(int64(k)<<InsertKeyRangeBits))
	}
	for _, kv := range connectionProperties(run, clusterDomain) {
		add(kv[0], kv[1])
	}
	add(contract.PropLoaderCount, fmt.Sprint(max(run.Spec.Loaders, 1)))
	add(contract.PropStatusInterval, "10")
	return out
}

// WorkloadFiles are the workload files a Load or Run phase's loaders read
// (YCSB's -P) before the properties: the preset's, if any, which the
// loader image embeds (ycsb.ResolveWorkload).
func WorkloadFiles(run *benchv1.BenchmarkRun) []string {
	if p := run.Spec.Workload.Preset; p != "" {
		return []string{"workload" + string(p)}
	}
	return nil
}

// MaxExecutionSeconds is the phase's maxexecutiontime as its loaders get
// it, in seconds; 0 without one.
func MaxExecutionSeconds(phase *benchv1.PhaseSpec) int64 {
	if phase.MaxExecutionTime == nil {
		return 0
	}
	// YCSB's maxexecutiontime is whole seconds; never round a limit to 0.
	return int64((phase.MaxExecutionTime.Duration + time.Second - 1) / time.Second)
}

// PlannedOperations is how many operations a Load or Run phase's loaders
// issue together, a Run phase's counted warm-up included, 0 when only
// time (or a stop) bounds it: the preset's
// and the run's properties resolved as the loaders resolve them, then
// ycsb.PhaseOperations. A Grow phase has no such count (grow.targetRecords
// bounds its inserts, time its queries): it returns an error.
func PlannedOperations(run *benchv1.BenchmarkRun, phase *benchv1.PhaseSpec) (int64, error) {
	var ph ycsb.Phase
	switch phase.Type {
	case benchv1.PhaseLoad:
		ph = ycsb.PhaseLoad
	case benchv1.PhaseRun:
		ph = ycsb.PhaseRun
	default:
		return 0, fmt.Errorf("phase %s: a %s phase has no operation count", phase.Name, phase.Type)
	}
	// The cluster domain changes only the connection properties, which do
	// not size a phase.
	props := Properties(run, phase, "")
	overrides := make([]string, len(props))
	for i, kv := range props {
		overrides[i] = kv[0] + "=" + kv[1]
	}
	p, err := ycsb.LoadProperties(WorkloadFiles(run), overrides)
	if err != nil {
		return 0, fmt.Errorf("phase %s: %w", phase.Name, err)
	}
	n, err := ycsb.PhaseOperations(p, ph)
	if err != nil {
		return 0, fmt.Errorf("phase %s: %w", phase.Name, err)
	}
	// warmupoperations is a total the loaders share out (internal/loader,
	// shareOf), each counting its share in its planned operations.
	warm, err := p.Int64(contract.PropWarmupOperations, 0)
	if err != nil {
		return 0, fmt.Errorf("phase %s: %w", phase.Name, err)
	}
	return ycsb.PlannedOperations(ph, n, warm), nil
}

// MeasurementIntervalOf is the phase's measurement.interval: its own, else
// the run's, else op.
func MeasurementIntervalOf(run *benchv1.BenchmarkRun, phase *benchv1.PhaseSpec) benchv1.MeasurementInterval {
	if m := phase.Measurement; m != nil && m.Interval != "" {
		return m.Interval
	}
	if i := run.Spec.Measurement.Interval; i != "" {
		return i
	}
	return benchv1.MeasureOp
}

// WarmupDuration is the phase's timed warm-up (0 without one).
func WarmupDuration(phase *benchv1.PhaseSpec) time.Duration {
	if w := phase.Warmup; w != nil && w.Duration != nil {
		return w.Duration.Duration
	}
	return 0
}

// StartBarrier reports whether a phase's loaders start together at the
// controller's instant (contract.FlagStartBarrier): a Load or Run phase of
// more than one loader. One loader has nobody to wait for; a Grow phase
// has one loader.
func StartBarrier(run *benchv1.BenchmarkRun, phase *benchv1.PhaseSpec) bool {
	return phase.Type != benchv1.PhaseGrow && run.Spec.Loaders > 1
}

// InsertKeyRangeBits sizes each Run phase's insert key range: 2^40 keys, far
// more than any phase inserts.
const InsertKeyRangeBits = 40

// runPhaseOrdinal is the phase's position among the Run phases (0-based),
// or -1 for a Load phase.
func runPhaseOrdinal(run *benchv1.BenchmarkRun, phase *benchv1.PhaseSpec) int {
	k := -1
	for i := range run.Spec.Phases {
		if run.Spec.Phases[i].Type == benchv1.PhaseRun {
			k++
		}
		if run.Spec.Phases[i].Name == phase.Name {
			if phase.Type != benchv1.PhaseRun {
				return -1
			}
			return k
		}
	}
	return -1
}

// overlay applies a phase's overrides to the shared parameters.
func overlay(base, o benchv1.WorkloadParameters) benchv1.WorkloadParameters {
	if o.OperationCount != nil {
		base.OperationCount = o.OperationCount
	}
	if o.ReadProportion != nil {
		base.ReadProportion = o.ReadProportion
	}
	if o.UpdateProportion != nil {
		base.UpdateProportion = o.UpdateProportion
	}
	if o.InsertProportion != nil {
		base.InsertProportion = o.InsertProportion
	}
	if o.ScanProportion != nil {
		base.ScanProportion = o.ScanProportion
	}
	if o.ReadModifyWriteProportion != nil {
		base.ReadModifyWriteProportion = o.ReadModifyWriteProportion
	}
	if o.RequestDistribution != "" {
		base.RequestDistribution = o.RequestDistribution
	}
	if o.ReadAllFields != nil {
		base.ReadAllFields = o.ReadAllFields
	}
	if o.WriteAllFields != nil {
		base.WriteAllFields = o.WriteAllFields
	}
	return base
}

// MongoURL is the connection string loaders use: the entry Service, the
// benchmark database, and spec.driver's settings. retryWrites is always
// explicit: go.mongodb.org/mongo-driver/v2 defaults it to true
// (mongo/client.go: `client.retryWrites = true // retry writes on by
// default`), which against mongos adds a txnNumber to every insert and
// updateOne (x/mongo/driver/operation.go, addSession) and makes each shard
// record the write in config.transactions; never against a standalone
// (retryWritesSupported: Kind != ServerKindStandalone).
//
// A ReplicaSet topology's URL names every member and the set
// (replicaSet=rs0): the driver then monitors each member and sends
// writes to whichever is primary, and reads where readPreference says;
// through one Service name it would see one server at a time.
// readConcernLevel is only written when spec.driver.readConcern is set:
// unset, the driver sends no read concern (the server's default).
func MongoURL(run *benchv1.BenchmarkRun, clusterDomain string) string {
	q := driverOptions(run)
	hosts := EntryAddress(run, clusterDomain)
	if run.Spec.Topology.Mode == benchv1.TopologyReplicaSet {
		hosts = strings.Join(memberAddresses(run, clusterDomain), ",")
		q = append(q, "replicaSet="+ReplicaSetName)
	}
	return fmt.Sprintf("mongodb://%s/%s?%s", hosts, Database, strings.Join(q, "&"))
}

// connectionProperties say where the loaders connect: mongodb.url for the
// MongoDB mongobench deploys; for an External run, whose connection string
// the loader reads from contract.EnvURI, the run's database and
// spec.driver's options, which the loader adds to that URI.
func connectionProperties(run *benchv1.BenchmarkRun, clusterDomain string) [][2]string {
	if External(run) {
		return [][2]string{
			{contract.PropExternalDatabase, ExternalDatabase(run)},
			{contract.PropExternalURIOptions, strings.Join(driverOptions(run), "&")},
		}
	}
	return [][2]string{{contract.PropMongoDBURL, MongoURL(run, clusterDomain)}}
}

// driverOptions are spec.driver as connection string options.
func driverOptions(run *benchv1.BenchmarkRun) []string {
	d := run.Spec.Driver
	q := []string{"w=" + orDefault(d.WriteConcern, "1")}
	if d.Journal != nil {
		q = append(q, fmt.Sprintf("journal=%t", *d.Journal))
	}
	q = append(q, "readPreference="+orDefault(d.ReadPreference, "primary"))
	if d.ReadConcern != "" {
		// go.mongodb.org/mongo-driver/v2 x/mongo/driver/connstring:
		// "readconcernlevel"; the driver applies it to find, aggregate,
		// count and distinct (mongo/collection.go), never to writes.
		q = append(q, "readConcernLevel="+d.ReadConcern)
	}
	// maxPoolSize=0 is the driver's unbounded pool; unset keeps its default.
	if d.MaxPoolSize != nil {
		q = append(q, fmt.Sprintf("maxPoolSize=%d", *d.MaxPoolSize))
	}
	return append(q, fmt.Sprintf("retryWrites=%t", d.RetryWrites))
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// resultArgs tell a Job where to write its result ConfigMap (in the
// contract's flags and encoding): named after the Job, labelled so the
// manager's cache sees it, owned by the run like every object of the run so
// it is garbage-collected with it.
func resultArgs(run *benchv1.BenchmarkRun, jobName string) []string {
	ref := ownerRefs(run)[0]
	owner := contract.Owner{APIVersion: ref.APIVersion, Kind: ref.Kind, Name: ref.Name, UID: string(ref.UID)}
	labels := map[string]string{benchv1.LabelManagedBy: benchv1.ManagedBy, benchv1.LabelRun: run.Name, benchv1.LabelName: benchv1.AppName}
	return []string{
		"--" + contract.FlagResultConfigMap, contract.ResultConfigMapPrefix(jobName),
		"--" + contract.FlagResultOwner, contract.EncodeOwner(owner),
		"--" + contract.FlagResultLabels, contract.EncodeLabels(labels),
	}
}

// metricsArgs make every loader serve its live metrics on the named port
// contract.MetricsPortName, labelled with the run and the phase (as the
// Job's phase label spells it); the namespace label is the pod's.
func metricsArgs(run *benchv1.BenchmarkRun, phase *benchv1.PhaseSpec) []string {
	return []string{
		"--" + contract.FlagMetricsAddr, fmt.Sprintf(":%d", contract.MetricsPort),
		"--" + contract.FlagMetricsRun, run.Name,
		"--" + contract.FlagMetricsPhase, benchv1.PhaseLabelValue(phase.Name),
	}
}

func container(name string, args []string, cfg Config, res *corev1.ResourceRequirements) corev1.Container {
	c := corev1.Container{
		Name:            name,
		Image:           cfg.LoaderImage,
		ImagePullPolicy: cfg.LoaderImagePullPolicy,
		Args:            args,
		Env: []corev1.EnvVar{
			{Name: "POD_NAMESPACE", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.namespace"}}},
			{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
		},
		SecurityContext: restrictedContainerSecurity(),
		// The loader writes its fatal error to the termination log; when it
		// dies without one, the last log lines are the next best reason.
		TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
	}
	if res != nil {
		c.Resources = *res
	}
	return c
}

func job(run *benchv1.BenchmarkRun, name, component, phase string, completions int32, deadline time.Duration,
	c corev1.Container, affinity *corev1.Affinity) *batchv1.Job {
	labels := RunLabels(run, component)
	if phase != "" {
		labels = PhaseLabels(run, component, phase)
	}
	var tolerations []corev1.Toleration
	if run.Spec.Placement.LoaderPlacement == benchv1.LoaderSameNode {
		tolerations = run.Spec.Placement.Tolerations
	}
	return &batchv1.Job{
		ObjectMeta: objectMeta(run, name, labels),
		Spec: batchv1.JobSpec{
			Completions:    ptr.To(completions),
			Parallelism:    ptr.To(completions),
			CompletionMode: ptr.To(batchv1.IndexedCompletion),
			// Jobs never retry silently: a failed loader fails the phase
			// with its message instead of skewing numbers with a rerun.
			BackoffLimit:          ptr.To[int32](0),
			ActiveDeadlineSeconds: ptr.To(int64(max((deadline+time.Second-1)/time.Second, 1))),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					RestartPolicy:      corev1.RestartPolicyNever,
					ServiceAccountName: JobServiceAccountName(run),
					// The Jobs' only API call: creating their result ConfigMap.
					AutomountServiceAccountToken: ptr.To(true),
					EnableServiceLinks:           ptr.To(false),
					SecurityContext:              restrictedPodSecurity(LoaderUID),
					Affinity:                     affinity,
					Tolerations:                  tolerations,
					Containers:                   []corev1.Container{c},
				},
			},
		},
	}
}

// loaderAffinity places loaders relative to the database pods.
func loaderAffinity(run *benchv1.BenchmarkRun) *corev1.Affinity {
	if External(run) {
		// No database pod to avoid or to join (the API refuses
		// loaderPlacement SameNode with External).
		return nil
	}
	term := corev1.PodAffinityTerm{
		LabelSelector: &metav1.LabelSelector{MatchLabels: DatabaseSelector(run)},
		TopologyKey:   HostnameLabel,
	}
	switch run.Spec.Placement.LoaderPlacement {
	case benchv1.LoaderSameNode:
		return &corev1.Affinity{PodAffinity: &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{term}}}
	case benchv1.LoaderAnyNode:
		return nil
	default:
		// Preferred, not required: a single-node cluster still runs.
		preferred := []corev1.WeightedPodAffinityTerm{{Weight: 100, PodAffinityTerm: term}}
		return &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: preferred}}
	}
}
