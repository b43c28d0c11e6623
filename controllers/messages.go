package controllers

import (
	"strings"
	"unicode/utf8"
)

// API limits on the text the controller writes. An event whose message is
// longer than 1,024 bytes is rejected by the API server, and the failure
// it explains is lost; a condition may hold 32 KiB, but one that quotes a
// whole log is unreadable in `kubectl describe`. The full text of every
// failed container goes into the run's diagnostics ConfigMap instead.
const (
	// MaxEventMessage is the API server's limit on an event's message.
	MaxEventMessage = 1024
	// maxConditionMessage bounds a condition's message, of either kind:
	// an API server's dry-run rejection can list many violations, a
	// failure many pods; the first ones say enough.
	maxConditionMessage = 4096
	// maxDetailBytes and maxDetailLines bound the quoted part (termination
	// message or log tail) of a condition message.
	maxDetailBytes = 2048
	maxDetailLines = 10
)

// ellipsis marks text that was cut.
const ellipsis = "…"

// eventMessage fits msg into an event: at most MaxEventMessage bytes, cut on
// a UTF-8 boundary and ending with "…" when cut.
func eventMessage(msg string) string {
	return truncateBytes(msg, MaxEventMessage)
}

// conditionMessage fits msg into a condition: at most maxConditionMessage
// bytes, cut as eventMessage cuts.
func conditionMessage(msg string) string {
	return truncateBytes(msg, maxConditionMessage)
}

// truncateBytes returns s when it fits in limit bytes, else its longest
// prefix that, followed by "…", does; never a partial UTF-8 sequence.
func truncateBytes(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	cut := max(limit-len(ellipsis), 0)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + ellipsis
}

// tailDetail shortens text quoted in a condition message (a termination
// message, or with FallbackToLogsOnError the log's last lines) to its last
// maxDetailLines lines and at most maxDetailBytes bytes: a log's end holds
// the reason a process died. A cut is marked with a leading "…".
func tailDetail(text string) string {
	text = strings.TrimSpace(text)
	cut := false
	if lines := strings.Split(text, "\n"); len(lines) > maxDetailLines {
		text = strings.Join(lines[len(lines)-maxDetailLines:], "\n")
		cut = true
	}
	// Over the byte budget, drop whole lines from the front so that the
	// quote starts at a line's start; only a single overlong line is cut
	// mid-line.
	for len(text) > maxDetailBytes-len(ellipsis) {
		cut = true
		i := strings.IndexByte(text, '\n')
		if i < 0 {
			text = suffixBytes(text, maxDetailBytes-len(ellipsis))
			break
		}
		text = text[i+1:]
	}
	if cut {
		return ellipsis + text
	}
	return text
}

// suffixBytes is the longest suffix of s of at most n bytes that starts on
// a UTF-8 boundary.
func suffixBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	start := len(s) - n
	for start < len(s) && !utf8.RuneStart(s[start]) {
		start++
	}
	return s[start:]
}
