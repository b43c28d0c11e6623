package telemetry

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// scripted answers each command by name; a missing one is 59
// CommandNotFound.
func scripted(replies map[string]bson.D, errs map[string]error) DiscoveryRunner {
	return func(ctx context.Context, cmd bson.D) (bson.Raw, error) {
		if _, ok := ctx.Deadline(); !ok {
			return nil, errors.New("no deadline")
		}
		if err := errs[cmd[0].Key]; err != nil {
			return nil, err
		}
		r, ok := replies[cmd[0].Key]
		if !ok {
			return nil, mongo.CommandError{Code: 59, Name: "CommandNotFound", Message: "no such command: " + cmd[0].Key}
		}
		return bson.Marshal(r)
	}
}

func TestDiscover(t *testing.T) {
	unauthorized := mongo.CommandError{Code: 13, Name: "Unauthorized", Message: "not authorized on admin to execute command { getShardMap: 1 }"}
	mongosHello := bson.D{{Key: "isWritablePrimary", Value: true}, {Key: "msg", Value: "isdbgrid"}}
	listShards := bson.D{{Key: "shards", Value: bson.A{
		bson.D{{Key: "_id", Value: "rs-a"}, {Key: "host", Value: "rs-a/a0:27018,a1:27018"}},
		bson.D{{Key: "_id", Value: "rs-b"}, {Key: "host", Value: "rs-b/b0:27018"}},
	}}}
	for _, tc := range []struct {
		name        string
		replies     map[string]bson.D
		errs        map[string]error
		uriHosts    []string
		want        []DiscoveredHost
		unavailable string
	}{
		{name: "standalone", replies: map[string]bson.D{"hello": {{Key: "isWritablePrimary", Value: true}}},
			uriHosts: []string{"db:27017"}, want: []DiscoveredHost{{RoleStandalone, "db:27017"}}},
		{name: "replica set", replies: map[string]bson.D{"hello": {{Key: "setName", Value: "rs0"},
			{Key: "hosts", Value: bson.A{"m0:27017", "m1:27017"}}, {Key: "passives", Value: bson.A{"m2:27017"}}, {Key: "arbiters", Value: bson.A{"arb:27017"}}}},
			uriHosts: []string{"m0:27017"}, want: []DiscoveredHost{{RoleMember, "m0:27017"}, {RoleMember, "m1:27017"}, {RoleMember, "m2:27017"}}},
		{name: "sharded", replies: map[string]bson.D{"hello": mongosHello, "listShards": listShards,
			"getShardMap": {{Key: "map", Value: bson.D{{Key: "rs-a", Value: "rs-a/a0:27018,a1:27018"}, {Key: "config", Value: "cfg/c0:27019,c1:27019"}}}}},
			uriHosts: []string{"mongos-0:27017", "mongos-1:27017"},
			want: []DiscoveredHost{{RoleMongos, "mongos-0:27017"}, {RoleMongos, "mongos-1:27017"}, {RoleShard, "a0:27018"}, {RoleShard, "a1:27018"},
				{RoleShard, "b0:27018"}, {RoleConfigServer, "c0:27019"}, {RoleConfigServer, "c1:27019"}}},
		{name: "sharded, no getShardMap", replies: map[string]bson.D{"hello": mongosHello, "listShards": listShards},
			errs:     map[string]error{"getShardMap": unauthorized},
			uriHosts: []string{"mongos-0:27017"},
			want: []DiscoveredHost{{RoleMongos, "mongos-0:27017"}, {RoleShard, "a0:27018"}, {RoleShard, "a1:27018"},
				{RoleShard, "b0:27018"}}, unavailable: "getShardMap (the config servers): (Unauthorized)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Discover(context.Background(), scripted(tc.replies, tc.errs), tc.uriHosts, time.Second)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(d.Hosts, tc.want) {
				t.Errorf("hosts %v, want %v", d.Hosts, tc.want)
			}
			if got := strings.Join(d.Unavailable, "; "); tc.unavailable == "" && got != "" || !strings.Contains(got, tc.unavailable) {
				t.Errorf("unavailable %q, want %q", got, tc.unavailable)
			}
		})
	}
	if _, err := Discover(context.Background(), scripted(nil, map[string]error{"hello": unauthorized}), nil, time.Second); err == nil {
		t.Error("Discover without hello: no error")
	}
}

// TestDirectOptions: one host alone, with the string's credential and TLS,
// and nothing of its replica set.
func TestDirectOptions(t *testing.T) {
	base := options.Client().ApplyURI("mongodb://mon:pw@m0:27017,m1:27017/?replicaSet=rs0&tls=true&authSource=admin")
	o := DirectOptions(base, "m1:27017", 3*time.Second)
	if !slices.Equal(o.Hosts, []string{"m1:27017"}) || o.Direct == nil || !*o.Direct || o.ReplicaSet != nil {
		t.Errorf("hosts %v, direct %v, replicaSet %v", o.Hosts, o.Direct, o.ReplicaSet)
	}
	if o.Auth == nil || o.Auth.Username != "mon" || o.Auth.AuthSource != "admin" || o.TLSConfig != base.TLSConfig || o.TLSConfig == nil {
		t.Errorf("auth %+v, TLS %v: want the string's", o.Auth, o.TLSConfig)
	}
	if err := o.Validate(); err != nil {
		t.Error(err)
	}
}
