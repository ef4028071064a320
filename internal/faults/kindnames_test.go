package faults_test

import (
	"slices"
	"testing"

	"github.com/seckill-lab/seckill/internal/faultkind"
	"github.com/seckill-lab/seckill/internal/faults"
)

// The kinds' constants and the fault table list the same kinds, in the
// same order: a kind added to one and not the other fails here.
func TestFaultKindConstantsAreTheTable(t *testing.T) {
	var table []faultkind.Name
	for _, k := range faults.Kinds() {
		table = append(table, k.Name)
	}
	if !slices.Equal(table, faultkind.All) {
		t.Errorf("the fault table has %v,\nfaultkind.All has %v", table, faultkind.All)
	}
}
