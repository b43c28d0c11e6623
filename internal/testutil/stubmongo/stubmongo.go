package stubmongo

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Wire protocol opcodes and OP_MSG flags.
const (
	opReply      = 1
	opQuery      = 2004
	opCompressed = 2012
	opMsg        = 2013

	flagChecksumPresent = 1 << 0
	flagMoreToCome      = 1 << 1

	headerLen = 16
	// maxMessageSize is what the server advertises; larger requests are a
	// protocol error and close the connection.
	maxMessageSize = 48_000_000
)

// MaxFindBatch caps the documents a find reply carries, whatever its limit.
const MaxFindBatch = 100

// Canned documents: YCSB-shaped, _id string + field0..field9 of 100 bytes of
// binary, about 1,170 bytes of BSON each, like the YCSB MongoDB binding's.
const (
	cannedFields    = 10
	cannedFieldSize = 100
)

// CommandKind classifies the commands the server counts.
type CommandKind int

// Counted command kinds.
const (
	KindHandshake CommandKind = iota // hello, isMaster, buildInfo, ping
	KindInsert
	KindUpdate
	KindDelete
	KindFind
	KindOther
	numKinds
)

// Counts are the commands served, by kind. InsertedDocs is the number of
// documents the insert commands carried.
type Counts struct {
	Handshake, Insert, Update, Delete, Find, Other uint64
	InsertedDocs                                   uint64
}

// Total is the number of commands served.
func (c Counts) Total() uint64 {
	return c.Handshake + c.Insert + c.Update + c.Delete + c.Find + c.Other
}

// Sub returns c - o, for counting the commands of a measured interval.
func (c Counts) Sub(o Counts) Counts {
	return Counts{
		Handshake: c.Handshake - o.Handshake, Insert: c.Insert - o.Insert, Update: c.Update - o.Update,
		Delete: c.Delete - o.Delete, Find: c.Find - o.Find, Other: c.Other - o.Other,
		InsertedDocs: c.InsertedDocs - o.InsertedDocs,
	}
}

// paddedCounter keeps each counter on its own cache line, so connections
// counting different kinds do not slow each other down.
type paddedCounter struct {
	atomic.Uint64
	_ [56]byte
}

// Server is a running stub server.
type Server struct {
	ln     net.Listener
	counts [numKinds]paddedCounter
	docs   paddedCounter

	mongos bool
	record bool
	// busy: the connections poll their sockets instead of sleeping (Busy).
	busy bool
	// auth is the access control of RequireAuth; nil: none.
	auth *authServer
	// rs is the replica-set mode's state (ReplicaSet); nil: a standalone.
	rs *rsState
	// handlers are Handle's replies, by command name.
	handlers map[string]func(bson.Raw) bson.D

	mu       sync.Mutex
	conns    map[net.Conn]struct{}
	closed   bool
	wg       sync.WaitGroup
	commands []bson.Raw // with Record; guarded by mu

	// processID is the topologyVersion's processId; connections numbers
	// the connections (hello's connectionId); closing ends held hellos.
	processID   bson.ObjectID
	connections atomic.Int64
	closing     chan struct{}
	// stall is StallNext's pending stall, in nanoseconds; stallWrite
	// StallNextWrite's.
	stall, stallWrite atomic.Int64
	// frozenUntil is Freeze's end (Unix nanoseconds; 0: never frozen).
	frozenUntil atomic.Int64
}

// Option changes what a server started by Start or Listen answers.
type Option func(*Server)

// AsMongos makes the server answer hello as a mongos: msg "isdbgrid",
// which is how the driver tells one apart
// (go.mongodb.org/mongo-driver/v2 internal/driverutil/description.go:
// `case msg == "isdbgrid": desc.Kind = description.ServerKindMongos`).
// With the session timeout every reply carries, the driver then treats
// writes as retryable unless retryWrites=false, as against a real mongos
// (x/mongo/driver/operation.go, retryWritesSupported: a session timeout
// and a kind other than Standalone).
func AsMongos() Option { return func(s *Server) { s.mongos = true } }

// Busy makes the server poll its connections instead of sleeping until a
// request arrives: each connection's goroutine reads without blocking and
// yields when nothing is there, so the server's threads never block and a
// client's request never has to wake one. That is a real server that is
// the benchmark's bottleneck: busy, so a request waits in its queue rather
// than waking it. A busy server spends its CPU polling; give it a core of
// its own (STUBMONGO_SERVER_CPUS).
func Busy() Option { return func(s *Server) { s.busy = true } }

// Handle makes the server answer the command name with fn's reply
// instead of its canned one, after access control: for a test whose code
// reads more of a reply than {ok: 1}. fn gets a copy of the command, which
// it may keep; the reply must say ok itself; fn may run on several
// connections at once.
func Handle(name string, fn func(body bson.Raw) bson.D) Option {
	return func(s *Server) {
		if s.handlers == nil {
			s.handlers = map[string]func(bson.Raw) bson.D{}
		}
		s.handlers[name] = fn
	}
}

// RemembersCollection makes create and listCollections agree, as for a
// validator's collMod: create keeps the collection's validator,
// validationLevel and validationAction, and listCollections then lists
// "usertable" with them ({name, type: "collection", options}: the
// listCollections reply, MongoDB manual) in a cursor of one batch.
func RemembersCollection() Option {
	var mu sync.Mutex
	var created bson.Raw
	return func(s *Server) {
		Handle("create", func(body bson.Raw) bson.D {
			mu.Lock()
			defer mu.Unlock()
			created = body
			return bson.D{{Key: "ok", Value: 1}}
		})(s)
		Handle("listCollections", func(bson.Raw) bson.D {
			mu.Lock()
			defer mu.Unlock()
			batch := bson.A{}
			if created != nil {
				batch = append(batch, bson.D{{Key: "name", Value: "usertable"}, {Key: "type", Value: "collection"},
					{Key: "options", Value: bson.D{{Key: "validator", Value: created.Lookup("validator")},
						{Key: "validationLevel", Value: created.Lookup("validationLevel")},
						{Key: "validationAction", Value: created.Lookup("validationAction")}}}})
			}
			return bson.D{{Key: "cursor", Value: bson.D{{Key: "firstBatch", Value: batch}, {Key: "id", Value: int64(0)},
				{Key: "ns", Value: "ycsb.$cmd.listCollections"}}}, {Key: "ok", Value: 1}}
		})(s)
	}
}

// Record keeps a copy of every OP_MSG command body received (Commands).
// It costs an allocation per command: not for benchmarks.
func Record() Option { return func(s *Server) { s.record = true } }

// Start starts a server in this process on 127.0.0.1 and a free port; it is
// closed when the test ends.
func Start(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	s, err := Listen("127.0.0.1:0", opts...)
	if err != nil {
		tb.Fatalf("stubmongo: %v", err)
	}
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Errorf("stubmongo: %v", err)
		}
	})
	return s
}

// Listen starts a server on addr ("host:port"; port 0 picks a free one).
func Listen(addr string, opts ...Option) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	s := &Server{ln: ln, conns: make(map[net.Conn]struct{}), processID: bson.NewObjectID(), closing: make(chan struct{})}
	for _, o := range opts {
		o(s)
	}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// Addr returns the server's "host:port".
func (s *Server) Addr() string { return s.ln.Addr().String() }

// URI returns a connection string for driver v2: a direct connection to one
// standalone server.
func (s *Server) URI() string { return "mongodb://" + s.Addr() + "/?directConnection=true" }

// Commands returns copies of the command bodies received so far, in order
// of arrival (only with Record).
func (s *Server) Commands() []bson.Raw {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]bson.Raw(nil), s.commands...)
}

// Counts returns the commands served so far.
func (s *Server) Counts() Counts {
	return Counts{
		Handshake:    s.counts[KindHandshake].Load(),
		Insert:       s.counts[KindInsert].Load(),
		Update:       s.counts[KindUpdate].Load(),
		Delete:       s.counts[KindDelete].Load(),
		Find:         s.counts[KindFind].Load(),
		Other:        s.counts[KindOther].Load(),
		InsertedDocs: s.docs.Load(),
	}
}

// Close stops listening, closes every connection and waits for their
// goroutines. It is safe to call more than once.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	close(s.closing)
	err := s.ln.Close()
	for c := range s.conns {
		_ = c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	if err != nil {
		return fmt.Errorf("close listener: %w", err)
	}
	return nil
}

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return // closed (a stub has no use for retrying transient errors)
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			_ = c.Close()
			return
		}
		s.conns[c] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go s.serve(c)
	}
}

// serve answers one connection's requests in order; one goroutine per
// connection, like the driver's one in-flight request per connection. Both
// buffers are reused across requests, so a steady state allocates nothing.
func (s *Server) serve(c net.Conn) {
	defer s.wg.Done()
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		_ = c.Close()
	}()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetNoDelay(true)
	}
	h := handler{s: s, id: s.connections.Add(1)}
	h.hello = handshakeReply("isWritablePrimary", h.id, s.processID, s.mongos)
	h.legacyHello = handshakeReply("ismaster", h.id, s.processID, s.mongos)
	var src io.Reader = c
	if s.busy {
		if sc, ok := c.(syscall.Conn); ok {
			if rc, err := sc.SyscallConn(); err == nil {
				src = pollingReader{rc}
			}
		}
	}
	r := bufio.NewReaderSize(src, 64<<10)
	var in, out []byte
	for {
		var err error
		in, err = readMessage(r, in)
		if err != nil {
			return // EOF, closed, or a malformed message: drop the connection
		}
		out, err = h.handle(out[:0], in)
		if err != nil {
			return
		}
		if len(out) > 0 {
			if _, err := c.Write(out); err != nil {
				return
			}
		}
	}
}

// pollingReader reads a socket without ever waiting in Go's network
// poller: a read that finds nothing yields the goroutine and tries again,
// so the thread stays runnable (Busy).
type pollingReader struct{ rc syscall.RawConn }

func (p pollingReader) Read(b []byte) (int, error) {
	for {
		var n int
		var rerr error
		// The callback returning true tells the runtime not to wait for
		// readiness, whatever the read found.
		if err := p.rc.Read(func(fd uintptr) bool {
			n, rerr = syscall.Read(int(fd), b)
			return true
		}); err != nil {
			return 0, err // closed
		}
		switch {
		case rerr == syscall.EAGAIN || rerr == syscall.EINTR:
			runtime.Gosched()
		case rerr != nil:
			return 0, rerr
		case n == 0:
			return 0, io.EOF
		default:
			return n, nil
		}
	}
}

// readMessage reads one message (header included) into buf.
func readMessage(r *bufio.Reader, buf []byte) ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return buf, err
	}
	n := int(int32(binary.LittleEndian.Uint32(hdr[:])))
	if n < headerLen || n > maxMessageSize {
		return buf, fmt.Errorf("message length %d out of range", n)
	}
	if cap(buf) < n {
		buf = make([]byte, n, max(n, 2*cap(buf)))
	}
	buf = buf[:n]
	copy(buf, hdr[:])
	if _, err := io.ReadFull(r, buf[4:]); err != nil {
		return buf, err
	}
	return buf, nil
}

type handler struct {
	s  *Server
	id int64
	// hello and legacyHello are this connection's handshake replies.
	hello, legacyHello []byte
	// auth is the connection's authentication (RequireAuth).
	auth connAuth
}

// handle appends the reply to msg to out; an empty out means no reply.
func (h *handler) handle(out, msg []byte) ([]byte, error) {
	requestID := binary.LittleEndian.Uint32(msg[4:])
	switch op := binary.LittleEndian.Uint32(msg[12:]); op {
	case opMsg:
		return h.handleMsg(out, msg, requestID)
	case opQuery:
		return h.handleQuery(out, msg, requestID)
	case opCompressed:
		// Never negotiated: the hello reply lists no compressors.
		return out, errors.New("OP_COMPRESSED without negotiated compression")
	default:
		return out, fmt.Errorf("unsupported opcode %d", op)
	}
}

func (h *handler) handleMsg(out, msg []byte, requestID uint32) ([]byte, error) {
	if len(msg) < headerLen+5 {
		return out, errors.New("OP_MSG too short")
	}
	flags := binary.LittleEndian.Uint32(msg[headerLen:])
	end := len(msg)
	if flags&flagChecksumPresent != 0 {
		end -= 4
	}
	var body []byte
	seqDocs := 0 // documents in kind-1 sections (insert's "documents", etc.)
	for p := headerLen + 4; p < end; {
		kind := msg[p]
		p++
		if p+4 > end {
			return out, errors.New("OP_MSG section truncated")
		}
		size := int(int32(binary.LittleEndian.Uint32(msg[p:])))
		if size < 5 || p+size > end {
			return out, errors.New("OP_MSG section size out of range")
		}
		switch kind {
		case 0:
			body = msg[p : p+size]
		case 1:
			seqDocs += countSequence(msg[p+4 : p+size])
		default:
			return out, fmt.Errorf("OP_MSG section kind %d", kind)
		}
		p += size
	}
	if body == nil {
		return out, errors.New("OP_MSG without a body section")
	}
	if h.s.record {
		h.s.mu.Lock()
		h.s.commands = append(h.s.commands, bson.Raw(bytes.Clone(body)))
		h.s.mu.Unlock()
	}

	reply := h.command(body, seqDocs)
	if flags&flagMoreToCome != 0 {
		return out, nil // the client expects no reply
	}
	out = appendHeader(out, requestID, opMsg)
	out = binary.LittleEndian.AppendUint32(out, 0) // flagBits
	out = append(out, 0)                           // section kind 0
	out = reply.append(out)
	binary.LittleEndian.PutUint32(out, uint32(len(out)))
	return out, nil
}

// handleQuery answers OP_QUERY, which driver v2 uses only for the first
// isMaster of a connection (the legacy handshake).
func (h *handler) handleQuery(out, msg []byte, requestID uint32) ([]byte, error) {
	p := headerLen + 4 // flags
	nul := bytes.IndexByte(msg[p:], 0)
	if nul < 0 {
		return out, errors.New("OP_QUERY without a collection name")
	}
	p += nul + 1 + 8 // fullCollectionName, numberToSkip, numberToReturn
	if p+5 > len(msg) {
		return out, errors.New("OP_QUERY truncated")
	}
	size := int(int32(binary.LittleEndian.Uint32(msg[p:])))
	if size < 5 || p+size > len(msg) {
		return out, errors.New("OP_QUERY query size out of range")
	}
	query := bsoncore.Document(msg[p : p+size])
	if q, ok := query.Lookup("$query").DocumentOK(); ok { // wrapped with read preference
		query = q
	}
	reply := h.command(query, 0)
	out = appendHeader(out, requestID, opReply)
	out = binary.LittleEndian.AppendUint32(out, 0) // responseFlags
	out = binary.LittleEndian.AppendUint64(out, 0) // cursorID
	out = binary.LittleEndian.AppendUint32(out, 0) // startingFrom
	out = binary.LittleEndian.AppendUint32(out, 1) // numberReturned
	out = reply.append(out)
	binary.LittleEndian.PutUint32(out, uint32(len(out)))
	return out, nil
}

func appendHeader(out []byte, responseTo uint32, opCode uint32) []byte {
	out = binary.LittleEndian.AppendUint32(out, 0) // length, patched by the caller
	out = binary.LittleEndian.AppendUint32(out, 0) // requestID: nobody replies to a reply
	out = binary.LittleEndian.AppendUint32(out, responseTo)
	return binary.LittleEndian.AppendUint32(out, opCode)
}

// reply is what command decided to answer.
type reply struct {
	kind replyKind
	doc  []byte // replyDoc: pre-encoded
	n    int32  // replyN, replyNModified: statements; replyFind: documents
	srv  *Server
}

type replyKind uint8

const (
	replyDoc       replyKind = iota // doc as is
	replyN                          // {n, ok: 1}
	replyNModified                  // {n, nModified: n, ok: 1}
	replyFind                       // a cursor with n canned documents
	replyStats                      // the server's Stats
)

func (r reply) append(out []byte) []byte {
	switch r.kind {
	case replyN, replyNModified:
		// Encoded by hand, it is the hot path of writes: length, "n" int32,
		// maybe "nModified" int32, then ok and the terminator.
		start := len(out)
		out = binary.LittleEndian.AppendUint32(out, 0)
		out = append(out, byte(bsoncore.TypeInt32), 'n', 0)
		out = binary.LittleEndian.AppendUint32(out, uint32(r.n))
		if r.kind == replyNModified {
			out = append(out, byte(bsoncore.TypeInt32))
			out = append(out, "nModified\x00"...)
			out = binary.LittleEndian.AppendUint32(out, uint32(r.n))
		}
		out = append(out, okElement[:]...)
		binary.LittleEndian.PutUint32(out[start:], uint32(len(out)-start))
		return out
	case replyFind:
		return canned.appendFindReply(out, int(r.n))
	case replyStats:
		return r.srv.appendStats(out)
	default:
		return append(out, r.doc...)
	}
}

// okElement is the trailing `ok: 1.0` element plus the document terminator.
var okElement = [...]byte{byte(bsoncore.TypeDouble), 'o', 'k', 0, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 0}

// command decides the reply to one command. body is the command document;
// seqDocs the number of documents in OP_MSG document sequences.
func (h *handler) command(body bsoncore.Document, seqDocs int) reply {
	name := firstKey(body)
	c := &h.s.counts
	if u := h.s.frozenUntil.Load(); u != 0 {
		if d := time.Until(time.Unix(0, u)); d > 0 {
			time.Sleep(d) // Freeze: nothing is answered until the thaw
		}
	}
	if h.s.stall.Load() != 0 && isWorkload(name) {
		if d := time.Duration(h.s.stall.Swap(0)); d > 0 {
			time.Sleep(d) // StallNext: the server stops for a moment
		}
	}
	if h.s.stallWrite.Load() != 0 && isWorkload(name) && string(name) != "find" {
		if d := time.Duration(h.s.stallWrite.Swap(0)); d > 0 {
			time.Sleep(d) // StallNextWrite
		}
	}
	if h.s.auth != nil {
		if r, ok := h.authCommand(name, body); ok {
			return r
		}
	}
	if h.s.rs != nil {
		if r, ok := h.rsCommand(name, body); ok {
			return r
		}
	}
	if fn, ok := h.s.handlers[string(name)]; ok {
		c[KindOther].Add(1)
		// A copy: the request's buffer is reused for the next message.
		doc, err := bson.Marshal(fn(bson.Raw(bytes.Clone(body))))
		if err != nil {
			return errorReply(1, "stubmongo: Handle "+string(name)+": "+err.Error())
		}
		return reply{doc: doc}
	}
	// switch on string(bytes) compiles to comparisons without allocating.
	switch string(name) {
	case "insert":
		c[KindInsert].Add(1)
		n := statements(body, "documents", seqDocs)
		h.s.docs.Add(uint64(n))
		return reply{kind: replyN, n: n}
	case "update":
		c[KindUpdate].Add(1)
		return reply{kind: replyNModified, n: statements(body, "updates", seqDocs)}
	case "delete":
		c[KindDelete].Add(1)
		return reply{kind: replyN, n: statements(body, "deletes", seqDocs)}
	case "find":
		c[KindFind].Add(1)
		return reply{kind: replyFind, n: int32(findCount(body))}
	case "hello":
		c[KindHandshake].Add(1)
		return h.awaitHello(body, h.hello)
	case "isMaster", "ismaster":
		c[KindHandshake].Add(1)
		return h.awaitHello(body, h.legacyHello)
	case "buildInfo", "buildinfo":
		c[KindHandshake].Add(1)
		return reply{doc: buildInfoReply}
	case "ping":
		c[KindHandshake].Add(1)
		return reply{doc: okReply}
	case "aggregate", "listCollections", "listIndexes":
		c[KindOther].Add(1)
		return reply{doc: emptyCursorReply}
	case statsCommand:
		c[KindOther].Add(1)
		return reply{kind: replyStats, srv: h.s}
	default:
		c[KindOther].Add(1)
		return reply{doc: okReply}
	}
}

// awaitHello answers a hello: at once, or, for an awaitable hello (the
// streaming protocol of the driver's monitors, and what the loader uses to
// hold its connections), when maxAwaitTimeMS passed, as a real server does
// when the topology has not changed. Modelled on mongod's and mongos's
// hello (jstests/noPassthrough/awaitable_hello.js in mongodb/mongo: the
// server waits at least maxAwaitTimeMS for a topologyVersion equal to its
// own, answers at once for another processId, refuses a greater counter of
// its own processId, and wants topologyVersion if and only if
// maxAwaitTimeMS).
func (h *handler) awaitHello(body bsoncore.Document, hello []byte) reply {
	if h.s.auth != nil {
		hello = h.s.auth.withSaslSupportedMechs(body, hello)
	}
	maxAwait, hasWait := body.Lookup("maxAwaitTimeMS").AsInt64OK()
	tv, hasTV := body.Lookup("topologyVersion").DocumentOK()
	if !hasWait && !hasTV {
		return reply{doc: hello}
	}
	if hasWait != hasTV {
		return errorReply(31368, "A request with a 'topologyVersion' must include 'maxAwaitTimeMS'")
	}
	if maxAwait < 0 {
		return errorReply(31373, "maxAwaitTimeMS must be a non-negative integer")
	}
	pid, okPID := tv.Lookup("processId").ObjectIDOK()
	counter, okCounter := tv.Lookup("counter").AsInt64OK()
	if !okPID || !okCounter {
		return errorReply(40414, "topologyVersion needs processId and counter")
	}
	if pid != h.s.processID {
		return reply{doc: hello}
	}
	if counter > 0 {
		return errorReply(31382, "Received a topology version with the same process ID and a higher counter than the server")
	}
	t := time.NewTimer(time.Duration(maxAwait) * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
	case <-h.s.closing:
	}
	return reply{doc: hello}
}

// errorReply is a command's failure.
func errorReply(code int32, msg string) reply {
	return reply{doc: bsoncore.NewDocumentBuilder().AppendDouble("ok", 0).AppendString("errmsg", msg).
		AppendInt32("code", code).Build()}
}

// isWorkload reports whether a command is one of a workload's (find and
// the writes), which StallNext holds.
func isWorkload(name []byte) bool {
	switch string(name) {
	case "find", "insert", "update", "delete":
		return true
	}
	return false
}

// StallNext makes the next workload command (find, insert, update,
// delete) wait d before it is answered, as a server that stalls does
// (a checkpoint, a lock, a GC pause of its own): the calls behind it on
// other connections are answered at once, those of the same thread wait.
func (s *Server) StallNext(d time.Duration) { s.stall.Store(int64(d)) }

// StallNextWrite is StallNext for the next write (insert, update,
// delete) only. The write is answered after the stall as the server is
// then: a test holds a write in flight across a replSetStepDown so that
// it meets the secondary.
func (s *Server) StallNextWrite(d time.Duration) { s.stallWrite.Store(int64(d)) }

// Freeze makes the server answer nothing for d from now, hellos included,
// the way a process stopped with SIGSTOP looks to its clients: the kernel
// still accepts connections and buffers what they send (the socket is the
// kernel's), but nothing is read or answered until SIGCONT, and then
// everything is, in order. Every request received meanwhile is answered
// after the thaw.
func (s *Server) Freeze(d time.Duration) { s.frozenUntil.Store(time.Now().Add(d).UnixNano()) }

// statements is the number of statements of a write command: the documents
// of its OP_MSG document sequence, or else of its inline array field.
func statements(body bsoncore.Document, field string, seqDocs int) int32 {
	if seqDocs > 0 {
		return int32(seqDocs)
	}
	arr, ok := body.Lookup(field).ArrayOK()
	if !ok {
		return 0
	}
	vals, _ := arr.Values()
	return int32(len(vals))
}

// firstKey returns the key of a document's first element (nil if empty).
func firstKey(doc []byte) []byte {
	if len(doc) < 6 {
		return nil
	}
	k := doc[5:]
	if n := bytes.IndexByte(k, 0); n >= 0 {
		return k[:n]
	}
	return nil
}

// countSequence counts the BSON documents of an OP_MSG kind-1 section after
// its size: a cstring identifier, then documents back to back.
func countSequence(seq []byte) int {
	nul := bytes.IndexByte(seq, 0)
	if nul < 0 {
		return 0
	}
	n := 0
	for p := nul + 1; p+4 <= len(seq); n++ {
		size := int(int32(binary.LittleEndian.Uint32(seq[p:])))
		if size < 5 {
			break
		}
		p += size
	}
	return n
}

// findCount is the number of documents a find gets: |limit| (negative means
// a single batch of that size), 1 without a limit (the YCSB point read), at
// most MaxFindBatch.
func findCount(body bsoncore.Document) int {
	v, err := body.LookupErr("limit")
	if err != nil {
		return 1
	}
	n, ok := v.AsInt64OK()
	if !ok {
		return 1
	}
	if n < 0 {
		n = -n
	}
	switch {
	case n == 0:
		return 1
	case n > MaxFindBatch:
		return MaxFindBatch
	}
	return int(n)
}

// Pre-encoded replies.
var (
	okReply          = bsoncore.NewDocumentBuilder().AppendDouble("ok", 1).Build()
	emptyCursorReply = bsoncore.NewDocumentBuilder().
				AppendDocument("cursor", bsoncore.NewDocumentBuilder().
					AppendArray("firstBatch", bsoncore.NewArrayBuilder().Build()).
					AppendInt64("id", 0).
					AppendString("ns", "stub.stub").
					Build()).
				AppendDouble("ok", 1).Build()
	buildInfoReply = bsoncore.NewDocumentBuilder().
			AppendString("version", "6.0.0").
			AppendArray("versionArray", bsoncore.NewArrayBuilder().
				AppendInt32(6).AppendInt32(0).AppendInt32(0).AppendInt32(0).Build()).
			AppendInt32("maxBsonObjectSize", 16*1024*1024).
			AppendDouble("ok", 1).Build()
)

// handshakeReply is what the driver needs to see a writable standalone
// MongoDB 6.0: wire version 17, sizes and batch limits, and a session timeout
// (without it driver v2 considers sessions unsupported, which is not what a
// loader meets in production: it would skip the lsid it otherwise sends with
// every command), the connection's id and the server's topologyVersion
// (counter 0: a standalone's topology does not change), and no compressors.
// A mongos's reply also has msg: "isdbgrid" (what a real mongos's hello
// adds).
func handshakeReply(primaryKey string, connectionID int64, processID bson.ObjectID, mongos bool) []byte {
	b := bsoncore.NewDocumentBuilder()
	if mongos {
		b.AppendString("msg", "isdbgrid")
	}
	b.AppendBoolean("helloOk", true).AppendBoolean(primaryKey, true)
	return appendServerFields(b, processID, 0, connectionID).Build()
}

// appendServerFields appends what every hello of this server ends with:
// its topologyVersion (counter), the connection's id, MongoDB 6.0's
// limits and wire versions, and ok.
func appendServerFields(b *bsoncore.DocumentBuilder, processID bson.ObjectID, counter, connectionID int64) *bsoncore.DocumentBuilder {
	return b.
		AppendDocument("topologyVersion", bsoncore.NewDocumentBuilder().
			AppendObjectID("processId", processID).AppendInt64("counter", counter).Build()).
		AppendInt64("connectionId", connectionID).
		AppendInt32("maxBsonObjectSize", 16*1024*1024).
		AppendInt32("maxMessageSizeBytes", maxMessageSize).
		AppendInt32("maxWriteBatchSize", 100_000).
		AppendInt32("logicalSessionTimeoutMinutes", 30).
		AppendInt32("minWireVersion", 0).
		AppendInt32("maxWireVersion", 17).
		AppendBoolean("readOnly", false).
		AppendDouble("ok", 1)
}

// cannedDocs holds MaxFindBatch YCSB-shaped documents already encoded as the
// elements of the firstBatch array ("0": {...}, "1": {...}, ...), back to
// back, so a find reply of n documents copies one prefix of elems.
type cannedDocs struct {
	elems []byte
	ends  [MaxFindBatch + 1]int // ends[n]: length of the first n elements
}

var canned = newCannedDocs()

func newCannedDocs() *cannedDocs {
	// Fixed seed: every run serves the same bytes.
	rng := rand.New(rand.NewPCG(1, 2))
	c := &cannedDocs{}
	for i := range MaxFindBatch {
		b := bsoncore.NewDocumentBuilder().
			AppendString("_id", "user"+strconv.FormatUint(rng.Uint64()>>1, 10))
		for f := range cannedFields {
			v := make([]byte, cannedFieldSize)
			for j := range v {
				v[j] = byte(rng.Uint32())
			}
			b.AppendBinary("field"+strconv.Itoa(f), 0, v)
		}
		c.elems = bsoncore.AppendDocumentElement(c.elems, strconv.Itoa(i), b.Build())
		c.ends[i+1] = len(c.elems)
	}
	return c
}

// appendFindReply appends {cursor: {firstBatch: [n docs], id: 0, ns}, ok: 1}.
func (c *cannedDocs) appendFindReply(out []byte, n int) []byte {
	start := len(out)
	out = binary.LittleEndian.AppendUint32(out, 0) // reply length, patched below
	out = append(out, byte(bsoncore.TypeEmbeddedDocument))
	out = append(out, "cursor\x00"...)
	cursorStart := len(out)
	out = binary.LittleEndian.AppendUint32(out, 0)
	out = append(out, byte(bsoncore.TypeArray))
	out = append(out, "firstBatch\x00"...)
	arrStart := len(out)
	out = binary.LittleEndian.AppendUint32(out, 0)
	out = append(out, c.elems[:c.ends[n]]...)
	out = append(out, 0)
	binary.LittleEndian.PutUint32(out[arrStart:], uint32(len(out)-arrStart))
	out = bsoncore.AppendInt64Element(out, "id", 0)
	out = bsoncore.AppendStringElement(out, "ns", "ycsb.usertable")
	out = append(out, 0)
	binary.LittleEndian.PutUint32(out[cursorStart:], uint32(len(out)-cursorStart))
	out = append(out, okElement[:]...)
	binary.LittleEndian.PutUint32(out[start:], uint32(len(out)-start))
	return out
}

// CannedDocument returns canned document i (0 <= i < MaxFindBatch), as find
// replies carry it.
func CannedDocument(i int) bson.Raw {
	v := bsoncore.Document(canned.elems[canned.ends[i]:canned.ends[i+1]])
	// Skip the element's type byte and its key ("i\x00").
	key := bytes.IndexByte(v[1:], 0)
	return bson.Raw(v[1+key+1:])
}

// statsCommand asks the server for Stats; see QueryStats.
const statsCommand = "stubmongoStats"

// appendStats encodes Stats of this process (the server's) as a reply.
func (s *Server) appendStats(out []byte) []byte {
	c := s.Counts()
	user, sys := processCPU()
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return append(out, bsoncore.NewDocumentBuilder().
		AppendInt64("handshake", int64(c.Handshake)).
		AppendInt64("insert", int64(c.Insert)).
		AppendInt64("update", int64(c.Update)).
		AppendInt64("delete", int64(c.Delete)).
		AppendInt64("find", int64(c.Find)).
		AppendInt64("other", int64(c.Other)).
		AppendInt64("insertedDocs", int64(c.InsertedDocs)).
		AppendInt64("cpuUserNanos", user.Nanoseconds()).
		AppendInt64("cpuSysNanos", sys.Nanoseconds()).
		AppendInt64("sleeps", ru.Nvcsw).
		AppendDouble("ok", 1).
		Build()...)
}

// processCPU returns the user and system CPU time of this process (all
// threads), from getrusage(RUSAGE_SELF).
func processCPU() (user, sys time.Duration) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
}

// ProcessCPU returns this process's CPU time (user + system, all threads).
func ProcessCPU() time.Duration {
	user, sys := processCPU()
	return user + sys
}

// Connections is the number of connections the server accepted so far.
func (s *Server) Connections() int64 { return s.connections.Load() }
