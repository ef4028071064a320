//go:build !race

package testenv

// raceEnabled: see race_on.go.
const raceEnabled = false
