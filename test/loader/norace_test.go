//go:build !race

package loader_test

const raceBuild = false
