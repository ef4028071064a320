package orderqueue

// SetDie replaces what c's kill does (a test cannot SIGKILL itself).
func SetDie(c *Consumer, die func()) { c.die = die }
