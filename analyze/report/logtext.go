package report

import (
	"strings"
	"unicode/utf8"

	"github.com/rwdiag/rwdiag/analyze/logs"
)

// ShortenLogText fits a log line (or a timeline entry's text) into n runes
// without losing its message. RisingWave's tracing lines read
// "[TIME LEVEL ]SPANS: TARGET: MESSAGE", e.g.
//
//	actor{actor_id=1}:executor{...}: risingwave_stream::executor::source::source_executor: source paused, wait barrier for 5.003340s
//
// and the message comes last, so cutting the end loses what the line says.
// This keeps the time, level and message and gives up, in turn: the
// target's module path (risingwave_stream::...::source_executor becomes
// source_executor), the spans' fields beyond what fits (cut at a word, ending
// with "…"), the spans, then the target; only a message longer than n itself
// is cut, at a word. n <= 0 means no limit. A line in no known shape is cut
// at a word.
func ShortenLogText(s string, n int) string {
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return s
	}
	head, rest := splitLogHead(s)
	spans, target, msg := splitLogTarget(rest)
	if target == "" {
		return cutWords(s, n)
	}
	short := target
	if i := strings.LastIndex(target, "::"); i >= 0 {
		short = target[i+2:]
	}
	fits := func(c string) bool { return utf8.RuneCountInString(c) <= n }
	if spans != "" {
		if c := head + spans + ": " + short + ": " + msg; fits(c) {
			return c
		}
		tail := ": " + short + ": " + msg
		if room := n - utf8.RuneCountInString(head+tail); room >= 16 {
			return head + cutWords(spans, room) + tail
		}
	}
	if c := head + short + ": " + msg; fits(c) {
		return c
	}
	return cutWords(head+msg, n)
}

// logLevels are the level words a log line's head may carry.
var logLevels = map[string]bool{"TRACE": true, "DEBUG": true, "INFO": true, "WARN": true, "WARNING": true, "ERROR": true, "FATAL": true}

// splitLogHead splits off a leading "TIME  LEVEL " (both needed), with the
// spaces after it.
func splitLogHead(s string) (head, rest string) {
	i := strings.IndexByte(s, ' ')
	if i < 10 || !strings.ContainsAny(s[:i], "T:") || s[0] < '0' || s[0] > '9' {
		return "", s
	}
	j := i
	for j < len(s) && s[j] == ' ' {
		j++
	}
	k := strings.IndexByte(s[j:], ' ')
	if k < 0 || !logLevels[s[j:j+k]] {
		return "", s
	}
	k += j
	for k < len(s) && s[k] == ' ' {
		k++
	}
	return s[:k], s[k:]
}

// splitLogTarget splits "SPANS: TARGET: MESSAGE" (spans optional: name{...}
// joined by ':'). target is "" when s has no target: a Rust module path
// (a::b) or, after spans, one word followed by ": ".
func splitLogTarget(s string) (spans, target, msg string) {
	pos := 0
	for {
		j := identEnd(s, pos)
		if j == pos || j >= len(s) || s[j] != '{' {
			break
		}
		k := logs.SkipBraces(s, j)
		if k < 0 {
			return "", "", s
		}
		if k < len(s) && s[k] == ':' && !(k+1 < len(s) && s[k+1] == ':') {
			spans = s[:k]
			pos = k + 1
			if pos < len(s) && s[pos] == ' ' {
				pos++
				break
			}
			continue
		}
		break
	}
	if spans == "" {
		pos = 0
	}
	j := pos
	for {
		e := identEnd(s, j)
		if e == j {
			return "", "", s
		}
		j = e
		if strings.HasPrefix(s[j:], "::") {
			j += 2
			continue
		}
		break
	}
	if !strings.HasPrefix(s[j:], ": ") {
		return "", "", s
	}
	target = s[pos:j]
	if spans == "" && !strings.Contains(target, "::") {
		return "", "", s
	}
	return spans, target, s[j+2:]
}

func identEnd(s string, i int) int {
	for i < len(s) {
		c := s[i]
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			i++
			continue
		}
		break
	}
	return i
}
