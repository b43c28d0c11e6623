package topology

import (
	"bytes"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/utils/ptr"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/contract"
)

// TestNewKeyfile: a keyfile mongod accepts — 6 to 1024 characters of the
// base64 alphabet (security_file.cpp) — and a new one each time.
func TestNewKeyfile(t *testing.T) {
	a, err := NewKeyfile()
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewKeyfile()
	if err != nil {
		t.Fatal(err)
	}
	if len(a) < 6 || len(a) > 1024 || !regexp.MustCompile(`^[A-Za-z0-9+/=]+$`).Match(a) {
		t.Errorf("keyfile of %d characters that mongod refuses: %q", len(a), a)
	}
	if string(a) == string(b) {
		t.Error("two keyfiles alike")
	}
}

// TestAuthSecrets: the Secrets are the run's (owned, labelled for the
// manager's cache, immutable) and hold what the Jobs' secretKeyRefs name:
// the keyfile, and both users' names and passwords.
func TestAuthSecrets(t *testing.T) {
	run := sharded(2)
	kf := KeyfileSecret(run, []byte("abcdef"))
	admin := AdminSecret(run, []byte("pw"), []byte("mpw"))
	for _, s := range []*corev1.Secret{kf, admin} {
		checkOwner(t, s)
		if s.Labels[benchv1.LabelManagedBy] != benchv1.ManagedBy || s.Labels[benchv1.LabelRun] != run.Name ||
			s.Labels[benchv1.LabelComponent] != benchv1.ComponentAuth {
			t.Errorf("%s: labels %v: the manager's cache would not see it, or not as the run's", s.Name, s.Labels)
		}
		if s.Immutable == nil || !*s.Immutable {
			t.Errorf("%s is mutable: a changed keyfile under running members", s.Name)
		}
	}
	if kf.Name != "ms-keyfile" || string(kf.Data[KeyfileKey]) != "abcdef" || len(kf.Data) != 1 {
		t.Errorf("keyfile Secret %s %v", kf.Name, kf.Data)
	}
	want := map[string]string{AdminUsernameKey: "mongobench", AdminPasswordKey: "pw", MonitorUsernameKey: "mongobench-monitor", MonitorPasswordKey: "mpw"}
	if admin.Name != "ms-admin" || len(admin.Data) != len(want) {
		t.Errorf("admin Secret %s %v", admin.Name, admin.Data)
	}
	for k, v := range want {
		if string(admin.Data[k]) != v {
			t.Errorf("admin Secret %s = %q, want %q", k, admin.Data[k], v)
		}
	}
}

// withAuth is run with security.auth on.
func withAuth(run *benchv1.BenchmarkRun) *benchv1.BenchmarkRun {
	r := run.DeepCopy()
	r.Spec.Security = &benchv1.SecuritySpec{NetworkPolicy: ptr.To(true), Auth: true}
	return r
}

// TestAuthOffIsTheGolden: security.auth false, said, builds every pod and
// Job byte for byte as a run without spec.security (the golden files).
func TestAuthOffIsTheGolden(t *testing.T) {
	for name, run := range goldenRuns() {
		t.Run(name, func(t *testing.T) {
			run.Spec.Security = &benchv1.SecuritySpec{NetworkPolicy: ptr.To(true), Auth: false}
			golden(t, name+".yaml", marshalAll(t, buildAll(run)))
		})
	}
}

// TestAuthPods: with security.auth, the pod of every role gets --keyFile
// last, the two keyfile volumes, the init container that copies the
// keyfile (with the process's own resources, so the pod's QoS class stays
// what it was) and the mount of the copy; without those, it is the pod of
// the run without auth.
func TestAuthPods(t *testing.T) {
	roles := map[benchv1.ProcessRole]bool{}
	for name, off := range goldenRuns() {
		on := withAuth(off)
		for _, p := range Processes(on) {
			roles[p.Role] = true
			pod := Pod(on, p, NodePlacement{Hostname: "host-a"}, cfg)
			c := pod.Spec.Containers[0]
			if n := len(c.Args); n < 2 || !slices.Equal(c.Args[n-2:], []string{"--keyFile", "/keyfile/keyfile"}) ||
				slices.Index(c.Args, "--keyFile") != n-2 {
				t.Errorf("%s/%s: args %v, want --keyFile /keyfile/keyfile once, last", name, p.Name, c.Args)
			}
			if got := mountsOf(c); got["/keyfile"] != (corev1.VolumeMount{Name: "keyfile", MountPath: "/keyfile", ReadOnly: true}) || got["/secret"].Name != "" {
				t.Errorf("%s/%s: mounts %v: want the copy at /keyfile, read-only, and not the Secret", name, p.Name, got)
			}
			vols := map[string]corev1.Volume{}
			for _, v := range pod.Spec.Volumes {
				vols[v.Name] = v
			}
			if s := vols["keyfile-secret"].Secret; s == nil || s.SecretName != KeyfileSecretName(on) || ptr.Deref(s.DefaultMode, 0) != 0o440 {
				t.Errorf("%s/%s: keyfile Secret volume %+v", name, p.Name, vols["keyfile-secret"])
			}
			if e := vols["keyfile"].EmptyDir; e == nil || e.Medium != corev1.StorageMediumMemory {
				t.Errorf("%s/%s: keyfile copy volume %+v, want an in-memory emptyDir", name, p.Name, vols["keyfile"])
			}
			if len(pod.Spec.InitContainers) != 1 {
				t.Fatalf("%s/%s: init containers %+v", name, p.Name, pod.Spec.InitContainers)
			}
			ic := pod.Spec.InitContainers[0]
			if ic.Image != on.Spec.Topology.Image || !slices.Equal(ic.Command, []string{"install", "-m", "0400", "/secret/keyfile", "/keyfile/keyfile"}) {
				t.Errorf("%s/%s: init container %s %v", name, p.Name, ic.Image, ic.Command)
			}
			if !equality.Semantic.DeepEqual(ic.Resources, c.Resources) {
				t.Errorf("%s/%s: init container resources %v, the process's %v: the pod's QoS class would change", name, p.Name, ic.Resources, c.Resources)
			}
			if sc := ic.SecurityContext; sc == nil || !*sc.ReadOnlyRootFilesystem || *sc.AllowPrivilegeEscalation || !*sc.RunAsNonRoot {
				t.Errorf("%s/%s: init container security %+v", name, p.Name, sc)
			}
			if m := mountsOf(ic); !m["/secret"].ReadOnly || m["/keyfile"].ReadOnly || m["/secret"].Name != "keyfile-secret" {
				t.Errorf("%s/%s: init container mounts %v", name, p.Name, m)
			}
			want := marshalAll(t, []any{Pod(off, p, NodePlacement{Hostname: "host-a"}, cfg)})
			if got := marshalAll(t, []any{stripPodAuth(pod)}); !bytes.Equal(got, want) {
				t.Errorf("%s/%s: without the keyfile, the pod is not the run's without auth:\n%s\nwant\n%s", name, p.Name, got, want)
			}
		}
	}
	for _, r := range []benchv1.ProcessRole{benchv1.RoleStandalone, benchv1.RoleMember, benchv1.RoleConfigServer, benchv1.RoleShard, benchv1.RoleMongos} {
		if !roles[r] {
			t.Errorf("no run with a %s: the table misses a role", r)
		}
	}
}

func mountsOf(c corev1.Container) map[string]corev1.VolumeMount {
	out := map[string]corev1.VolumeMount{}
	for _, m := range c.VolumeMounts {
		out[m.MountPath] = m
	}
	return out
}

// stripPodAuth is pod without what withKeyfile and KeyfileArgs add.
func stripPodAuth(pod *corev1.Pod) *corev1.Pod {
	p := pod.DeepCopy()
	p.Spec.InitContainers = nil
	p.Spec.Volumes = slices.DeleteFunc(p.Spec.Volumes, func(v corev1.Volume) bool { return v.Name == "keyfile" || v.Name == "keyfile-secret" })
	c := &p.Spec.Containers[0]
	c.VolumeMounts = slices.DeleteFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool { return m.Name == "keyfile" })
	if n := len(c.Args); n >= 2 && c.Args[n-2] == "--keyFile" {
		c.Args = c.Args[:n-2]
	}
	return p
}

var credentialEnv = []string{contract.EnvUsername, contract.EnvPassword, contract.EnvMonitorUsername, contract.EnvMonitorPassword}

// TestAuthJobs: with security.auth, the bootstrap Job mounts the keyfile
// Secret read-only, names it with --keyfile and gets both users' names
// and passwords; the validator and every phase Job get the admin user;
// the phase Jobs whose loader 0 samples telemetry get the monitor user
// too. Each from the admin Secret by secretKeyRef, never as a value.
// Without those, each Job is the run's without auth.
func TestAuthJobs(t *testing.T) {
	kinds := map[string]bool{}
	for name, off := range goldenRuns() {
		on := withAuth(off)
		offJobs, onJobs := buildAll(off), buildAll(on)
		for i := range onJobs {
			j, ok := onJobs[i].(*batchv1.Job)
			if !ok {
				continue
			}
			kind, want := jobKind(on, j)
			kinds[kind] = true
			c := j.Spec.Template.Spec.Containers[0]
			if got := credentialsOf(t, on, j); !slices.Equal(got, want) {
				t.Errorf("%s/%s (%s): credentials %v, want %v", name, j.Name, kind, got, want)
			}
			keyfileArg := slices.Index(c.Args, "--"+contract.FlagKeyfile)
			if kind == benchv1.ComponentBootstrap {
				checkBootstrapKeyfile(t, on, j)
			} else if keyfileArg >= 0 || len(j.Spec.Template.Spec.Volumes) > 0 {
				t.Errorf("%s/%s: a %s Job has the keyfile: %v %+v", name, j.Name, kind, c.Args, j.Spec.Template.Spec.Volumes)
			}
			wantOff := marshalAll(t, []any{offJobs[i]})
			if got := marshalAll(t, []any{stripJobAuth(j)}); !bytes.Equal(got, wantOff) {
				t.Errorf("%s/%s: without the credentials, the Job is not the run's without auth:\n%s\nwant\n%s", name, j.Name, got, wantOff)
			}
		}
	}
	for _, k := range []string{benchv1.ComponentBootstrap, benchv1.ComponentValidator, "Load+telemetry", "Run+telemetry", "Load", "Run", "Grow+telemetry"} {
		if !kinds[k] {
			t.Errorf("no %s Job: the table misses a kind (%v)", k, kinds)
		}
	}
}

// jobKind names what a Job of run is (bootstrap, validator, or a phase's
// type, +telemetry when its loader 0 samples) and the credential
// variables it must get.
func jobKind(run *benchv1.BenchmarkRun, j *batchv1.Job) (string, []string) {
	kind := j.Labels[benchv1.LabelComponent]
	switch kind {
	case benchv1.ComponentBootstrap:
		return kind, credentialEnv
	case benchv1.ComponentLoader:
		for _, ph := range run.Spec.Phases {
			if strings.EqualFold(ph.Name, j.Labels[benchv1.LabelPhase]) {
				kind = string(ph.Type)
			}
		}
		if TelemetryEnabled(run) {
			return kind + "+telemetry", credentialEnv
		}
	}
	return kind, credentialEnv[:2]
}

// credentialsOf lists the credential variables of a Job's container,
// checking that each comes from the right key of the run's admin Secret
// by a required secretKeyRef, never as a value.
func credentialsOf(t *testing.T, run *benchv1.BenchmarkRun, j *batchv1.Job) []string {
	t.Helper()
	keys := map[string]string{contract.EnvUsername: AdminUsernameKey, contract.EnvPassword: AdminPasswordKey,
		contract.EnvMonitorUsername: MonitorUsernameKey, contract.EnvMonitorPassword: MonitorPasswordKey}
	var got []string
	for _, e := range j.Spec.Template.Spec.Containers[0].Env {
		key, ok := keys[e.Name]
		if !ok {
			continue
		}
		got = append(got, e.Name)
		ref := e.ValueFrom
		if e.Value != "" || ref == nil || ref.SecretKeyRef == nil || ref.SecretKeyRef.Name != AdminSecretName(run) ||
			ref.SecretKeyRef.Key != key || ptr.Deref(ref.SecretKeyRef.Optional, false) {
			t.Errorf("%s: %s = %q from %+v: want a required secretKeyRef to %s, key %s", j.Name, e.Name, e.Value, ref, AdminSecretName(run), key)
		}
	}
	return got
}

// checkBootstrapKeyfile: the bootstrap Job reads the keyfile Secret's one
// key, mounted read-only, at the path --keyfile names.
func checkBootstrapKeyfile(t *testing.T, run *benchv1.BenchmarkRun, j *batchv1.Job) {
	t.Helper()
	c := j.Spec.Template.Spec.Containers[0]
	if i := slices.Index(c.Args, "--"+contract.FlagKeyfile); i < 0 || i+1 >= len(c.Args) || c.Args[i+1] != "/secret/keyfile" {
		t.Errorf("%s: args %v: want --keyfile /secret/keyfile", j.Name, c.Args)
	}
	vols := j.Spec.Template.Spec.Volumes
	if len(vols) != 1 || vols[0].Secret == nil || vols[0].Secret.SecretName != KeyfileSecretName(run) ||
		len(vols[0].Secret.Items) != 1 || vols[0].Secret.Items[0].Key != KeyfileKey || vols[0].Secret.Items[0].Path != KeyfileKey {
		t.Fatalf("%s: volumes %+v: want the keyfile Secret's keyfile", j.Name, vols)
	}
	if m := mountsOf(c)["/secret"]; m.Name != vols[0].Name || !m.ReadOnly {
		t.Errorf("%s: mounts %+v", j.Name, c.VolumeMounts)
	}
}

// stripJobAuth is j without what withBootstrapCredentials, userEnv and
// monitorEnv add.
func stripJobAuth(j *batchv1.Job) *batchv1.Job {
	out := j.DeepCopy()
	ps := &out.Spec.Template.Spec
	ps.Volumes = slices.DeleteFunc(ps.Volumes, func(v corev1.Volume) bool { return v.Name == "keyfile-secret" })
	if len(ps.Volumes) == 0 {
		ps.Volumes = nil
	}
	c := &ps.Containers[0]
	c.VolumeMounts = slices.DeleteFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool { return m.Name == "keyfile-secret" })
	if len(c.VolumeMounts) == 0 {
		c.VolumeMounts = nil
	}
	if i := slices.Index(c.Args, "--"+contract.FlagKeyfile); i >= 0 {
		c.Args = slices.Delete(c.Args, i, i+2)
	}
	c.Env = slices.DeleteFunc(c.Env, func(e corev1.EnvVar) bool { return slices.Contains(credentialEnv, e.Name) })
	return out
}

// TestAuthPutsNoCredentialInTheSpecs: with security.auth, no pod or Job
// of any shape carries a user name or password in an argument, a
// connection string (no userinfo in any mongodb:// URL) or an
// annotation: the passwords are only in the Secret, the names only there
// and in the bootstrap's createUser.
func TestAuthPutsNoCredentialInTheSpecs(t *testing.T) {
	uri := regexp.MustCompile(`mongodb://[^\s"]*`)
	for name, off := range goldenRuns() {
		on := withAuth(off)
		for _, o := range buildAll(on) {
			var meta, tmpl map[string]string
			var cs []corev1.Container
			switch o := o.(type) {
			case *corev1.Pod:
				meta, cs = o.Annotations, append(o.Spec.InitContainers, o.Spec.Containers...)
			case *batchv1.Job:
				meta, tmpl, cs = o.Annotations, o.Spec.Template.Annotations, o.Spec.Template.Spec.Containers
			}
			if len(meta) > 0 || len(tmpl) > 0 {
				t.Errorf("%s: annotations %v %v", name, meta, tmpl)
			}
			for _, c := range cs {
				all := append(append([]string{}, c.Command...), c.Args...)
				for _, e := range c.Env {
					all = append(all, e.Value)
				}
				for _, a := range all {
					if strings.Contains(a, AdminUsername+":") || strings.Contains(a, MonitorUsername) {
						t.Errorf("%s/%s: %q names a user", name, c.Name, a)
					}
					for _, u := range uri.FindAllString(a, -1) {
						p, err := url.Parse(u)
						if err != nil || p.User != nil {
							t.Errorf("%s/%s: connection string %s carries userinfo (%v)", name, c.Name, u, err)
						}
					}
				}
			}
		}
	}
}

// TestAuthEnabled: off unless security.auth says true.
func TestAuthEnabled(t *testing.T) {
	run := standalone()
	for _, tc := range []struct {
		sec  *benchv1.SecuritySpec
		want bool
	}{
		{nil, false},
		{&benchv1.SecuritySpec{}, false},
		{&benchv1.SecuritySpec{NetworkPolicy: ptr.To(false)}, false},
		{&benchv1.SecuritySpec{Auth: true}, true},
	} {
		run.Spec.Security = tc.sec
		if got := AuthEnabled(run); got != tc.want {
			t.Errorf("security %+v: AuthEnabled = %v", tc.sec, got)
		}
	}
}
