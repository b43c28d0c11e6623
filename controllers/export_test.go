package controllers

// TelemetrySummaries exposes telemetrySummaries to the tests of the
// package's API (package controllers_test).
var TelemetrySummaries = telemetrySummaries
