package interview

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/seckill-lab/seckill/internal/catalogue"
	model "github.com/seckill-lab/seckill/internal/interview"
	"github.com/seckill-lab/seckill/loadtest/matrix"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// todo is what the unmeasured figures need: lessons and matrix cells
// (ROW/FAULT), each once, in the path's order.
type todo struct {
	lessons []string
	cells   []string
}

// missing is what page's unmeasured figures need run: those a new run may
// measure (Rerun: none kept, or a lesson run that could not give the
// figure, a sale that did not sell out), not those a kept run measured to
// have nothing to quote.
func missing(page model.Page) todo {
	var t todo
	seen := map[string]bool{}
	for _, q := range page.Questions {
		for _, f := range q.Figures {
			if f.Measured || !f.Rerun {
				continue
			}
			s := f.Source
			switch s.Kind {
			case model.FromLesson:
				if !seen[s.Lesson] {
					seen[s.Lesson] = true
					t.lessons = append(t.lessons, s.Lesson)
				}
			case model.FromMatrix:
				if cell := s.Row + "/" + string(s.Fault); !seen[cell] {
					seen[cell] = true
					t.cells = append(t.cells, cell)
				}
			}
		}
	}
	return t
}

// measurer runs lessons and matrix cells on the targets.
type measurer struct {
	c       *shopapi.Client
	targets []string
	token   string
	shop    string
	out     io.Writer
	errs    io.Writer
}

// run runs t, printing each step; a step that fails is said and the next
// runs (its figures stay unmeasured, and the page says so).
func (m measurer) run(ctx context.Context, t todo) {
	n := len(t.lessons) + len(t.cells)
	i := 0
	for _, l := range t.lessons {
		i++
		fmt.Fprintf(m.out, "[%d/%d] lesson %s ...\n", i, n, l)
		start := time.Now()
		run, err := m.lesson(ctx, l)
		if err != nil {
			fmt.Fprintf(m.out, "[%d/%d] lesson %s: %v\n", i, n, l, err)
			continue
		}
		fmt.Fprintf(m.out, "[%d/%d] lesson %s: run %d %s in %s\n", i, n, l, run.ID, run.Verdict, time.Since(start).Round(time.Second))
	}
	for _, cell := range t.cells {
		i++
		if ctx.Err() != nil {
			return
		}
		fmt.Fprintf(m.out, "[%d/%d] matrix cell %s ...\n", i, n, cell)
		args := []string{"--targets", strings.Join(m.targets, ","), "--only", cell, "--admin-token", m.token}
		if m.shop != "" {
			args = append(args, "--shop", m.shop)
		}
		if code := matrix.Command(ctx, args, m.out, m.errs); code != 0 {
			fmt.Fprintf(m.out, "[%d/%d] matrix cell %s: exit %d\n", i, n, cell, code)
		}
	}
}

// lesson queues a run of name for the shops' agents and waits until it
// is done.
func (m measurer) lesson(ctx context.Context, name string) (catalogue.Run, error) {
	base := strings.TrimRight(m.targets[0], "/")
	var run catalogue.Run
	_, err := m.c.CallJSON(ctx, http.MethodPost, base+"/api/lessons/"+name+"/runs", nil, http.StatusAccepted, &run)
	if err != nil {
		// One already queued (from the dashboard) is left to its agent:
		// its figures show once it is done.
		return catalogue.Run{}, err
	}
	deadline := time.Now().Add(catalogue.RunTimeout + time.Minute)
	for time.Now().Before(deadline) {
		if _, err := m.c.CallJSON(ctx, http.MethodGet, fmt.Sprintf("%s/api/lesson-runs/%d", base, run.ID), nil, http.StatusOK, &run); err != nil {
			return run, err
		}
		if run.Status == catalogue.StatusDone {
			return run, nil
		}
		select {
		case <-ctx.Done():
			return run, ctx.Err()
		case <-time.After(time.Second):
		}
	}
	return run, fmt.Errorf("run %d not done after %s (is a load-test agent running?)", run.ID, catalogue.RunTimeout+time.Minute)
}
