package cli

import (
	"strings"

	ucli "github.com/urfave/cli/v2"
)

// didYouMean returns " (did you mean X?)" for the candidate nearest to
// got, when one is near enough to be a typo (an edit distance of at most a
// third of its length, at least 1, or a prefix of 2 or more letters), else "".
func didYouMean(got string, candidates []string) string {
	best, bestD := "", -1
	for _, c := range candidates {
		if c == got {
			continue
		}
		d := editDistance(got, c)
		if len(got) >= 2 && strings.HasPrefix(c, got) {
			d = 0
		}
		if d > max(1, len(c)/3) {
			continue
		}
		if bestD < 0 || d < bestD || d == bestD && c < best {
			best, bestD = c, d
		}
	}
	if best == "" {
		return ""
	}
	return " (did you mean " + best + "?)"
}

// editDistance is the Levenshtein distance, with a swap of two neighbours
// counted as one edit (the commonest typo).
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// commandNames are the names and aliases of cmds, hidden ones left out.
func commandNames(cmds []*ucli.Command) []string {
	var out []string
	for _, c := range cmds {
		if !c.Hidden {
			out = append(out, c.Names()...)
		}
	}
	return out
}

// suggestFlag turns urfave's "flag provided but not defined: -x" into the
// same with the nearest flag of the command, dashes included.
func suggestFlag(c *ucli.Context, err error) string {
	msg := err.Error()
	const undefined = "flag provided but not defined: -"
	name, ok := strings.CutPrefix(msg, undefined)
	if !ok {
		return msg
	}
	name = strings.TrimLeft(name, "-")
	flags := c.App.Flags
	if c.Command != nil && c.Command.Name != "" {
		flags = c.Command.Flags
	}
	var names []string
	for _, f := range flags {
		names = append(names, f.Names()...)
	}
	names = append(names, "help")
	s := didYouMean(name, names)
	if s != "" {
		dashes := "--"
		if n := strings.TrimSuffix(strings.TrimPrefix(s, " (did you mean "), "?)"); len(n) == 1 {
			dashes = "-"
		}
		s = strings.Replace(s, "mean ", "mean "+dashes, 1)
	}
	prefix := "-"
	if len(name) > 1 {
		prefix = "--"
	}
	return "unknown flag " + prefix + name + s
}
