package mongodb

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/ycsb"
)

// The connection string of an external cluster (contract.EnvURI) is a
// secret as a whole: messages show its hosts only.
const (
	extUser     = "bench-user-5d1"
	extPassword = "pw-9e4b2a"
)

func noUserInfo(t *testing.T, what, s string) {
	t.Helper()
	if strings.Contains(s, extPassword) || strings.Contains(s, extUser) {
		t.Errorf("%s shows the connection string's user information: %s", what, s)
	}
}

func TestConfigFromURI(t *testing.T) {
	for _, tc := range []struct {
		name, uri string
		props     map[string]string
		shown     string // Shown(), or the error's substring
		err       bool
	}{
		{name: "hosts", uri: "mongodb://" + extUser + ":" + extPassword + "@a.db:27017,b.db:27017/bench?replicaSet=rs0&tls=true",
			shown: "a.db:27017,b.db:27017 (MONGOBENCH_URI)"},
		{name: "srv", uri: "mongodb+srv://" + extUser + ":" + extPassword + "@cluster0.example.test/?retryWrites=false",
			shown: "cluster0.example.test (MONGOBENCH_URI)"},
		{name: "with mongodb.url", uri: "mongodb://a.db:27017/", props: map[string]string{contract.PropMongoDBURL: "mongodb://b:27017/"},
			shown: "mongodb.url and MONGOBENCH_URI are both set", err: true},
		{name: "bad option", uri: "mongodb://" + extUser + ":" + extPassword + "@a.db:27017/?w=majority&journal=maybe",
			shown: `invalid URL "a.db:27017 (MONGOBENCH_URI)"`, err: true},
		{name: "bad scheme", uri: "postgres://" + extUser + ":" + extPassword + "@a.db/",
			shown: "MONGOBENCH_URI: invalid URL \"(not shown)\"", err: true},
		{name: "bad host", uri: "mongodb://" + extUser + ":" + extPassword + "@:27017/",
			shown: "(MONGOBENCH_URI)", err: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := ycsb.NewProperties()
			for k, v := range tc.props {
				p.Set(k, v)
			}
			c, err := ConfigFromURI(p, tc.uri)
			if tc.err {
				if err == nil || !strings.Contains(err.Error(), tc.shown) {
					t.Fatalf("err = %v, want one with %q", err, tc.shown)
				}
				noUserInfo(t, "the error", err.Error())
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Shown() != tc.shown || c.Source() != contract.EnvURI || !c.URLFromEnvironment || c.URL == "" {
				t.Errorf("Shown %q, Source %q; want %q from %s", c.Shown(), c.Source(), tc.shown, contract.EnvURI)
			}
			noUserInfo(t, "Shown", c.Shown())
		})
	}
}

// TestNewClientFromURIShowsHosts: a connection that fails says where it
// tried by hosts only.
func TestNewClientFromURIShowsHosts(t *testing.T) {
	p := ycsb.NewProperties()
	p.Set(PropOperationTimeout, "300ms")
	c, err := ConfigFromURI(p, "mongodb://"+extUser+":"+extPassword+"@127.0.0.1:1/?serverSelectionTimeoutMS=200&connectTimeoutMS=100")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var log strings.Builder
	_, err = NewClient(ctx, c, &log)
	if err == nil {
		t.Fatal("connected to a closed port")
	}
	if !strings.Contains(err.Error(), "127.0.0.1:1 (MONGOBENCH_URI)") && !strings.Contains(err.Error(), "MongoDB at 127.0.0.1:1 (MONGOBENCH_URI)") {
		t.Errorf("err = %v, want the hosts and %s", err, contract.EnvURI)
	}
	noUserInfo(t, "the error", err.Error())
	noUserInfo(t, "the log", log.String())
}
