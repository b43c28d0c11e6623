package k8sresult

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/mongobench/mongobench/internal/testutil/kube"
)

var env *kube.Env

func TestMain(m *testing.M) { kube.Main(m, &env) }

// restrictedWriter returns a Writer authenticated as a user who may only
// create ConfigMaps in namespace ns: the permission the controller gives
// the Jobs (internal/topology/rbac.go's JobRole). Nothing is ever read.
func restrictedWriter(t *testing.T, admin kubernetes.Interface, user, ns string) *Writer {
	t.Helper()
	ctx := context.Background()
	role := &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: user, Namespace: ns},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"create"}}},
	}
	if _, err := admin.RbacV1().Roles(ns).Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: user, Namespace: ns},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: user},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}},
	}
	if _, err := admin.RbacV1().RoleBindings(ns).Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	u, err := env.AddUser(envtest.User{Name: user}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := u.Config()
	hc, err := rest.HTTPClientFor(cfg) // client certificate and CA
	if err != nil {
		t.Fatal(err)
	}
	w := New(cfg.Host, hc, "")
	w.Backoff = 10 * time.Millisecond
	return w
}

func createNamespace(t *testing.T, admin kubernetes.Interface, name string) {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := admin.CoreV1().Namespaces().Create(context.Background(), ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func TestCreateAgainstAPIServer(t *testing.T) {
	admin, err := kubernetes.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	createNamespace(t, admin, "results")
	createNamespace(t, admin, "elsewhere")
	w := restrictedWriter(t, admin, "loader-job", "results")
	ctx := context.Background()

	owner := &OwnerReference{APIVersion: "bench.mongobench.io/v1alpha1", Kind: "BenchmarkRun", Name: "r1", UID: "8d1f2a3c-0000-4000-8000-000000000001"}
	cm := &ConfigMap{
		Namespace:  "results",
		Name:       "r1-load-result-0",
		Labels:     map[string]string{"app.kubernetes.io/managed-by": "mongobench", "bench.mongobench.io/run": "r1"},
		Owner:      owner,
		Data:       map[string]string{"note": "text"},
		BinaryData: map[string][]byte{"result.json.gz": {0x1f, 0x8b, 0, 1, 2, 0xff}},
	}
	if err := w.Create(ctx, cm); err != nil {
		t.Fatalf("Create: %v", err)
	}

	got, err := admin.CoreV1().ConfigMaps("results").Get(ctx, cm.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if string(got.BinaryData["result.json.gz"]) != string(cm.BinaryData["result.json.gz"]) || got.Data["note"] != "text" {
		t.Errorf("data %v binaryData %v", got.Data, got.BinaryData)
	}
	for k, v := range cm.Labels {
		if got.Labels[k] != v {
			t.Errorf("label %s = %q, want %q", k, got.Labels[k], v)
		}
	}
	if got.Immutable == nil || !*got.Immutable {
		t.Error("the ConfigMap is not immutable")
	}
	if len(got.OwnerReferences) != 1 {
		t.Fatalf("owner references %+v", got.OwnerReferences)
	}
	o := got.OwnerReferences[0]
	if o.APIVersion != owner.APIVersion || o.Kind != owner.Kind || o.Name != owner.Name || string(o.UID) != owner.UID ||
		o.Controller == nil || !*o.Controller || o.BlockOwnerDeletion != nil {
		t.Errorf("owner reference %+v", o)
	}
	if len(got.ManagedFields) == 0 || got.ManagedFields[0].Manager != FieldManager {
		t.Errorf("managed fields %+v", got.ManagedFields)
	}

	// Again: the Job ran twice.
	err = w.Create(ctx, cm)
	if !errors.Is(err, ErrAlreadyExists) || !strings.Contains(err.Error(), "a result already exists") {
		t.Errorf("second Create: %v, want ErrAlreadyExists", err)
	}

	// Elsewhere the user may not create: forbidden, at once (not retried).
	other := *cm
	other.Namespace = "elsewhere"
	start := time.Now()
	err = w.Create(ctx, &other)
	if err == nil || !strings.Contains(err.Error(), "403 Forbidden") || !strings.Contains(err.Error(), `cannot create resource "configmaps"`) {
		t.Errorf("Create in another namespace: %v, want 403", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("a 403 took %v: retried?", time.Since(start))
	}

	// What the API server refuses that ValidateConfigMap did not catch is
	// reported with its message.
	bad := *cm
	bad.Name = "r1-other"
	bad.Owner = &OwnerReference{APIVersion: "v1", Kind: "Pod", Name: "p", UID: "u"}
	bad.Labels = map[string]string{"bench.mongobench.io/run": "r1"}
	bad.Namespace = "results"
	// A ConfigMap over 1 MiB is refused by the API server.
	bad.BinaryData = map[string][]byte{"big": make([]byte, 1<<20+1)}
	if err := w.Create(ctx, &bad); err == nil || !strings.Contains(err.Error(), "create ConfigMap results/r1-other") {
		t.Errorf("Create of an oversized ConfigMap: %v", err)
	}
}
