// Command readall opens a bundle and drains every entry through a
// bundle.LineReader, as the analyzer will, and prints what it read. It is
// the workload of bench/read-memory.sh.
//
//	go run ./bench/readall [-cpuprofile f] [-memprofile f] BUNDLE
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"

	"github.com/rwdiag/rwdiag/bundle"
)

func main() {
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile to `file`")
	memprofile := flag.String("memprofile", "", "write a heap profile to `file` at the end")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: readall [-cpuprofile f] [-memprofile f] BUNDLE")
		os.Exit(2)
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "readall:", err)
			os.Exit(1)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	code := run(flag.Arg(0))
	if *memprofile != "" {
		f, err := os.Create(*memprofile)
		if err == nil {
			runtime.GC()
			pprof.WriteHeapProfile(f)
			f.Close()
		}
	}
	if code != 0 {
		pprof.StopCPUProfile()
		os.Exit(code)
	}
}

func run(name string) int {
	r, err := bundle.Open(name, bundle.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "readall:", err)
		return 1
	}
	defer r.Close()
	var entries, lines, cut, problems int
	var bytes int64
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "readall:", err)
			problems++
			if bundle.Fatal(err) {
				break
			}
			continue
		}
		entries++
		cr := &countingReader{r: e}
		lr := bundle.NewLineReader(cr, 0)
		for {
			_, _, _, err := lr.Next()
			if err != nil {
				break
			}
			lines++
		}
		bytes += cr.n
		cut += lr.Cut()
		if err := lr.Err(); err != nil {
			fmt.Fprintln(os.Stderr, "readall:", err)
			problems++
			if bundle.Fatal(err) {
				break
			}
		}
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Printf("%s (%v): %d entries, %d lines, %d bytes, %d cut, %d problems; Go heap obtained from the OS %d MiB, total allocated %d MiB\n",
		name, r.Format(), entries, lines, bytes, cut, problems, ms.HeapSys>>20, ms.TotalAlloc>>20)
	if problems > 0 {
		return 1
	}
	return 0
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
