//go:build race

package loader_test

// raceBuild: the tests run with -race, so the loader binary they start is
// built with it too (a detected race makes the process exit 66).
const raceBuild = true
