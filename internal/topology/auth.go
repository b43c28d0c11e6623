package topology

// The pieces of security.auth: the run's two Secrets, the keyfile every
// mongod and mongos reads, and the credentials of the Jobs. See
// docs/design/auth.md for the facts they rest on.

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/contract"
)

// Keys of the run's auth Secrets, and the users' names.
const (
	KeyfileKey = "keyfile"
	// AdminUsernameKey and AdminPasswordKey hold the admin user (role
	// root): the loaders, grow and the validator connect as it.
	AdminUsernameKey = "username"
	AdminPasswordKey = "password"
	AdminUsername    = "mongobench"
	// MonitorUsernameKey and MonitorPasswordKey hold the telemetry user
	// (role clusterMonitor), in the same Secret: loader 0 samples the
	// servers as it.
	MonitorUsernameKey = "monitorUsername"
	MonitorPasswordKey = "monitorPassword"
	MonitorUsername    = "mongobench-monitor"

	keyfileRandBytes  = 756 // base64: 1008 characters, within mongod's 6–1024
	passwordRandBytes = 32
	keyfileSecretVol  = "keyfile-secret"
	keyfileVol        = "keyfile"
	keyfileSecretDir  = "/secret"
	keyfileDir        = "/keyfile"
)

// AuthEnabled reports whether the run's MongoDB has access control
// (security.auth, default false).
func AuthEnabled(run *benchv1.BenchmarkRun) bool {
	return run.Spec.Security != nil && run.Spec.Security.Auth
}

// KeyfilePath is where mongod and mongos read --keyFile: a copy that the
// init container owns and makes 0400, because mongod refuses a keyfile
// with any group or other permission bit (security_file.cpp) and a Secret
// volume under fsGroup is always group-readable (the kubelet ORs 0440).
const KeyfilePath = keyfileDir + "/" + KeyfileKey

// KeyfileSecretName and AdminSecretName name a run's auth Secrets.
func KeyfileSecretName(run *benchv1.BenchmarkRun) string { return run.Name + "-keyfile" }

// AdminSecretName names the Secret of the run's admin user.
func AdminSecretName(run *benchv1.BenchmarkRun) string { return run.Name + "-admin" }

// NewKeyfile returns a fresh keyfile: the standard base64 of 756 random
// bytes (openssl rand -base64 756), only characters mongod accepts.
func NewKeyfile() ([]byte, error) {
	return randomBase64(keyfileRandBytes, base64.StdEncoding)
}

// NewPassword returns a fresh password for the admin user.
func NewPassword() ([]byte, error) {
	return randomBase64(passwordRandBytes, base64.RawURLEncoding)
}

func randomBase64(n int, enc *base64.Encoding) ([]byte, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return nil, fmt.Errorf("read %d random bytes: %w", n, err)
	}
	out := make([]byte, enc.EncodedLen(n))
	enc.Encode(out, b)
	return out, nil
}

// KeyfileSecret holds the run's keyfile; the run owns it.
func KeyfileSecret(run *benchv1.BenchmarkRun, keyfile []byte) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: objectMeta(run, KeyfileSecretName(run), RunLabels(run, benchv1.ComponentAuth)),
		Type:       corev1.SecretTypeOpaque,
		Immutable:  ptr.To(true),
		Data:       map[string][]byte{KeyfileKey: keyfile},
	}
}

// AdminSecret holds the credentials of the run's two users, the admin
// (password) and the monitor (monitorPassword); the run owns it. Opaque,
// not kubernetes.io/basic-auth: it holds two users.
func AdminSecret(run *benchv1.BenchmarkRun, password, monitorPassword []byte) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: objectMeta(run, AdminSecretName(run), RunLabels(run, benchv1.ComponentAuth)),
		Type:       corev1.SecretTypeOpaque,
		Immutable:  ptr.To(true),
		Data: map[string][]byte{
			AdminUsernameKey: []byte(AdminUsername), AdminPasswordKey: password,
			MonitorUsernameKey: []byte(MonitorUsername), MonitorPasswordKey: monitorPassword,
		},
	}
}

// KeyfileVolumes are a database pod's keyfile volumes: the Secret,
// readable by the pod's fsGroup, and the in-memory copy mongod reads.
func KeyfileVolumes(run *benchv1.BenchmarkRun) []corev1.Volume {
	return []corev1.Volume{
		{Name: keyfileSecretVol, VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
			SecretName: KeyfileSecretName(run), DefaultMode: ptr.To[int32](0o440)}}},
		{Name: keyfileVol, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{
			Medium: corev1.StorageMediumMemory, SizeLimit: ptr.To(resource.MustParse("1Mi"))}}},
	}
}

// KeyfileInitContainer copies the keyfile out of the Secret volume as the
// mongodb user (uid 999), which then owns it, and makes it 0400. It asks
// for the resources of process p's container: the kubelet counts init
// containers in the pod's QoS class (k8s.io/kubernetes
// pkg/apis/core/helper/qos, ComputePodQOS: allContainers includes
// InitContainers), so one without requests and limits would turn a
// Guaranteed database pod Burstable and lose it the static CPU manager's
// exclusive CPUs; and an init container's requests count only as their
// maximum with the app containers' sum (k8s.io/component-helpers
// resource.PodRequests), so equal ones change nothing the scheduler sees.
func KeyfileInitContainer(run *benchv1.BenchmarkRun, p Process) corev1.Container {
	return corev1.Container{
		Name:            "keyfile",
		Image:           run.Spec.Topology.Image,
		ImagePullPolicy: run.Spec.Topology.ImagePullPolicy,
		Command:         []string{"install", "-m", "0400", keyfileSecretDir + "/" + KeyfileKey, KeyfilePath},
		Resources:       processResources(run, p),
		SecurityContext: restrictedContainerSecurity(),
		VolumeMounts: []corev1.VolumeMount{
			{Name: keyfileSecretVol, MountPath: keyfileSecretDir, ReadOnly: true},
			{Name: keyfileVol, MountPath: keyfileDir},
		},
		TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
	}
}

// KeyfileMount is the database container's mount of the keyfile copy.
func KeyfileMount() corev1.VolumeMount {
	return corev1.VolumeMount{Name: keyfileVol, MountPath: keyfileDir, ReadOnly: true}
}

// KeyfileArgs are the flags that turn internal authentication (and with
// it access control) on, for every mongod and mongos of the run: a
// --keyFile makes the cluster auth mode keyFile, and a defined cluster
// auth mode turns authorization on (mongodb/mongo
// src/mongo/db/auth/authorization_manager_global.cpp,
// CreateAuthorizationManager: "clusterAuthMode defaults to "keyFile" if a
// --keyFile parameter is provided", then setAuthEnabled(true)).
func KeyfileArgs() []string { return []string{"--keyFile", KeyfilePath} }

// withKeyfile gives the pod of process p, built without auth, the
// keyfile: the Secret and in-memory volumes, the init container that
// copies it, the mongod or mongos container's mount. Its --keyFile is in
// Args.
func withKeyfile(run *benchv1.BenchmarkRun, p Process, pod *corev1.Pod) {
	pod.Spec.Volumes = append(pod.Spec.Volumes, KeyfileVolumes(run)...)
	pod.Spec.InitContainers = append(pod.Spec.InitContainers, KeyfileInitContainer(run, p))
	c := &pod.Spec.Containers[0]
	c.VolumeMounts = append(c.VolumeMounts, KeyfileMount())
}

// BootstrapKeyfilePath is where the bootstrap Job reads the keyfile
// (contract.FlagKeyfile): the Secret itself, read-only. Only mongod
// demands a 0400 file; the loader merely reads it, through the pod's
// fsGroup.
const BootstrapKeyfilePath = keyfileSecretDir + "/" + KeyfileKey

// withBootstrapCredentials gives the bootstrap Job, built without auth,
// what it needs to authenticate as the cluster and create the run's
// users: the keyfile Secret mounted read-only, --keyfile naming it, and
// both users' names and passwords in the environment.
func withBootstrapCredentials(run *benchv1.BenchmarkRun, j *batchv1.Job) {
	ps := &j.Spec.Template.Spec
	ps.Volumes = append(ps.Volumes, corev1.Volume{Name: keyfileSecretVol, VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
		SecretName: KeyfileSecretName(run), DefaultMode: ptr.To[int32](0o440),
		Items: []corev1.KeyToPath{{Key: KeyfileKey, Path: KeyfileKey}}}}})
	c := &ps.Containers[0]
	c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: keyfileSecretVol, MountPath: keyfileSecretDir, ReadOnly: true})
	c.Args = append(c.Args, "--"+contract.FlagKeyfile, BootstrapKeyfilePath)
	c.Env = append(c.Env, userEnv(run)...)
	c.Env = append(c.Env, monitorEnv(run)...)
}

// userEnv is the admin user's name and password (role root), from the
// run's admin Secret: the load, run, grow and validator Jobs connect as
// it.
func userEnv(run *benchv1.BenchmarkRun) []corev1.EnvVar {
	return []corev1.EnvVar{
		secretEnv(contract.EnvUsername, AdminSecretName(run), AdminUsernameKey),
		secretEnv(contract.EnvPassword, AdminSecretName(run), AdminPasswordKey),
	}
}

// monitorEnv is the telemetry user's name and password (role
// clusterMonitor), from the run's admin Secret.
func monitorEnv(run *benchv1.BenchmarkRun) []corev1.EnvVar {
	return []corev1.EnvVar{
		secretEnv(contract.EnvMonitorUsername, AdminSecretName(run), MonitorUsernameKey),
		secretEnv(contract.EnvMonitorPassword, AdminSecretName(run), MonitorPasswordKey),
	}
}

// secretEnv is an environment variable whose value the kubelet reads from
// a key of a Secret: the pod spec, and everything that copies it (the
// run's diagnostics, kubectl get -o yaml), names the Secret, never the
// value. Not optional: a missing Secret keeps the container from
// starting (CreateContainerConfigError), which fails the run with the
// reason instead of connecting without credentials.
func secretEnv(name, secret, key string) corev1.EnvVar {
	return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
		LocalObjectReference: corev1.LocalObjectReference{Name: secret}, Key: key}}}
}
