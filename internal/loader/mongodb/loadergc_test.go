package mongodb_test

import (
	"github.com/mongobench/mongobench/internal/loader"
	"github.com/mongobench/mongobench/internal/loader/mongodb"
)

// BenchmarkCPU measures the loader with the loader binary's GC setting.
func init() { mongodb.ConfigureLoaderGC = loader.ConfigureGC }
