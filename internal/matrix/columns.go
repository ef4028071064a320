package matrix

import (
	"github.com/seckill-lab/seckill/internal/faultkind"
	"github.com/seckill-lab/seckill/internal/faults"
)

// FaultColumns are the matrix's columns: every fault kind in the fault
// table's order, titled as the table titles it in both languages.
func FaultColumns() []Column {
	cols := make([]Column, 0, len(faultkind.All))
	for _, f := range faultkind.All {
		col := Column{Name: f, TitleEn: string(f), TitleZh: string(f)}
		if k, ok := faults.Find(string(f)); ok {
			col.TitleEn, col.TitleZh = k.Title.En, k.Title.Zh
		}
		cols = append(cols, col)
	}
	return cols
}
