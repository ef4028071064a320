package shopapi

import (
	"context"
	"net/http"

	"github.com/seckill-lab/seckill/internal/matrix"
)

// maxMatrixAnswer bounds GET /api/matrix's answer (64 MiB): the shop keeps
// a report of up to 12 MiB of JSON, which its answer may spell longer
// (HTML-escaped); a whole run is about a megabyte.
const maxMatrixAnswer = 64 << 20

// SaveMatrix is POST target/api/matrix: the shop keeps r (its ID is
// ignored) and answers the id it is kept under. A report the shop finds
// bad is an *HTTPStatusError 400 whose message names the member at fault.
func (c *Client) SaveMatrix(ctx context.Context, target string, r matrix.Report) (uint64, error) {
	var out struct {
		ID uint64 `json:"id"`
	}
	_, err := c.CallJSON(ctx, http.MethodPost, target+"/api/matrix", r, http.StatusCreated, &out)
	return out.ID, err
}

// Matrix is GET target/api/matrix: the newest run the shop keeps, with its
// ID, and observed true; or, while it keeps none, the predicted table and
// observed false.
func (c *Client) Matrix(ctx context.Context, target string) (r matrix.Report, observed bool, err error) {
	var out struct {
		Observed bool          `json:"observed"`
		Report   matrix.Report `json:"report"`
	}
	_, err = c.callJSON(ctx, http.MethodGet, target+"/api/matrix", nil, http.StatusOK, &out, maxMatrixAnswer)
	return out.Report, out.Observed, err
}
