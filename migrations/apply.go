package migrations

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"log/slog"
	"sort"
	"strings"

	"github.com/go-sql-driver/mysql"
)

// Apply creates the database named in dsn when it is missing and applies
// every migration not yet recorded in schema_migrations, in name order.
// A named lock (GET_LOCK) serialises replicas that start at the same time.
// It returns the versions it applied.
func Apply(ctx context.Context, dsn string, log *slog.Logger) ([]string, error) {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("migrations: bad MySQL DSN: %w", err)
	}
	if err := createDatabase(ctx, *cfg); err != nil {
		return nil, err
	}
	cfg.MultiStatements = true // a migration file holds several statements
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		return nil, err
	}
	defer db.Close()
	conn, err := db.Conn(ctx) // GET_LOCK belongs to one session
	if err != nil {
		return nil, fmt.Errorf("migrations: connect to %s: %w", cfg.Addr, err)
	}
	defer conn.Close()

	var got sql.NullInt64
	if err := conn.QueryRowContext(ctx, "SELECT GET_LOCK('seckill_migrate', 60)").Scan(&got); err != nil || got.Int64 != 1 {
		return nil, fmt.Errorf("migrations: another migration holds the lock: %v", err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "SELECT RELEASE_LOCK('seckill_migrate')")

	if _, err := conn.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version VARCHAR(191) NOT NULL PRIMARY KEY, applied_at DATETIME(6) NOT NULL)`); err != nil {
		return nil, fmt.Errorf("migrations: create schema_migrations: %w", err)
	}
	done, err := appliedVersions(ctx, conn)
	if err != nil {
		return nil, err
	}
	files, err := fs.Glob(FS, "*.sql")
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var applied []string
	for _, f := range files {
		version := strings.TrimSuffix(f, ".sql")
		if done[version] {
			continue
		}
		body, err := FS.ReadFile(f)
		if err != nil {
			return applied, err
		}
		// MySQL commits DDL implicitly, so a file is not atomic: files use
		// IF NOT EXISTS so that re-running a half-applied one is harmless.
		if _, err := conn.ExecContext(ctx, string(body)); err != nil {
			return applied, fmt.Errorf("migrations: migration %s: %w", f, err)
		}
		if _, err := conn.ExecContext(ctx, "INSERT INTO schema_migrations (version, applied_at) VALUES (?, NOW(6))", version); err != nil {
			return applied, err
		}
		log.Info("migration applied", "version", version)
		applied = append(applied, version)
	}
	return applied, nil
}

func createDatabase(ctx context.Context, cfg mysql.Config) error {
	name := cfg.DBName
	if name == "" {
		return fmt.Errorf("migrations: the MySQL DSN names no database")
	}
	cfg.DBName = ""
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		return err
	}
	defer db.Close()
	quoted := "`" + strings.ReplaceAll(name, "`", "``") + "`"
	if _, err := db.ExecContext(ctx, "CREATE DATABASE IF NOT EXISTS "+quoted+" CHARACTER SET utf8mb4"); err != nil {
		return fmt.Errorf("migrations: create database %s on %s: %w", name, cfg.Addr, err)
	}
	return nil
}

func appliedVersions(ctx context.Context, conn *sql.Conn) (map[string]bool, error) {
	rows, err := conn.QueryContext(ctx, "SELECT version FROM schema_migrations")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	done := map[string]bool{}
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		done[v] = true
	}
	return done, rows.Err()
}
