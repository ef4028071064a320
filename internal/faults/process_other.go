//go:build !unix

package faults

import (
	"errors"
	"time"
)

// errNoSignals: stopping and killing the process needs Unix signals.
var errNoSignals = errors.New("faults: stop_process and kill_process need a Unix system")

// StopProcess is unsupported outside Unix.
func (s *Service) StopProcess(d time.Duration) (int, error) {
	if err := s.check(d); err != nil {
		return 0, err
	}
	return 0, errNoSignals
}

// KillProcess is unsupported outside Unix.
func (s *Service) KillProcess(d time.Duration) (int, error) {
	if err := s.check(d); err != nil {
		return 0, err
	}
	return 0, errNoSignals
}
