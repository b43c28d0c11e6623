package loader

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mongobench/mongobench/internal/results"
)

// A loader that uses (nearly) all the CPU it may use measures itself, not
// MongoDB: "if the client code is simple and crude … the performance
// bottleneck is the first test in the client itself" (the seed study). So
// each loader measures its CPU time over its measured window against what
// it may use — its cgroup's CPU quota, else the CPUs it may run on — and
// the time its cgroup's quota throttled it (cpu.stat), and reports both
// (results.CPUUsage); the controller judges them (internal/validity).

// cpuMeter reads the process's CPU time and its cgroup's CPU accounting.
// root prefixes the /proc and /sys paths (tests point it at a fixture).
type cpuMeter struct {
	root string
	// processCPU returns the process's user and system CPU time.
	processCPU func() time.Duration
	// cgroupDirs are the process's cgroup directories, innermost first
	// (cgroup v2; v1's cpu controller).
	cgroupDirs []string
	v1         bool
	// limitMilli and limitSource are what the process may use (limit);
	// statDir is the cgroup whose quota that is (whose cpu.stat counts
	// its throttling), else the innermost.
	limitMilli  int64
	limitSource string
	statDir     string
}

// cpuSnapshot is one reading.
type cpuSnapshot struct {
	at   time.Time
	used time.Duration
	// throttled, periods and throttledPeriods are cpu.stat's throttled
	// time and nr_periods, nr_throttled; haveStat when it said them.
	throttled                 time.Duration
	periods, throttledPeriods int64
	haveStat                  bool
}

func newCPUMeter(root string) *cpuMeter {
	m := &cpuMeter{root: root, processCPU: processCPUTime}
	m.cgroupDirs, m.v1 = cgroupDirs(root)
	m.limitMilli, m.limitSource, m.statDir = m.limit()
	return m
}

// processCPUTime is getrusage(RUSAGE_SELF)'s user + system time.
func processCPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cgroupDirs finds the process's cgroup from /proc/self/cgroup: the
// unified hierarchy's path ("0::/path") when the cpu controller is on it
// (cgroup v2: /sys/fs/cgroup/cgroup.controllers lists "cpu"), else the v1
// hierarchy holding the cpu controller. A hybrid host has both lines, the
// cpu controller on v1. It returns the directories from the process's own
// up to the mount's root, which in a container with its own cgroup
// namespace are the same ("/").
func cgroupDirs(root string) (dirs []string, v1 bool) {
	data, err := os.ReadFile(filepath.Join(root, "proc/self/cgroup"))
	if err != nil {
		return nil, false
	}
	var v2Path, v1Path string
	haveV2, haveV1 := false, false
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[0] == "0" && parts[1] == "" {
			v2Path, haveV2 = parts[2], true
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			if c == "cpu" {
				v1Path, haveV1 = parts[2], true
			}
		}
	}
	var path, mount string
	switch {
	case haveV2 && (!haveV1 || controllers(root, "sys/fs/cgroup")["cpu"]):
		path, mount = v2Path, "sys/fs/cgroup"
	case haveV1:
		path, v1 = v1Path, true
		for _, m := range []string{"sys/fs/cgroup/cpu,cpuacct", "sys/fs/cgroup/cpu"} {
			if _, err := os.Stat(filepath.Join(root, m)); err == nil {
				mount = m
				break
			}
		}
	}
	if mount == "" {
		return nil, false
	}
	base := filepath.Join(root, mount)
	// With a cgroup namespace the path is "/" (or the process's path does
	// not exist below the mount): the mount is the process's cgroup.
	for p := filepath.Clean("/" + path); ; p = filepath.Dir(p) {
		if d := filepath.Join(base, p); dirExists(d) {
			dirs = append(dirs, d)
		}
		if p == "/" {
			break
		}
	}
	return dirs, v1
}

// controllers lists a cgroup v2 directory's cgroup.controllers.
func controllers(root, dir string) map[string]bool {
	out := map[string]bool{}
	for _, c := range strings.Fields(readString(filepath.Join(root, dir, "cgroup.controllers"))) {
		out[c] = true
	}
	return out
}

func dirExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// limit is what the loader may use, in thousandths of a CPU: the tightest
// CFS quota of its cgroup and its ancestors (cpu.max "QUOTA PERIOD", v1's
// cpu.cfs_quota_us / cpu.cfs_period_us), else the CPUs the process may run
// on (runtime.NumCPU: its affinity mask). statDir is the cgroup of that
// quota (else the innermost), whose cpu.stat counts the throttling.
func (m *cpuMeter) limit() (milliCPU int64, source, statDir string) {
	best, bestDir := int64(0), ""
	for _, d := range m.cgroupDirs {
		var quota, period int64
		if m.v1 {
			quota, period = readInt(filepath.Join(d, "cpu.cfs_quota_us")), readInt(filepath.Join(d, "cpu.cfs_period_us"))
		} else if f := strings.Fields(readString(filepath.Join(d, "cpu.max"))); len(f) == 2 && f[0] != "max" {
			quota, _ = strconv.ParseInt(f[0], 10, 64)
			period, _ = strconv.ParseInt(f[1], 10, 64)
		}
		if quota > 0 && period > 0 {
			if mc := quota * 1000 / period; best == 0 || mc < best {
				best, bestDir = mc, d
			}
		}
	}
	if len(m.cgroupDirs) > 0 && bestDir == "" {
		bestDir = m.cgroupDirs[0]
	}
	cpus := int64(runtime.NumCPU()) * 1000
	if best > 0 && best < cpus {
		return best, "cgroup", bestDir
	}
	return cpus, "cpus", bestDir
}

// snapshot reads the CPU time used so far and the quota's cgroup's
// cpu.stat: nr_periods, nr_throttled, and the throttled time (v2
// throttled_usec, v1 throttled_time in ns).
func (m *cpuMeter) snapshot(at time.Time) cpuSnapshot {
	s := cpuSnapshot{at: at, used: m.processCPU()}
	if m.statDir == "" {
		return s
	}
	stat := readString(filepath.Join(m.statDir, "cpu.stat"))
	key, unit := "throttled_usec", time.Microsecond
	if m.v1 {
		key, unit = "throttled_time", time.Nanosecond
	}
	periods, ok1 := statValue(stat, "nr_periods")
	throttled, ok2 := statValue(stat, "nr_throttled")
	t, ok3 := statValue(stat, key)
	if ok1 && ok2 && ok3 {
		s.periods, s.throttledPeriods, s.throttled, s.haveStat = periods, throttled, time.Duration(t)*unit, true
	}
	return s
}

// usage is the CPU use between two snapshots.
func (m *cpuMeter) usage(from, to cpuSnapshot) *results.CPUUsage {
	u := &results.CPUUsage{
		WindowMillis:  max(to.at.Sub(from.at).Milliseconds(), 0),
		UsedMillis:    max((to.used - from.used).Milliseconds(), 0),
		LimitMilliCPU: m.limitMilli,
		LimitSource:   m.limitSource,
	}
	if from.haveStat && to.haveStat {
		t := max((to.throttled - from.throttled).Milliseconds(), 0)
		p, tp := max(to.periods-from.periods, 0), max(to.throttledPeriods-from.throttledPeriods, 0)
		u.ThrottledMillis, u.Periods, u.ThrottledPeriods = &t, &p, &tp
	}
	return u
}

func readString(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

func readInt(path string) int64 {
	v, err := strconv.ParseInt(readString(path), 10, 64)
	if err != nil {
		return 0
	}
	return v
}

// statValue finds "key value" in a cpu.stat file.
func statValue(stat, key string) (int64, bool) {
	sc := bufio.NewScanner(bytes.NewReader([]byte(stat)))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 2 && f[0] == key {
			v, err := strconv.ParseInt(f[1], 10, 64)
			return v, err == nil
		}
	}
	return 0, false
}
