package runs

import (
	"errors"
	"reflect"
	"testing"

	"github.com/seckill-lab/seckill/internal/sale"
)

// A run needs a live agent and as many live shop replicas as it asks for;
// replicas 0 drives them all, N the first N (every replica lists them in
// the same order).
func TestTargets(t *testing.T) {
	shops := []string{"http://a", "http://b", "http://c"}
	if _, err := Targets(Config{}, nil, shops); !errors.Is(err, ErrNoAgents) {
		t.Errorf("no agents: %v, want ErrNoAgents", err)
	}
	_, err := Targets(Config{Replicas: 4}, []string{"ag"}, shops)
	var fe *sale.FieldError
	if !errors.As(err, &fe) || fe.Field != "replicas" || fe.Message != "replicas is 4 but only 3 shop replicas are alive" {
		t.Errorf("too many replicas: %v, want a field error on replicas", err)
	}
	for replicas, want := range map[int][]string{0: shops, 2: shops[:2], 3: shops} {
		got, err := Targets(Config{Replicas: replicas}, []string{"ag"}, shops)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("replicas %d: %v, %v; want %v", replicas, got, err, want)
		}
	}
}
