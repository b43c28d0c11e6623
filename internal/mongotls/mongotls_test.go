package mongotls

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/dns"
)

// writePair writes a self-signed certificate and its key as PEM files.
func writePair(t *testing.T, dir, name string) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, name+".crt"), filepath.Join(dir, name+".key")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	ca, caKey := writePair(t, dir, "ca")
	cert, key := writePair(t, dir, "client")
	garbage := filepath.Join(dir, "garbage.pem")
	if err := os.WriteFile(garbage, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	if cfg, err := Load(Files{}); cfg != nil || err != nil {
		t.Errorf("Load(no files) = %v, %v; want nil, nil", cfg, err)
	}
	cfg, err := Load(Files{CA: ca, Cert: cert, Key: key})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.RootCAs == nil || len(cfg.Certificates) != 1 {
		t.Errorf("config = %+v, want the CA pool and one key pair", cfg)
	}
	for _, tc := range []struct {
		files Files
		want  string
	}{
		{Files{CA: garbage}, "no PEM certificate"},
		{Files{CA: filepath.Join(dir, "missing")}, "CA file"},
		{Files{Cert: cert}, "both its certificate and its key"},
		{Files{Cert: cert, Key: caKey}, "client certificate"},
	} {
		if _, err := Load(tc.files); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Load(%+v) = %v, want an error with %q", tc.files, err, tc.want)
		}
	}
}

func TestApply(t *testing.T) {
	dir := t.TempDir()
	ca, _ := writePair(t, dir, "ca")
	cert, key := writePair(t, dir, "client")
	cfg, err := Load(Files{CA: ca, Cert: cert, Key: key})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		uri      string
		insecure bool
	}{
		// No TLS in the string: the files turn it on.
		{uri: "mongodb://db:27017/"},
		{uri: "mongodb://db:27017/?tls=true"},
		// The string's tlsInsecure survives; its tlsCAFile is replaced.
		{uri: "mongodb://db:27017/?tls=true&tlsInsecure=true", insecure: true},
		{uri: "mongodb://db:27017/?tlsCAFile=" + ca},
	} {
		opts := options.Client().ApplyURI(tc.uri)
		if err := opts.Validate(); err != nil {
			t.Fatalf("%s: %v", tc.uri, err)
		}
		Apply(opts, cfg)
		got := opts.TLSConfig
		if got == nil || got.RootCAs != cfg.RootCAs || len(got.Certificates) != 1 || got.InsecureSkipVerify != tc.insecure {
			t.Errorf("%s: TLS config %+v, want the files' CA and key pair, insecure %t", tc.uri, got, tc.insecure)
		}
	}
	opts := options.Client().ApplyURI("mongodb://db:27017/")
	Apply(opts, nil)
	if opts.TLSConfig != nil {
		t.Error("Apply(nil) turned TLS on")
	}
}

// TestSRV follows a mongodb+srv:// string through the driver's own
// resolution with a stub resolver: the driver resolves SRV and TXT records
// through dns.DefaultResolver, a package variable of
// go.mongodb.org/mongo-driver/v2/x/mongo/driver/dns that
// connstring.ParseAndValidate (what ApplyURI calls) and the topology's SRV
// poller use; there is no per-client hook. The test replaces its two
// functions for its own duration, so it must not run in parallel with
// another test that resolves an SRV name (none does).
func TestSRV(t *testing.T) {
	saved := *dns.DefaultResolver
	t.Cleanup(func() { *dns.DefaultResolver = saved })
	var asked []string
	dns.DefaultResolver.LookupSRV = func(service, proto, name string) (string, []*net.SRV, error) {
		asked = append(asked, service+"."+proto+"."+name)
		return "", []*net.SRV{{Target: "node-0.cluster0.example.test.", Port: 27017}, {Target: "node-1.cluster0.example.test.", Port: 27018}}, nil
	}
	dns.DefaultResolver.LookupTXT = func(string) ([]string, error) { return []string{"replicaSet=atlas-rs0&authSource=admin"}, nil }

	dir := t.TempDir()
	ca, _ := writePair(t, dir, "ca")
	cfg, err := Load(Files{CA: ca})
	if err != nil {
		t.Fatal(err)
	}
	opts := options.Client().ApplyURI("mongodb+srv://bench:pw@cluster0.example.test/?retryWrites=false")
	if err := opts.Validate(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(asked, []string{"mongodb.tcp.cluster0.example.test"}) {
		t.Errorf("SRV lookups %q, want _mongodb._tcp of the name", asked)
	}
	if !slices.Equal(opts.Hosts, []string{"node-0.cluster0.example.test:27017", "node-1.cluster0.example.test:27018"}) {
		t.Errorf("hosts %q, want the SRV targets", opts.Hosts)
	}
	if opts.ReplicaSet == nil || *opts.ReplicaSet != "atlas-rs0" {
		t.Errorf("replicaSet %v, want the TXT record's", opts.ReplicaSet)
	}
	if opts.TLSConfig == nil {
		t.Fatal("mongodb+srv:// without tls=false: TLS is off")
	}
	Apply(opts, cfg)
	if opts.TLSConfig.RootCAs != cfg.RootCAs {
		t.Error("the CA file's pool is not used over SRV")
	}
	// tls=false turns the SRV default off; the string wins unless files
	// are given.
	off := options.Client().ApplyURI("mongodb+srv://cluster0.example.test/?tls=false")
	if err := off.Validate(); err != nil || off.TLSConfig != nil {
		t.Errorf("mongodb+srv:// with tls=false: TLS %v, err %v", off.TLSConfig, err)
	}
}
