package mongodb

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/mongobench/mongobench/internal/testutil/wireserver"
	"github.com/mongobench/mongobench/internal/ycsb"
)

// The binding against mongo-java-server: a real, independent
// implementation of the wire protocol (internal/testutil/wireserver).

func newTestClient(t *testing.T, uri string, kv ...string) (*Client, *bytes.Buffer) {
	t.Helper()
	cfg, err := ConfigFromProperties(props(t, append([]string{"mongodb.url=" + uri}, kv...)...))
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	c, err := NewClient(context.Background(), cfg, &syncWriter{w: &log})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	return c, &log
}

type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func record(i int) []ycsb.Field {
	fields := make([]ycsb.Field, 3)
	for f := range fields {
		fields[f] = ycsb.Field{Name: "field" + strconv.Itoa(f), Value: []byte(strings.Repeat(strconv.Itoa(i%10), 10+f))}
	}
	return fields
}

func key(i int) []byte { return ycsb.BuildKeyName(nil, int64(i), 1, false) }

// bindingFixture is a Client and a DB on a fresh database holding records
// 0..n-1 inserted through the binding.
type bindingFixture struct {
	c    *Client
	d    *DB
	log  *bytes.Buffer
	coll *mongo.Collection
}

const fixtureTable = "usertable"

func newBindingFixture(t *testing.T, n int) *bindingFixture {
	t.Helper()
	srv := wireserver.Shared(t)
	name, db := wireserver.TestDatabase(t, srv)
	c, log := newTestClient(t, wireserver.DatabaseURI(srv.Addr(), name))
	f := &bindingFixture{c: c, d: c.NewDB(), log: log, coll: db.Collection(fixtureTable)}
	for i := range n {
		if st := f.d.Insert(context.Background(), fixtureTable, key(i), record(i)); st != ycsb.StatusOK {
			t.Fatalf("insert %d: %v", i, st)
		}
	}
	return f
}

func TestBindingInsert(t *testing.T) {
	f := newBindingFixture(t, 20)
	ctx := context.Background()
	// The stored shape: {_id: string, fieldN: BinData(0)}.
	raw, err := f.coll.FindOne(ctx, bson.D{{Key: "_id", Value: string(key(3))}}).Raw()
	if err != nil {
		t.Fatal(err)
	}
	want, _ := bson.Marshal(bson.D{{Key: "_id", Value: string(key(3))},
		{Key: "field0", Value: bson.Binary{Data: record(3)[0].Value}},
		{Key: "field1", Value: bson.Binary{Data: record(3)[1].Value}},
		{Key: "field2", Value: bson.Binary{Data: record(3)[2].Value}}})
	if !bytes.Equal(raw, want) {
		t.Errorf("stored document %v, want %v", raw, bson.Raw(want))
	}
	if st := f.d.Insert(ctx, fixtureTable, key(3), record(3)); st != ycsb.StatusError {
		t.Errorf("duplicate insert: %v, want ERROR", st)
	}
	if !strings.Contains(f.log.String(), "INSERT "+string(key(3))) || !strings.Contains(f.log.String(), "E11000") {
		t.Errorf("the duplicate key error is not logged:\n%s", f.log)
	}
	if first, n := f.c.FirstError(); n != 1 || !strings.Contains(first, "E11000") {
		t.Errorf("first error %q of %d", first, n)
	}
	if n, err := f.d.Cleanup(ctx); n != 0 || err != nil {
		t.Errorf("cleanup: %d %v", n, err)
	}
}

func TestBindingRead(t *testing.T) {
	f := newBindingFixture(t, 10)
	ctx := context.Background()
	var result []ycsb.Field
	if st := f.d.Read(ctx, fixtureTable, key(5), nil, &result); st != ycsb.StatusOK {
		t.Fatalf("read: %v", st)
	}
	if len(result) != 3 || result[2].Name != "field2" || !bytes.Equal(result[2].Value, record(5)[2].Value) {
		t.Errorf("read result %+v", result)
	}
	result = result[:0]
	if st := f.d.Read(ctx, fixtureTable, key(5), []string{"field1"}, &result); st != ycsb.StatusOK || len(result) != 1 || result[0].Name != "field1" {
		t.Errorf("projected read: %v %+v", st, result)
	}
	if st := f.d.Read(ctx, fixtureTable, key(5), nil, nil); st != ycsb.StatusOK {
		t.Errorf("read without result: %v", st)
	}
	if st := f.d.Read(ctx, fixtureTable, key(999), nil, nil); st != ycsb.StatusNotFound {
		t.Errorf("read of a missing key: %v, want NOT_FOUND", st)
	}
}

func TestBindingUpdateAndDelete(t *testing.T) {
	f := newBindingFixture(t, 10)
	ctx := context.Background()
	// $set of the given fields only.
	if st := f.d.Update(ctx, fixtureTable, key(7), []ycsb.Field{{Name: "field1", Value: []byte("new")}}); st != ycsb.StatusOK {
		t.Fatalf("update: %v", st)
	}
	var got struct {
		F0 []byte `bson:"field0"`
		F1 []byte `bson:"field1"`
	}
	if err := f.coll.FindOne(ctx, bson.D{{Key: "_id", Value: string(key(7))}}).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if string(got.F1) != "new" || !bytes.Equal(got.F0, record(7)[0].Value) {
		t.Errorf("after update: %q %q", got.F0, got.F1)
	}
	if st := f.d.Update(ctx, fixtureTable, key(999), record(1)); st != ycsb.StatusNotFound {
		t.Errorf("update of a missing key: %v, want NOT_FOUND", st)
	}
	if !strings.Contains(f.log.String(), "nothing updated (NOT_FOUND)") {
		t.Errorf("log:\n%s", f.log)
	}
	if st := f.d.Delete(ctx, fixtureTable, key(8)); st != ycsb.StatusOK {
		t.Errorf("delete: %v", st)
	}
	if st := f.d.Delete(ctx, fixtureTable, key(8)); st != ycsb.StatusNotFound {
		t.Errorf("second delete: %v, want NOT_FOUND", st)
	}
}

// TestBindingScan: ranges in _id order from the start key, limited.
func TestBindingScan(t *testing.T) {
	f := newBindingFixture(t, 20)
	ctx := context.Background()
	keys := make([]string, 20)
	for i := range keys {
		keys[i] = string(key(i))
	}
	slices.Sort(keys)
	for _, tc := range []struct{ from, count int }{{0, 1}, {0, 5}, {3, 100}, {10, 4}, {18, 10}} {
		var ids []string
		n, err := f.d.scan(ctx, fixtureTable, []byte(keys[tc.from]), tc.count, nil, func(doc bson.Raw) {
			ids = append(ids, doc.Lookup("_id").StringValue())
		})
		wantIDs := keys[tc.from:min(tc.from+tc.count, len(keys))]
		if err != nil || n != len(wantIDs) || !slices.Equal(ids, wantIDs) {
			t.Errorf("scan from %s count %d: %d %v %v, want %v", keys[tc.from], tc.count, n, err, ids, wantIDs)
		}
	}
	// Between two keys: from the next one.
	var ids []string
	if _, err := f.d.scan(ctx, fixtureTable, []byte(keys[4]+"0"), 2, nil, func(doc bson.Raw) {
		ids = append(ids, doc.Lookup("_id").StringValue())
	}); err != nil || !slices.Equal(ids, keys[5:7]) {
		t.Errorf("scan from between keys: %v %v, want %v", ids, err, keys[5:7])
	}
	if st := f.d.Scan(ctx, fixtureTable, []byte(keys[2]), 3, []string{"field0"}); st != ycsb.StatusOK {
		t.Errorf("projected scan: %v", st)
	}
	if st := f.d.Scan(ctx, fixtureTable, []byte("user~"), 10, nil); st != ycsb.StatusNotFound {
		t.Errorf("scan past the last key: %v, want NOT_FOUND", st)
	}
}

func TestBindingUpsert(t *testing.T) {
	srv := wireserver.Shared(t)
	name, db := wireserver.TestDatabase(t, srv)
	for _, batch := range []string{"1", "3"} {
		c, _ := newTestClient(t, wireserver.DatabaseURI(srv.Addr(), name), "mongodb.upsert=true", "batchsize="+batch)
		d := c.NewDB()
		for i := range 4 {
			if st := d.Insert(context.Background(), "t", key(i), record(i+len(batch))); !st.IsOK() {
				t.Fatalf("batchsize %s: upsert %d: %v", batch, i, st)
			}
		}
		if lost, err := d.Cleanup(context.Background()); lost != 0 || err != nil {
			t.Fatalf("cleanup: %d %v", lost, err)
		}
	}
	n, err := db.Collection("t").CountDocuments(context.Background(), bson.D{})
	if err != nil || n != 4 {
		t.Errorf("%d documents (%v) after upserting the same 4 keys twice", n, err)
	}
}

func TestBindingBatches(t *testing.T) {
	srv := wireserver.Shared(t)
	name, db := wireserver.TestDatabase(t, srv)
	c, _ := newTestClient(t, wireserver.DatabaseURI(srv.Addr(), name), "batchsize=4")
	ctx := context.Background()
	coll := db.Collection("t")
	count := func() int64 {
		n, err := coll.CountDocuments(ctx, bson.D{})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}

	d := c.NewDB()
	var statuses []ycsb.Status
	for i := range 10 {
		statuses = append(statuses, d.Insert(ctx, "t", key(i), record(i)))
	}
	B, O := ycsb.StatusBatchedOK, ycsb.StatusOK
	if want := []ycsb.Status{B, B, B, O, B, B, B, O, B, B}; !slices.Equal(statuses, want) {
		t.Errorf("statuses %v, want %v", statuses, want)
	}
	if n := count(); n != 8 {
		t.Errorf("%d documents before the final flush, want 8", n)
	}
	if lost, err := d.Cleanup(ctx); lost != 0 || err != nil {
		t.Errorf("cleanup: %d %v", lost, err)
	}
	if n := count(); n != 10 {
		t.Errorf("%d documents after the final flush, want 10", n)
	}

	// A duplicate in the middle of a batch: the others are written (the
	// insert is unordered), the duplicate is lost; a duplicate completing a
	// batch is that insert's ERROR. The final flush's loss is an error.
	d = c.NewDB()
	got := []ycsb.Status{
		d.Insert(ctx, "t", key(100), record(0)), d.Insert(ctx, "t", key(2), record(0)), // duplicate, lost
		d.Insert(ctx, "t", key(101), record(0)), d.Insert(ctx, "t", key(102), record(0)),
		d.Insert(ctx, "t", key(103), record(0)), d.Insert(ctx, "t", key(104), record(0)),
		d.Insert(ctx, "t", key(105), record(0)), d.Insert(ctx, "t", key(3), record(0)), // duplicate, its ERROR
		d.Insert(ctx, "t", key(4), record(0)), // duplicate, final flush
	}
	if want := []ycsb.Status{B, B, B, O, B, B, B, ycsb.StatusError, B}; !slices.Equal(got, want) {
		t.Errorf("statuses %v, want %v", got, want)
	}
	lost, err := d.Cleanup(ctx)
	if lost != 2 || err == nil || !strings.Contains(err.Error(), "1 of 1 buffered inserts not written") {
		t.Errorf("cleanup: lost %d, err %v; want 2 lost and the final flush's error", lost, err)
	}
	if n := count(); n != 16 {
		t.Errorf("%d documents, want 16", n)
	}
}

// freezeProxy forwards TCP connections to a backend and can hold back the
// backend's replies: a server that accepts requests and never answers.
type freezeProxy struct {
	ln      net.Listener
	backend string
	mu      sync.Mutex
	thaw    chan struct{} // nil when not frozen
	conns   []net.Conn
}

func startFreezeProxy(t *testing.T, backend string) *freezeProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &freezeProxy{ln: ln, backend: backend}
	go p.accept()
	t.Cleanup(func() {
		p.setFrozen(false)
		_ = ln.Close()
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, c := range p.conns {
			_ = c.Close()
		}
	})
	return p
}

func (p *freezeProxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		b, err := net.Dial("tcp", p.backend)
		if err != nil {
			_ = c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, b)
		p.mu.Unlock()
		go func() { _, _ = io.Copy(b, c); _ = b.Close() }()
		go p.replies(c, b)
	}
}

func (p *freezeProxy) replies(dst, src net.Conn) {
	defer func() { _ = dst.Close() }()
	buf := make([]byte, 64<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.mu.Lock()
			thaw := p.thaw
			p.mu.Unlock()
			if thaw != nil {
				<-thaw
			}
			if _, err := dst.Write(buf[:n]); err != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (p *freezeProxy) setFrozen(frozen bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case frozen && p.thaw == nil:
		p.thaw = make(chan struct{})
	case !frozen && p.thaw != nil:
		close(p.thaw)
		p.thaw = nil
	}
}

// TestOperationTimeoutEndsHungCalls: a server that stops answering makes a
// call fail with ERROR once mongodb.operationtimeout has passed (the
// watchdog cancels it), and the thread's next call works again.
func TestOperationTimeoutEndsHungCalls(t *testing.T) {
	srv := wireserver.Shared(t)
	name, _ := wireserver.TestDatabase(t, srv)
	proxy := startFreezeProxy(t, srv.Addr())
	const timeout = 300 * time.Millisecond
	c, log := newTestClient(t, wireserver.DatabaseURI(proxy.ln.Addr().String(), name), "mongodb.operationtimeout=300ms")
	d := c.NewDB()
	ctx := context.Background()
	if st := d.Insert(ctx, "t", key(1), record(1)); st != ycsb.StatusOK {
		t.Fatalf("insert: %v", st)
	}

	proxy.setFrozen(true)
	start := time.Now()
	st := d.Read(ctx, "t", key(1), nil, nil)
	took := time.Since(start)
	proxy.setFrozen(false)
	if st != ycsb.StatusError || !strings.Contains(log.String(), "context canceled") {
		t.Errorf("hung read: %v, log:\n%s", st, log)
	}
	if took < timeout || took > timeout+watchdogTick(timeout)+2*time.Second {
		t.Errorf("hung read returned after %v; timeout %v", took, timeout)
	}
	if st := d.Read(ctx, "t", key(1), nil, nil); st != ycsb.StatusOK {
		t.Errorf("read after the hang: %v", st)
	}
}

// TestCancelledParentEndsCalls: the engine cancels the operations' context
// at the end of a stop's grace; calls then end at once.
func TestCancelledParentEndsCalls(t *testing.T) {
	srv := wireserver.Shared(t)
	name, _ := wireserver.TestDatabase(t, srv)
	proxy := startFreezeProxy(t, srv.Addr())
	c, _ := newTestClient(t, wireserver.DatabaseURI(proxy.ln.Addr().String(), name))
	d := c.NewDB()
	ctx, cancel := context.WithCancel(context.Background())
	if st := d.Update(ctx, "t", key(1), record(1)); st != ycsb.StatusNotFound {
		t.Fatalf("update: %v", st)
	}
	proxy.setFrozen(true)
	defer proxy.setFrozen(false)
	done := make(chan ycsb.Status)
	go func() { done <- d.Read(ctx, "t", key(1), nil, nil) }()
	time.AfterFunc(100*time.Millisecond, cancel)
	select {
	case st := <-done:
		if st != ycsb.StatusError {
			t.Errorf("read: %v, want ERROR", st)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the read outlived its cancelled context by 10 s (operation timeout 30 s)")
	}
	if errors.Is(ctx.Err(), context.Canceled) && d.guard.ctx.Err() == nil {
		t.Error("the thread's context outlived its cancelled parent")
	}
}
