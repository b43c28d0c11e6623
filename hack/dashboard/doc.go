// Command dashboard generates the Grafana dashboard the Helm chart ships
// (charts/mongobench/dashboards/mongobench.json) with grafana-foundation-sdk's
// Go builders:
//
//	make dashboard    # or: cd hack/dashboard && go run . -o ../../charts/mongobench/dashboards/mongobench.json
//
// It is its own Go module so that neither grafana-foundation-sdk nor
// Prometheus (whose PromQL parser its tests use) becomes a dependency of
// mongobench itself. For the same reason it does not import
// internal/contract: the metric and label names it queries are spelt in
// metrics.go, and its tests check every name against
// charts/mongobench/dashboards/metric-names.txt, which
// internal/contract's TestMetricNamesFile ties to the contract's constants.
//
// Its tests (make test-dashboard) check that the checked-in JSON is what
// this command generates, that it reads back through the SDK's strict
// decoder, and that every PromQL expression parses with Prometheus' own
// parser and selects only exported metrics, filtered by the dashboard's
// variables; and, evaluated by Prometheus' engine (promqltest) over series
// shaped as the contract describes them, that every panel query answers
// with the labels its legend names, the latency panels whether Prometheus
// keeps the classic buckets, the native histogram or both.
package main
