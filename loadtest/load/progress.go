package load

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// Progress shows a load phase moving on stderr: a bar on a terminal, and a
// plain line every second otherwise (a bar's carriage returns make a CI log
// or a redirected file unreadable).
type Progress struct {
	stop chan struct{}
	done sync.WaitGroup
}

// Refresh periods: a bar is redrawn often enough to look alive; a log line
// comes once a second, which keeps a long run's log short.
const (
	barPeriod  = 100 * time.Millisecond
	linePeriod = time.Second
)

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// StartProgress starts showing rec's progress towards total requests of
// strategy on w until the returned progress is ended.
func StartProgress(w io.Writer, strategy string, total int, rec *Recorder) *Progress {
	p := &Progress{stop: make(chan struct{})}
	p.done.Add(1)
	if isTerminal(w) {
		go p.bar(w, strategy, total, rec)
	} else {
		go p.lines(w, strategy, total, rec)
	}
	return p
}

// End stops the display and waits until its last output is written, so
// that the report printed next does not interleave with it.
func (p *Progress) End() {
	close(p.stop)
	p.done.Wait()
}

func (p *Progress) bar(w io.Writer, strategy string, total int, rec *Recorder) {
	defer p.done.Done()
	bar := progressbar.NewOptions64(int64(total),
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(fmt.Sprintf("%-20s", strategy)),
		progressbar.OptionSetWidth(30),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString("req"),
		progressbar.OptionThrottle(barPeriod),
		progressbar.OptionSetRenderBlankState(true),
	)
	tick := time.NewTicker(barPeriod)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			_ = bar.Set64(rec.Done.Load())
		case <-p.stop:
			_ = bar.Set64(rec.Done.Load())
			_ = bar.Exit()
			fmt.Fprintln(w)
			return
		}
	}
}

func (p *Progress) lines(w io.Writer, strategy string, total int, rec *Recorder) {
	defer p.done.Done()
	start := time.Now()
	tick := time.NewTicker(linePeriod)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			done := rec.Done.Load()
			secs := time.Since(start).Seconds()
			fmt.Fprintf(w, "%s: %d/%d requests (%.0f%%), %d orders, %.0f req/s, %.0f s\n",
				strategy, done, total, 100*float64(done)/float64(max(total, 1)), rec.Orders.Load(), float64(done)/secs, secs)
		case <-p.stop:
			return
		}
	}
}
