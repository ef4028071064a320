package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/seckill-lab/seckill/internal/clip"
	"github.com/seckill-lab/seckill/internal/httpapi/wire"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/matrix"
)

// MaxMatrixBytes bounds POST /api/matrix's body (8 MiB), in place of
// MaxBodyBytes: a report of every row against every fault is about half a
// megabyte predicted only, and a run adds its observations.
const MaxMatrixBytes = 8 << 20

// matrixAnswer is GET /api/matrix's answer: a kept run (observed), or the
// predicted table when none is kept, so that the dashboard always has one.
type matrixAnswer struct {
	Observed bool          `json:"observed"`
	Report   matrix.Report `json:"report"`
}

// getMatrix is GET /api/matrix: the newest run kept, complete or not, or
// with ?id=N that run (404 when none); without any kept, the predicted
// table of every row against every fault.
func (s *Server) getMatrix(c *gin.Context) {
	ctx := c.Request.Context()
	if raw, given := c.GetQuery("id"); given {
		id, err := strconv.ParseUint(raw, 10, 64)
		if err != nil || id == 0 {
			wire.WriteError(c, s.log, wire.BadField("id", "id must be a positive decimal integer, not %q", clip.Input(raw)))
			return
		}
		rep, err := s.matrix.Get(ctx, id)
		if err != nil {
			wire.WriteError(c, s.log, wire.OrDBUnavailable(err))
			return
		}
		c.JSON(http.StatusOK, matrixAnswer{Observed: true, Report: rep})
		return
	}
	rep, ok, err := s.matrix.Newest(ctx)
	if err != nil {
		wire.WriteError(c, s.log, wire.OrDBUnavailable(err))
		return
	}
	if !ok {
		rep = matrix.Predicted(matrix.Rows(lockstrategy.All()), matrix.FaultColumns())
	}
	c.JSON(http.StatusOK, matrixAnswer{Observed: ok, Report: rep})
}

// postMatrix is POST /api/matrix with a matrix.Report (its id ignored):
// read strictly (every member named exactly, at every depth), checked
// against this build's rows and faults (matrix.Check), kept, and answered
// 201 {"id"}. A bad report is a 400 naming the member at fault
// ("cells[3].kind") and keeps nothing.
func (s *Server) postMatrix(c *gin.Context) {
	rep, err := decodeReport(c.Request.Body)
	if err == nil {
		err = matrix.Check(rep, matrix.Rows(lockstrategy.All()))
	}
	if err != nil {
		wire.WriteError(c, s.log, err)
		return
	}
	id, err := s.matrix.Save(c.Request.Context(), rep)
	if err != nil {
		wire.WriteError(c, s.log, wire.OrDBUnavailable(err))
		return
	}
	c.JSON(http.StatusCreated, gin.H{"id": id})
}

// decodeReport reads a report's JSON as wire.DecodeObject reads a body:
// one object, its members named exactly and once, and so each column,
// row, cell and their objects; an error names the member by its path.
func decodeReport(body io.Reader) (matrix.Report, error) {
	var r matrix.Report
	var id uint64
	var started, finished *string
	var faultsRaw, rowsRaw, cellsRaw json.RawMessage
	if err := wire.DecodeObject(body, map[string]any{"id": &id, "started_at": &started, "finished_at": &finished,
		"commit": &r.Commit, "machine": &r.Machine, "targets": &r.Targets, "seed": &r.Seed, "quick": &r.Quick,
		"complete": &r.Complete, "faults": &faultsRaw, "rows": &rowsRaw, "cells": &cellsRaw}); err != nil {
		return matrix.Report{}, err
	}
	var err error
	if r.StartedAt, err = reportTime("started_at", started); err != nil {
		return matrix.Report{}, err
	}
	if r.FinishedAt, err = reportTime("finished_at", finished); err != nil {
		return matrix.Report{}, err
	}
	err = each(faultsRaw, "faults", func(path string, raw json.RawMessage) error {
		r.Faults = append(r.Faults, matrix.Column{})
		p := &r.Faults[len(r.Faults)-1]
		return member(raw, path, map[string]any{"name": &p.Name, "title_en": &p.TitleEn, "title_zh": &p.TitleZh})
	})
	if err != nil {
		return matrix.Report{}, err
	}
	err = each(rowsRaw, "rows", func(path string, raw json.RawMessage) error {
		r.Rows = append(r.Rows, matrix.RowRef{})
		p := &r.Rows[len(r.Rows)-1]
		return member(raw, path, map[string]any{"name": &p.Name, "strategy": &p.Strategy, "group": &p.Group,
			"fencing": &p.Fencing, "no_watchdog": &p.NoWatchdog, "combine": &p.Combine, "async": &p.Async})
	})
	if err != nil {
		return matrix.Report{}, err
	}
	err = each(cellsRaw, "cells", func(path string, raw json.RawMessage) error {
		r.Cells = append(r.Cells, matrix.Cell{})
		return decodeCell(raw, path, &r.Cells[len(r.Cells)-1])
	})
	return r, err
}

// decodeCell reads one cell at path into c.
func decodeCell(raw json.RawMessage, path string, c *matrix.Cell) error {
	var predicted, figures json.RawMessage
	if err := member(raw, path, map[string]any{"row": &c.Row, "fault": &c.Fault, "predicted": &predicted,
		"kind": &c.Kind, "why_en": &c.WhyEn, "why_zh": &c.WhyZh, "finding": &c.Finding, "sale_id": &c.SaleID,
		"seed": &c.Seed, "unavailable_ms": &c.UnavailableMS, "figures": &figures, "history": &c.History,
		"replay": &c.Replay, "elapsed_ms": &c.ElapsedMS}); err != nil {
		return err
	}
	p := &c.Predicted
	if err := member(predicted, path+".predicted", map[string]any{"kind": &p.Kind, "why_en": &p.WhyEn, "why_zh": &p.WhyZh}); err != nil {
		return err
	}
	f := &c.Figures
	return member(figures, path+".figures", map[string]any{"stock": &f.Stock, "sold": &f.Sold, "left": &f.Left,
		"oversold": &f.Oversold, "lost_updates": &f.LostUpdates, "duplicates": &f.Duplicates,
		"violations": &f.Violations, "fenced_writes": &f.FencedWrites})
}

// reportTime is a report's time member: absent or null is none (the zero
// time), else RFC 3339.
func reportTime(field string, raw *string) (time.Time, error) {
	if raw == nil {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, *raw)
	if err != nil {
		return time.Time{}, wire.BadField(field, "%s must be an RFC 3339 time, not %q", field, clip.Input(*raw))
	}
	return t, nil
}

// each calls read on every element of the array raw holds, with its path
// ("cells[3]"); absent or null is no element.
func each(raw json.RawMessage, field string, read func(path string, raw json.RawMessage) error) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var elems []json.RawMessage
	if raw[0] != '[' || json.Unmarshal(raw, &elems) != nil {
		return wire.BadField(field, "%s must be an array, not %s", field, wire.DescribeJSON(raw))
	}
	for i, e := range elems {
		if err := read(fmt.Sprintf("%s[%d]", field, i), e); err != nil {
			return err
		}
	}
	return nil
}

// member reads the object raw holds at path into members (absent or null:
// left as they are); an error names its member by its whole path
// ("cells[3].figures.sold").
func member(raw json.RawMessage, path string, members map[string]any) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if raw[0] != '{' {
		return wire.BadField(path, "%s must be an object, not %s", path, wire.DescribeJSON(raw))
	}
	err := wire.DecodeObject(bytes.NewReader(raw), members)
	var ae *wire.Error
	if !errors.As(err, &ae) {
		return err
	}
	inner := *ae
	inner.Body.Field = path
	if ae.Body.Field != "" {
		inner.Body.Field = path + "." + ae.Body.Field
	}
	inner.Body.Message = path + ": " + ae.Body.Message
	return &inner
}
