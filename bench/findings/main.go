// Command findings prints the findings of an `rwdiag analyze --format json`
// report, one "rule<TAB>subject<TAB>status" line each, sorted: what
// bench/analyze.sh compares between a large bundle and the sample with the
// same incident.
//
//	rwdiag analyze BUNDLE --format json --fail-on never | go run ./bench/findings
//	go run ./bench/findings REPORT.json
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
)

func main() {
	var in io.Reader = os.Stdin
	if len(os.Args) > 2 {
		fmt.Fprintln(os.Stderr, "usage: findings [REPORT.json]")
		os.Exit(2)
	}
	if len(os.Args) == 2 && os.Args[1] != "-" {
		f, err := os.Open(os.Args[1])
		if err != nil {
			fmt.Fprintln(os.Stderr, "findings:", err)
			os.Exit(1)
		}
		defer f.Close()
		in = f
	}
	var rep struct {
		Findings []struct {
			Rule, Subject, Status string
		}
	}
	if err := json.NewDecoder(in).Decode(&rep); err != nil {
		fmt.Fprintln(os.Stderr, "findings: read report:", err)
		os.Exit(1)
	}
	var lines []string
	for _, f := range rep.Findings {
		lines = append(lines, f.Rule+"\t"+f.Subject+"\t"+f.Status)
	}
	slices.Sort(lines)
	for _, l := range lines {
		fmt.Println(l)
	}
}
