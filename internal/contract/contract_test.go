package contract

import (
	"errors"
	"maps"
	"strings"
	"testing"
)

func TestResultConfigMapNames(t *testing.T) {
	for _, tc := range []struct {
		job   string
		index int
		want  string
	}{
		{"run1-bootstrap", 0, "run1-bootstrap-result-0"},
		{"run1-s2", 0, "run1-s2-result-0"},
		{"run1-s2", 11, "run1-s2-result-11"},
	} {
		if got := ResultConfigMapName(tc.job, tc.index); got != tc.want {
			t.Errorf("ResultConfigMapName(%q, %d) = %q, want %q", tc.job, tc.index, got, tc.want)
		}
		// What the controller reads is what the loader writes from the
		// prefix the Job is given.
		if got := IndexedName(ResultConfigMapPrefix(tc.job), tc.index); got != tc.want {
			t.Errorf("IndexedName(ResultConfigMapPrefix(%q), %d) = %q, want %q", tc.job, tc.index, got, tc.want)
		}
	}
}

func TestFlagValue(t *testing.T) {
	type mode string
	for in, want := range map[mode]string{"Sharded": "sharded", "Standalone": "standalone", "Hashed": "hashed", "ranged": "ranged", "": ""} {
		if got := FlagValue(in); got != want {
			t.Errorf("FlagValue(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestOwnerRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name  string
		owner Owner
		enc   string
	}{
		{"run", Owner{"bench.mongobench.io/v1alpha1", "BenchmarkRun", "microshard-4", "0b6c1f3e-9d2a-4c1b-8e7f-5a4d3c2b1a09"},
			"bench.mongobench.io/v1alpha1,BenchmarkRun,microshard-4,0b6c1f3e-9d2a-4c1b-8e7f-5a4d3c2b1a09"},
		{"core group", Owner{"v1", "Pod", "p", "u"}, "v1,Pod,p,u"},
		{"dots, dashes, colons", Owner{"a.b-c.example.com/v1beta2", "Kind", "x.y-z", "uid:with=odd/chars"},
			"a.b-c.example.com/v1beta2,Kind,x.y-z,uid:with=odd/chars"},
		{"unicode", Owner{"g/v", "Kïnd", "名前", "ü"}, "g/v,Kïnd,名前,ü"},
	} {
		enc := EncodeOwner(tc.owner)
		if enc != tc.enc {
			t.Errorf("%s: EncodeOwner = %q, want %q", tc.name, enc, tc.enc)
		}
		got, err := DecodeOwner(enc)
		if err != nil || got != tc.owner {
			t.Errorf("%s: DecodeOwner(%q) = %+v, %v; want %+v", tc.name, enc, got, err, tc.owner)
		}
	}
}

func TestDecodeOwner(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    Owner
		wantErr string
	}{
		{in: "bench.mongobench.io/v1alpha1,BenchmarkRun,r1,uid-1", want: Owner{"bench.mongobench.io/v1alpha1", "BenchmarkRun", "r1", "uid-1"}},
		{in: " v1 , Pod ,p, u ", want: Owner{"v1", "Pod", "p", "u"}},
		{in: "", wantErr: `owner "": want APIVERSION,KIND,NAME,UID`},
		{in: "v1,Pod,p", wantErr: `owner "v1,Pod,p": want APIVERSION,KIND,NAME,UID`},
		{in: "v1,Pod,p,u,x", wantErr: `owner "v1,Pod,p,u,x": want APIVERSION,KIND,NAME,UID`},
		{in: "v1,,p,u", wantErr: `owner "v1,,p,u": APIVERSION, KIND, NAME and UID must all be set`},
		{in: "v1,Pod,p, ", wantErr: "must all be set"},
		{in: "a/b/c,K,n,u", wantErr: `owner "a/b/c,K,n,u": apiVersion "a/b/c": want group/version or version`},
		// A comma inside a field cannot be carried: it shows as a wrong
		// number of fields, never as a different owner.
		{in: EncodeOwner(Owner{"v1", "Pod", "a,b", "u"}), wantErr: "want APIVERSION,KIND,NAME,UID"},
	} {
		got, err := DecodeOwner(tc.in)
		switch {
		case tc.wantErr == "" && (err != nil || got != tc.want):
			t.Errorf("DecodeOwner(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("DecodeOwner(%q) = %+v, %v; want an error containing %q", tc.in, got, err, tc.wantErr)
		}
	}
}

func TestLabelsRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name   string
		labels map[string]string
		enc    string
	}{
		{"none", map[string]string{}, ""},
		{"nil", nil, ""},
		{"sorted by key", map[string]string{"bench.mongobench.io/run": "r1", "app.kubernetes.io/name": "mongobench", "app.kubernetes.io/managed-by": "mongobench"},
			"app.kubernetes.io/managed-by=mongobench,app.kubernetes.io/name=mongobench,bench.mongobench.io/run=r1"},
		{"empty value", map[string]string{"empty": ""}, "empty="},
		{"label characters", map[string]string{"a.b-c_d/E.f-G_h": "V.1-x_Y"}, "a.b-c_d/E.f-G_h=V.1-x_Y"},
		{"'=' in a value", map[string]string{"k": "a=b"}, "k=a=b"},
		{"unicode", map[string]string{"ключ": "значение"}, "ключ=значение"},
	} {
		enc := EncodeLabels(tc.labels)
		if enc != tc.enc {
			t.Errorf("%s: EncodeLabels = %q, want %q", tc.name, enc, tc.enc)
		}
		got, err := DecodeLabels(enc, nil)
		if err != nil || !maps.Equal(got, tc.labels) {
			t.Errorf("%s: DecodeLabels(%q) = %v, %v; want %v", tc.name, enc, got, err, tc.labels)
		}
	}
}

func TestDecodeLabels(t *testing.T) {
	errBad := errors.New("bad label")
	rejectBad := func(k, _ string) error {
		if k == "bad" {
			return errBad
		}
		return nil
	}
	for _, tc := range []struct {
		in      string
		want    map[string]string
		wantErr string
	}{
		{in: "", want: map[string]string{}},
		{in: "  ", want: map[string]string{}},
		{in: "app.kubernetes.io/managed-by=mongobench, bench.mongobench.io/run=r1,empty=",
			want: map[string]string{"app.kubernetes.io/managed-by": "mongobench", "bench.mongobench.io/run": "r1", "empty": ""}},
		{in: "k=1,k=2", want: map[string]string{"k": "2"}},
		{in: "novalue", wantErr: `label "novalue": want key=value`},
		{in: "a=1,,b=2", wantErr: `label "": want key=value`},
		{in: "a=1,", wantErr: `label "": want key=value`},
		// A comma in a value cannot be carried: the rest is an item
		// without '='.
		{in: EncodeLabels(map[string]string{"k": "a,b"}), wantErr: `label "b": want key=value`},
		// check sees every label in order and stops the parse.
		{in: "bad=1,novalue", wantErr: "bad label"},
		{in: "novalue,bad=1", wantErr: `label "novalue": want key=value`},
	} {
		got, err := DecodeLabels(tc.in, rejectBad)
		switch {
		case tc.wantErr == "" && (err != nil || !maps.Equal(got, tc.want)):
			t.Errorf("DecodeLabels(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("DecodeLabels(%q) = %v, %v; want an error containing %q", tc.in, got, err, tc.wantErr)
		}
	}
	if _, err := DecodeLabels("bad=1", rejectBad); !errors.Is(err, errBad) {
		t.Errorf("check's error: got %v, want it returned as is", err)
	}
}
