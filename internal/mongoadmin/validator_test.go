package mongoadmin

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func TestParseValidator(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bson.D
	}{
		{`{"$jsonSchema": {"bsonType": "object", "required": ["field0"]}}`,
			bson.D{{Key: "$jsonSchema", Value: bson.D{{Key: "bsonType", Value: "object"}, {Key: "required", Value: bson.A{"field0"}}}}}},
		// Relaxed Extended JSON: numbers keep their width, $-types are read.
		{`{"a": 1, "b": 1.5, "c": 12345678901, "d": {"$numberLong": "5"}, "e": {"$date": "2024-01-02T03:04:05Z"}}`,
			bson.D{{Key: "a", Value: int32(1)}, {Key: "b", Value: 1.5}, {Key: "c", Value: int64(12345678901)},
				{Key: "d", Value: int64(5)}, {Key: "e", Value: bson.DateTime(time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC).UnixMilli())}}},
		{"  {}\n", bson.D{}},
	} {
		got, err := ParseValidator([]byte(tc.in))
		if err != nil {
			t.Errorf("ParseValidator(%s): %v", tc.in, err)
			continue
		}
		if want := marshal(t, tc.want); !bytes.Equal(got, want) {
			t.Errorf("ParseValidator(%s) = %s, want %s", tc.in, keyJSON(got), keyJSON(want))
		}
	}

	for _, tc := range []struct{ in, wantErr string }{
		{"", "validator is empty"},
		{"  \n", "validator is empty"},
		{`[1]`, "want a JSON object"},
		{`"x"`, "want a JSON object"},
		{`{"a": }`, "not valid JSON at offset 7"},
		{`{"a": 1} x`, "not valid JSON at offset 10"},
		{`{"a": {"$numberInt": "x"}}`, "not valid Extended JSON"},
	} {
		_, err := ParseValidator([]byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("ParseValidator(%q) error = %v, want one containing %q", tc.in, err, tc.wantErr)
		}
	}
}

const (
	validatorHost = "run-mongos-0.run-mongos:27017"
	validatorJSON = `{"$jsonSchema":{"bsonType":"object","required":["field0"]}}`
)

func validatorFake(t *testing.T) (*fakeCluster, *fakeServer, bson.Raw) {
	f := newFake(t)
	s := f.add(&fakeServer{host: validatorHost, role: roleStandalone})
	v, err := ParseValidator([]byte(validatorJSON))
	if err != nil {
		t.Fatal(err)
	}
	return f, s, v
}

func TestApplyValidatorCommands(t *testing.T) {
	const (
		list    = validatorHost + ` ycsb {"listCollections":1,"filter":{"name":"usertable"}}`
		options = `"validator":` + validatorJSON + `,"validationLevel":"moderate","validationAction":"warn"}`
	)
	for _, tc := range []struct {
		name  string
		setup func(f *fakeCluster, s *fakeServer, v bson.Raw)
		want  []string
	}{
		{
			name: "no collection: create it with the validator",
			want: []string{list, validatorHost + ` ycsb {"create":"usertable",` + options, list},
		},
		{
			name:  "collection without validator: collMod",
			setup: func(_ *fakeCluster, s *fakeServer, _ bson.Raw) { s.colls["ycsb.usertable"] = &fakeColl{} },
			want:  []string{list, validatorHost + ` ycsb {"collMod":"usertable",` + options, list},
		},
		{
			name: "another level: collMod",
			setup: func(_ *fakeCluster, s *fakeServer, v bson.Raw) {
				s.colls["ycsb.usertable"] = &fakeColl{validator: v, level: "strict", action: "warn"}
			},
			want: []string{list, validatorHost + ` ycsb {"collMod":"usertable",` + options, list},
		},
		{
			name: "already applied: nothing changed",
			setup: func(_ *fakeCluster, s *fakeServer, v bson.Raw) {
				s.colls["ycsb.usertable"] = &fakeColl{validator: v, level: "moderate", action: "warn"}
			},
			want: []string{list, list},
		},
		{
			name: "created meanwhile (48 NamespaceExists): collMod",
			setup: func(f *fakeCluster, _ *fakeServer, _ bson.Raw) {
				f.failNext(validatorHost, "create", injection{apply: true, err: serverError(48, "NamespaceExists", "Collection ycsb.usertable already exists.")})
			},
			want: []string{list, validatorHost + ` ycsb {"create":"usertable",` + options,
				validatorHost + ` ycsb {"collMod":"usertable",` + options, list},
		},
		{
			name: "10107 on collMod: retried",
			setup: func(f *fakeCluster, s *fakeServer, _ bson.Raw) {
				s.colls["ycsb.usertable"] = &fakeColl{}
				f.failNext(validatorHost, "collMod", injection{err: serverError(10107, "NotWritablePrimary", "not primary")})
			},
			want: []string{list, validatorHost + ` ycsb {"collMod":"usertable",` + options,
				list, validatorHost + ` ycsb {"collMod":"usertable",` + options, list},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, s, v := validatorFake(t)
			if tc.setup != nil {
				tc.setup(f, s, v)
			}
			err := ApplyValidator(context.Background(), DirectURI(validatorHost), "ycsb.usertable", v, "moderate", "warn", f.options())
			if err != nil {
				t.Fatalf("ApplyValidator: %v", err)
			}
			sameLines(t, "commands", f.callStrings(), tc.want)
			c := s.colls["ycsb.usertable"]
			if c == nil || !bytes.Equal(c.validator, v) || c.level != "moderate" || c.action != "warn" {
				t.Errorf("collection state %+v, want the validator, moderate, warn", c)
			}
			if f.closes != len(f.dials) || len(f.dials) != 1 {
				t.Errorf("dialed %v, closed %d", f.dials, f.closes)
			}
		})
	}
}

func TestApplyValidatorDefaults(t *testing.T) {
	f, s, v := validatorFake(t)
	// A collection with the validator and MongoDB's defaults left implicit.
	s.colls["ycsb.usertable"] = &fakeColl{validator: v}
	if err := ApplyValidator(context.Background(), DirectURI(validatorHost), "ycsb.usertable", v, "", "", f.options()); err != nil {
		t.Fatalf("ApplyValidator: %v", err)
	}
	if m := f.mutating(); len(m) != 0 {
		t.Errorf("sent %v to a collection that has the validator with default level and action", m)
	}

	// Removing validation ({}) from a collection that has none is a no-op.
	f, s, _ = validatorFake(t)
	s.colls["ycsb.usertable"] = &fakeColl{}
	if err := ApplyValidator(context.Background(), DirectURI(validatorHost), "ycsb.usertable", marshal(t, bson.D{}), "", "", f.options()); err != nil {
		t.Fatalf("ApplyValidator {}: %v", err)
	}
	if m := f.mutating(); len(m) != 0 {
		t.Errorf("sent %v to remove a validator that is not there", m)
	}
}

func TestApplyValidatorErrors(t *testing.T) {
	const secretURI = "mongodb://bench:s3cret@" + validatorHost + "/?authSource=admin"
	for _, tc := range []struct {
		name      string
		uri, ns   string
		validator []byte // nil: the test validator
		setup     func(f *fakeCluster, s *fakeServer)
		wantErr   []string
		wantDials int
	}{
		{
			name:    "server drops the validator: verification fails",
			setup:   func(_ *fakeCluster, s *fakeServer) { s.dropValidator = true },
			wantErr: []string{"verify validator on ycsb.usertable: not applied", "validator is {}, want " + validatorJSON},
		},
		{
			name: "collMod refused: the server's code and message",
			setup: func(f *fakeCluster, s *fakeServer) {
				s.colls["ycsb.usertable"] = &fakeColl{}
				f.failNext(validatorHost, "collMod", injection{err: serverError(2, "BadValue", "validationAction must be one of ...")})
			},
			wantErr: []string{"apply validator to ycsb.usertable", "collMod on " + validatorHost, "server error 2 (BadValue): validationAction must be one of"},
		},
		{
			name: "collMod unknown (mongo-java-server): 59",
			setup: func(f *fakeCluster, s *fakeServer) {
				s.colls["ycsb.usertable"] = &fakeColl{}
				f.failNext(validatorHost, "collMod", injection{err: serverError(59, "CommandNotFound", "no such command: 'collMod'")})
			},
			wantErr: []string{"collMod on " + validatorHost, "server error 59 (CommandNotFound)"},
		},
		{name: "bad namespace", ns: "usertable", wantErr: []string{`namespace "usertable"`}, wantDials: -1},
		{name: "empty validator", validator: []byte{}, wantErr: []string{"validator is empty"}, wantDials: -1},
		{name: "corrupt validator", validator: []byte{9, 0, 0, 0, 1}, wantErr: []string{"not a valid BSON document"}, wantDials: -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, s, v := validatorFake(t)
			if tc.setup != nil {
				tc.setup(f, s)
			}
			if tc.validator != nil {
				v = tc.validator
			}
			uri, ns := tc.uri, tc.ns
			if uri == "" {
				uri = secretURI
			}
			if ns == "" {
				ns = "ycsb.usertable"
			}
			err := ApplyValidator(context.Background(), uri, ns, v, "", "", f.options())
			if err == nil {
				t.Fatalf("ApplyValidator succeeded, want an error with %q", tc.wantErr)
			}
			t.Logf("error: %v", err)
			for _, s := range tc.wantErr {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q\ndoes not contain %q", err, s)
				}
			}
			if strings.Contains(err.Error(), "s3cret") {
				t.Errorf("error %q shows the password", err)
			}
			if len(f.clock.slept) != 0 {
				t.Errorf("slept %v: a permanent error was retried", f.clock.slept)
			}
			if tc.wantDials < 0 && len(f.dials) != 0 {
				t.Errorf("dialed %v for invalid arguments", f.dials)
			}
		})
	}
}

func TestRedactURI(t *testing.T) {
	for in, want := range map[string]string{
		"mongodb://h:1/?directConnection=true":             "h:1",
		"mongodb://u:p%40ss@h1:1,h2:2/db?authSource=admin": "h1:1,h2:2",
		"mongodb+srv://u:p@cluster.example/":               "cluster.example",
		"mongodb://h:1?x=1":                                "h:1",
		"h:1":                                              "(connection string)",
	} {
		if got := redactURI(in); got != want {
			t.Errorf("redactURI(%q) = %q, want %q", in, got, want)
		}
	}
}
