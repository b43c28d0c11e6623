// Package version holds the build's version and the image references that
// derive from it, so the manager's default loader image always matches the
// release it ships with (the Helm chart's appVersion).
package version
