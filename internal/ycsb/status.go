package ycsb

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/mongobench/mongobench/internal/results"
)

// statusTimeLayout is YCSB's SimpleDateFormat "yyyy-MM-dd HH:mm:ss:SSS"
// without the milliseconds, which Go can only put after '.' or ','.
const statusTimeLayout = "2006-01-02 15:04:05"

// statusLine builds YCSB's StatusThread line:
//
//	<label><date> <secs> sec: <ops> operations; <cur> current ops/sec; est completion in <t> [OP: Count=…] …
//
// startMs, intervalStartMs and nowMs are wall-clock milliseconds; the
// arithmetic, including its divisions by zero, is Java's.
func statusLine(label string, now time.Time, startMs, intervalStartMs, nowMs, totalOps, lastTotalOps, todoOps int64, summary string) string {
	interval := nowMs - startMs
	throughput := 1000 * (float64(totalOps) / float64(interval))
	cur := 1000 * (float64(totalOps-lastTotalOps) / float64(nowMs-intervalStartMs))
	est := javaLong(math.Ceil(float64(todoOps) / throughput))

	var b strings.Builder
	b.WriteString(label)
	b.WriteString(now.Format(statusTimeLayout))
	fmt.Fprintf(&b, ":%03d %d sec: %d operations; ", now.Nanosecond()/1e6, interval/1000, totalOps)
	if totalOps != 0 {
		b.WriteString(formatDecimal2(cur))
		b.WriteString(" current ops/sec; ")
	}
	if todoOps != 0 {
		b.WriteString("est completion in ")
		b.WriteString(formatRemaining(est))
	}
	b.WriteString(summary)
	return b.String()
}

// formatRemaining is YCSB's RemainingFormatter: days and hours, minutes only
// below a day, seconds only below a minute; every unit ends with a space.
func formatRemaining(seconds int64) string {
	var b strings.Builder
	days := seconds / 86400
	if days > 0 {
		b.WriteString(strconv.FormatInt(days, 10))
		b.WriteString(plural(days, " day ", " days "))
		seconds -= days * 86400
	}
	hours := seconds / 3600
	if hours > 0 {
		b.WriteString(strconv.FormatInt(hours, 10))
		b.WriteString(plural(hours, " hour ", " hours "))
		seconds -= hours * 3600
	}
	if days < 1 {
		minutes := seconds / 60
		if minutes > 0 {
			b.WriteString(strconv.FormatInt(minutes, 10))
			b.WriteString(plural(minutes, " minute ", " minutes "))
		}
	}
	if b.Len() == 0 {
		// YCSB's test for the singular looks at the (empty) builder, so it
		// always says "seconds".
		b.WriteString(strconv.FormatInt(seconds, 10))
		b.WriteString(" seconds ")
	}
	return b.String()
}

func plural(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// statusSummary is Measurements.getSummary for the measurements collected
// since the last status line: "[NAME: Count=…, Max=…, Min=…, Avg=…, 90=…,
// 99=…, 99.9=…, 99.99=…] " for every measurement that exists so far. Like
// YCSB it lists the service times (measurement.interval op), the intended
// latencies under the same names (intended), or the service times followed
// by the intended latencies as "Intended-<NAME>" (both).
func (c *collector) statusSummary() string {
	var b strings.Builder
	write := func(prefix string, hist *[numOps][numKinds]*results.Histogram) {
		for op := range numOps {
			for kind := range numKinds {
				if !c.exists[op][kind] {
					continue
				}
				name := op.String()
				if kind == kindFailed {
					name = op.FailedName()
				}
				s := hist[op][kind].Stats()
				fmt.Fprintf(&b, "[%s%s: Count=%d, Max=%d, Min=%d, Avg=%s, 90=%d, 99=%d, 99.9=%d, 99.99=%d] ",
					prefix, name, s.Count, s.Max, s.Min, formatDecimal2(s.Mean), s.P90, s.P99, s.P999, s.P9999)
			}
		}
	}
	switch c.mode {
	case IntervalIntended:
		write("", &c.status.ih)
	case IntervalBoth:
		write("", &c.status.h)
		write(IntendedPrefix, &c.status.ih)
	default:
		write("", &c.status.h)
	}
	return b.String()
}
