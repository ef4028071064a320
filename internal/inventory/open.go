package inventory

import (
	"context"
	"fmt"
	"strings"
	"time"

	gomysql "github.com/go-sql-driver/mysql"
	"gorm.io/driver/mysql"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// Config tunes the connection pool.
type Config struct {
	DSN string
	// MaxOpenConns bounds connections; default 128. db-pessimistic holds one
	// per waiter, so it must exceed the expected concurrent buyers per replica.
	MaxOpenConns int
}

// Open connects to MariaDB/MySQL and checks that it answers.
func Open(ctx context.Context, cfg Config) (*gorm.DB, error) {
	if cfg.MaxOpenConns == 0 {
		cfg.MaxOpenConns = 128
	}
	db, err := gorm.Open(mysql.Open(withInterpolation(cfg.DSN)), &gorm.Config{
		Logger:                 logger.Discard,
		SkipDefaultTransaction: true, // our transactions are explicit
		PrepareStmt:            false,
	})
	if err != nil {
		return nil, fmt.Errorf("inventory: open: %w", err)
	}
	sqlDB, err := db.DB()
	if err != nil {
		return nil, err
	}
	sqlDB.SetMaxOpenConns(cfg.MaxOpenConns)
	sqlDB.SetMaxIdleConns(cfg.MaxOpenConns)
	sqlDB.SetConnMaxLifetime(30 * time.Minute)
	pingCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := sqlDB.PingContext(pingCtx); err != nil {
		sqlDB.Close()
		return nil, fmt.Errorf("inventory: database does not answer: %w", err)
	}
	return db, nil
}

// withInterpolation asks the driver to put a statement's arguments into
// its text (interpolateParams) unless the DSN says otherwise: one round
// trip per statement instead of prepare, execute and close. Inside a
// transaction that holds the sale's row, each trip saved is time the row
// is not held. The driver refuses it for the few character sets where
// escaping is unsafe; a DSN it cannot parse is left to gorm to report.
func withInterpolation(dsn string) string {
	if strings.Contains(dsn, "interpolateParams=") {
		return dsn
	}
	cfg, err := gomysql.ParseDSN(dsn)
	if err != nil {
		return dsn
	}
	cfg.InterpolateParams = true
	return cfg.FormatDSN()
}

// Close closes db's pool.
func Close(db *gorm.DB) error {
	sqlDB, err := db.DB()
	if err != nil {
		return err
	}
	return sqlDB.Close()
}
