package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// large are the knobs of a large bundle (-size): a big production
// cluster's shape, observed closely enough to make up the size. The
// scenario's evidence is unchanged; only the noise around it grows.
type large struct {
	Pods    int // RisingWave pods in all; healthy compute pods make up the number
	Jobs    int // unrelated materialized views, on every compute pod
	Scrapes int // scrapes per pod, over the scenario's scrape window
	Logs    int // multiplier of the unrelated log lines, as -scale's
}

// The shape of a large bundle, and its bytes as measured on
// compound-incident: one round of scrapes of all pods (2,111 series per
// compute scrape, 8,423 on meta), one unit of Logs over all pods, and what
// does not grow (kubernetes/, sql/, manifest.json). Other samples come out
// near the size asked for.
const (
	largePods        = 32
	largeJobs        = 128
	largeScrapes2G   = 60 // scrapes per pod at 2 GiB, in proportion elsewhere
	largeMinScrapes  = 5
	largeScrapeBytes = 6_307_000
	largeLogBytes    = 382_500
	largeFixedBytes  = 1_500_000
)

// largeFor returns the knobs for a bundle of about size uncompressed bytes:
// the pods and jobs are fixed, the scrapes grow with the size (60 per pod at
// 2 GiB) and the log lines make up the rest, about 80%. Below about 40 MB
// the fixed part and five scrapes are larger than asked.
func largeFor(size int64) large {
	scrapes := max(largeMinScrapes, int(math.Round(largeScrapes2G*float64(size)/(2<<30))))
	rest := float64(size) - largeFixedBytes - float64(scrapes)*largeScrapeBytes
	return large{
		Pods:    largePods,
		Jobs:    largeJobs,
		Scrapes: scrapes,
		Logs:    max(1, int(math.Round(rest/largeLogBytes))),
	}
}

// parseSize reads "512MiB", "2GiB", "8GiB", "1.5GB" or a number of bytes.
func parseSize(s string) (int64, error) {
	units := []struct {
		suffix string
		mult   float64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1}}
	num, mult := strings.TrimSpace(s), 1.0
	for _, u := range units {
		if strings.HasSuffix(num, u.suffix) {
			num, mult = strings.TrimSpace(strings.TrimSuffix(num, u.suffix)), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v <= 0 || math.IsInf(v, 0) {
		return 0, fmt.Errorf("bad size %q (want e.g. 512MiB, 2GiB)", s)
	}
	if v*mult < 1<<20 || v*mult > 1<<40 {
		return 0, fmt.Errorf("size %q out of range (1MiB to 1TiB)", s)
	}
	return int64(v * mult), nil
}
