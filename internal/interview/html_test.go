package interview

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

func TestWriteHTMLIsOnePageWithTheDashboardsRenderer(t *testing.T) {
	page, err := Fill(context.Background(), fakeSources{}, Questions)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteHTML(&buf, page, time.Date(2026, 11, 29, 6, 0, 0, 0, time.UTC), "lab-host, 2 cores"); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"<title>Seckill Lab: design a flash sale (2026-11-29, lab-host, 2 cores)</title>",
		`<script type="application/json" id="page">`,
		"function createInterviewView", "function pageView", ".iv-q{", // the dashboard's renderer and stylesheet, inlined
		"lesson_run", "Never measured on this machine",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	for _, never := range []string{`src="`, `href="http`, "\nimport ", "\nexport "} {
		if strings.Contains(out, never) {
			t.Errorf("the page has %q: it must stand alone", never)
		}
	}
}
