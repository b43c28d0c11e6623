package ycsb

import (
	"slices"

	"github.com/mongobench/mongobench/internal/contract"
)

// Group is the section a property is listed under in `loader load|run -h`.
type Group string

// The engine's groups. The MongoDB binding's is its own (mongodb.Group, in
// internal/loader/mongodb): this package knows nothing of MongoDB.
const (
	GroupCore   Group = "Core workload (CoreWorkload)"
	GroupClient Group = "Client and measurement"
	// GroupLoader holds mongobench's parallel-loader properties. The
	// engine reads them (it splits the key space and the counts), so they
	// are registered here, next to the code that reads them.
	GroupLoader Group = "Loader (mongobench's parallel loaders)"
)

// Property is one property the loader knows: a row of `loader run -h`
// and a name that never draws an "unknown property" warning.
type Property struct {
	Name string
	// Default is the value used when the property is unset, as text; ""
	// means there is none (the property is optional or its absence means
	// something, which Meaning says).
	Default string
	// Meaning is one line.
	Meaning string
	Group   Group
	// Ignored, when not empty, says why the property is accepted but has
	// no effect here (a YCSB feature this port does not have); setting it
	// draws a warning with this reason.
	Ignored string
}

// engineProperties are the properties this package reads (NewWorkload,
// RunOptionsFromProperties, PercentilesFromProperties) or accepts and
// ignores. Defaults and meanings follow YCSB 0.17.0, and match the code:
// TestKnownPropertiesMatchTheCode records every key the code looks up.
var engineProperties = []Property{
	{Name: contract.PropRecordCount, Default: "0", Group: GroupCore,
		Meaning: "records in the data set: the load inserts them, the run draws keys from them (0: 2^31-1, load unlimited)"},
	{Name: contract.PropOperationCount, Default: "0", Group: GroupCore,
		Meaning: "operations of the run phase, the total over all loaders (0: unlimited, until maxexecutiontime or a stop)"},
	{Name: "insertstart", Default: "0", Group: GroupCore, Meaning: "first key number the load inserts"},
	{Name: "insertcount", Default: "recordcount-insertstart", Group: GroupCore,
		Meaning: "records the load inserts from insertstart (total over all loaders)"},
	{Name: "table", Default: "usertable", Group: GroupCore, Meaning: "table: the MongoDB collection"},
	{Name: contract.PropFieldCount, Default: "10", Group: GroupCore, Meaning: "fields per record"},
	{Name: "fieldnameprefix", Default: "field", Group: GroupCore, Meaning: "field names are this prefix and the field's number"},
	{Name: contract.PropFieldLength, Default: "100", Group: GroupCore, Meaning: "bytes per field (the maximum for uniform and zipfian)"},
	{Name: "minfieldlength", Default: "1", Group: GroupCore, Meaning: "minimum bytes per field for uniform and zipfian"},
	{Name: "fieldlengthdistribution", Default: "constant", Group: GroupCore,
		Meaning: "field length: constant, uniform, zipfian or histogram (fieldlengthhistogram)"},
	{Name: "fieldlengthhistogram", Default: "hist.txt", Group: GroupCore, Meaning: "histogram file of fieldlengthdistribution=histogram"},
	{Name: contract.PropReadAllFields, Default: "true", Group: GroupCore, Meaning: "reads fetch every field (false: one field)"},
	{Name: "readallfieldsbyname", Default: "false", Group: GroupCore,
		Meaning: "reads name every field in a projection (YCSB master)"},
	{Name: contract.PropWriteAllFields, Default: "false", Group: GroupCore, Meaning: "updates write every field (false: one field)"},
	{Name: "dataintegrity", Default: "false", Group: GroupCore,
		Meaning: "check the values read (measured as VERIFY); needs fieldlengthdistribution=constant"},
	{Name: contract.PropReadProportion, Default: "0.95", Group: GroupCore, Meaning: "share of reads in the run phase"},
	{Name: contract.PropUpdateProportion, Default: "0.05", Group: GroupCore, Meaning: "share of updates"},
	{Name: contract.PropInsertProportion, Default: "0", Group: GroupCore, Meaning: "share of inserts"},
	{Name: contract.PropScanProportion, Default: "0", Group: GroupCore, Meaning: "share of scans"},
	{Name: contract.PropReadModifyWriteProportion, Default: "0", Group: GroupCore, Meaning: "share of read-modify-writes"},
	{Name: contract.PropRequestDistribution, Default: "uniform", Group: GroupCore,
		Meaning: "key choice: uniform, zipfian, latest, hotspot, sequential or exponential"},
	{Name: "hotspotdatafraction", Default: "0.2", Group: GroupCore, Meaning: "hotspot: fraction of the keys that are hot"},
	{Name: "hotspotopnfraction", Default: "0.8", Group: GroupCore, Meaning: "hotspot: fraction of the operations on hot keys"},
	{Name: "exponential.percentile", Default: "95", Group: GroupCore,
		Meaning: "exponential: percentage of operations on the first exponential.frac of the keys"},
	{Name: "exponential.frac", Default: "0.8571428571", Group: GroupCore, Meaning: "exponential: fraction of recordcount, see above"},
	{Name: "minscanlength", Default: "1", Group: GroupCore, Meaning: "fewest records a scan asks for"},
	{Name: "maxscanlength", Default: "1000", Group: GroupCore, Meaning: "most records a scan asks for"},
	{Name: "scanlengthdistribution", Default: "uniform", Group: GroupCore, Meaning: "scan length: uniform or zipfian"},
	{Name: contract.PropInsertOrder, Default: "hashed", Group: GroupCore, Meaning: "hashed: keys in hash order; anything else: in key order"},
	{Name: contract.PropZeroPadding, Default: "1", Group: GroupCore, Meaning: "key numbers are zero-padded to this many digits"},
	{Name: "core_workload_insertion_retry_limit", Default: "0", Group: GroupCore, Meaning: "retries of a failed insert"},
	{Name: "core_workload_insertion_retry_interval", Default: "3", Group: GroupCore,
		Meaning: "seconds between insert retries (randomised by ±20%)"},

	{Name: contract.PropThreadCount, Default: "1", Group: GroupClient, Meaning: "worker threads of this loader (-threads)"},
	{Name: contract.PropTarget, Default: "0", Group: GroupClient,
		Meaning: "operations per second, the total over all loaders (-target; 0: unthrottled)"},
	{Name: contract.PropMaxExecutionTime, Default: "0", Group: GroupClient, Meaning: "seconds after which the phase stops (0: no limit)"},
	{Name: "status", Default: "false", Group: GroupClient, Meaning: "print a status line to stderr every status.interval (-s)"},
	{Name: contract.PropStatusInterval, Default: "10", Group: GroupClient, Meaning: "seconds between status lines"},
	{Name: "label", Default: "", Group: GroupClient, Meaning: "prefix of the status lines (-l)"},
	{Name: "measurementtype", Default: "hdrhistogram", Group: GroupClient, Meaning: "latency measurement; only hdrhistogram"},
	{Name: contract.PropMeasurementInterval, Default: "op", Group: GroupClient,
		Meaning: "latency reported: op (the call), intended (from the throttle's intended start) or both"},
	{Name: contract.PropWarmupTime, Default: "0", Group: GroupClient,
		Meaning: "seconds of warm-up before the measured window, reported apart (not YCSB's; go-ycsb's)"},
	{Name: contract.PropWarmupOperations, Default: "0", Group: GroupClient,
		Meaning: "operations of warm-up before the measured window, this loader's, reported apart (not YCSB's)"},
	{Name: "hdrhistogram.percentiles", Default: DefaultPercentiles, Group: GroupClient,
		Meaning: "percentiles printed in the report, comma-separated"},
	{Name: "measurement.trackjvm", Default: "false", Group: GroupClient, Meaning: "report JVM statistics",
		Ignored: "there is no JVM"},
	{Name: "hdrhistogram.fileoutput", Default: "false", Group: GroupClient, Meaning: "write HdrHistogram log files",
		Ignored: "no histogram log files are written; the encoded result (--result) holds the histograms"},
	{Name: "hdrhistogram.output.path", Default: "", Group: GroupClient, Meaning: "directory of the HdrHistogram log files",
		Ignored: "no histogram log files are written"},
	{Name: "histogram.buckets", Default: "1000", Group: GroupClient, Meaning: "buckets of measurementtype=histogram",
		Ignored: "only measurementtype=hdrhistogram is implemented"},
	{Name: "timeseries.granularity", Default: "1000", Group: GroupClient, Meaning: "interval (ms) of measurementtype=timeseries",
		Ignored: "only measurementtype=hdrhistogram is implemented; the result has a per-second series"},
	{Name: "reportlatencyforeacherror", Default: "false", Group: GroupClient, Meaning: "measure failed operations per status",
		Ignored: "failed operations are measured as <OP>-FAILED"},
	{Name: "latencytrackederrors", Default: "", Group: GroupClient, Meaning: "statuses measured separately",
		Ignored: "failed operations are measured as <OP>-FAILED"},

	{Name: contract.PropLoaderCount, Default: "1", Group: GroupLoader,
		Meaning: "parallel loaders sharing the counts and the target (ours)"},
	{Name: "loader.index", Default: "0", Group: GroupLoader,
		Meaning: "this loader's index, 0..loader.count-1 (ours; unset: $JOB_COMPLETION_INDEX, else 0)"},
	{Name: contract.PropLoaderInsertKeyOffset, Default: "0", Group: GroupLoader,
		Meaning: "offset of the run phase's insert keys, so successive runs do not collide (ours)"},
}

// KnownProperties returns the properties the engine reads or accepts, in
// the order `loader run -h` lists them. The slice is the caller's.
func KnownProperties() []Property { return slices.Clone(engineProperties) }
