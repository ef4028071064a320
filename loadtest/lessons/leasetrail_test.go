package lessons

import (
	"testing"
	"time"
)

// lossOf finds the replica's first lost lease, the time since that lease's
// Last grant or renewal, and a went_on on its token after the loss; other
// replicas' and other tokens' events do not count.
func TestLossOfReadsTheLostLease(t *testing.T) {
	events := []LeaseEvent{
		{Replica: "shop-1", Token: 7, Event: "granted", At: 1000},
		{Replica: "shop-1", Token: 7, Event: "renewed", At: 1500},
		{Replica: "shop-2", Token: 9, Event: "renewed", At: 3900},
		{Replica: "shop-1", Token: 8, Event: "renewed", At: 3900},
		{Replica: "shop-1", Token: 7, Event: "lost", At: 4500},
		{Replica: "shop-2", Token: 9, Event: "went_on", At: 4600},
	}
	got := lossOf(events, "shop-1")
	if !got.Lost || got.SinceRenewal != 3*time.Second || got.WentOn {
		t.Fatalf("lossOf: %+v, want lost 3 s after its last renewal, no went_on", got)
	}
	events = append(events, LeaseEvent{Replica: "shop-1", Token: 7, Event: "went_on", At: 9000})
	if got := lossOf(events, "shop-1"); !got.WentOn {
		t.Fatalf("lossOf missed the holder's went_on: %+v", got)
	}
	if got := lossOf(events, "shop-2"); got.Lost {
		t.Fatalf("shop-2 lost nothing: %+v", got)
	}
	// A lock that records only its end (redlock): lost, time unknown.
	if got := lossOf([]LeaseEvent{{Replica: "shop-1", Event: "lost", At: 5}}, "shop-1"); !got.Lost || got.SinceRenewal != 0 {
		t.Fatalf("an end-only trail: %+v", got)
	}
}
