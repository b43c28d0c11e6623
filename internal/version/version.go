package version

import driverversion "go.mongodb.org/mongo-driver/v2/version"

// Version is set at build time with
// -ldflags "-X github.com/mongobench/mongobench/internal/version.Version=v0.1.0".
var Version = "v0.1.0"

// LoaderRepository is the default loader image repository.
const LoaderRepository = "ghcr.io/mongobench/mongobench-loader"

// LoaderImage is the default loader image: the repository at this version.
func LoaderImage() string { return LoaderRepository + ":" + Version }

// DriverVersion is the version of the MongoDB Go driver this binary is
// built with, as the driver states it ("v" + its version package's
// Driver). The manager and the loader are built from one go.mod, so the
// manager's answer is the loader's.
func DriverVersion() string { return "v" + driverversion.Driver }
