package growth

import (
	"testing"

	"github.com/mongobench/mongobench/internal/testutil/stubmongo"
	"github.com/mongobench/mongobench/internal/testutil/wireserver"
)

func TestMain(m *testing.M) {
	// BenchmarkMongoStoreInsert runs the stub server in a re-executed copy
	// of this binary.
	stubmongo.RunChildIfRequested()
	wireserver.Main(m)
}
