// Package web holds the dashboard: static files embedded in the shop binary
// with go:embed, so that any replica serves it and the page needs no
// internet. index.html, the JS modules and the CSS are committed under
// static/; the chart library (uPlot) is installed by `npm ci` and copied
// into static/assets/vendor/ by copy-vendor.sh (make web). Without it the
// build still works and the page shows tables without charts. Inline
// (inline.go) makes some of its modules one classic script, the renderer
// of a self-contained page.
package web

import (
	"embed"
	"io/fs"
)

//go:embed static
var files embed.FS

// Files is the dashboard rooted at static/: index.html and assets/.
func Files() fs.FS {
	sub, err := fs.Sub(files, "static")
	if err != nil {
		panic(err) // "static" is a literal valid path: cannot happen
	}
	return sub
}
