package controllers

import (
	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// TelemetrySummaries exposes telemetrySummaries to the tests of the
// package's API (package controllers_test).
var TelemetrySummaries = telemetrySummaries

// PreflightCheck exposes preflightCheck, returning its reason and message.
func PreflightCheck(run *benchv1.BenchmarkRun, nodes []corev1.Node) (benchv1.Reason, string) {
	_, reason, msg := preflightCheck(run, nodes, logr.Discard())
	return reason, msg
}

// SpreadDiskRoom exposes spreadDiskRoom.
func SpreadDiskRoom(run *benchv1.BenchmarkRun, nodes []corev1.Node) string {
	return spreadDiskRoom(run, nodes, logr.Discard())
}

// RecordExternalMembers exposes recordExternalMembers.
var RecordExternalMembers = recordExternalMembers
