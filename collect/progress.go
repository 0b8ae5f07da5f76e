package collect

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
)

// Progress hears about tasks as the run goes. Its methods are called from
// many goroutines.
type Progress interface {
	// Add says n more tasks are planned.
	Add(n int)
	// Done says a task ended; err is nil when it succeeded.
	Done(step, target string, err error)
}

type nopProgress struct{}

func (nopProgress) Add(int)                    {}
func (nopProgress) Done(string, string, error) {}

// Bar is a Progress drawn as one line on a terminal: tasks done of planned,
// failures, and the task that just ended.
type Bar struct {
	mu       sync.Mutex
	bar      *progressbar.ProgressBar
	total    int
	failed   int
	finished bool // a straggler's news must not draw over the summary
}

// NewBar draws on w, which should be a terminal.
func NewBar(w io.Writer) *Bar {
	return &Bar{bar: progressbar.NewOptions(0,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription("collecting"),
		progressbar.OptionShowCount(),
		progressbar.OptionSetWidth(24),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionSetPredictTime(false),
	)}
}

// Add implements Progress.
func (b *Bar) Add(n int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.finished {
		return
	}
	b.total += n
	// One more than planned: writing the archive. A bar at its maximum is
	// finished and would draw no more, and more tasks may yet be planned.
	b.bar.ChangeMax(b.total + 1)
}

// Done implements Progress.
func (b *Bar) Done(step, target string, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.finished {
		return
	}
	if err != nil {
		b.failed++
	}
	desc := step + " " + target
	if b.failed > 0 {
		desc = fmt.Sprintf("%d failed · %s", b.failed, desc)
	}
	b.bar.Describe(desc)
	_ = b.bar.Add(1)
}

// Finish clears the bar, before the summary is printed.
func (b *Bar) Finish() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.finished = true
	_ = b.bar.Finish()
	_ = b.bar.Clear()
}
