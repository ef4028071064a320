// Package migrations holds the versioned SQL schema, embedded so that the shop
// binary can apply it (`shop migrate`, and `shop serve` at start), and Apply,
// the runner that does. Files are named NNNN_what.sql and applied in name
// order, each once.
package migrations

import "embed"

// FS holds every *.sql file of this folder.
//
//go:embed *.sql
var FS embed.FS
