package faultpoint

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"
)

func TestNamesKey(t *testing.T) {
	for _, tc := range []struct {
		first string
		want  bool
	}{
		{"ks:sale:12", true}, {"2level:ks:sale:12", true}, {"redisson:{ks:sale:12}", true},
		{"ks:sale:123", false}, {"redisson:{ks:sale:123}", false}, {"ks:sale:12:fence", false}, {"", false},
	} {
		if got := namesKey(tc.first, "ks:sale:12"); got != tc.want {
			t.Errorf("namesKey(%q) = %v, want %v", tc.first, got, tc.want)
		}
	}
}

// Every dropped reply is counted, and only those: a script on another key,
// a command that is no script, and the armed key's next script once the
// fault is spent are let through uncounted.
func TestReplyDropperCountsDrops(t *testing.T) {
	ctx := context.Background()
	script := func(key string) redis.Cmder { return redis.NewCmd(ctx, "evalsha", "0123", 1, key) }
	d := &ReplyDropper{}
	if d.take(script("ks:sale:12")) || d.Dropped() != 0 {
		t.Fatalf("unarmed: dropped %d, want 0", d.Dropped())
	}
	d.Arm("ks:sale:12")
	if d.take(script("ks:sale:123")) || d.take(redis.NewCmd(ctx, "get", "ks:sale:12")) || d.Dropped() != 0 {
		t.Fatalf("another key, a GET: dropped %d, want 0", d.Dropped())
	}
	if !d.take(script("redisson:{ks:sale:12}")) || d.Dropped() != 1 {
		t.Fatalf("the armed key's script: dropped %d, want 1", d.Dropped())
	}
	if d.take(script("ks:sale:12")) || d.Dropped() != 1 {
		t.Fatalf("the next script (the fault is one reply): dropped %d, want 1", d.Dropped())
	}
}
