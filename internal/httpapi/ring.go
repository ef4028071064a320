package httpapi

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/seckill-lab/seckill/internal/hashring"
	"github.com/seckill-lab/seckill/internal/httpapi/wire"
)

// ringView is GET /api/sales/:id/ring: the sale's owner on the
// consistent-hash ring as THIS replica sees it, and its view (members,
// epoch, when it changed, whether the stale_ring fault holds it). Two
// replicas that answer different owners are the ring change's moment: ask
// each one.
type ringView struct {
	SaleID   uint64          `json:"sale_id"`
	Strategy string          `json:"strategy"`
	Key      string          `json:"key"`
	Replica  string          `json:"replica"`
	Owner    hashring.Member `json:"owner"`
	Owns     bool            `json:"owns"` // this replica believes it owns the sale
	// Fence is the sale's fencing token now (with fencing on, the newest
	// owner's epoch is in its high bits).
	Fence uint64        `json:"fence"`
	View  hashring.View `json:"view"`
}

func (s *Server) getRing(c *gin.Context) {
	sale, ok := s.saleParam(c)
	if !ok {
		return
	}
	ctx := c.Request.Context()
	ring := s.ring
	if ring == nil {
		ring = hashring.NewMembership(nil, nil)
	}
	v, err := ring.Current(ctx)
	if err != nil {
		wire.WriteError(c, s.log, err)
		return
	}
	key := s.orders.LockKey(sale.ID)
	owner, _ := v.Owner(key)
	c.JSON(http.StatusOK, ringView{SaleID: sale.ID, Strategy: sale.Strategy, Key: key, Replica: v.Self.ID,
		Owner: owner, Owns: v.Owns(key), Fence: sale.Fence, View: v})
}
