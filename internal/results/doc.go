// Package results is the one result format shared by the loader (which
// writes it) and the controller (which merges it into BenchmarkRun status).
//
// Every number the project reports is derived from the HdrHistograms carried
// here, never from pre-computed percentiles, so results of parallel loaders
// merge exactly: merging n results gives the statistics of one histogram
// that recorded every operation.
package results
