// Command profile runs what `rwdiag analyze BUNDLE --format json` runs, the
// built-in rules over one bundle, under the profilers, for finding where
// bench/analyze.sh's time and memory go.
//
//	go build -o /tmp/profile ./bench/profile
//	/tmp/profile -cpuprofile cpu.out -memprofile mem.out BUNDLE
//	go tool pprof -top /tmp/profile cpu.out
//
// It prints the findings (rule, status, subject), one per line, and the
// time the analysis took.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"time"

	"github.com/rwdiag/rwdiag/analyze"
	"github.com/rwdiag/rwdiag/bundle"
	"github.com/rwdiag/rwdiag/rules"
)

func main() {
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile to `file`")
	memprofile := flag.String("memprofile", "", "write a heap profile (allocations) to `file` at the end")
	traceFile := flag.String("trace", "", "write an execution trace to `file`")
	rate := flag.Int("memprofilerate", 0, "runtime.MemProfileRate, when set")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: profile [-cpuprofile f] [-memprofile f] [-trace f] BUNDLE")
		os.Exit(2)
	}
	if *rate > 0 {
		runtime.MemProfileRate = *rate
	}
	if err := run(flag.Arg(0), *cpuprofile, *memprofile, *traceFile); err != nil {
		fmt.Fprintln(os.Stderr, "profile:", err)
		os.Exit(1)
	}
}

func run(path, cpuprofile, memprofile, traceFile string) error {
	rs, err := analyze.LoadFS(rules.FS, rules.Prefix)
	if err != nil {
		return err
	}
	if cpuprofile != "" {
		f, err := os.Create(cpuprofile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	if traceFile != "" {
		f, err := os.Create(traceFile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := trace.Start(f); err != nil {
			return err
		}
		defer trace.Stop()
	}
	start := time.Now()
	rep, err := analyze.Analyze(context.Background(), path, rs, bundle.Options{})
	if err != nil {
		return err
	}
	took := time.Since(start)
	for _, f := range rep.Findings {
		fmt.Printf("%s\t%s\t%s\n", f.Rule, f.Status, f.Subject)
	}
	for _, p := range rep.Bundle.Problems {
		fmt.Fprintln(os.Stderr, "problem:", p)
	}
	fmt.Fprintf(os.Stderr, "analyzed in %v\n", took.Round(time.Millisecond))
	if memprofile != "" {
		f, err := os.Create(memprofile)
		if err != nil {
			return err
		}
		defer f.Close()
		return pprof.Lookup("allocs").WriteTo(f, 0)
	}
	return nil
}
