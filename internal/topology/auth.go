package topology

// Work in progress (branch secure-auth-wip): the pure pieces of
// security.auth, not yet wired to the API or the controller. See
// docs/design/auth.md for the facts they rest on.

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// Keys of the run's auth Secrets.
const (
	KeyfileKey        = "keyfile"
	AdminUsernameKey  = "username"
	AdminPasswordKey  = "password"
	AdminUsername     = "mongobench"
	keyfileRandBytes  = 756 // base64: 1008 characters, within mongod's 6–1024
	passwordRandBytes = 32
	keyfileSecretVol  = "keyfile-secret"
	keyfileVol        = "keyfile"
	keyfileSecretDir  = "/secret"
	keyfileDir        = "/keyfile"
)

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
		ObjectMeta: objectMeta(run, KeyfileSecretName(run), RunLabels(run, benchv1.ComponentRBAC)),
		Type:       corev1.SecretTypeOpaque,
		Immutable:  ptr.To(true),
		Data:       map[string][]byte{KeyfileKey: keyfile},
	}
}

// AdminSecret holds the run's admin user's credentials; the run owns it.
func AdminSecret(run *benchv1.BenchmarkRun, password []byte) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: objectMeta(run, AdminSecretName(run), RunLabels(run, benchv1.ComponentRBAC)),
		Type:       corev1.SecretTypeBasicAuth,
		Immutable:  ptr.To(true),
		Data:       map[string][]byte{AdminUsernameKey: []byte(AdminUsername), AdminPasswordKey: password},
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
// mongodb user (uid 999), which then owns it, and makes it 0400.
func KeyfileInitContainer(run *benchv1.BenchmarkRun) corev1.Container {
	return corev1.Container{
		Name:            "keyfile",
		Image:           run.Spec.Topology.Image,
		ImagePullPolicy: run.Spec.Topology.ImagePullPolicy,
		Command:         []string{"install", "-m", "0400", keyfileSecretDir + "/" + KeyfileKey, KeyfilePath},
		SecurityContext: restrictedContainerSecurity(),
		VolumeMounts: []corev1.VolumeMount{
			{Name: keyfileSecretVol, MountPath: keyfileSecretDir, ReadOnly: true},
			{Name: keyfileVol, MountPath: keyfileDir},
		},
	}
}

// KeyfileMount is the database container's mount of the keyfile copy.
func KeyfileMount() corev1.VolumeMount {
	return corev1.VolumeMount{Name: keyfileVol, MountPath: keyfileDir, ReadOnly: true}
}

// KeyfileArgs are the flags that turn internal authentication (and with
// it access control) on, for every mongod and mongos of the run.
func KeyfileArgs() []string { return []string{"--keyFile", KeyfilePath} }
