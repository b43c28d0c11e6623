// Package stubmongo is a MongoDB wire-protocol server that costs (almost)
// nothing: it answers every command with a minimal, valid, canned reply and
// stores nothing. It exists to measure the client side of a benchmark loader
// (CPU per operation of driver + loader) with a server that does not compete
// for the CPU or add latency of its own; it is not a functional fake, use
// internal/testutil/wireserver for that.
//
// What it answers (OP_MSG, plus legacy OP_QUERY for the driver's first
// isMaster):
//
//	hello / isMaster  MongoDB 6.0, wire version 17, a writable standalone
//	                  (a mongos with AsMongos), with its connectionId and
//	                  topologyVersion; an awaitable hello (topologyVersion +
//	                  maxAwaitTimeMS) is held like a real server holds it
//	                  (see awaitHello)
//	insert            {n: <documents in the request>, ok: 1}
//	update            {n: k, nModified: k, ok: 1}, k = statements in the request
//	delete            {n: k, ok: 1}, k = statements in the request
//	find              a cursor with id 0 whose firstBatch holds |limit| canned
//	                  YCSB-shaped documents (1 without a limit, at most 100)
//	aggregate, listCollections, listIndexes
//	                  a cursor with id 0 and an empty firstBatch
//	stubmongoStats    the counters and the serving process's CPU time (Stats)
//	anything else     {ok: 1}
//
// Requests with the moreToCome flag (w:0 writes) are counted and not answered,
// as the protocol requires. A request is parsed only as far as needed: the
// command name (the first key of the body) and, for find, "limit".
//
// With RequireAuth, the server has access control, as a mongod or mongos
// started with --keyFile: clients authenticate with SCRAM-SHA-256
// (saslStart/saslContinue, the server side of github.com/xdg-go/scram),
// and a connection that has not is refused every command but hello,
// isMaster, ping and buildInfo with 13 Unauthorized (auth.go says what is
// modelled and where MongoDB's source says so). Authentications,
// AuthFailures and Refused tell what happened.
//
// With ReplicaSet, the server is the one member of a replica set, its
// primary, until a replSetStepDown makes it a secondary for a set time:
// hello answers as a member, held awaitable hellos are answered at each
// change, writes and reads are refused as a secondary refuses them, and
// it comes back as primary with a greater electionId (replset.go says
// what is modelled and where MongoDB's source says so). StepDowns counts
// the replSetStepDown commands.
//
// With Record, the server keeps a copy of every OP_MSG command body it
// receives (Commands), so a test can see what the driver put on the wire:
// lsid, txnNumber, writeConcern (an insert's documents travel in a document
// sequence, outside the body).
//
// With Busy, the server polls its connections instead of sleeping until a
// request arrives (a connection's goroutine reads without blocking and
// yields when nothing is there), so no request pays for waking it, as
// against a real server that is the benchmark's bottleneck and so busy.
//
// The server can run in the test process (Start) or, so that the client's
// rusage excludes it, in a child process that re-executes the test binary
// (StartChild, with RunChildIfRequested in TestMain).
package stubmongo
