package stubmongo

import (
	"encoding/binary"
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// encodeOpMsg encodes an OP_MSG request: body plus an optional document sequence.
func encodeOpMsg(body bsoncore.Document, seqID string, seq ...bsoncore.Document) []byte {
	msg := appendHeader(nil, 0, opMsg)
	binary.LittleEndian.PutUint32(msg[4:], 42) // requestID
	msg = binary.LittleEndian.AppendUint32(msg, 0)
	msg = append(msg, 0)
	msg = append(msg, body...)
	if seqID != "" {
		msg = append(msg, 1)
		start := len(msg)
		msg = binary.LittleEndian.AppendUint32(msg, 0)
		msg = append(msg, seqID...)
		msg = append(msg, 0)
		for _, d := range seq {
			msg = append(msg, d...)
		}
		binary.LittleEndian.PutUint32(msg[start:], uint32(len(msg)-start))
	}
	binary.LittleEndian.PutUint32(msg, uint32(len(msg)))
	return msg
}

// replyBody checks an OP_MSG reply's framing and returns its body.
func replyBody(t *testing.T, out []byte) bsoncore.Document {
	t.Helper()
	if len(out) < 21 || int(binary.LittleEndian.Uint32(out)) != len(out) {
		t.Fatalf("reply length field %d, reply %d bytes", binary.LittleEndian.Uint32(out), len(out))
	}
	if to, op := binary.LittleEndian.Uint32(out[8:]), binary.LittleEndian.Uint32(out[12:]); to != 42 || op != opMsg {
		t.Fatalf("reply responseTo %d opcode %d, want 42 %d", to, op, opMsg)
	}
	body := bsoncore.Document(out[21:])
	if err := body.Validate(); err != nil {
		t.Fatalf("reply body is not valid BSON: %v", err)
	}
	return body
}

// TestHandleAllocs: the hot commands are answered without allocating, into
// a reused buffer, and the replies are valid.
func TestHandleAllocs(t *testing.T) {
	doc := bsoncore.NewDocumentBuilder().AppendString("_id", "user1").Build()
	cases := []struct {
		name string
		msg  []byte
		want string // the reply, as extended JSON
	}{
		{"insert", encodeOpMsg(bsoncore.NewDocumentBuilder().AppendString("insert", "usertable").AppendString("$db", "ycsb").Build(),
			"documents", doc, doc, doc), `{"n": {"$numberInt":"3"},"ok": {"$numberDouble":"1.0"}}`},
		{"update", encodeOpMsg(bsoncore.NewDocumentBuilder().AppendString("update", "usertable").Build(), "updates", doc),
			`{"n": {"$numberInt":"1"},"nModified": {"$numberInt":"1"},"ok": {"$numberDouble":"1.0"}}`},
		{"delete", encodeOpMsg(bsoncore.NewDocumentBuilder().AppendString("delete", "usertable").Build(), "deletes", doc, doc),
			`{"n": {"$numberInt":"2"},"ok": {"$numberDouble":"1.0"}}`},
		{"find", encodeOpMsg(bsoncore.NewDocumentBuilder().AppendString("find", "usertable").
			AppendDocument("filter", doc).AppendInt64("limit", 1).AppendBoolean("singleBatch", true).Build(), ""), ""},
		{"scan", encodeOpMsg(bsoncore.NewDocumentBuilder().AppendString("find", "usertable").AppendInt64("limit", 50).Build(), ""), ""},
	}
	h := handler{s: &Server{}}
	var out []byte
	for _, c := range cases {
		var err error
		out, err = h.handle(out[:0], c.msg)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		body := replyBody(t, out)
		if c.want != "" && body.String() != c.want {
			t.Errorf("%s: reply %s, want %s", c.name, body, c.want)
		}
		allocs := testing.AllocsPerRun(100, func() { out, _ = h.handle(out[:0], c.msg) })
		if allocs != 0 {
			t.Errorf("%s: %v allocations per request, want 0", c.name, allocs)
		}
	}
	// Each case ran 1 + 101 times (AllocsPerRun warms up once).
	want := Counts{Insert: 102, InsertedDocs: 306, Update: 102, Delete: 102, Find: 204}
	if got := h.s.Counts(); got != want {
		t.Errorf("counts %+v, want %+v", got, want)
	}
}

func TestFindCount(t *testing.T) {
	for _, c := range []struct {
		limit any
		want  int
	}{{nil, 1}, {int64(0), 1}, {int64(-1), 1}, {int64(7), 7}, {int32(5), 5}, {int64(-30), 30}, {int64(1000), MaxFindBatch}, {2.0, 2}} {
		b := bsoncore.NewDocumentBuilder().AppendString("find", "c")
		switch v := c.limit.(type) {
		case int64:
			b.AppendInt64("limit", v)
		case int32:
			b.AppendInt32("limit", v)
		case float64:
			b.AppendDouble("limit", v)
		}
		if got := findCount(b.Build()); got != c.want {
			t.Errorf("limit %v: %d documents, want %d", c.limit, got, c.want)
		}
	}
}
