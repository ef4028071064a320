package httpapi

import (
	"net/http"
	"strconv"

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
	if _, err := s.store.GetSale(c.Request.Context(), id); err != nil {
		wire.WriteError(c, s.log, err)
		return nil
	}
	return s.shareLink(c, "/shop/"+strconv.FormatUint(id, 10))
}

// questionShareOf is question :id's vote page as phones open it.
func (s *Server) questionShareOf(c *gin.Context) *share.Info {
	id, err := wire.PathInt(c, "id")
	if err != nil {
		wire.WriteError(c, s.log, err)
		return nil
	}
	if _, err := s.class.Question(c.Request.Context(), uint64(id)); err != nil {
		wire.WriteError(c, s.log, wire.OrDBUnavailable(err))
		return nil
	}
	return s.shareLink(c, "/vote/"+strconv.FormatInt(id, 10))
}

// shareLink is the page at path on this replica's listen address, with
// the request's ?lang= (en or zh) carried to the phones; nil (an error
// written) for another lang.
func (s *Server) shareLink(c *gin.Context, path string) *share.Info {
	lang := c.Query("lang")
	if lang != "" && lang != "en" && lang != "zh" {
		wire.WriteError(c, s.log, wire.BadField("lang", "lang must be en or zh, not %q", clip.Input(lang)))
		return nil
	}
	info := share.For(s.listenAddr, s.adminHash != nil, path, s.lanIP)
	if info.Shared && lang != "" {
		info.URL += "?lang=" + lang
	}
	return &info
}

// getShare is GET /api/sales/:id/share: the link students open, or why
// there is none (the shop listens on loopback only), and whether admin
// actions need the admin token (never the token itself).
func (s *Server) getShare(c *gin.Context) { s.writeShare(c, s.shareOf(c)) }

// getShareQR is GET /api/sales/:id/qr.png: that link as a QR code. Built
// from the listener, never from the request, so it cannot advertise
// another site; 409 not_shared when only this computer can open the shop.
func (s *Server) getShareQR(c *gin.Context) { s.writeQR(c, s.shareOf(c)) }

// getQuestionShare is GET /api/class/questions/:id/share: the link the
// class votes on (never carrying the admin token).
func (s *Server) getQuestionShare(c *gin.Context) { s.writeShare(c, s.questionShareOf(c)) }

// getQuestionQR is GET /api/class/questions/:id/qr.png: that link as a QR
// code.
func (s *Server) getQuestionQR(c *gin.Context) { s.writeQR(c, s.questionShareOf(c)) }

func (s *Server) writeShare(c *gin.Context, info *share.Info) {
	if info != nil {
		c.JSON(http.StatusOK, info)
	}
}

func (s *Server) writeQR(c *gin.Context, info *share.Info) {
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
