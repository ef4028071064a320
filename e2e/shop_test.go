// Package e2e runs real `shop serve` processes against the real services and
// checks sale results in the database through the API.
package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/seckill-lab/seckill/internal/testenv"
)

// startReplicas starts n `shop serve` processes (replica ids r1..rn) over
// database seckill_test_<db>, each healthy before it returns, stopped
// with SIGINT at cleanup (the graceful path).
func startReplicas(t *testing.T, n int, db string) []*testenv.Shop {
	t.Helper()
	var out []*testenv.Shop
	for i := range n {
		out = append(out, testenv.StartShop(t, testenv.ShopOptions{DB: db, ReplicaID: fmt.Sprintf("r%d", i+1)}))
	}
	return out
}

// call sends a JSON request and decodes the JSON answer into out (if not nil).
func call(ctx context.Context, method, url string, body, out any) (int, error) {
	var rd *bytes.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	} else {
		rd = bytes.NewReader(nil)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil && !strings.Contains(err.Error(), "EOF") {
			return resp.StatusCode, err
		}
	}
	return resp.StatusCode, nil
}
