// Package load is the load engine of the tool and the report of a run:
//
//   - RunConfig: what `loadtest run` was asked (the sale, the load model,
//     the guards), and its Plan;
//   - Drive: sends a Plan's requests (closed, open or herd model) through
//     an Attempt; Buyer is the herd's buyer, OpeningOf the sale's opening;
//   - Recorder and Progress: every answer counted as it comes, and shown;
//   - Result, Report and Verdict: one strategy's figures and what the
//     database says about its sale, the JSON report, and the tables
//     (PrintHeader, PrintResult, PrintComparison);
//   - FollowQueue and QueueVerdict: an async sale's tickets followed to
//     their end after the load;
//   - Sleep: the wait, cut short by cancellation, every command uses.
package load
