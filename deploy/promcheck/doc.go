// Package promcheck checks deploy/prometheus and deploy/grafana with the
// real thing: Debian's prometheus scrapes a running three-replica demo with
// the repository's scrape configuration, and every panel's query, the
// faults' annotation and every rule's signal must return data after a short
// load (promcheck_test.go). A renamed metric fails make test, not the board.
package promcheck
