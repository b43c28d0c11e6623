// Package mongotls builds the TLS configuration of connections to a
// MongoDB that mongobench did not deploy (mode External) from the files the
// controller mounts from the user's Secrets (contract.FlagTLSCAFile,
// FlagTLSCertFile, FlagTLSKeyFile), and applies it to the driver's client
// options the same way for every connection the loader opens: load, run,
// grow, collmod, bootstrap, dropdatabase and telemetry.
package mongotls

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"

	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Files are the paths of the PEM files; empty paths are not used.
type Files struct {
	CA, Cert, Key string
}

// Load reads the files into a tls.Config: RootCAs from the CA bundle (the
// system's roots otherwise), the client key pair when both Cert and Key
// are given. It returns nil when no file is given: TLS is then whatever
// the connection string says. Its errors name the files, never their
// content.
func Load(f Files) (*tls.Config, error) {
	if f.CA == "" && f.Cert == "" && f.Key == "" {
		return nil, nil
	}
	if (f.Cert == "") != (f.Key == "") {
		return nil, errors.New("a client certificate needs both its certificate and its key file")
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if f.CA != "" {
		pem, err := os.ReadFile(f.CA)
		if err != nil {
			return nil, fmt.Errorf("CA file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("CA file %s: no PEM certificate in it", f.CA)
		}
		cfg.RootCAs = pool
	}
	if f.Cert != "" {
		pair, err := tls.LoadX509KeyPair(f.Cert, f.Key)
		if err != nil {
			// crypto/tls's messages name what is wrong with the PEM
			// blocks, never their bytes.
			return nil, fmt.Errorf("client certificate %s and key %s: %w", f.Cert, f.Key, err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return cfg, nil
}

// Apply merges cfg into opts, after opts.ApplyURI. The driver enables TLS
// exactly when ClientOptions.TLSConfig is not nil
// (x/mongo/driver/topology/topology_options.go in
// go.mongodb.org/mongo-driver/v2), and ApplyURI sets it when the string
// says tls=true, or is mongodb+srv:// (TLS is on by default for SRV unless
// the string says tls=false: x/mongo/driver/connstring/connstring.go),
// filled from the string's tlsCAFile, tlsInsecure and tlsCertificateKeyFile
// (mongo/options/clientoptions.go). SetTLSConfig would replace that
// configuration wholesale and drop the string's own choices, so Apply
// starts from a copy of it: the files' CA pool replaces the string's
// tlsCAFile (the Secret is the more specific source), the files' client
// certificate is added, and tlsInsecure stays as the string says. Given
// files turn TLS on even when the string does not ask for it: a CA or a
// client certificate is only of use with TLS.
func Apply(opts *options.ClientOptions, cfg *tls.Config) {
	if cfg == nil {
		return
	}
	merged := &tls.Config{MinVersion: tls.VersionTLS12}
	if opts.TLSConfig != nil {
		merged = opts.TLSConfig.Clone()
	}
	if cfg.RootCAs != nil {
		merged.RootCAs = cfg.RootCAs
	}
	merged.Certificates = append(merged.Certificates, cfg.Certificates...)
	opts.SetTLSConfig(merged)
}
