// Package docs holds no code: it is the home of the repository's documents
// (README.md at the root, ARCHITECTURE.md and the decisions beside this file)
// and of the tests that keep them true to the code. Those tests compare each
// list a document gives (strategies, lessons, make targets, SECKILL_*
// variables, packages, decisions) with its source, so a list cannot drift.
package docs
