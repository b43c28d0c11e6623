package mongodb

import (
	"fmt"

	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/ycsb"
)

// Group is the help section of the binding's properties.
const Group ycsb.Group = "MongoDB binding"

// KnownProperties returns the binding's properties, with their defaults and
// meanings: what ConfigFromProperties reads, and what it accepts for YCSB's
// sake and ignores. The loader's registry (loader.KnownProperties, the -h
// table, the unknown-property warnings) lists them after the engine's and
// the command's. The slice is the caller's.
func KnownProperties() []ycsb.Property {
	return []ycsb.Property{
		{Name: contract.PropMongoDBURL, Default: DefaultURL, Group: Group,
			Meaning: "connection string; the database is its path (none or admin: " + DefaultDatabase + "); retryWrites=false unless it says otherwise"},
		{Name: PropWriteConcern, Group: Group,
			Meaning: "errors_ignored|unacknowledged|acknowledged|journaled|replica_acknowledged|majority: w or journal, unless the URL sets it"},
		{Name: PropReadPreference, Group: Group,
			Meaning: "primary|primary_preferred|secondary|secondary_preferred|nearest, unless the URL sets readPreference"},
		{Name: PropMaxConnections, Group: Group,
			Meaning: fmt.Sprintf("maxPoolSize, unless the URL sets it (the driver's default: %d)", driverDefaultMaxPoolSize)},
		{Name: contract.PropBatchSize, Default: "1", Group: Group, Meaning: "inserts per insertMany (1: insertOne each)"},
		{Name: PropUpsert, Default: "false", Group: Group, Meaning: "insert with replaceOne(upsert), so a load may overwrite records"},
		{Name: PropOperationTimeout, Default: DefaultOperationTimeout.String(), Group: Group,
			Meaning: "bound of every driver call and of connecting (ours); a duration or seconds"},
		{Name: contract.PropExternalDatabase, Group: Group,
			Meaning: "with the connection string from " + contract.EnvURI + ": the run's database, instead of the string's path"},
		{Name: contract.PropExternalURIOptions, Group: Group,
			Meaning: "with the connection string from " + contract.EnvURI + ": options (key=value&...) added where the string does not set them"},
		{Name: propWaitQueueMultiple, Group: Group, Meaning: "the Java driver's wait queue limit per connection",
			Ignored: "the Go driver has no wait queue limit"},
	}
}
