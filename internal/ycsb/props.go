package ycsb

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Properties is a set of YCSB properties (java.util.Properties semantics: a
// flat string map, later settings override earlier ones). The zero value is
// not usable; use NewProperties.
type Properties struct {
	m map[string]string
	// read collects the keys the accessors looked up, once RecordReads
	// made it non-nil; nil otherwise, so that reading stays free of writes
	// (and safe for concurrent readers) outside the tests that use it.
	read map[string]bool
}

// NewProperties returns an empty set.
func NewProperties() *Properties { return &Properties{m: make(map[string]string)} }

// Clone returns an independent copy (which records no reads).
func (p *Properties) Clone() *Properties {
	c := NewProperties()
	for k, v := range p.m {
		c.m[k] = v
	}
	return c
}

// Set sets key to value.
func (p *Properties) Set(key, value string) { p.m[key] = value }

// RecordReads makes p remember every key that Get, Has, String, Int64, Int,
// Float64 and Bool look up from now on, set or not, for ReadKeys. Tests use
// it to prove that every property the code reads is in the registry
// (KnownProperties): a property read but not registered would be reported
// as unknown to the person who sets it.
func (p *Properties) RecordReads() {
	if p.read == nil {
		p.read = make(map[string]bool)
	}
}

// ReadKeys returns, sorted, the keys looked up since RecordReads.
func (p *Properties) ReadKeys() []string { return sortedMapKeys(p.read) }

// lookup is the one place every accessor reads through.
func (p *Properties) lookup(key string) (string, bool) {
	if p.read != nil {
		p.read[key] = true
	}
	v, ok := p.m[key]
	return v, ok
}

// Get returns the raw value and whether the key is set.
func (p *Properties) Get(key string) (string, bool) { return p.lookup(key) }

// Has reports whether key is set.
func (p *Properties) Has(key string) bool {
	_, ok := p.lookup(key)
	return ok
}

// Keys returns the keys in sorted order.
func (p *Properties) Keys() []string { return sortedMapKeys(p.m) }

// sortedMapKeys returns m's keys in sorted order (empty, not nil, for none).
func sortedMapKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Merge copies every property of o into p, overriding p's values.
func (p *Properties) Merge(o *Properties) {
	for k, v := range o.m {
		p.m[k] = v
	}
}

// String returns the value of key, or def when unset.
func (p *Properties) String(key, def string) string {
	if v, ok := p.lookup(key); ok {
		return v
	}
	return def
}

// Int64 returns key as an integer, or def when unset. Surrounding whitespace
// is ignored (Java's Long.parseLong would reject "1000 " written with a
// trailing blank in a file; we accept it).
func (p *Properties) Int64(key string, def int64) (int64, error) {
	v, ok := p.lookup(key)
	if !ok {
		return def, nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %q is not an integer", key, v)
	}
	return n, nil
}

// Int returns key as an int, or def when unset.
func (p *Properties) Int(key string, def int) (int, error) {
	n, err := p.Int64(key, int64(def))
	if err != nil {
		return 0, err
	}
	if n < math.MinInt32 || n > math.MaxInt32 {
		return 0, fmt.Errorf("%s: %d is out of range for a 32-bit integer", key, n)
	}
	return int(n), nil
}

// Float64 returns key as a number, or def when unset.
func (p *Properties) Float64(key string, def float64) (float64, error) {
	v, ok := p.lookup(key)
	if !ok {
		return def, nil
	}
	s := strings.TrimSpace(v)
	// Java's Double.parseDouble accepts a trailing d/D/f/F type suffix.
	if n := len(s); n > 1 && strings.ContainsRune("dDfF", rune(s[n-1])) {
		s = s[:n-1]
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %q is not a number", key, v)
	}
	return f, nil
}

// Bool returns key as a boolean, or def when unset. Java's
// Boolean.parseBoolean turns anything but "true" into false, so a typo like
// "ture" silently disables an option; we accept true/false in any case and
// reject anything else.
func (p *Properties) Bool(key string, def bool) (bool, error) {
	v, ok := p.lookup(key)
	if !ok {
		return def, nil
	}
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fmt.Errorf("%s: %q is not a boolean (true or false)", key, v)
}

// ParseProperties reads Java .properties text: "key=value", "key: value" or
// "key value"; '#' and '!' comment lines; a line ending in an odd number of
// backslashes continues on the next one (whose leading blanks are dropped);
// escapes \t \n \r \f \uXXXX and \x for any other x. Unlike Java, input is
// read as UTF-8, not ISO-8859-1 (identical for the ASCII YCSB files use).
func ParseProperties(r io.Reader) (*Properties, error) {
	p := NewProperties()
	if err := p.Load(r); err != nil {
		return nil, err
	}
	return p, nil
}

// Load reads .properties text into p (see ParseProperties), overriding
// existing keys.
func (p *Properties) Load(r io.Reader) error {
	br := bufio.NewReader(r)
	lineNo := 0
	for {
		logical, startLine, err := readLogicalLine(br, &lineNo)
		if err != nil {
			return err
		}
		if logical == nil {
			return nil
		}
		key, value, err := splitProperty(*logical)
		if err != nil {
			return fmt.Errorf("line %d: %w", startLine, err)
		}
		p.m[key] = value
	}
}

// readLogicalLine returns the next non-blank, non-comment logical line with
// continuations joined (escapes still in place), or nil at EOF.
func readLogicalLine(br *bufio.Reader, lineNo *int) (*string, int, error) {
	var b strings.Builder
	start := 0
	continuing := false
	for {
		line, err := readNaturalLine(br)
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, 0, fmt.Errorf("read properties: %w", err)
		}
		if line == nil {
			if continuing {
				s := b.String()
				return &s, start, nil
			}
			return nil, 0, nil
		}
		*lineNo++
		s := strings.TrimLeft(*line, " \t\f")
		if !continuing {
			if s == "" || s[0] == '#' || s[0] == '!' {
				continue
			}
			start = *lineNo
		}
		// An odd number of trailing backslashes continues the line.
		n := 0
		for i := len(s) - 1; i >= 0 && s[i] == '\\'; i-- {
			n++
		}
		if n%2 == 1 {
			b.WriteString(s[:len(s)-1])
			continuing = true
			continue
		}
		b.WriteString(s)
		out := b.String()
		return &out, start, nil
	}
}

// readNaturalLine reads up to \n, \r or \r\n; nil at EOF.
func readNaturalLine(br *bufio.Reader) (*string, error) {
	var b strings.Builder
	for {
		c, err := br.ReadByte()
		if errors.Is(err, io.EOF) {
			if b.Len() == 0 {
				return nil, io.EOF
			}
			s := b.String()
			return &s, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read byte: %w", err)
		}
		switch c {
		case '\n':
			s := b.String()
			return &s, nil
		case '\r':
			if next, err := br.Peek(1); err == nil && next[0] == '\n' {
				_, _ = br.ReadByte()
			}
			s := b.String()
			return &s, nil
		}
		b.WriteByte(c)
	}
}

// splitProperty splits a logical line into unescaped key and value.
func splitProperty(line string) (string, string, error) {
	i := 0
	for i < len(line) {
		c := line[i]
		if c == '\\' {
			i += 2
			continue
		}
		if c == '=' || c == ':' || c == ' ' || c == '\t' || c == '\f' {
			break
		}
		i++
	}
	keyEnd := min(i, len(line))
	j := keyEnd
	for j < len(line) && (line[j] == ' ' || line[j] == '\t' || line[j] == '\f') {
		j++
	}
	if j < len(line) && (line[j] == '=' || line[j] == ':') {
		j++
	}
	for j < len(line) && (line[j] == ' ' || line[j] == '\t' || line[j] == '\f') {
		j++
	}
	key, err := unescapeProperty(line[:keyEnd])
	if err != nil {
		return "", "", err
	}
	value, err := unescapeProperty(line[j:])
	if err != nil {
		return "", "", fmt.Errorf("property %q: %w", key, err)
	}
	return key, value, nil
}

func unescapeProperty(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			if i+5 > len(s) {
				return "", fmt.Errorf("malformed \\uXXXX escape %q", s[i-1:])
			}
			n, err := strconv.ParseUint(s[i+1:i+5], 16, 16)
			if err != nil {
				return "", fmt.Errorf("malformed \\uXXXX escape %q", s[i-1:i+5])
			}
			var buf [utf8.UTFMax]byte
			b.Write(buf[:utf8.EncodeRune(buf[:], rune(n))])
			i += 4
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String(), nil
}

// ParseOverride parses a command-line "-p name=value" argument.
func ParseOverride(kv string) (string, string, error) {
	k, v, ok := strings.Cut(kv, "=")
	if !ok || k == "" {
		return "", "", fmt.Errorf("property override %q: want name=value", kv)
	}
	return k, v, nil
}
