package controllers

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTruncateBytes(t *testing.T) {
	for _, tc := range []struct {
		in    string
		limit int
		want  string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"0123456789abc", 10, "0123456…"}, // 7 bytes + 3-byte ellipsis
		{"ab─cdefghij", 7, "ab…"},         // "─" is 3 bytes: never split it
		{"µµµµµµ", 7, "µµ…"},              // 2-byte runes
		{strings.Repeat("x", 2000), 1024, strings.Repeat("x", 1021) + "…"},
	} {
		got := truncateBytes(tc.in, tc.limit)
		if got != tc.want || len(got) > tc.limit || !utf8.ValidString(got) {
			t.Errorf("truncateBytes(%q, %d) = %q, want %q", tc.in, tc.limit, got, tc.want)
		}
	}
	if got := eventMessage(strings.Repeat("é", 600)); len(got) > MaxEventMessage || !strings.HasSuffix(got, ellipsis) || !utf8.ValidString(got) {
		t.Errorf("eventMessage: %d bytes, %q…", len(got), got[:20])
	}
}

func TestTailDetail(t *testing.T) {
	numbered := func(n, width int) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&b, "line %03d %s\n", i, strings.Repeat("─", width))
		}
		return b.String()
	}
	for _, tc := range []struct {
		name, in  string
		wantFirst string // the first line of the result
		wantLines int
		wantCut   bool
	}{
		{"short", "one\ntwo\n", "one", 2, false},
		{"many short lines keep the last ten", numbered(30, 1), "…line 021 ─", 10, true},
		// 10 lines of ~310 bytes are over 2 KiB: whole lines are dropped from the front.
		{"long lines are dropped whole", numbered(12, 100), "…line 007 " + strings.Repeat("─", 100), 6, true},
		{"one overlong line is cut mid-line", strings.Repeat("ab─", 1000), "…", 1, true},
	} {
		got := tailDetail(tc.in)
		lines := strings.Split(got, "\n")
		if len(got) > maxDetailBytes || !utf8.ValidString(got) || len(lines) != tc.wantLines ||
			strings.HasPrefix(got, ellipsis) != tc.wantCut || !strings.HasPrefix(lines[0], tc.wantFirst) {
			t.Errorf("%s: %d bytes, %d lines, first %q; want %d lines starting %q", tc.name, len(got), len(lines), lines[0], tc.wantLines, tc.wantFirst)
		}
		if !strings.HasSuffix(got, strings.TrimSpace(tc.in)[len(strings.TrimSpace(tc.in))-5:]) {
			t.Errorf("%s: the text's end is lost: %q", tc.name, got[max(0, len(got)-40):])
		}
	}
}
