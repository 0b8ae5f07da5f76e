package report

import (
	"testing"

	"github.com/rwdiag/rwdiag/internal/lazyre"
)

// The package's regular expressions are compiled when first used: each
// must compile.
func TestRegexpsCompile(t *testing.T) {
	if bad, err := lazyre.CompileAll(); err != nil {
		t.Fatalf("%q: %v", bad, err)
	}
}
