// Package failoverlessons is the lesson scripts of one family: the lock
// service fails, fails over or changes its members.
//
//   - Runners (runners.go): each lesson of the family with its script;
//   - one file per lesson or group of lessons: classpace, dbsinglepoint,
//     hashring, redissinglepoint, redlockclock, restart, sentinel, zkensemble.
package failoverlessons
