package k8sresult

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
)

// ServiceAccountDir is where the kubelet mounts a pod's service account
// token, CA bundle and namespace.
const ServiceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount"

// InCluster returns a Writer for the API server of the cluster the process
// runs in, the way client-go's rest.InClusterConfig finds it: the address
// from KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT, the CA bundle
// and the token from the service account mount. The token is re-read for
// every request, since the kubelet rotates it. getenv is os.Getenv in
// production.
func InCluster(getenv func(string) string) (*Writer, error) {
	return inCluster(getenv, ServiceAccountDir)
}

func inCluster(getenv func(string) string, dir string) (*Writer, error) {
	host, port := getenv("KUBERNETES_SERVICE_HOST"), getenv("KUBERNETES_SERVICE_PORT")
	if host == "" || port == "" {
		return nil, errors.New("not running in a Kubernetes pod: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set")
	}
	tokenFile := filepath.Join(dir, "token")
	readToken := func() (string, error) {
		b, err := os.ReadFile(tokenFile)
		if err != nil {
			return "", fmt.Errorf("read %s: %w", tokenFile, err)
		}
		return strings.TrimSpace(string(b)), nil
	}
	if _, err := readToken(); err != nil {
		return nil, fmt.Errorf("service account token (is automountServiceAccountToken false?): %w", err)
	}
	caFile := filepath.Join(dir, "ca.crt")
	ca, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("service account CA bundle: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		return nil, fmt.Errorf("service account CA bundle %s: no PEM certificate", caFile)
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	w := New("https://"+net.JoinHostPort(host, port), &http.Client{Transport: transport}, "")
	w.token = readToken
	return w, nil
}

// Namespace returns the namespace to write results in: POD_NAMESPACE (set
// from the downward API by the controller's Jobs), else the service
// account's namespace file.
func Namespace(getenv func(string) string) (string, error) {
	return namespace(getenv, ServiceAccountDir)
}

func namespace(getenv func(string) string, dir string) (string, error) {
	if ns := strings.TrimSpace(getenv("POD_NAMESPACE")); ns != "" {
		return ns, nil
	}
	f := filepath.Join(dir, "namespace")
	b, err := os.ReadFile(f)
	if err != nil {
		return "", fmt.Errorf("namespace: POD_NAMESPACE is not set and %w", err)
	}
	ns := strings.TrimSpace(string(b))
	if ns == "" {
		return "", fmt.Errorf("namespace: POD_NAMESPACE is not set and %s is empty", f)
	}
	return ns, nil
}
