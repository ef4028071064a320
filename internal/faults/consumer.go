package faults

import (
	"errors"

	"github.com/seckill-lab/seckill/internal/faultpoint"
)

// ErrNoConsumer: this replica runs no queue consumer (no default Redis).
var ErrNoConsumer = errors.New("faults: this replica runs no order-queue consumer")

// KillPoints are where kill_consumer can strike.
func KillPoints() []string {
	var out []string
	for _, p := range faultpoint.ConsumerPoints() {
		out = append(out, string(p))
	}
	return out
}

// UseConsumer says the replica runs a queue consumer (on the replica's
// fault points): kill_consumer can strike it.
func (s *Service) UseConsumer() { s.consumer = true }

// KillConsumer arms the kill of the next batch at point: before its
// transaction commits (nothing of it lands; its entries stay pending and
// another consumer reclaims them), or after the commit and before the
// acknowledgement (the orders exist; the reclaimed entries find them and
// make nothing twice).
func (s *Service) KillConsumer(point string) error {
	p, err := s.points()
	if err != nil {
		return err
	}
	if !s.consumer {
		return ErrNoConsumer
	}
	p.ArmConsumerKill(faultpoint.ConsumerPoint(point))
	return nil
}
