// Package dblock holds the strategies that use only the database:
// db-optimistic and db-conditional (no lock: the write itself is
// safe), db-pessimistic (a row held with SELECT ... FOR UPDATE), and
// db-lock-table (a row with a unique key, an owner, an expiry and a hold
// count: reentrant) and db-lock-table-plain (the same without the count).
package dblock
