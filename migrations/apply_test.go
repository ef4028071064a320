package migrations_test

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/seckill-lab/seckill/internal/testenv"
	"github.com/seckill-lab/seckill/migrations"
)

// TestMigrateIsIdempotent: a second run applies nothing.
func TestMigrateIsIdempotent(t *testing.T) {
	dsn := testenv.MySQLDSN(t, "migrations")
	applied, err := migrations.Apply(context.Background(), dsn, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil || len(applied) != 0 {
		t.Fatalf("second migrate applied %v, err %v", applied, err)
	}
}
