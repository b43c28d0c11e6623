package topology

import (
	"regexp"
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// GlibcTunables is the variable, and RseqOff its value, that leave
// restartable sequences to TCMalloc. MongoDB 8.0's TCMalloc uses per-CPU
// caches only when it can register rseq; a glibc that registers it first
// leaves TCMalloc slower per-thread caches. MongoDB says to set it
// (docs/manual/administration/tcmalloc-performance, "Enable Per-CPU
// Caches"); the official image sets it for 8.0 and later since
// docker-library/mongo#723, and images built otherwise may not: we set it
// so that both measure the same (docs/tuning.md).
const (
	GlibcTunables = "GLIBC_TUNABLES"
	RseqOff       = "glibc.pthread.rseq=0"
)

// Env is the environment of every MongoDB container: GLIBC_TUNABLES for
// images of MongoDB 8.0 or later (or of an unknown version), then
// spec.topology.env, whose entries replace ours by name.
func Env(run *benchv1.BenchmarkRun) []corev1.EnvVar {
	var out []corev1.EnvVar
	user := run.Spec.Topology.Env
	overridden := func(name string) bool {
		return slices.ContainsFunc(user, func(e corev1.EnvVar) bool { return e.Name == name })
	}
	if major, ok := ImageMajorVersion(run.Spec.Topology.Image); (!ok || major >= 8) && !overridden(GlibcTunables) {
		out = append(out, corev1.EnvVar{Name: GlibcTunables, Value: RseqOff})
	}
	out = append(out, user...)
	return out
}

// imageVersion finds "major.minor" at the start of an image's tag:
// mongo:8.0.16, registry:5000/mongo:7.0, mongodb/mongodb-community-server:8.0.4-ubuntu2204.
var imageVersion = regexp.MustCompile(`:(\d+)\.(\d+)(?:[.\-][^/:@]*)?(?:@sha256:[0-9a-f]+)?$`)

// ImageMajorVersion returns the MongoDB major version an image's tag
// names; false when the tag does not name one (latest, a digest only).
func ImageMajorVersion(image string) (int, bool) {
	m := imageVersion.FindStringSubmatch(image)
	if m == nil {
		return 0, false
	}
	major, err := strconv.Atoi(m[1])
	if err != nil {
		return 0, false
	}
	return major, true
}
