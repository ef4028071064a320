package shopapi

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// TimelineHTML is GET target/api/sales/{id}/timeline.html: the sale's lock
// timeline as one self-contained HTML file.
func (c *Client) TimelineHTML(ctx context.Context, target string, id uint64) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet,
		target+"/api/sales/"+strconv.FormatUint(id, 10)+"/timeline.html", nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.Http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET timeline.html of sale %d: %d %s", id, resp.StatusCode, strings.TrimSpace(string(body[:min(len(body), 200)])))
	}
	return body, nil
}

// SaveTimelines writes the timelines of sales ids, read from target, to
// path (--timeline): one sale to path itself, several each to path with
// "-<id>" before its extension. It returns the files written.
func (c *Client) SaveTimelines(ctx context.Context, target, path string, ids []uint64) ([]string, error) {
	var written []string
	for _, id := range ids {
		file := path
		if len(ids) > 1 {
			ext := filepath.Ext(path)
			file = strings.TrimSuffix(path, ext) + "-" + strconv.FormatUint(id, 10) + ext
		}
		page, err := c.TimelineHTML(ctx, target, id)
		if err == nil {
			err = os.WriteFile(file, page, 0o644)
		}
		if err != nil {
			return written, fmt.Errorf("--timeline: %w", err)
		}
		written = append(written, file)
	}
	return written, nil
}
