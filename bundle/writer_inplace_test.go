package bundle

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"
)

// A destination that is a FIFO, a symbolic link or /dev/null is written to
// in place: the bundle goes to the FIFO's reader or the link's target, and
// the FIFO, link or device is still there after Close. Nothing is staged
// beside a device.
func TestWriterInPlace(t *testing.T) {
	write := func(t *testing.T, dest string) {
		t.Helper()
		w, err := NewWriter(dest, WriterOptions{Format: FormatTarGzip})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.WriteFile("logs/p/c.log", "test", []byte("line\n")); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
	}
	paths := func(t *testing.T, name string, data []byte) []string {
		t.Helper()
		r, err := NewReader(name, bytes.NewReader(data), Options{})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, g := range drainAll(t, r) {
			out = append(out, g.Path)
		}
		return out
	}
	want := []string{ManifestPath, "logs/p/c.log"}

	t.Run("fifo", func(t *testing.T) {
		dir := t.TempDir()
		fifo := filepath.Join(dir, "b.fifo")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		got := make(chan []byte, 1)
		go func() {
			f, err := os.Open(fifo)
			if err != nil {
				got <- nil
				return
			}
			defer f.Close()
			b, _ := io.ReadAll(f)
			got <- b
		}()
		write(t, fifo)
		select {
		case b := <-got:
			if p := paths(t, fifo, b); !slices.Equal(p, want) {
				t.Errorf("the FIFO's reader got %q, want %q", p, want)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("the FIFO's reader got nothing")
		}
		if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
			t.Errorf("the FIFO was replaced: %v, %v", fi.Mode(), err)
		}
		if got := entriesOf(t, dir); !slices.Equal(got, []string{"b.fifo"}) {
			t.Errorf("directory holds %q, want only the FIFO", got)
		}
	})

	t.Run("symlink", func(t *testing.T) {
		dir := t.TempDir()
		target := filepath.Join(dir, "target.tar.gz")
		os.WriteFile(target, []byte("old"), 0o600)
		link := filepath.Join(dir, "link.tar.gz")
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
		write(t, link)
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("the link was replaced: %v, %v", fi.Mode(), err)
		}
		if p := paths(t, target, readFile(t, target)); !slices.Equal(p, want) {
			t.Errorf("the link's target holds %q, want %q", p, want)
		}
	})

	t.Run("devnull", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("needs root: only root could replace /dev/null")
		}
		before, err := os.Stat("/dev/null")
		if err != nil || before.Mode()&os.ModeCharDevice == 0 {
			t.Skipf("/dev/null is not a character device here: %v", err)
		}
		write(t, "/dev/null")
		after, err := os.Stat("/dev/null")
		if err != nil || !os.SameFile(before, after) || after.Mode()&os.ModeCharDevice == 0 {
			t.Fatalf("/dev/null is no longer the device: %v, %v", after.Mode(), err)
		}
		if m, _ := filepath.Glob("/dev/.null.*"); len(m) > 0 {
			t.Errorf("left in /dev: %q", m)
		}
	})
}
