package web

import (
	"fmt"
	"io/fs"
	"regexp"
	"strings"
)

// The dashboard's modules made one classic script for a self-contained
// page: their import lines dropped (each imports only the modules before
// it), their exports plain declarations, all inside one function so that
// no name of theirs meets the window's.
var (
	importLine = regexp.MustCompile(`(?m)^import\s[^;]*;\s*$`)
	exportWord = regexp.MustCompile(`(?m)^export\s+`)
	leftover   = regexp.MustCompile(`(?m)^\s*(import|export)\s`)
)

// Inline is one classic script of the embedded modules (paths under
// static/, each after the ones it imports) followed by start, and the
// embedded stylesheet css: the renderer of a page that needs no network
// (the verdict matrix's, the interview path's).
func Inline(modules []string, start, css string) (script, style string, err error) {
	var b strings.Builder
	b.WriteString("(() => {\n'use strict';\n")
	for _, name := range modules {
		src, err := fs.ReadFile(Files(), name)
		if err != nil {
			return "", "", err
		}
		text := exportWord.ReplaceAllString(importLine.ReplaceAllString(string(src), ""), "")
		if leftover.MatchString(text) || strings.Contains(text, "</script") {
			return "", "", fmt.Errorf("web: %s cannot be inlined (an import over several lines, or </script)", name)
		}
		fmt.Fprintf(&b, "// ---- %s\n%s\n", name, text)
	}
	b.WriteString(start)
	b.WriteString("})();\n")
	sheet, err := fs.ReadFile(Files(), css)
	if err != nil {
		return "", "", err
	}
	return b.String(), string(sheet), nil
}
