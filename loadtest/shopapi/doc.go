// Package shopapi is the load tool's side of the shop's HTTP API, used by
// every command:
//
//   - Client: the setup and read calls over net/http (strategies, sales,
//     GET of a settled sale, one order, OrderAck), and the queue's calls
//     (tickets, reconciliation, the stream's durability, payment);
//   - matrix.go: a verdict-matrix run kept on the shop and read back
//     (SaveMatrix, Matrix);
//   - OrderSender: the load phase's order requests over fasthttp, one
//     sender for every worker;
//   - the outcome kinds of an order answer (Classify, LayerOf, TicketOf,
//     IsHardError) and what a buyer learnt from one (the Ack kinds).
package shopapi
