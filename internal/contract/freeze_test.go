package contract

import (
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestFreezeReportRoundTrip(t *testing.T) {
	paris := time.FixedZone("CET", 3600)
	stopSent := time.Date(2026, 11, 27, 13, 0, 0, 123456789, paris)
	r := FreezeReport{
		PID:          42,
		Process:      "mongod",
		StopSent:     stopSent,
		Stopped:      stopSent.Add(300 * time.Microsecond),
		ContinueSent: stopSent.Add(15 * time.Second),
		Continued:    stopSent.Add(15*time.Second + 200*time.Microsecond),
	}
	s := EncodeFreezeReport(r)
	want := `{"pid":42,"process":"mongod","stopSent":"2026-11-27T12:00:00.123456789Z","stopped":"2026-11-27T12:00:00.123756789Z",` +
		`"continueSent":"2026-11-27T12:00:15.123456789Z","continued":"2026-11-27T12:00:15.123656789Z"}`
	if s != want {
		t.Fatalf("encoded\n%s\nwant\n%s", s, want)
	}
	got, err := DecodeFreezeReport(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, pair := range [][2]time.Time{{got.StopSent, r.StopSent}, {got.Stopped, r.Stopped}, {got.ContinueSent, r.ContinueSent}, {got.Continued, r.Continued}} {
		if !pair[0].Equal(pair[1]) || pair[0].Location() != time.UTC {
			t.Errorf("time %v, want %v in UTC", pair[0], pair[1])
		}
	}
	if got.Frozen() != 15*time.Second-100*time.Microsecond {
		t.Errorf("frozen %v", got.Frozen())
	}

	// A failure before anything was sent: no times at all, and Frozen 0.
	none := FreezeReport{Process: "mongod", Error: `no process named "mongod"`}
	s = EncodeFreezeReport(none)
	if s != `{"pid":0,"process":"mongod","error":"no process named \"mongod\""}` {
		t.Errorf("encoded %s", s)
	}
	if got, err := DecodeFreezeReport(s); err != nil || !reflect.DeepEqual(got, none) || got.Frozen() != 0 {
		t.Errorf("decoded %+v, %v", got, err)
	}
	// Stopped but never seen continued: Frozen is 0, not negative.
	left := FreezeReport{PID: 7, Process: "mongod", StopSent: stopSent, Stopped: stopSent, ContinueSent: stopSent.Add(time.Second), Error: "x"}
	if got, err := DecodeFreezeReport(EncodeFreezeReport(left)); err != nil || got.Frozen() != 0 || got.Continued.IsZero() != true {
		t.Errorf("decoded %+v, %v", got, err)
	}
}

func TestDecodeFreezeReportRejects(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "EOF"},
		{"stopped by signal terminated", "invalid character"},
		{`{"pid":1,"process":"mongod","paused":"2026-11-27T12:00:00Z"}`, `unknown field "paused"`},
		{`{"pid":1,"process":"mongod"} {}`, "more than one"},
		{`{"pid":1}`, "no process"},
		{`{"pid":-1,"process":"mongod"}`, "pid -1"},
		{`{"pid":1,"process":"mongod","stopped":"2026-11-27T12:00:00Z"}`, "without a SIGSTOP"},
		{`{"pid":1,"process":"mongod","continueSent":"2026-11-27T12:00:00Z"}`, "SIGCONT sent without a SIGSTOP"},
		{`{"pid":1,"process":"mongod","stopSent":"2026-11-27T12:00:00Z","stopped":"2026-11-27T12:00:01Z","continued":"2026-11-27T12:00:02Z"}`,
			"without a SIGCONT"},
		{`{"pid":1,"process":"mongod","stopSent":"2026-11-27T12:00:00Z","stopped":"2026-11-27T12:00:01Z",` +
			`"continueSent":"2026-11-27T12:00:00Z","continued":"2026-11-27T12:00:00.5Z"}`, "continued 500ms before it stopped"},
		{`{"pid":1,"process":"mongod","stopSent":"yesterday"}`, "cannot parse"},
	} {
		if _, err := DecodeFreezeReport(tc.in); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("decode %q: %v, want %q", tc.in, err, tc.want)
		}
	}
}

// TestFreezeReportFitsTheTerminationMessage: the longest report the loader
// can write (a 255-byte process name, every time set, an Error of any
// length, with bytes JSON escapes) stays within what the kubelet keeps,
// and keeps both ends of the Error.
func TestFreezeReportFitsTheTerminationMessage(t *testing.T) {
	at := time.Date(2026, 11, 27, 12, 0, 0, 123456789, time.UTC)
	full := FreezeReport{
		PID: 4194304, Process: strings.Repeat("m", 255),
		StopSent: at, Stopped: at.Add(time.Millisecond), ContinueSent: at.Add(time.Minute), Continued: at.Add(time.Minute + time.Millisecond),
	}
	base := len(EncodeFreezeReport(full))
	errorRoom := MaxTerminationMessage - base - len(`,"error":""`)
	for _, tc := range []struct {
		name string
		msg  string
		cut  bool
	}{
		{"exactly at the limit", strings.Repeat("e", errorRoom), false},
		{"one byte over", strings.Repeat("e", errorRoom+1), true},
		{"long", "freeze: " + strings.Repeat("x", 10000) + ": the root cause", true},
		{"escaped bytes", strings.Repeat("\x01\"\\", 3000) + "end", true},
		{"multibyte", strings.Repeat("é", 5000) + "fin", true},
	} {
		r := full
		r.Error = tc.msg
		s := EncodeFreezeReport(r)
		if len(s) > MaxTerminationMessage {
			t.Errorf("%s: %d bytes, over %d", tc.name, len(s), MaxTerminationMessage)
		}
		got, err := DecodeFreezeReport(s)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if !utf8.ValidString(got.Error) {
			t.Errorf("%s: error is not UTF-8 after the cut", tc.name)
		}
		if cut := got.Error != tc.msg; cut != tc.cut {
			t.Errorf("%s: cut %v, want %v (%d bytes)", tc.name, cut, tc.cut, len(s))
		}
		if tc.cut {
			if !strings.Contains(got.Error, errorCutMarker) || got.Error[:2] != tc.msg[:2] || !strings.HasSuffix(got.Error, tc.msg[len(tc.msg)-3:]) {
				t.Errorf("%s: want both ends and the marker, got %q", tc.name, got.Error)
			}
			// Nothing is cut that would have fitted: the report is close to
			// the limit (an escaped character is at most 6 bytes).
			if len(s) < MaxTerminationMessage-12 {
				t.Errorf("%s: cut to %d bytes, more than needed", tc.name, len(s))
			}
		}
		if got.PID != full.PID || got.Process != full.Process || !got.Continued.Equal(full.Continued) {
			t.Errorf("%s: the cut changed other fields: %+v", tc.name, got)
		}
	}
}
