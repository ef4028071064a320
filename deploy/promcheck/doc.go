// Package promcheck checks deploy/prometheus and deploy/grafana with the
// real thing: Debian's prometheus scrapes a running three-replica demo with
// the repository's scrape configuration, and every panel's query, the
// faults' annotation and every rule's signal must return data after a short
// load (promcheck_test.go). A renamed metric fails make test, not the board.
// files_test.go holds the files to each other: the board's data source is
// the provisioned one, the two scrape configurations differ only in how
// they find the replicas.
package promcheck
