package httpapi

import (
	"encoding/json"
	"net/http"
	"strconv"
	"unicode/utf8"

	"github.com/gin-gonic/gin"
)

// MaxUserIDLen bounds user_id in characters (orders.user_id is VARCHAR(64)).
const MaxUserIDLen = 64

// placeOrder is POST /api/sales/:id/orders {"user_id"}: the hot path. It
// logs nothing unless something unexpected fails.
func (s *Server) placeOrder(c *gin.Context) {
	id, err := saleID(c)
	if err != nil {
		writeError(c, s.log, err)
		return
	}
	var raw json.RawMessage
	if err := decodeObject(c.Request.Body, map[string]any{"user_id": &raw}); err != nil {
		writeError(c, s.log, err)
		return
	}
	userID, err := parseUserID(raw)
	if err != nil {
		writeError(c, s.log, err)
		return
	}
	o, err := s.orders.Place(c.Request.Context(), id, userID)
	if err != nil {
		writeError(c, s.log, err)
		return
	}
	c.JSON(http.StatusCreated, o)
}

// parseUserID accepts a non-empty string of at most MaxUserIDLen characters,
// or a JSON integer, which becomes its decimal string: load generators
// naturally number their buyers, and 42 and "42" are then the same buyer.
func parseUserID(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", badField("user_id", "user_id is required")
	}
	var id string
	switch raw[0] {
	case '"':
		if err := json.Unmarshal(raw, &id); err != nil {
			return "", badField("user_id", "user_id must be a string or an integer")
		}
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
			id = strconv.FormatInt(n, 10)
		} else if u, err := strconv.ParseUint(string(raw), 10, 64); err == nil {
			id = strconv.FormatUint(u, 10)
		} else {
			return "", badField("user_id", "user_id must be a string or an integer, not %s", describeJSON(raw))
		}
	default:
		return "", badField("user_id", "user_id must be a string or an integer, not %s", describeJSON(raw))
	}
	if id == "" {
		return "", badField("user_id", "user_id must not be empty")
	}
	if utf8.RuneCountInString(id) > MaxUserIDLen {
		return "", badField("user_id", "user_id must be at most %d characters", MaxUserIDLen)
	}
	return id, nil
}
