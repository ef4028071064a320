package inventory

import "testing"

// ShareOf splits a stock as evenly as possible, the remainder one unit
// each on the first shards, and the shares add up to the stock.
func TestShareOfSplitsEvenlyRemainderFirst(t *testing.T) {
	for _, c := range []struct {
		stock int64
		n     int
		want  []int64
	}{{37, 8, []int64{5, 5, 5, 5, 5, 4, 4, 4}}, {16, 8, []int64{2, 2, 2, 2, 2, 2, 2, 2}}, {8, 8, []int64{1, 1, 1, 1, 1, 1, 1, 1}},
		{10, 4, []int64{3, 3, 2, 2}}, {5, 1, []int64{5}}} {
		var sum int64
		for i, w := range c.want {
			if got := ShareOf(c.stock, c.n, i); got != w {
				t.Errorf("ShareOf(%d, %d, %d) = %d, want %d", c.stock, c.n, i, got, w)
			}
			sum += ShareOf(c.stock, c.n, i)
		}
		if sum != c.stock {
			t.Errorf("the shares of %d over %d add up to %d", c.stock, c.n, sum)
		}
	}
}
