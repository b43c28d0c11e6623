// Package didyoumean suggests the known name a misspelt one was meant to
// be: the loader's unknown properties and a sweep patch's unknown fields
// get their "did you mean" from here, so the two never disagree.
package didyoumean

import "strings"

// Closest returns the name closest to key by Damerau–Levenshtein distance,
// ignoring case (YCSB's keys and the API's fields are case-sensitive, so
// mongodb.writeconcern or recordcount is a typo too), or "" when none is
// within a quarter of key's length (at least 1, at most 3 edits): beyond
// that a suggestion is a guess.
func Closest(key string, names []string) string {
	k := []rune(strings.ToLower(key))
	limit := min(max(len(k)/4, 1), 3)
	best, bestDist := "", limit+1
	for _, n := range names {
		d := editDistance(k, []rune(strings.ToLower(n)))
		if d < bestDist || (d == bestDist && n < best) {
			best, bestDist = n, d
		}
	}
	if bestDist > limit {
		return ""
	}
	return best
}

// editDistance is the optimal string alignment distance: insertions,
// deletions, substitutions and transpositions of adjacent runes ("ro" for
// "or") each cost 1.
func editDistance(a, b []rune) int {
	// Three rows of the dynamic programme: i-2, i-1, i.
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
