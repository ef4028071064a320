package httpapi

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/seckill-lab/seckill/internal/clip"
	"github.com/seckill-lab/seckill/internal/httpapi/wire"
	"github.com/seckill-lab/seckill/internal/share"
)

// shareOf is sale :id's shop page as students' phones can open it, from
// this replica's listen address; ?lang=zh or ?lang=en picks the page's
// language in the link. Nil (an error written) when the sale or the lang
// is wrong.
func (s *Server) shareOf(c *gin.Context) *share.Info {
	id, err := saleID(c)
	if err != nil {
		wire.WriteError(c, s.log, err)
		return nil
	}
	lang := c.Query("lang")
	if lang != "" && lang != "en" && lang != "zh" {
		wire.WriteError(c, s.log, wire.BadField("lang", "lang must be en or zh, not %q", clip.Input(lang)))
		return nil
	}
	if _, err := s.store.GetSale(c.Request.Context(), id); err != nil {
		wire.WriteError(c, s.log, err)
		return nil
	}
	info := share.For(s.listenAddr, s.adminHash != nil, id, s.lanIP)
	if info.Shared && lang != "" {
		info.URL += "?lang=" + lang
	}
	return &info
}

// getShare is GET /api/sales/:id/share: the link students open, or why
// there is none (the shop listens on loopback only), and whether admin
// actions need the admin token (never the token itself).
func (s *Server) getShare(c *gin.Context) {
	if info := s.shareOf(c); info != nil {
		c.JSON(http.StatusOK, info)
	}
}

// getShareQR is GET /api/sales/:id/qr.png: that link as a QR code. Built
// from the listener, never from the request, so it cannot advertise
// another site; 409 not_shared when only this computer can open the shop.
func (s *Server) getShareQR(c *gin.Context) {
	info := s.shareOf(c)
	if info == nil {
		return
	}
	if !info.Shared {
		c.AbortWithStatusJSON(http.StatusConflict, wire.Body{Error: "not_shared", Message: info.Message.En})
		return
	}
	png, err := share.QR(info.URL)
	if err != nil {
		wire.WriteError(c, s.log, err)
		return
	}
	c.Header("Cache-Control", "no-store")
	c.Data(http.StatusOK, "image/png", png)
}
