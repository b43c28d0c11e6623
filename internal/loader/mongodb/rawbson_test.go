package mongodb

import (
	"bytes"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/ycsb"
)

// The raw builders must produce exactly what the driver's marshaller makes
// of the equivalent bson.D (YCSB's document shape).
func TestRawBuildersMatchTheDriversMarshalling(t *testing.T) {
	key := []byte("user6284781860667377211")
	fields := []ycsb.Field{{Name: "field0", Value: []byte("abc")}, {Name: "field1", Value: []byte{}}, {Name: "f2", Value: bytes.Repeat([]byte{' '}, 100)}}
	bin := func(b []byte) bson.Binary { return bson.Binary{Subtype: 0, Data: b} }
	marshal := func(v any) []byte {
		b, err := bson.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, tc := range []struct {
		name      string
		got, want []byte
	}{
		{"document", appendDocument(nil, key, fields), marshal(bson.D{
			{Key: "_id", Value: string(key)}, {Key: "field0", Value: bin([]byte("abc"))}, {Key: "field1", Value: bin([]byte{})},
			{Key: "f2", Value: bin(fields[2].Value)},
		})},
		{"id filter", appendIDFilter(nil, key), marshal(bson.D{{Key: "_id", Value: string(key)}})},
		{"scan filter", appendScanFilter(nil, key), marshal(bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: string(key)}}}})},
		{"$set", appendSetUpdate(nil, fields[:1]), marshal(bson.D{{Key: "$set", Value: bson.D{{Key: "field0", Value: bin([]byte("abc"))}}}})},
		{"projection", projection([]string{"field3", "field7"}), marshal(bson.D{{Key: "field3", Value: int32(1)}, {Key: "field7", Value: int32(1)}})},
		{"sort", sortByID, marshal(bson.D{{Key: "_id", Value: int32(1)}})},
		{"appends", appendIDFilter([]byte("prefix"), key), append([]byte("prefix"), marshal(bson.D{{Key: "_id", Value: string(key)}})...)},
	} {
		if !bytes.Equal(tc.got, tc.want) {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, tc.got, tc.want)
		}
	}
	doc := appendDocument(nil, key, fields)
	if id := documentID(doc); !bytes.Equal(id, key) {
		t.Errorf("documentID = %q", id)
	}
	if id := documentID([]byte{5, 0, 0, 0, 0}); id != nil {
		t.Errorf("documentID of {} = %q", id)
	}
}

func TestRawBuildersDoNotAllocate(t *testing.T) {
	key := []byte("user1")
	fields := []ycsb.Field{{Name: "field0", Value: make([]byte, 100)}, {Name: "field1", Value: make([]byte, 100)}}
	buf := make([]byte, 0, 1024)
	if a := testing.AllocsPerRun(100, func() {
		buf = appendDocument(buf[:0], key, fields)
		buf = appendIDFilter(buf[:0], key)
		buf = appendScanFilter(buf[:0], key)
		buf = appendSetUpdate(buf[:0], fields)
	}); a != 0 {
		t.Errorf("%v allocations", a)
	}
}

// rawArgSink makes TestRawArgReusesItsBox's boxes escape, as the driver's
// arguments do.
var rawArgSink any

// TestRawArgReusesItsBox: a buffer rewritten in place with the same
// length is handed over again without allocating (in the same box), and
// the box shows the new bytes; another length or another buffer gets a
// box of its own.
func TestRawArgReusesItsBox(t *testing.T) {
	var a rawArg
	buf := appendIDFilter(make([]byte, 0, 64), []byte("user1"))
	_ = a.of(buf)
	buf = appendIDFilter(buf[:0], []byte("user2"))
	// Into a sink, as the driver's argument escapes: a box the compiler
	// could keep on the stack would not count.
	if allocs := testing.AllocsPerRun(100, func() { rawArgSink = a.of(buf) }); allocs != 0 {
		t.Errorf("the same buffer and length: %v allocations", allocs)
	}
	again := a.of(buf)
	if r, ok := again.(bson.Raw); !ok || !bytes.Equal(r, buf) {
		t.Errorf("the box holds %v, want the rewritten bson.Raw %v", again, bson.Raw(buf))
	}
	buf = appendIDFilter(buf[:0], []byte("user10"))
	if r := a.of(buf).(bson.Raw); !bytes.Equal(r, buf) {
		t.Errorf("a longer filter: the box holds %d bytes %x, want %d bytes %x", len(r), []byte(r), len(buf), buf)
	}
	other := appendIDFilter(nil, []byte("user10"))
	if r := a.of(other).(bson.Raw); len(r) == 0 || &r[0] != &other[0] {
		t.Errorf("another buffer of the same length: the box does not point at it")
	}
	if r := a.of(nil).(bson.Raw); r != nil {
		t.Errorf("an empty buffer: %v", r)
	}
}

func TestAppendBinaryFields(t *testing.T) {
	doc := bson.Raw(appendDocument(nil, []byte("user1"), []ycsb.Field{{Name: "field0", Value: []byte("v0")}, {Name: "field1", Value: []byte("v1")}}))
	var got []ycsb.Field
	if err := appendBinaryFields(&got, doc, []string{"field1"}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Name != "field0" || string(got[0].Value) != "v0" || got[1].Name != "field1" || string(got[1].Value) != "v1" {
		t.Errorf("got %+v", got)
	}
	names := []string{"field0", "field1"}
	got = got[:0]
	if a := testing.AllocsPerRun(100, func() {
		got = got[:0]
		_ = appendBinaryFields(&got, doc, names)
	}); a != 0 {
		t.Errorf("%v allocations with known names", a)
	}
	if err := appendBinaryFields(&got, bson.Raw{1, 2}, nil); err == nil {
		t.Error("no error for a truncated document")
	}
}

func TestProjectionCache(t *testing.T) {
	var pc projectionCache
	if pc.get(nil) != nil {
		t.Fatal("nil fields must mean no projection")
	}
	one := []string{"field3"}
	p := pc.get(one)
	if !bytes.Equal(p.(bson.Raw), projection(one)) {
		t.Fatalf("projection %v", p)
	}
	all := []string{"field0", "field1"}
	if a := testing.AllocsPerRun(100, func() { _, _ = pc.get(one), pc.get(all) }); a != 0 {
		t.Errorf("cached projections allocate: %v", a)
	}
	if got := pc.get([]string{"field0", "field2"}).(bson.Raw); !bytes.Equal(got, projection([]string{"field0", "field2"})) {
		t.Errorf("a changed field list kept the old projection: %v", got)
	}
}
