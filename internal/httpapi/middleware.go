package httpapi

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net/http"
	"runtime/debug"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/seckill-lab/seckill/internal/httpapi/wire"
)

// recovery turns a panic in any handler into the 500 "internal" body and
// logs the panic with its stack; neither reaches the client.
func (s *Server) recovery(c *gin.Context) {
	defer func() {
		v := recover()
		if v == nil {
			return
		}
		if v == http.ErrAbortHandler { // net/http's deliberate abort: let it through
			panic(v)
		}
		s.log.Error("panic in handler", "method", c.Request.Method, "route", wire.RouteOf(c),
			"panic", fmt.Sprint(v), "stack", string(debug.Stack()))
		if c.Writer.Written() {
			c.Abort() // too late for a status; the client gets a truncated body
			return
		}
		c.AbortWithStatusJSON(http.StatusInternalServerError, wire.InternalBody)
	}()
	c.Next()
}

// MaxBodyBytes bounds every request body but a matrix report's (64 KiB): a
// sale or an order is a few dozen bytes, so anything near this is abuse,
// answered with 413.
const MaxBodyBytes = 64 << 10

// limitBody caps request bodies at their route's bound (bodyBound): a
// declared length over it is refused before reading, and an undeclared
// (chunked) one is cut by http.MaxBytesReader, whose *http.MaxBytesError
// the decoder passes on to the error map as 413.
func (s *Server) limitBody(c *gin.Context) {
	bound := bodyBound(c)
	if c.Request.ContentLength > bound {
		wire.WriteError(c, s.log, &http.MaxBytesError{Limit: bound})
		return
	}
	if c.Request.Body != nil {
		c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, bound)
	}
	c.Next()
}

// bodyBound is the body bound of c's route: MaxMatrixBytes for a matrix
// run's report (POST /api/matrix), MaxBodyBytes for every other.
func bodyBound(c *gin.Context) int64 {
	if c.Request.Method == http.MethodPost && c.FullPath() == "/api/matrix" {
		return MaxMatrixBytes
	}
	return MaxBodyBytes
}

// requireAdmin guards administrative writes with the bearer token when one
// is configured: 401 without it.
func (s *Server) requireAdmin(c *gin.Context) {
	if !s.adminOK(c) {
		wire.WriteError(c, s.log, wire.ErrUnauthorized)
		return
	}
	c.Next()
}

// requireFaultAdmin is requireAdmin for fault injection, answering 403
// instead of 401: a fault is refused, not merely unauthenticated.
func (s *Server) requireFaultAdmin(c *gin.Context) {
	if !s.adminOK(c) {
		wire.WriteError(c, s.log, wire.ErrFaultForbidden)
		return
	}
	c.Next()
}

// adminOK says whether c carries the admin token (or none is configured).
// Both sides are hashed before the constant-time compare, so that neither
// the content nor the length of the token leaks through timing.
func (s *Server) adminOK(c *gin.Context) bool {
	if s.adminHash == nil {
		return true
	}
	scheme, token, _ := strings.Cut(c.GetHeader("Authorization"), " ")
	got := sha256.Sum256([]byte(strings.TrimSpace(token)))
	return strings.EqualFold(scheme, "Bearer") && subtle.ConstantTimeCompare(got[:], s.adminHash) == 1
}
