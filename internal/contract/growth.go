package contract

// CommandGrow is the loader command of a Grow phase:
// `loader grow [-p name=value ...] [--result ...] [--result-configmap ...]`.
// Its result (results.Encode of a KindGrow result) goes where load's and
// run's go: binaryData[ConfigMapKey] of the result ConfigMap.
const CommandGrow = "grow"

// Properties of a Grow phase (`loader grow -p name=value`), the growth
// workload's (internal/growth reads them and documents each one's default
// and meaning in growth.KnownProperties). The connection is the MongoDB
// binding's: mongodb.url and its options, and "table" for the collection,
// as for load and run.
const (
	// PropGrowthTargetRecords: documents to grow the collection to.
	PropGrowthTargetRecords = "growth.targetrecords"
	// PropGrowthCheckpointEvery: records between checkpoints.
	PropGrowthCheckpointEvery = "growth.checkpointevery"
	// PropGrowthInsertMode: unacknowledged, acknowledged or batch (any
	// case: FlagValue of the API's enum).
	PropGrowthInsertMode = "growth.insertmode"
	// PropGrowthBatchSize: documents per insertMany in batch mode.
	PropGrowthBatchSize = "growth.batchsize"
	// PropGrowthInsertThreads: threads inserting.
	PropGrowthInsertThreads = "growth.insertthreads"
	// PropGrowthQueryThreads: threads running each query class.
	PropGrowthQueryThreads = "growth.querythreads"
	// PropGrowthQueryDuration: how long each query class runs at each
	// checkpoint (a Go duration: 30s, 2m).
	PropGrowthQueryDuration = "growth.queryduration"
	// PropGrowthQueries: the query classes run at each checkpoint, a
	// comma-separated list of q1, q2, q3, q4 (any case; empty: none).
	PropGrowthQueries = "growth.queries"
	// PropGrowthMatchesPerValue: documents each value of number (and
	// number1) matches once the target is reached.
	PropGrowthMatchesPerValue = "growth.matchespervalue"
	// PropGrowthNumber1: how number1 relates to number: paired or
	// independent.
	PropGrowthNumber1 = "growth.number1"
	// PropGrowthPayloadSize: bytes of each document's payload string.
	PropGrowthPayloadSize = "growth.payloadsize"
	// PropGrowthDateStart, PropGrowthDateStep, PropGrowthDateJitter: the
	// date of record i is start + i·step + a jitter in [0, jitter)
	// (RFC 3339; Go durations).
	PropGrowthDateStart  = "growth.datestart"
	PropGrowthDateStep   = "growth.datestep"
	PropGrowthDateJitter = "growth.datejitter"
	// PropGrowthSeed: the seed every document and query value derives from.
	PropGrowthSeed = "growth.seed"
	// Query parameters.
	PropGrowthQ1Limit      = "growth.q1.limit"
	PropGrowthQ2Limit      = "growth.q2.limit"
	PropGrowthQ2Projection = "growth.q2.projection"
	PropGrowthQ3Skip       = "growth.q3.skip"
	PropGrowthQ3Limit      = "growth.q3.limit"
	PropGrowthQ4Limit      = "growth.q4.limit"
)
