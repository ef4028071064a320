package httpapi

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"regexp"
	"strings"

	"github.com/gin-gonic/gin"
)

// The pages the shop generates (the timeline export, porcupine's drawing)
// carry their script and style inline, and data from the database (sale
// names, user ids) inside them. Each answer allows exactly its own inline
// scripts, by hash, so a script that data smuggled in (an element or an
// onerror= attribute) does not run; nothing may be fetched, framed or
// submitted. Styles stay 'unsafe-inline': porcupine sets style attributes
// from its script, and a style cannot run code.

// inlineScript matches a script element's text.
var inlineScript = regexp.MustCompile(`(?is)<script\b[^>]*>(.*?)</script\s*>`)

// pageCSP is the Content-Security-Policy of a generated page: its inline
// scripts by hash ('none' without any).
func pageCSP(page []byte) string {
	var scripts []string
	for _, m := range inlineScript.FindAllSubmatch(page, -1) {
		sum := sha256.Sum256(m[1])
		scripts = append(scripts, "'sha256-"+base64.StdEncoding.EncodeToString(sum[:])+"'")
	}
	if len(scripts) == 0 {
		scripts = []string{"'none'"}
	}
	return "default-src 'none'; script-src " + strings.Join(scripts, " ") + "; style-src 'unsafe-inline'; " +
		"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
}

// writeHTML answers 200 with a generated page: every HTML answer of the
// API goes through it (the dashboard's own files get dashboardCSP in
// static.go), with nosniff and the page's own policy.
func writeHTML(c *gin.Context, page []byte) {
	h := c.Writer.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", pageCSP(page))
	h.Set("Referrer-Policy", "no-referrer")
	c.Data(http.StatusOK, "text/html; charset=utf-8", page)
}
