package loader

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
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
		"proc/self/cgroup":          "0::/\n",
		"sys/fs/cgroup/cpu.max":     "150000 100000\n",
		"sys/fs/cgroup/cpu.stat":    "usage_usec 100\nuser_usec 60\nsystem_usec 40\nnr_periods 10\nnr_throttled 2\nthrottled_usec 250000\n",
		"sys/fs/cgroup/memory.max":  "max\n",
		"sys/fs/cgroup/cgroup.type": "domain\n",
	})
	m := newCPUMeter(root)
	if mc, src := m.limit(); src != "cgroup" || mc != min(1500, int64(runtime.NumCPU())*1000) {
		t.Fatalf("limit %d (%s)", mc, src)
	}
	cpu := time.Duration(0)
	m.processCPU = func() time.Duration { return cpu }
	t0 := time.Unix(1000, 0)
	a := m.snapshot(t0)
	cpu = 1200 * time.Millisecond
	if err := os.WriteFile(filepath.Join(root, "sys/fs/cgroup/cpu.stat"), []byte("throttled_usec 350000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	b := m.snapshot(t0.Add(2 * time.Second))
	u := m.usage(a, b)
	if u.WindowMillis != 2000 || u.UsedMillis != 1200 || u.ThrottledMillis == nil || *u.ThrottledMillis != 100 {
		t.Fatalf("usage %+v", *u)
	}
	if runtime.NumCPU() >= 2 {
		if p := u.UsedPercent(); p != 40 {
			t.Errorf("used %v%% of 1.5 CPUs, want 40", p)
		}
	}
	if p := u.ThrottledPercent(); p != 5 {
		t.Errorf("throttled %v%%, want 5", p)
	}
}

func TestCPUMeterCgroupV2Nested(t *testing.T) {
	// No cgroup namespace: the process's path below the mount; the
	// tightest quota of it and its ancestors counts, and the innermost
	// cpu.stat.
	root := fsFixture(t, map[string]string{
		"proc/self/cgroup":                         "0::/kubepods/pod1/ctr\n",
		"sys/fs/cgroup/kubepods/cpu.max":           "max 100000\n",
		"sys/fs/cgroup/kubepods/pod1/cpu.max":      "50000 100000\n",
		"sys/fs/cgroup/kubepods/pod1/ctr/cpu.max":  "max 100000\n",
		"sys/fs/cgroup/kubepods/pod1/ctr/cpu.stat": "throttled_usec 7\n",
		"sys/fs/cgroup/kubepods/pod1/cpu.stat":     "throttled_usec 9999\n",
	})
	m := newCPUMeter(root)
	if mc, src := m.limit(); mc != 500 || src != "cgroup" {
		t.Fatalf("limit %d (%s)", mc, src)
	}
	if s := m.snapshot(time.Now()); !s.haveThrottled || s.throttled != 7*time.Microsecond {
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
	if mc, src := m.limit(); src == "cgroup" && mc != 2000 {
		t.Fatalf("limit %d (%s)", mc, src)
	}
	if s := m.snapshot(time.Now()); !s.haveThrottled || s.throttled != 3*time.Millisecond {
		t.Fatalf("snapshot %+v", s)
	}
}

func TestCPUMeterWithoutQuota(t *testing.T) {
	for name, files := range map[string]map[string]string{
		"unlimited": {"proc/self/cgroup": "0::/\n", "sys/fs/cgroup/cpu.max": "max 100000\n"},
		"no cgroup": {},
	} {
		m := newCPUMeter(fsFixture(t, files))
		if mc, src := m.limit(); src != "cpus" || mc != int64(runtime.NumCPU())*1000 {
			t.Errorf("%s: limit %d (%s)", name, mc, src)
		}
		u := m.usage(m.snapshot(time.Unix(0, 0)), m.snapshot(time.Unix(1, 0)))
		if u.ThrottledMillis != nil && name == "no cgroup" {
			t.Errorf("%s: throttled time %d without a cgroup", name, *u.ThrottledMillis)
		}
	}
}

// TestCPUMeterOnThisMachine reads the real /proc and /sys: the process's
// CPU time grows with work.
func TestCPUMeterOnThisMachine(t *testing.T) {
	m := newCPUMeter("/")
	a := m.snapshot(time.Now())
	deadline := time.Now().Add(50 * time.Millisecond)
	x := 0
	for time.Now().Before(deadline) {
		x++
	}
	b := m.snapshot(time.Now())
	if u := m.usage(a, b); u.UsedMillis < 20 || u.LimitMilliCPU <= 0 {
		t.Fatalf("busy for 50 ms: %+v (%d)", *u, x)
	}
}
