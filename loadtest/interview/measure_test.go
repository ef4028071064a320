package interview

import (
	"reflect"
	"testing"

	"github.com/seckill-lab/seckill/internal/faultkind"
	model "github.com/seckill-lab/seckill/internal/interview"
)

func TestMissingIsEachSourceANewRunMayMeasureOnce(t *testing.T) {
	lesson := func(name string, measured, rerun bool) model.Figure {
		return model.Figure{Measured: measured, Rerun: rerun, Source: model.Source{Kind: model.FromLesson, Lesson: name}}
	}
	cell := func(row string, f faultkind.Name, measured, rerun bool) model.Figure {
		return model.Figure{Measured: measured, Rerun: rerun, Source: model.Source{Kind: model.FromMatrix, Row: row, Fault: f}}
	}
	page := model.Page{Questions: []model.Filled{
		{Figures: []model.Figure{lesson("split-hot-row", false, true), lesson("split-hot-row", false, true), lesson("mutex-across-replicas", true, false)}},
		{Figures: []model.Figure{cell("redis", faultkind.FreezeRedis, false, true), cell("redis-lua-stock", faultkind.KillProcess, false, false),
			lesson("lock-per-batch", false, true), cell("redis", faultkind.FreezeRedis, false, true)}},
	}}
	got := missing(page)
	want := todo{lessons: []string{"split-hot-row", "lock-per-batch"}, cells: []string{"redis/freeze_redis"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("missing = %+v, want %+v (measured figures and those with nothing to quote are not run again)", got, want)
	}
}
