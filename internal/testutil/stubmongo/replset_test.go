package stubmongo_test

import (
	"encoding/binary"
	"io"
	"net"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/testutil/stubmongo"
)

// TestReplicaSetStepDown: the driver discovers the one-member replica set
// (its primary serves writes), a replSetStepDown answers ok and makes
// writes fail with NotWritablePrimary and reads with
// NotPrimaryNoSecondaryOk (with retryWrites and retryReads off, so the
// first attempt's error is what the test sees), and the member is primary
// again, under a greater electionId, once the set time passed.
func TestReplicaSetStepDown(t *testing.T) {
	const down = 300 * time.Millisecond
	srv := stubmongo.Start(t, stubmongo.ReplicaSet("rs0", down))
	ctx, client := connect(t, srv.ReplicaSetURI()+"&retryWrites=false&retryReads=false")
	coll := client.Database("ycsb").Collection("usertable")
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: "a"}}); err != nil {
		t.Fatalf("insert on the primary: %v", err)
	}
	if err := client.Database("admin").RunCommand(ctx, bson.D{{Key: "replSetStepDown", Value: 60}}).Err(); err != nil {
		t.Fatalf("replSetStepDown: %v", err)
	}
	if srv.StepDowns() != 1 || srv.IsPrimary() {
		t.Fatalf("after one stepdown: %d stepdowns seen, primary %v", srv.StepDowns(), srv.IsPrimary())
	}
	steppedDown := time.Now()
	// What a write meets on the secondary, on the wire: NotWritablePrimary,
	// labelled retryable when it is a retryable write (txnNumber).
	for _, retryable := range []bool{false, true} {
		cmd := bson.D{{Key: "insert", Value: "usertable"}, {Key: "documents", Value: bson.A{bson.D{{Key: "_id", Value: "b"}}}},
			{Key: "$db", Value: "ycsb"}}
		if retryable {
			cmd = append(cmd, bson.E{Key: "txnNumber", Value: int64(1)})
		}
		reply := rawCommand(t, srv.Addr(), cmd)
		code, _ := reply.Lookup("code").Int32OK()
		_, labelled := reply.Lookup("errorLabels").ArrayOK()
		if code != 10107 || reply.Lookup("codeName").StringValue() != "NotWritablePrimary" || labelled != retryable {
			t.Errorf("insert (retryable %v) on the secondary: %v, want NotWritablePrimary 10107", retryable, reply)
		}
	}
	// The driver learns of the stepdown from its held hello (or from a
	// write refused before it did, retryWrites being off): then a write
	// waits for a primary, and gets one when the member is elected again.
	for attempt := 1; ; attempt++ {
		_, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: "c"}})
		if err == nil {
			break
		}
		if attempt == 2 {
			t.Fatalf("insert once primary again: %v", err)
		}
	}
	if waited := time.Since(steppedDown); waited < down-50*time.Millisecond {
		t.Errorf("the write succeeded %v after the stepdown, before the member was primary again (%v)", waited, down)
	}
	if !srv.IsPrimary() {
		t.Error("the member is not primary again")
	}
	// Reads on the secondary: refused without a read preference that
	// allows a secondary (sent on the wire as is: the driver adds
	// primaryPreferred on a direct connection), served with one.
	if err := client.Database("admin").RunCommand(ctx, bson.D{{Key: "replSetStepDown", Value: 60}}).Err(); err != nil {
		t.Fatalf("second replSetStepDown: %v", err)
	}
	reply := rawCommand(t, srv.Addr(), bson.D{{Key: "find", Value: "usertable"}, {Key: "$db", Value: "ycsb"}})
	if code, _ := reply.Lookup("code").Int32OK(); code != 13435 || reply.Lookup("codeName").StringValue() != "NotPrimaryNoSecondaryOk" {
		t.Errorf("find on the secondary: %v, want NotPrimaryNoSecondaryOk 13435", reply)
	}
	_, direct := connect(t, srv.URI())
	if err := direct.Database("ycsb").Collection("usertable").FindOne(ctx, bson.D{}).Err(); err != nil {
		t.Errorf("find primaryPreferred on the secondary: %v", err)
	}
	if srv.StepDowns() != 2 {
		t.Errorf("%d stepdowns seen, want 2", srv.StepDowns())
	}
}

// rawCommand sends one OP_MSG command on a connection of its own and
// returns the reply's body.
func rawCommand(t *testing.T, addr string, cmd bson.D) bson.Raw {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close() }()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	body, err := bson.Marshal(cmd)
	if err != nil {
		t.Fatal(err)
	}
	msg := make([]byte, 16, 21+len(body))
	binary.LittleEndian.PutUint32(msg[4:], 1)     // requestID
	binary.LittleEndian.PutUint32(msg[12:], 2013) // OP_MSG
	msg = binary.LittleEndian.AppendUint32(msg, 0)
	msg = append(msg, 0)
	msg = append(msg, body...)
	binary.LittleEndian.PutUint32(msg, uint32(len(msg)))
	if _, err := c.Write(msg); err != nil {
		t.Fatal(err)
	}
	var hdr [16]byte
	if _, err := io.ReadFull(c, hdr[:]); err != nil {
		t.Fatal(err)
	}
	rest := make([]byte, binary.LittleEndian.Uint32(hdr[:])-16)
	if _, err := io.ReadFull(c, rest); err != nil {
		t.Fatal(err)
	}
	return bson.Raw(rest[5:]) // flagBits, section kind 0
}
