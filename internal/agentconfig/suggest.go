package agentconfig

import "strings"

// Suggest returns the name of known closest to name, or "" when none is
// close enough to be a likely slip: one that differs only in case and in
// underscores or hyphens (api_key for apikey, MY_APIKEY for MY_API_KEY), or
// one within a couple of edits, a swap of adjacent letters counting as one.
// Short names allow a single edit, since two would turn host into port.
// Config keys and variable names share it, so that both suggest alike.
func Suggest(name string, known []string) string {
	want := looseForm(name)
	limit := 2
	if len(want) <= 4 {
		limit = 1
	}
	best, bestDistance := "", limit+1
	for _, k := range known {
		if k == name {
			continue
		}
		if d := distance(want, looseForm(k)); d < bestDistance {
			best, bestDistance = k, d
		}
	}
	return best
}

func looseForm(s string) string {
	return strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(s))
}

// distance counts the insertions, deletions, substitutions and swaps of
// adjacent bytes that turn a into b (optimal string alignment). The
// Levenshtein library already in the module graph counts a swap as two
// edits, and swapped letters are the commonest slip in a key.
func distance(a, b string) int {
	prev2, prev, cur := make([]int, len(b)+1), make([]int, len(b)+1), make([]int, len(b)+1)
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
