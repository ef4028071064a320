package leaselessons

import (
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/catalogue"
	"github.com/seckill-lab/seckill/loadtest/lessons"
)

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// At the class pace ttlShorterThanWork's lease expires mid-work and the
// Next buyer works beside the holder for work - ttl, which must last
// seconds; the watchdog keeps its slack and the rounds last 20 s.
func TestTTLShorterThanWorkClassPace(t *testing.T) {
	set := ttlShorterThanWorkSettings(catalogue.PaceClass)
	if set.Buyers < 2 {
		t.Fatalf("at least two buyers: %+v", set)
	}
	if overlap := ms(set.WorkMS - set.TTLMS); overlap < 2*time.Second {
		t.Errorf("the holders overlap for work - ttl, %v: want >= 2 s", overlap)
	}
	if slack := ms(set.TTLMS - set.TTLMS/3); slack < 500*time.Millisecond {
		t.Errorf("the watchdog's slack is %v: want >= 500 ms", slack)
	}
	if wait := time.Duration(set.Buyers-1) * ms(set.WorkMS); wait > lessons.ShopLockWait-4*time.Second {
		t.Errorf("with the watchdog the last buyer waits %v: want 4 s inside the %v lock wait", wait, lessons.ShopLockWait)
	}
	if set.CaseMin < 20*time.Second {
		t.Errorf("each case lasts %v: want >= 20 s", set.CaseMin)
	}
	// With the watchdog a round is the buyers' work one after the other.
	round := time.Duration(set.Buyers) * ms(set.WorkMS)
	if need := int64((set.CaseMin+round-1)/round) * int64(set.Buyers); set.Stock < need {
		t.Errorf("stock %d < %d orders of the watchdog's rounds", set.Stock, need)
	}
	if n := ttlShorterThanWorkSettings(catalogue.PaceNormal); n != (ttlSettings{Stock: 20, WorkMS: 1800, TTLMS: 1000, Buyers: 3}) {
		t.Errorf("normal pace changed: %+v", n)
	}
}
