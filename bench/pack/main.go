// Command pack compresses a tar stream from stdin to stdout the way rwdiag's
// bundle writer does (bundle.NewFramedZstdWriter: independent 4 MiB zstd
// frames with their content sizes), so that a bundle made by the sample
// generator can be packed as `collect` and `bundle redact` would pack it:
//
//	tar --sort=name -C DIR -cf - . | pack > bundle.tar.zst
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"

	"github.com/rwdiag/rwdiag/bundle"
)

func main() {
	if len(os.Args) != 1 {
		fmt.Fprintln(os.Stderr, "usage: tar -cf - ... | pack > out.tar.zst")
		os.Exit(2)
	}
	out := bufio.NewWriterSize(os.Stdout, 1<<20)
	zw, err := bundle.NewFramedZstdWriter(out)
	if err == nil {
		_, err = io.Copy(zw, os.Stdin)
		if cerr := zw.Close(); err == nil {
			err = cerr
		}
	}
	if err == nil {
		err = out.Flush()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "pack:", err)
		os.Exit(1)
	}
}
