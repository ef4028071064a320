// Package all registers every lock strategy; import it for its side effect,
// as a program imports its database/sql drivers.
package all

import (
	_ "github.com/seckill-lab/seckill/internal/lockstrategy/dblock"  // db-* strategies
	_ "github.com/seckill-lab/seckill/internal/lockstrategy/memlock" // mutex
	_ "github.com/seckill-lab/seckill/internal/lockstrategy/nolock"  // none
)
