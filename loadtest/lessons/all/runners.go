package all

import (
	"maps"

	"github.com/seckill-lab/seckill/loadtest/lessons"
	"github.com/seckill-lab/seckill/loadtest/lessons/contentionlessons"
	"github.com/seckill-lab/seckill/loadtest/lessons/failoverlessons"
	"github.com/seckill-lab/seckill/loadtest/lessons/leaselessons"
)

// Runners maps each lesson of the catalogue to its script, from the
// families' maps.
var Runners = func() map[string]lessons.ScenarioFunc {
	all := map[string]lessons.ScenarioFunc{}
	for _, family := range []map[string]lessons.ScenarioFunc{leaselessons.Runners, failoverlessons.Runners, contentionlessons.Runners} {
		maps.Copy(all, family)
	}
	return all
}()

// Scenarios is the catalogue with its scripts, in the order `all` runs
// them (a lesson without a script is a bug: TestCatalogueHasRunners).
var Scenarios = lessons.Script(Runners)
