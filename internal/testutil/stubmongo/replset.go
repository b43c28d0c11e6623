package stubmongo

import (
	"encoding/binary"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Replica-set mode (ReplicaSet): the server is the one member of a replica
// set, its primary, until a replSetStepDown makes it a secondary for a
// while; then it is elected again. What is modelled, and where MongoDB
// says so:
//
//   - hello as a member (MongoDB manual, "hello" command, replica set
//     fields): setName, setVersion, hosts, me, isWritablePrimary and
//     secondary, primary and electionId only while it is primary, and
//     topologyVersion, whose counter grows at every state change
//     (src/mongo/db/repl/replication_coordinator_impl.cpp increments
//     _topCoord's topologyVersion on every role change). What the Go
//     driver needs to see a ReplicaSetWithPrimary
//     (internal/driverutil/description.go: setName and isWritablePrimary
//     make an RSPrimary; hosts are the members it discovers).
//   - An awaitable hello (topologyVersion + maxAwaitTimeMS) from a client
//     whose counter is the server's own is held until the state changes
//     or maxAwaitTimeMS passes; an older counter is answered at once
//     (awaitable_hello.js, as awaitHello).
//   - The electionId is OID::fromTerm(term) (src/mongo/bson/oid.h:
//     0x7fffffff then the term, big-endian), and each election increments
//     the term, so the driver sees the re-elected primary as newer.
//   - replSetStepDown answers {ok: 1} after stepping down (since 4.2 the
//     primary does not close its connections; MongoDB manual,
//     replSetStepDown). While secondary, writes fail with
//     NotWritablePrimary 10107 "not primary" and reads with
//     NotPrimaryNoSecondaryOk 13435 "not primary and secondaryOk=false"
//     unless their $readPreference allows a secondary
//     (src/mongo/base/error_codes.yml; service_entry_point_common.cpp
//     refuses a command that needs the primary with them); a write that
//     is a retryable write (it carries txnNumber) gets the
//     RetryableWriteError label, which servers of 4.4 and later add and
//     the driver then relies on (src/mongo/db/error_labels.cpp,
//     isRetryableWriteErrorCodeWithLabel; x/mongo/driver/errors.go
//     RetryableWrite: wire version ≥ 9 looks at the label only).
type rsState struct {
	name    string
	downFor time.Duration

	mu      sync.Mutex
	primary bool
	term    int64
	counter int64
	// changed is closed and replaced at every state change, waking the
	// held hellos.
	changed chan struct{}

	stepDowns atomic.Int64
}

// ReplicaSet makes the server the primary of replica set name, which a
// replSetStepDown turns into a secondary for downFor (see rsState).
func ReplicaSet(name string, downFor time.Duration) Option {
	return func(s *Server) {
		s.rs = &rsState{name: name, downFor: downFor, primary: true, term: 1, changed: make(chan struct{})}
	}
}

// ReplicaSetURI is a connection string to the replica set of a server
// started with ReplicaSet: the driver discovers it as a replica set.
func (s *Server) ReplicaSetURI() string {
	return "mongodb://" + s.Addr() + "/?replicaSet=" + s.rs.name
}

// StepDowns is the number of replSetStepDown commands received.
func (s *Server) StepDowns() int64 { return s.rs.stepDowns.Load() }

// IsPrimary reports whether the replica-set server is primary now.
func (s *Server) IsPrimary() bool {
	s.rs.mu.Lock()
	defer s.rs.mu.Unlock()
	return s.rs.primary
}

// change moves the member to primary or secondary and wakes held hellos.
// Caller holds mu.
func (rs *rsState) change(primary bool) {
	rs.primary = primary
	if primary {
		rs.term++
	}
	rs.counter++
	close(rs.changed)
	rs.changed = make(chan struct{})
}

// rsCommand answers what replica-set mode changes; ok false: the usual
// answer.
func (h *handler) rsCommand(name []byte, body bsoncore.Document) (reply, bool) {
	rs := h.s.rs
	switch string(name) {
	case "hello", "isMaster", "ismaster":
		h.s.counts[KindHandshake].Add(1)
		return h.rsHello(body, string(name) == "hello"), true
	case "replSetStepDown":
		h.s.counts[KindOther].Add(1)
		rs.stepDowns.Add(1)
		rs.mu.Lock()
		defer rs.mu.Unlock()
		if !rs.primary {
			return rsErrorReply(10107, "NotWritablePrimary", "not primary so can't step down", false), true
		}
		rs.change(false)
		time.AfterFunc(rs.downFor, func() {
			rs.mu.Lock()
			defer rs.mu.Unlock()
			rs.change(true)
		})
		return reply{doc: okReply}, true
	case "insert", "update", "delete", "find":
		rs.mu.Lock()
		primary := rs.primary
		rs.mu.Unlock()
		if primary {
			return reply{}, false
		}
		if string(name) == "find" {
			// A secondary serves reads that allow it: a read preference
			// other than primary ($readPreference, which the driver
			// sends as primaryPreferred on a direct connection).
			if mode, ok := body.Lookup("$readPreference", "mode").StringValueOK(); ok && mode != "primary" {
				return reply{}, false
			}
			h.s.counts[KindOther].Add(1)
			return rsErrorReply(13435, "NotPrimaryNoSecondaryOk", "not primary and secondaryOk=false", false), true
		}
		h.s.counts[KindOther].Add(1)
		_, retryable := body.Lookup("txnNumber").Int64OK()
		return rsErrorReply(10107, "NotWritablePrimary", "not primary", retryable), true
	}
	return reply{}, false
}

// rsHello answers hello (isWritablePrimary) or isMaster (ismaster) as the
// member is now, at once or, awaitable, at the next change (see rsState).
func (h *handler) rsHello(body bsoncore.Document, hello bool) reply {
	rs := h.s.rs
	maxAwait, hasWait := body.Lookup("maxAwaitTimeMS").AsInt64OK()
	tv, hasTV := body.Lookup("topologyVersion").DocumentOK()
	rs.mu.Lock()
	changed := rs.changed
	counter := rs.counter
	rs.mu.Unlock()
	if hasWait && hasTV {
		pid, _ := tv.Lookup("processId").ObjectIDOK()
		c, _ := tv.Lookup("counter").AsInt64OK()
		if pid == h.s.processID && c == counter {
			t := time.NewTimer(time.Duration(maxAwait) * time.Millisecond)
			select {
			case <-t.C:
			case <-changed:
			case <-h.s.closing:
			}
			t.Stop()
		}
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	key := "ismaster"
	if hello {
		key = "isWritablePrimary"
	}
	me := h.s.Addr()
	b := bsoncore.NewDocumentBuilder().
		AppendBoolean("helloOk", true).
		AppendBoolean(key, rs.primary).
		AppendBoolean("secondary", !rs.primary).
		AppendString("setName", rs.name).
		AppendInt32("setVersion", 1).
		AppendArray("hosts", bsoncore.NewArrayBuilder().AppendString(me).Build()).
		AppendString("me", me)
	if rs.primary {
		b.AppendString("primary", me)
		b.AppendObjectID("electionId", electionID(rs.term))
	}
	return reply{doc: appendServerFields(b, h.s.processID, rs.counter, h.id).Build()}
}

// electionID is MongoDB's OID::fromTerm: 0x7fffffff, then the term.
func electionID(term int64) bson.ObjectID {
	var id bson.ObjectID
	binary.BigEndian.PutUint32(id[0:4], 0x7fffffff)
	binary.BigEndian.PutUint64(id[4:12], uint64(term))
	return id
}

// rsErrorReply is a command's failure with its code name, as a server
// answers it, labelled RetryableWriteError when asked.
func rsErrorReply(code int32, codeName, msg string, retryable bool) reply {
	b := bsoncore.NewDocumentBuilder().AppendDouble("ok", 0).AppendString("errmsg", msg).
		AppendInt32("code", code).AppendString("codeName", codeName)
	if retryable {
		b.AppendArray("errorLabels", bsoncore.NewArrayBuilder().AppendString("RetryableWriteError").Build())
	}
	return reply{doc: b.Build()}
}
