package logs_test

import (
	"github.com/rwdiag/rwdiag/analyze"
	"github.com/rwdiag/rwdiag/analyze/logs"
	"github.com/rwdiag/rwdiag/rules"
)

// The block-scanning tests run the built-in rules' regular expressions,
// which only package analyze can load.
func init() {
	logs.LoadBuiltin = func() ([]*logs.Query, error) {
		rs, err := analyze.LoadFS(rules.FS, rules.Prefix)
		if err != nil {
			return nil, err
		}
		var qs []*logs.Query
		for _, r := range rs {
			for _, s := range r.Signals {
				if s.Log != nil {
					qs = append(qs, s.Log)
				}
			}
		}
		return qs, nil
	}
}
