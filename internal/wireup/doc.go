// Package wireup is mpigo's own wire-up runtime: the protocol between a rank and its
// launcher (or the per-node agent standing in for it), the fence that exchanges the
// ranks' published data, and the pm.Client that ranks use over it.
//
// It follows seeds 001 and 002:
//
//   - Keys are small integers (pm.Key), values live in arrays indexed by rank or by
//     node id. There is no string-keyed dictionary on any path.
//   - Data has a scope. Node data is stored once per node and crosses the wire once per
//     node, however many ranks the node has.
//   - A fence is one message up per rank and one message down per rank. The message down
//     is the same bytes for everyone: the container-ordered arrays of every key, with no
//     process names in them, a value equal to its predecessor's sent as one byte, and the
//     whole compressed when that pays. It is encoded once and written to each rank.
//   - Nodes have numeric ids; host names are kept for error messages only.
//   - A Collector aggregates a set of children (ranks, or agents for whole nodes) into one
//     message for its parent, so a per-node agent fits between ranks and the root.
//   - Beyond the fence, a rank's requests to its launcher (spawn, the name service) go up
//     with an id and come back with it (dynamic.go), so the Client implements
//     pm.Spawner, pm.NameService and pm.JobInfo.
package wireup
