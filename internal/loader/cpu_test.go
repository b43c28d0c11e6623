package loader

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// fsFixture writes files under a fresh root.
func fsFixture(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestCPUMeterCgroupV2(t *testing.T) {
	// A container with its own cgroup namespace: "0::/" and the limits at
	// the mount's root, as the kubelet sets a container's cpu limit of 1.5.
	root := fsFixture(t, map[string]string{
		"proc/self/cgroup":                 "0::/\n",
		"sys/fs/cgroup/cgroup.controllers": "cpuset cpu io memory pids\n",
		"sys/fs/cgroup/cpu.max":            "150000 100000\n",
		"sys/fs/cgroup/cpu.stat":           "usage_usec 100\nuser_usec 60\nsystem_usec 40\nnr_periods 10\nnr_throttled 2\nthrottled_usec 250000\n",
		"sys/fs/cgroup/memory.max":         "max\n",
	})
	m := newCPUMeter(root)
	if m.limitMilli != min(1500, int64(runtime.NumCPU())*1000) || (runtime.NumCPU() >= 2 && m.limitSource != "cgroup") {
		t.Fatalf("limit %d (%s)", m.limitMilli, m.limitSource)
	}
	cpu := time.Duration(0)
	m.processCPU = func() time.Duration { return cpu }
	t0 := time.Unix(1000, 0)
	a := m.snapshot(t0)
	cpu = 1200 * time.Millisecond
	// 20 periods of 100 ms in the 2 s window, the quota hit in 1 of them;
	// the throttled time is summed over the run queues.
	if err := os.WriteFile(filepath.Join(root, "sys/fs/cgroup/cpu.stat"), []byte("nr_periods 30\nnr_throttled 3\nthrottled_usec 450000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	b := m.snapshot(t0.Add(2 * time.Second))
	u := m.usage(a, b)
	if u.WindowMillis != 2000 || u.UsedMillis != 1200 || u.ThrottledMillis == nil || *u.ThrottledMillis != 200 ||
		*u.Periods != 20 || *u.ThrottledPeriods != 1 {
		t.Fatalf("usage %+v", *u)
	}
	if runtime.NumCPU() >= 2 {
		if p := u.UsedPercent(); p != 40 {
			t.Errorf("used %v%% of 1.5 CPUs, want 40", p)
		}
	}
	if p := u.ThrottledPercent(); p != 5 {
		t.Errorf("throttled in %v%% of the periods, want 5", p)
	}
}

func TestCPUMeterCgroupV2Nested(t *testing.T) {
	// No cgroup namespace: the process's path below the mount; the
	// tightest quota of it and its ancestors counts, and the cpu.stat of
	// that quota's cgroup, where its throttling is counted.
	root := fsFixture(t, map[string]string{
		"proc/self/cgroup":                         "0::/kubepods/pod1/ctr\n",
		"sys/fs/cgroup/kubepods/cpu.max":           "max 100000\n",
		"sys/fs/cgroup/kubepods/pod1/cpu.max":      "50000 100000\n",
		"sys/fs/cgroup/kubepods/pod1/ctr/cpu.max":  "max 100000\n",
		"sys/fs/cgroup/kubepods/pod1/ctr/cpu.stat": "nr_periods 0\nnr_throttled 0\nthrottled_usec 0\n",
		"sys/fs/cgroup/kubepods/pod1/cpu.stat":     "nr_periods 40\nnr_throttled 9\nthrottled_usec 9999\n",
	})
	m := newCPUMeter(root)
	if m.limitMilli != 500 || m.limitSource != "cgroup" {
		t.Fatalf("limit %d (%s)", m.limitMilli, m.limitSource)
	}
	if s := m.snapshot(time.Now()); !s.haveStat || s.throttledPeriods != 9 || s.throttled != 9999*time.Microsecond {
		t.Fatalf("snapshot %+v", s)
	}
}

func TestCPUMeterCgroupV1(t *testing.T) {
	root := fsFixture(t, map[string]string{
		"proc/self/cgroup":                            "12:memory:/kubepods/x\n4:cpu,cpuacct:/\n1:name=systemd:/\n",
		"sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us":  "200000\n",
		"sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us": "100000\n",
		"sys/fs/cgroup/cpu,cpuacct/cpu.stat":          "nr_periods 5\nnr_throttled 1\nthrottled_time 3000000\n",
	})
	m := newCPUMeter(root)
	if !m.v1 || (m.limitSource == "cgroup" && m.limitMilli != 2000) {
		t.Fatalf("v1 %v, limit %d (%s)", m.v1, m.limitMilli, m.limitSource)
	}
	if s := m.snapshot(time.Now()); !s.haveStat || s.throttled != 3*time.Millisecond || s.periods != 5 {
		t.Fatalf("snapshot %+v", s)
	}
}

// TestCPUMeterHybrid: a systemd hybrid host lists the unified hierarchy
// ("0::/…") although the cpu controller is on v1; the v1 quota counts.
func TestCPUMeterHybrid(t *testing.T) {
	root := fsFixture(t, map[string]string{
		"proc/self/cgroup":                            "12:cpu,cpuacct:/\n1:name=systemd:/x\n0::/x\n",
		"sys/fs/cgroup/unified/cgroup.controllers":    "\n",
		"sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us":  "50000\n",
		"sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us": "100000\n",
		"sys/fs/cgroup/cpu,cpuacct/cpu.stat":          "nr_periods 5\nnr_throttled 1\nthrottled_time 3000000\n",
	})
	m := newCPUMeter(root)
	if !m.v1 || m.limitMilli != 500 || m.limitSource != "cgroup" {
		t.Fatalf("v1 %v, limit %d (%s)", m.v1, m.limitMilli, m.limitSource)
	}
}

func TestCPUMeterWithoutQuota(t *testing.T) {
	for name, files := range map[string]map[string]string{
		"unlimited": {"proc/self/cgroup": "0::/\n", "sys/fs/cgroup/cpu.max": "max 100000\n"},
		"no cgroup": {},
	} {
		m := newCPUMeter(fsFixture(t, files))
		if m.limitSource != "cpus" || m.limitMilli != int64(runtime.NumCPU())*1000 {
			t.Errorf("%s: limit %d (%s)", name, m.limitMilli, m.limitSource)
		}
		u := m.usage(m.snapshot(time.Unix(0, 0)), m.snapshot(time.Unix(1, 0)))
		if u.Throttled() {
			t.Errorf("%s: throttling figures without a quota's cpu.stat: %+v", name, *u)
		}
	}
}

// TestCPUMeterOnThisMachine reads the real /proc and /sys: the process's
// CPU time grows with work. The work is 50 ms of this thread's CPU time
// (CLOCK_THREAD_CPUTIME_ID), not of the wall clock: on a busy machine
// 50 ms of wall time may hold much less CPU.
func TestCPUMeterOnThisMachine(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	m := newCPUMeter("/")
	a := m.snapshot(time.Now())
	start, x := threadCPU(t), 0
	for deadline := time.Now().Add(30 * time.Second); threadCPU(t)-start < 50*time.Millisecond; x++ {
		if time.Now().After(deadline) {
			t.Fatal("50 ms of CPU not had in 30 s")
		}
	}
	b := m.snapshot(time.Now())
	if u := m.usage(a, b); u.UsedMillis < 40 || u.LimitMilliCPU <= 0 {
		t.Fatalf("busy for 50 ms of CPU: %+v (%d)", *u, x)
	}
}

// threadCPU is the calling thread's CPU time.
func threadCPU(t *testing.T) time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ts.Nano())
}
