// Package memdb is an in-memory ycsb.DB for tests of the engine, the loader
// CLI and anything else that needs a database that behaves like the MongoDB
// binding (duplicate inserts fail, missing records are NOT_FOUND, scans go
// in key order, optional insert batching with a final flush) without a
// server. Hooks let tests inject latency, failures or blocking calls.
package memdb
