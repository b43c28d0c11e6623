package contract

// Properties of a load or run phase (`loader load|run -p name=value`) that
// the controller writes (topology.Properties, and threadcount and target,
// which it passes as YCSB's -threads and -target; and for a Grow phase,
// topology.GrowProperties: mongodb.url, loader.count and the growth.*
// properties of growth.go). Most are YCSB 0.17.0's names; the loader.*
// and warm-up ones are mongobench's. They are defined here and nowhere
// else: the Job builders write them, the loader's readers (internal/ycsb,
// internal/loader and its MongoDB binding, internal/growth) read them, and
// its property registry (ycsb.KnownProperties, mongodb.KnownProperties,
// `loader grow`'s) lists them under these names. A test
// (properties_test.go) fails on a quoted property key of this package's in
// any other production Go file.
//
// What each means, and its default, is in the loader's registry
// (`loader load|run -h`).
const (
	// Core workload: the data set.
	PropRecordCount = "recordcount"
	PropFieldCount  = "fieldcount"
	PropFieldLength = "fieldlength"
	PropInsertOrder = "insertorder"
	PropZeroPadding = "zeropadding"

	// Core workload: the run phase's operations.
	PropOperationCount            = "operationcount"
	PropReadProportion            = "readproportion"
	PropUpdateProportion          = "updateproportion"
	PropInsertProportion          = "insertproportion"
	PropScanProportion            = "scanproportion"
	PropReadModifyWriteProportion = "readmodifywriteproportion"
	PropRequestDistribution       = "requestdistribution"
	PropReadAllFields             = "readallfields"
	PropWriteAllFields            = "writeallfields"

	// Client and measurement. threadcount and target are what YCSB's
	// -threads and -target flags set (YCSB's Client.java), the names under
	// which status.environment records the flags' values.
	PropThreadCount = "threadcount"
	// PropTarget is operations per second, the total over the phase's
	// loaders (each takes its share of loader.count); 0 is unthrottled.
	PropTarget              = "target"
	PropMaxExecutionTime    = "maxexecutiontime"
	PropMeasurementInterval = "measurement.interval"
	PropStatusInterval      = "status.interval"
	// PropWarmupTime is the warm-up's length in seconds (decimals
	// allowed; go-ycsb's name).
	PropWarmupTime = "warmuptime"
	// PropWarmupOperations is the warm-up's length in operations: the
	// controller writes the phase's total, and each loader takes its share
	// of loader.count, as of operationcount.
	PropWarmupOperations = "warmupoperations"

	// The MongoDB binding.
	PropMongoDBURL = "mongodb.url"
	PropBatchSize  = "batchsize"

	// mongobench's parallel loaders.
	PropLoaderCount = "loader.count"
	// PropLoaderInsertKeyOffset moves a run phase's insert keys, so that
	// successive run phases do not collide.
	PropLoaderInsertKeyOffset = "loader.insertkeyoffset"
)

// RunNamedProperty reports whether a phase property's value names the run
// itself, and so differs between runs for that reason alone: mongodb.url
// holds the run's hosts (its pods' DNS names). The environment's
// fingerprint leaves such properties out, so that two runs of one spec
// are comparable, and reports leave them out of the fields that differ
// between runs; both ask here, so they cannot disagree. What the URL also
// carries that does matter (retryWrites) the fingerprint hashes from the
// spec.
func RunNamedProperty(name string) bool {
	return name == PropMongoDBURL
}
