package orderqueue

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// Durability modes of the stream's Redis.
const (
	DurabilityNone     = "none"     // no AOF: a restart loses every queued order
	DurabilityEverySec = "everysec" // AOF, fsync once a second: an OS crash loses up to a second
	DurabilityAlways   = "always"   // AOF, fsync before every reply: nothing acknowledged is lost
)

// DurabilityModes lists the modes in order.
func DurabilityModes() []string {
	return []string{DurabilityNone, DurabilityEverySec, DurabilityAlways}
}

// ErrNoConfigFile: the Redis runs without a config file, so a mode set at
// run time would not survive its restart (scripts/services.sh starts it
// from one).
var ErrNoConfigFile = errors.New("orderqueue: the stream's Redis runs without a config file: a mode set now would not survive a restart")

// Durability reads rdb's mode.
func Durability(ctx context.Context, rdb *redis.Client) (string, error) {
	v, err := rdb.ConfigGet(ctx, "append*").Result()
	if err != nil {
		return "", fmt.Errorf("orderqueue: reading the persistence of %s: %w", rdb.Options().Addr, err)
	}
	if v["appendonly"] != "yes" {
		return DurabilityNone, nil
	}
	if v["appendfsync"] == DurabilityAlways {
		return DurabilityAlways, nil
	}
	return DurabilityEverySec, nil
}

// SetDurability switches rdb to mode and saves it in its config file. For
// an AOF mode it waits (within ctx) for the first rewrite, which writes
// the keys already there: until then a restart would not find them.
func SetDurability(ctx context.Context, rdb *redis.Client, mode string) error {
	set := func(k, v string) error { return rdb.ConfigSet(ctx, k, v).Err() }
	var err error
	switch mode {
	case DurabilityNone:
		err = set("appendonly", "no")
	case DurabilityEverySec, DurabilityAlways:
		if err = set("appendfsync", mode); err == nil {
			err = set("appendonly", "yes")
		}
		if err == nil {
			err = waitAOFReady(ctx, rdb)
		}
	default:
		return fmt.Errorf("orderqueue: unknown durability %q", mode)
	}
	if err != nil {
		return fmt.Errorf("orderqueue: setting durability %s: %w", mode, err)
	}
	if err := rdb.ConfigRewrite(ctx).Err(); err != nil {
		if strings.Contains(err.Error(), "without a config file") {
			return ErrNoConfigFile
		}
		return fmt.Errorf("orderqueue: saving durability %s: %w", mode, err)
	}
	return nil
}

// waitAOFReady waits until the AOF is on and no rewrite is due or running.
func waitAOFReady(ctx context.Context, rdb *redis.Client) error {
	for {
		info, err := rdb.Info(ctx, "persistence").Result()
		if err != nil {
			return err
		}
		if strings.Contains(info, "aof_enabled:1") && strings.Contains(info, "aof_rewrite_in_progress:0") &&
			strings.Contains(info, "aof_rewrite_scheduled:0") {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the AOF rewrite did not finish: %w", ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}
