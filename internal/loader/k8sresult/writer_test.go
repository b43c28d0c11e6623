package k8sresult

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/contract"
)

// scripted answers each POST with the next scripted response and records
// the requests.
type scripted struct {
	mu        sync.Mutex
	responses []func(w http.ResponseWriter)
	requests  []*http.Request
	bodies    []map[string]any
}

func (s *scripted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var body map[string]any
	b, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(b, &body)
	s.requests = append(s.requests, r)
	s.bodies = append(s.bodies, body)
	i := len(s.requests) - 1
	if i >= len(s.responses) {
		i = len(s.responses) - 1
	}
	s.responses[i](w)
}

func answer(code int, reason, msg string) func(http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_, _ = fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":%q,"reason":%q,"code":%d}`, msg, reason, code)
	}
}

func created(w http.ResponseWriter) { w.WriteHeader(http.StatusCreated) }

func dropConnection(w http.ResponseWriter) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err == nil {
		_ = conn.Close()
	}
}

// selfSignedPEM returns a CA certificate nobody's server uses.
func selfSignedPEM(t *testing.T) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "other-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

func testConfigMap() *ConfigMap {
	return &ConfigMap{Namespace: "ns", Name: "r-0", BinaryData: map[string][]byte{"k": []byte("v")}}
}

func fastWriter(url string) *Writer {
	w := New(url, http.DefaultClient, "tok")
	w.Backoff, w.MaxBackoff = time.Millisecond, 5*time.Millisecond
	return w
}

func TestCreateRetries(t *testing.T) {
	tooMany := func(w http.ResponseWriter) {
		w.Header().Set("Retry-After", "1")
		answer(429, "TooManyRequests", "slow down")(w)
	}
	exists := answer(409, "AlreadyExists", `configmaps "r-0" already exists`)
	for _, tc := range []struct {
		name      string
		responses []func(http.ResponseWriter)
		requests  int
		wantErr   string // "" for success
		exists    bool
	}{
		{"created", []func(http.ResponseWriter){created}, 1, "", false},
		{"5xx then created", []func(http.ResponseWriter){answer(503, "ServiceUnavailable", "etcd"), answer(500, "InternalError", "x"), created}, 3, "", false},
		{"network error then created", []func(http.ResponseWriter){dropConnection, created}, 2, "", false},
		{"429 honours Retry-After, capped", []func(http.ResponseWriter){tooMany, created}, 2, "", false},
		{"exists at once: the Job ran twice", []func(http.ResponseWriter){exists}, 1, "a result already exists", true},
		{"exists after a lost answer: ours", []func(http.ResponseWriter){answer(504, "Timeout", "x"), exists}, 2, "", false},
		{"exists after only 429s: not ours", []func(http.ResponseWriter){tooMany, exists}, 2, "a result already exists", true},
		{"forbidden is final", []func(http.ResponseWriter){answer(403, "Forbidden", "no")}, 1, "403 Forbidden: no", false},
		{"invalid is final", []func(http.ResponseWriter){answer(422, "Invalid", "bad label")}, 1, "422 Unprocessable Entity: bad label", false},
		{"gives up", []func(http.ResponseWriter){answer(503, "ServiceUnavailable", "down")}, 6, "giving up after 6 attempts: 503", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &scripted{responses: tc.responses}
			srv := httptest.NewServer(s)
			defer srv.Close()
			start := time.Now()
			err := fastWriter(srv.URL).Create(context.Background(), testConfigMap())
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("err = %v, want %q", err, tc.wantErr)
			}
			if errors.Is(err, ErrAlreadyExists) != tc.exists {
				t.Errorf("errors.Is(err, ErrAlreadyExists) = %v", !tc.exists)
			}
			if len(s.requests) != tc.requests {
				t.Errorf("%d requests, want %d", len(s.requests), tc.requests)
			}
			if time.Since(start) > 2*time.Second {
				t.Errorf("took %v: backoff not capped", time.Since(start))
			}
		})
	}
}

func TestCreateRequest(t *testing.T) {
	s := &scripted{responses: []func(http.ResponseWriter){created}}
	srv := httptest.NewServer(s)
	defer srv.Close()
	cm := &ConfigMap{
		Namespace: "ns", Name: "r-0", Labels: map[string]string{"a": "b"},
		Owner: &OwnerReference{APIVersion: "g/v1", Kind: "K", Name: "n", UID: "u"},
		Data:  map[string]string{"d": "text"}, BinaryData: map[string][]byte{"k": {0, 1, 2}},
	}
	if err := fastWriter(srv.URL).Create(context.Background(), cm); err != nil {
		t.Fatal(err)
	}
	r := s.requests[0]
	if r.Method != http.MethodPost || r.URL.Path != "/api/v1/namespaces/ns/configmaps" || r.URL.Query().Get("fieldManager") != FieldManager {
		t.Errorf("request %s %s", r.Method, r.URL)
	}
	if r.Header.Get("Authorization") != "Bearer tok" || r.Header.Get("Content-Type") != "application/json" {
		t.Errorf("headers %v", r.Header)
	}
	got, _ := json.Marshal(s.bodies[0])
	want := `{"apiVersion":"v1","binaryData":{"k":"AAEC"},"data":{"d":"text"},"immutable":true,"kind":"ConfigMap",` +
		`"metadata":{"labels":{"a":"b"},"name":"r-0","namespace":"ns",` +
		`"ownerReferences":[{"apiVersion":"g/v1","controller":true,"kind":"K","name":"n","uid":"u"}]}}`
	if string(got) != want {
		t.Errorf("body\n%s\nwant\n%s", got, want)
	}

	// No token: no Authorization header (client certificates).
	s.responses = []func(http.ResponseWriter){created}
	w := New(srv.URL, http.DefaultClient, "")
	if err := w.Create(context.Background(), testConfigMap()); err != nil {
		t.Fatal(err)
	}
	if h := s.requests[1].Header.Get("Authorization"); h != "" {
		t.Errorf("Authorization %q without a token", h)
	}
}

func TestCreateStopsWithItsContext(t *testing.T) {
	s := &scripted{responses: []func(http.ResponseWriter){answer(503, "ServiceUnavailable", "down")}}
	srv := httptest.NewServer(s)
	defer srv.Close()
	w := New(srv.URL, http.DefaultClient, "")
	w.Backoff, w.MaxBackoff, w.Attempts = time.Hour, time.Hour, 100
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	err := w.Create(ctx, testConfigMap())
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "last error: 503") {
		t.Errorf("err = %v", err)
	}
}

func TestCreateRejectsInvalidInputBeforeSending(t *testing.T) {
	s := &scripted{responses: []func(http.ResponseWriter){created}}
	srv := httptest.NewServer(s)
	defer srv.Close()
	for _, cm := range []*ConfigMap{
		{Namespace: "ns", Name: "Bad_Name", Data: map[string]string{"k": "v"}},
		{Namespace: "", Name: "ok", Data: map[string]string{"k": "v"}},
		{Namespace: "ns", Name: "ok"},
		{Namespace: "ns", Name: "ok", Labels: map[string]string{"k": "bad value"}, Data: map[string]string{"k": "v"}},
		{Namespace: "ns", Name: "ok", Data: map[string]string{"k": "v"}, BinaryData: map[string][]byte{"k": nil}},
	} {
		if err := fastWriter(srv.URL).Create(context.Background(), cm); err == nil {
			t.Errorf("%+v: no error", cm)
		}
	}
	if len(s.requests) != 0 {
		t.Errorf("%d requests sent", len(s.requests))
	}
}

func TestValidation(t *testing.T) {
	for _, name := range []string{"a", "r1-load-result-0", "a.b-c", strings.Repeat("a", 253)} {
		if err := ValidateName(name); err != nil {
			t.Errorf("ValidateName(%q): %v", name, err)
		}
	}
	for _, name := range []string{"", "A", "-a", "a-", "a_b", "a..b", strings.Repeat("a", 254)} {
		if err := ValidateName(name); err == nil {
			t.Errorf("ValidateName(%q): no error", name)
		}
	}
	labels, err := contract.DecodeLabels("app.kubernetes.io/managed-by=mongobench, bench.mongobench.io/run=r1,empty=", ValidateLabel)
	if err != nil || len(labels) != 3 || labels["bench.mongobench.io/run"] != "r1" || labels["empty"] != "" {
		t.Errorf("DecodeLabels: %v %v", labels, err)
	}
	if got := contract.EncodeLabels(labels); got != "app.kubernetes.io/managed-by=mongobench,bench.mongobench.io/run=r1,empty=" {
		t.Errorf("EncodeLabels: %s", got)
	}
	for _, s := range []string{"novalue", "a=b=c", "Bad_Prefix/x=y", "x=" + strings.Repeat("v", 64), "/x=y", "k=-v"} {
		if _, err := contract.DecodeLabels(s, ValidateLabel); err == nil {
			t.Errorf("DecodeLabels(%q): no error", s)
		}
	}
	o, err := contract.DecodeOwner("bench.mongobench.io/v1alpha1,BenchmarkRun,r1,uid-1")
	if err != nil || o != (contract.Owner{APIVersion: "bench.mongobench.io/v1alpha1", Kind: "BenchmarkRun", Name: "r1", UID: "uid-1"}) {
		t.Errorf("DecodeOwner: %+v %v", o, err)
	}
	for _, s := range []string{"", "v1,Pod,p", "v1,Pod,p,u,x", "v1,,p,u", "a/b/c,K,n,u"} {
		if _, err := contract.DecodeOwner(s); err == nil {
			t.Errorf("DecodeOwner(%q): no error", s)
		}
	}
}

// TestInCluster reads the service account mount like a pod: the address
// from the environment, the CA bundle, and a token that is re-read for
// every request (the kubelet rotates it).
func TestInCluster(t *testing.T) {
	var mu sync.Mutex
	var tokens []string
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		tokens = append(tokens, r.Header.Get("Authorization"))
		mu.Unlock()
		created(w)
	}))
	defer srv.Close()
	dir := t.TempDir()
	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("ca.crt", string(caPEM))
	write("token", "first\n")
	write("namespace", "from-file\n")
	host, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "https://"))
	env := map[string]string{"KUBERNETES_SERVICE_HOST": host, "KUBERNETES_SERVICE_PORT": port}
	getenv := func(k string) string { return env[k] }

	w, err := inCluster(getenv, dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Create(context.Background(), testConfigMap()); err != nil {
		t.Fatal(err)
	}
	write("token", "rotated")
	if err := w.Create(context.Background(), testConfigMap()); err != nil {
		t.Fatal(err)
	}
	if len(tokens) != 2 || tokens[0] != "Bearer first" || tokens[1] != "Bearer rotated" {
		t.Errorf("tokens %q", tokens)
	}

	if ns, err := namespace(getenv, dir); err != nil || ns != "from-file" {
		t.Errorf("namespace from the file: %q %v", ns, err)
	}
	env["POD_NAMESPACE"] = "from-env"
	if ns, err := namespace(getenv, dir); err != nil || ns != "from-env" {
		t.Errorf("namespace from POD_NAMESPACE: %q %v", ns, err)
	}

	// A CA bundle that did not sign the server's certificate: refused.
	write("ca.crt", string(selfSignedPEM(t)))
	w, err = inCluster(getenv, dir)
	if err != nil {
		t.Fatal(err)
	}
	w.Attempts = 1
	var uae x509.UnknownAuthorityError
	if err := w.Create(context.Background(), testConfigMap()); !errors.As(err, &uae) {
		t.Errorf("untrusted server: %v, want x509.UnknownAuthorityError", err)
	}
	write("ca.crt", "not PEM")
	if _, err := inCluster(getenv, dir); err == nil || !strings.Contains(err.Error(), "no PEM certificate") {
		t.Errorf("bad CA bundle: %v", err)
	}

	// Outside a pod.
	if _, err := inCluster(func(string) string { return "" }, dir); err == nil || !strings.Contains(err.Error(), "not running in a Kubernetes pod") {
		t.Errorf("no KUBERNETES_SERVICE_HOST: %v", err)
	}
	if _, err := inCluster(getenv, t.TempDir()); err == nil || !strings.Contains(err.Error(), "automountServiceAccountToken") {
		t.Errorf("no token: %v", err)
	}
	if _, err := namespace(func(string) string { return "" }, t.TempDir()); err == nil {
		t.Error("no namespace: no error")
	}
}

// TestUpdate: a mutable ConfigMap is created without immutable, and Update
// sends its data as a JSON merge patch to the ConfigMap, retrying a 5xx;
// a missing ConfigMap is ErrNotFound.
func TestUpdate(t *testing.T) {
	ok := func(w http.ResponseWriter) { w.WriteHeader(http.StatusOK) }
	s := &scripted{responses: []func(http.ResponseWriter){created, answer(503, "ServiceUnavailable", "etcd"), ok}}
	srv := httptest.NewServer(s)
	defer srv.Close()
	w := fastWriter(srv.URL)
	cm := &ConfigMap{Namespace: "ns", Name: "j-disruption-0", Data: map[string]string{"sent": "t0"}, Mutable: true}
	if err := w.Create(context.Background(), cm); err != nil {
		t.Fatal(err)
	}
	if err := w.Update(context.Background(), "ns", "j-disruption-0", map[string]string{"returned": "t1", "error": ""}); err != nil {
		t.Fatal(err)
	}
	if len(s.requests) != 3 {
		t.Fatalf("%d requests, want create, a failed patch and its retry", len(s.requests))
	}
	if s.bodies[0]["immutable"] != false {
		t.Errorf("a mutable ConfigMap was created with immutable %v", s.bodies[0]["immutable"])
	}
	for _, i := range []int{1, 2} {
		r := s.requests[i]
		if r.Method != http.MethodPatch || r.URL.Path != "/api/v1/namespaces/ns/configmaps/j-disruption-0" ||
			r.Header.Get("Content-Type") != "application/merge-patch+json" {
			t.Errorf("request %d: %s %s (%s), want a merge patch of the ConfigMap", i, r.Method, r.URL.Path, r.Header.Get("Content-Type"))
		}
		data, _ := s.bodies[i]["data"].(map[string]any)
		if data["returned"] != "t1" || data["error"] != "" || len(s.bodies[i]) != 1 {
			t.Errorf("request %d: body %v, want only the data", i, s.bodies[i])
		}
	}

	missing := &scripted{responses: []func(http.ResponseWriter){answer(404, "NotFound", "no")}}
	srv2 := httptest.NewServer(missing)
	defer srv2.Close()
	if err := fastWriter(srv2.URL).Update(context.Background(), "ns", "x", map[string]string{"a": "b"}); !errors.Is(err, ErrNotFound) {
		t.Errorf("update of a missing ConfigMap: %v, want ErrNotFound", err)
	}
}
