package load

// Exit codes of every subcommand. Scripts and CI branch on them, so they
// mean the same thing everywhere.
const (
	ExitOK    = 0 // done, nothing meant to be safe broke
	ExitFail  = 1 // a safe strategy broke, too many errors, or the run failed
	ExitUsage = 2 // bad flags or arguments; nothing was sent
)
