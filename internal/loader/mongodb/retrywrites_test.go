package mongodb

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/testutil/stubmongo"
	"github.com/mongobench/mongobench/internal/ycsb"
)

// TestRetryableWritesOnlyWhenAsked drives the binding, configured from
// properties as the loader configures it, against a stub that answers hello
// as a mongos (msg "isdbgrid", a session timeout, wire version 17), and
// reads what arrived on the wire. The Go driver defaults retryWrites to
// true and uses it against mongos and replica sets only
// (x/mongo/driver/operation.go: addSession appends txnNumber when
// `op.Type == Write && retryWrite`; retryWritesSupported needs a session
// timeout and a kind other than Standalone). So by default, and with the
// run's URL (retryWrites=false), no write may carry a txnNumber: not an
// insert, an update, a read-modify-write's update, a delete or a batch's
// insertMany. With retryWrites=true every one of them does, and a
// standalone never gets one whatever the URL says.
func TestRetryableWritesOnlyWhenAsked(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mongos bool
		query  string // mongodb.url's options
		want   bool   // writes carry txnNumber
	}{
		{"mongos, the binding's default", true, "", false},
		{"mongos, the run's URL", true, "?w=1&readPreference=primary&retryWrites=false", false},
		{"mongos, retryWrites=true", true, "?w=1&retryWrites=true", true},
		{"standalone, retryWrites=true", false, "?retryWrites=true", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := []stubmongo.Option{stubmongo.Record()}
			if tc.mongos {
				opts = append(opts, stubmongo.AsMongos())
			}
			srv := stubmongo.Start(t, opts...)
			url := "mongodb://" + srv.Addr() + "/ycsb" + tc.query
			writeEveryWay(t, url)

			writes := 0
			for _, cmd := range srv.Commands() {
				name := firstElement(cmd)
				if name != "insert" && name != "update" && name != "delete" {
					continue
				}
				writes++
				_, hasTxn := cmd.Lookup("txnNumber").Int64OK()
				if hasTxn != tc.want {
					t.Errorf("%s carries txnNumber: %t, want %t: %s", name, hasTxn, tc.want, cmd)
				}
				// Sessions are on either way (the stub reports a session
				// timeout): the lsid alone is not what makes a write
				// retryable.
				if _, err := cmd.LookupErr("lsid"); err != nil {
					t.Errorf("%s without lsid: %s", name, cmd)
				}
			}
			// insertOne, update, the RMW's update, delete, one insertMany.
			if writes != 5 {
				t.Errorf("the stub saw %d writes, want 5", writes)
			}
		})
	}
}

// writeEveryWay makes each kind of write the binding issues: insertOne,
// updateOne, read then updateOne (CoreWorkload's read-modify-write,
// internal/ycsb/transactions.go), deleteOne, and with batchsize 2 one
// insertMany.
func writeEveryWay(t *testing.T, url string) {
	t.Helper()
	ctx := context.Background()
	for _, batch := range []int{1, 2} {
		cfg, err := ConfigFromProperties(props(t, "mongodb.url="+url, fmt.Sprintf("batchsize=%d", batch)))
		if err != nil {
			t.Fatal(err)
		}
		c, err := NewClient(ctx, cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		db := c.NewDB()
		values := []ycsb.Field{{Name: "field0", Value: []byte(strings.Repeat("v", 100))}}
		check := func(what string, st ycsb.Status) {
			if !st.IsOK() {
				t.Fatalf("%s: %v", what, st)
			}
		}
		if batch == 1 {
			check("insert", db.Insert(ctx, "usertable", []byte("user1"), values))
			check("update", db.Update(ctx, "usertable", []byte("user1"), values))
			check("rmw read", db.Read(ctx, "usertable", []byte("user1"), nil, nil))
			check("rmw update", db.Update(ctx, "usertable", []byte("user1"), values))
			check("delete", db.Delete(ctx, "usertable", []byte("user1")))
		} else {
			check("batched insert", db.Insert(ctx, "usertable", []byte("user2"), values))
			check("batch insertMany", db.Insert(ctx, "usertable", []byte("user3"), values))
		}
		if _, err := db.Cleanup(ctx); err != nil {
			t.Fatal(err)
		}
		if err := c.Close(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// firstElement is a command's name.
func firstElement(cmd bson.Raw) string {
	elems, err := cmd.Elements()
	if err != nil || len(elems) == 0 {
		return ""
	}
	return elems[0].Key()
}
