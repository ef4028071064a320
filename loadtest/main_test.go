package main

import (
	"os"
	"testing"

	"github.com/seckill-lab/seckill/internal/testenv"
)

// TestMain: this package's tests are timed scenarios on real shop
// processes (the lessons, the chaos run, the agents): their shops are
// built without -race (testenv.PlainBinaries says why). The tests' own
// code still runs under the race detector.
func TestMain(m *testing.M) {
	testenv.PlainBinaries()
	os.Exit(m.Run())
}
