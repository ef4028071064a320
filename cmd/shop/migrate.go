package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/seckill-lab/seckill/internal/config"
	"github.com/seckill-lab/seckill/migrations"
)

// migrateTimeout bounds `shop migrate` (and the migration at serve start):
// the schema is small; past this something is wrong (a stuck GET_LOCK).
const migrateTimeout = 2 * time.Minute

// migrate is `shop migrate`: apply what is pending, print what was applied.
func migrate(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dsn := fs.String("mysql-dsn", config.Get(config.EnvMySQLDSN, config.DefaultMySQLDSN),
		"MariaDB/MySQL `DSN`; the database is created when missing (env "+config.EnvMySQLDSN+")")
	fs.Usage = func() {
		fmt.Fprint(stderr, "usage: shop migrate [flags]\n\nApplies the pending migrations of migrations/ and prints their versions.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return usageError(stderr, err)
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return 2
	}
	applied, err := runMigrations(ctx, *dsn, slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	if err != nil {
		fmt.Fprintf(stderr, "shop: %v\n", err)
		return 1
	}
	if len(applied) == 0 {
		fmt.Fprintln(stdout, "up to date")
	}
	for _, v := range applied {
		fmt.Fprintln(stdout, "applied", v)
	}
	return 0
}

// runMigrations applies the migrations with a bound and a hint on failure.
func runMigrations(ctx context.Context, dsn string, log *slog.Logger) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, migrateTimeout)
	defer cancel()
	applied, err := migrations.Apply(ctx, dsn, log)
	if err != nil {
		return applied, fmt.Errorf("%w\n(is MariaDB up? `make services-up` starts it; -mysql-dsn or %s points elsewhere)",
			err, config.EnvMySQLDSN)
	}
	return applied, nil
}

// discardLog is a logger for output nobody reads (the demo's migration run:
// its result is the exit status).
func discardLog() *slog.Logger { return slog.New(slog.DiscardHandler) }
