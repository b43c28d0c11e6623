// Package wireserver starts a real MongoDB wire-protocol server for tests:
// mongo-java-server 1.47.0 with its in-memory backend, in a child JVM
// (hack/wire-server.sh builds it from Maven Central and caches it outside the
// repository). No MongoDB binary can be had on the project's machines, and an
// independent implementation catches mistakes a hand-written fake would share
// with the code under test.
//
// It reports MongoDB 6.0 / wire version 17 so driver v2 accepts it. What it
// does and does not implement is pinned down by this package's tests
// (wireserver_test.go). In short, single-node CRUD works (acknowledged
// writes, finds with projection/sort/limit, cursors, counts, bulk writes,
// indexes); these do not: collMod, validators (accepted by create but neither
// stored nor enforced), w:0 writes (the server drops the connection and the
// write is lost while the driver reports success), sessions and so
// transactions, the "hello" command name (isMaster works), listDatabases, and
// replica-set/sharding admin commands.
//
// Typical use, one JVM per test package shared by its tests (each test should
// use its own database or collection name):
//
//	srv := wireserver.Shared(t)
//	client, err := mongo.Connect(options.Client().ApplyURI(srv.URI()))
//
// or wireserver.Start(t) for a server of the test's own, stopped when the test
// ends. Java is required: when it is missing the test fails, it is not
// skipped.
package wireserver
