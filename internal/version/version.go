// Package version holds the build's version and the image references that
// derive from it, so the manager's default loader image always matches the
// release it ships with (the Helm chart's appVersion).
package version

// Version is set at build time with
// -ldflags "-X github.com/mongobench/mongobench/internal/version.Version=v0.1.0".
var Version = "v0.1.0"

// LoaderRepository is the default loader image repository.
const LoaderRepository = "ghcr.io/mongobench/mongobench-loader"

// LoaderImage is the default loader image: the repository at this version.
func LoaderImage() string { return LoaderRepository + ":" + Version }
