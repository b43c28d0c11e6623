package didyoumean

import "testing"

func TestClosest(t *testing.T) {
	names := []string{"readproportion", "updateproportion", "table", "target", "db", "mongodb.url"}
	for key, want := range map[string]string{
		"readproprotion":   "readproportion", // transposition
		"readproportions":  "readproportion", // insertion
		"READPROPORTION":   "readproportion", // case
		"updateprop":       "",               // too far: 6 edits
		"tabel":            "table",
		"taget":            "target",
		"dv":               "db",
		"mongodb.uri":      "mongodb.url",
		"x":                "",
		"readproportio":    "readproportion",
		"insertproportion": "", // several edits from every name
	} {
		if got := Closest(key, names); got != want {
			t.Errorf("Closest(%q) = %q, want %q", key, got, want)
		}
	}
	for _, tc := range []struct {
		a, b string
		d    int
	}{
		{"", "", 0}, {"abc", "", 3}, {"", "ab", 2}, {"abc", "abc", 0}, {"ab", "ba", 1}, {"abcd", "acbd", 1},
		{"kitten", "sitting", 3}, {"ca", "abc", 3}, {"héllo", "hello", 1},
	} {
		if d := editDistance([]rune(tc.a), []rune(tc.b)); d != tc.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, d, tc.d)
		}
	}
}
