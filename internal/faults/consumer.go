package faults

import (
	"errors"

	"github.com/seckill-lab/seckill/internal/orderqueue"
)

// ErrNoConsumer: this replica runs no queue consumer (no default Redis).
var ErrNoConsumer = errors.New("faults: this replica runs no order-queue consumer")

// KillPoints are where kill_consumer can strike.
func KillPoints() []string {
	return []string{orderqueue.KillBeforeCommit, orderqueue.KillAfterCommit}
}

// consumerKiller is the queue consumer (orderqueue.Consumer).
type consumerKiller interface{ ArmKill(point string) }

// UseConsumer gives the fault the replica's queue consumer.
func (s *Service) UseConsumer(c consumerKiller) { s.consumer = c }

// KillConsumer arms the kill of the next batch at point: before its
// transaction commits (nothing of it lands; its entries stay pending and
// another consumer reclaims them), or after the commit and before the
// acknowledgement (the orders exist; the reclaimed entries find them and
// make nothing twice).
func (s *Service) KillConsumer(point string) error {
	if !s.cfg.Enabled {
		return ErrDisabled
	}
	if s.consumer == nil {
		return ErrNoConsumer
	}
	s.consumer.ArmKill(point)
	return nil
}
