// Package docs holds no code: it is the home of the repository's documents
// (README.md at the root, ARCHITECTURE.md and the decisions beside this file)
// and of the tests that keep them true to the code. Those tests compare each
// list a document gives (strategies, lessons, make targets, SECKILL_*
// variables, packages, decisions) with its source, so a list cannot drift.
// codeshape_test.go holds the code itself to its shape: no function over 80
// lines, no package over 3,000 lines of non-test Go.
package docs
