// Package all is `loadtest scenario`: every family's lesson scripts
// assembled.
//
//   - Runners and Scenarios (runners.go): each lesson with its script, in
//     the catalogue's order;
//   - Command (command.go): the subcommand.
package all
