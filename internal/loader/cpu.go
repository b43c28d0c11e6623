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
}

// cpuSnapshot is one reading.
type cpuSnapshot struct {
	at        time.Time
	used      time.Duration
	throttled time.Duration
	// haveThrottled: the cgroup reports throttled time.
	haveThrottled bool
}

func newCPUMeter(root string) *cpuMeter {
	m := &cpuMeter{root: root, processCPU: processCPUTime}
	m.cgroupDirs, m.v1 = cgroupDirs(root)
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
// unified hierarchy's path ("0::/path", cgroup v2), else the v1 hierarchy
// holding the cpu controller. It returns the directories from the
// process's own up to the mount's root, which in a container with its own
// cgroup namespace are the same ("/").
func cgroupDirs(root string) (dirs []string, v1 bool) {
	data, err := os.ReadFile(filepath.Join(root, "proc/self/cgroup"))
	if err != nil {
		return nil, false
	}
	var path, mount string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[0] == "0" && parts[1] == "" {
			path, mount, v1 = parts[2], "sys/fs/cgroup", false
			break
		}
		for _, c := range strings.Split(parts[1], ",") {
			if c == "cpu" {
				path, v1 = parts[2], true
				for _, m := range []string{"sys/fs/cgroup/cpu,cpuacct", "sys/fs/cgroup/cpu"} {
					if _, err := os.Stat(filepath.Join(root, m)); err == nil {
						mount = m
						break
					}
				}
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

func dirExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// limit is what the loader may use, in thousandths of a CPU: the tightest
// CFS quota of its cgroup and its ancestors (cpu.max "QUOTA PERIOD", v1's
// cpu.cfs_quota_us / cpu.cfs_period_us), else the CPUs the process may run
// on (runtime.NumCPU: its affinity mask).
func (m *cpuMeter) limit() (milliCPU int64, source string) {
	best := int64(0)
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
				best = mc
			}
		}
	}
	cpus := int64(runtime.NumCPU()) * 1000
	if best > 0 && best < cpus {
		return best, "cgroup"
	}
	return cpus, "cpus"
}

// snapshot reads the CPU time used so far and the cgroup's throttled time
// (cpu.stat throttled_usec, v1 throttled_time in ns) of the innermost
// cgroup that reports it.
func (m *cpuMeter) snapshot(at time.Time) cpuSnapshot {
	s := cpuSnapshot{at: at, used: m.processCPU()}
	for _, d := range m.cgroupDirs {
		stat := readString(filepath.Join(d, "cpu.stat"))
		key, unit := "throttled_usec", time.Microsecond
		if m.v1 {
			key, unit = "throttled_time", time.Nanosecond
		}
		if v, ok := statValue(stat, key); ok {
			s.throttled, s.haveThrottled = time.Duration(v)*unit, true
			break
		}
	}
	return s
}

// usage is the CPU use between two snapshots.
func (m *cpuMeter) usage(from, to cpuSnapshot) *results.CPUUsage {
	limit, source := m.limit()
	u := &results.CPUUsage{
		WindowMillis:  max(to.at.Sub(from.at).Milliseconds(), 0),
		UsedMillis:    max((to.used - from.used).Milliseconds(), 0),
		LimitMilliCPU: limit,
		LimitSource:   source,
	}
	if from.haveThrottled && to.haveThrottled {
		t := max((to.throttled - from.throttled).Milliseconds(), 0)
		u.ThrottledMillis = &t
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
