//go:build race

package testenv

// raceEnabled: this test binary runs under the race detector, so the
// commands it builds (Binary) are built with it too: one compile of every
// package serves both (a cold make test compiles the module once, not twice),
// and a data race in a real shop or agent process fails the test that ran it.
const raceEnabled = true
