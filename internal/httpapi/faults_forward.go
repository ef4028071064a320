package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/seckill-lab/seckill/internal/clip"
	"github.com/seckill-lab/seckill/internal/discovery"
	"github.com/seckill-lab/seckill/internal/faults"
	"github.com/seckill-lab/seckill/internal/httpapi/wire"
)

// forwardTimeout bounds a forwarded fault: restart_redis, the slowest, waits
// up to faults.RedisBackTimeout for its node.
const forwardTimeout = faults.RedisBackTimeout + 10*time.Second

// maxForwardedBody bounds the relayed answer; a fault's is a few hundred bytes.
const maxForwardedBody = 64 << 10

// forwardClient sends faults to other replicas; no redirects: a replica
// answers itself.
var forwardClient = &http.Client{
	Timeout: forwardTimeout,
	CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	},
}

// forward sends the fault, minus replica, to the live shop replica id with
// the caller's Authorization, and relays its status and body: the dashboard,
// served by one replica, can so fault any of them.
func (f *faultsAPI) forward(c *gin.Context, id string, r *faultRequest) {
	ctx, cancel := context.WithTimeout(c.Request.Context(), replicasTimeout)
	members, err := discovery.List(ctx, f.s.store.DB())
	cancel()
	if err != nil {
		wire.WriteError(c, f.s.log, fmt.Errorf("%w: %w", wire.ErrDBUnavailable, err))
		return
	}
	url := ""
	for _, m := range members {
		if m.ID == id && m.Kind == discovery.KindShop && m.Alive && m.URL != "" {
			url = strings.TrimRight(m.URL, "/") + "/api/faults"
		}
	}
	if url == "" {
		wire.WriteError(c, f.s.log, errReplicaNotFound(id))
		return
	}
	body, err := json.Marshal(r) // without the replica: the target runs it itself
	if err != nil {
		wire.WriteError(c, f.s.log, err)
		return
	}
	req, err := http.NewRequestWithContext(c.Request.Context(), http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		wire.WriteError(c, f.s.log, err)
		return
	}
	req.Header.Set("Content-Type", "application/json")
	if auth := c.GetHeader("Authorization"); auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := forwardClient.Do(req)
	var out []byte
	if err == nil {
		out, err = io.ReadAll(io.LimitReader(resp.Body, maxForwardedBody))
		resp.Body.Close()
	}
	if err != nil {
		f.s.log.Warn("forwarding a fault", "replica", id, "url", url, "err", err)
		wire.WriteError(c, f.s.log, errReplicaUnreachable(id))
		return
	}
	ct := resp.Header.Get("Content-Type")
	if ct == "" {
		ct = "application/json; charset=utf-8"
	}
	c.Data(resp.StatusCode, ct, out)
}

// errReplicaUnreachable is the 502 of a live-listed replica that did not
// answer (it may just have been stopped or killed by a fault).
func errReplicaUnreachable(id string) *wire.Error {
	return &wire.Error{Status: http.StatusBadGateway, Body: wire.Body{Error: "replica_unreachable",
		Message: fmt.Sprintf("replica %q did not answer the forwarded fault", clip.Input(id)), Field: "replica"}}
}
