// Package pm is the process manager interface: what a rank learns from whoever launched
// it (its rank, the job's size, which node every rank is on) and the wire-up exchange
// (put, fence, get) through which ranks publish their addresses to each other.
//
// Keys are small integers from one schema (keys.go), not strings; values are stored in
// arrays indexed by rank or by node id. Data has a scope: a process's own, its node's
// (published once per node, stored once per node), or the whole job's.
package pm

// Scope says whose a value is, and so how often it crosses the wire.
type Scope uint8

const (
	// Proc data belongs to one rank: one value per rank.
	Proc Scope = iota
	// Node data is the same for every rank of a node: one value per node, put by
	// any one rank of the node (the last put wins), sent once per node.
	Node
	// Job data is one value for the whole job, put by any one rank.
	Job
)

func (s Scope) String() string {
	switch s {
	case Proc:
		return "proc"
	case Node:
		return "node"
	case Job:
		return "job"
	}
	return "scope?"
}

// Client is a rank's view of its process manager. Every method is safe for concurrent use.
type Client interface {
	// Rank and Size of this process in the job.
	Rank() int
	Size() int
	// NodeOf returns the numeric id (0..NumNodes-1) of the node rank runs on.
	NodeOf(rank int) int
	NumNodes() int
	// LocalRank and LocalSize: this rank's index among the ranks of its node, and their number.
	LocalRank() int
	LocalSize() int
	// HostName of a node, for messages to people only.
	HostName(node int) string
	// JobID is unique among the jobs running on this machine; it names shared resources.
	JobID() string
	// Put publishes a value under key; others see it after the next Fence.
	Put(scope Scope, key Key, value []byte) error
	// Fence is collective over the job: it returns once every rank has called it, and
	// then every value put before it by any rank is visible through Get.
	Fence() error
	// Get returns the value rank (or rank's node, or the job) put under key, as of the
	// last Fence. The slice must not be modified.
	Get(scope Scope, key Key, rank int) ([]byte, bool)
	// Abort asks the process manager to end the whole job with code and a message. It
	// returns when the caller may exit: one that ends the job's processes itself may
	// hold the caller until it does (bounded), so that no peer sees the caller gone
	// before the process manager knows why.
	Abort(code int, msg string) error
	// Finalize tells the process manager this rank finished cleanly.
	Finalize() error
}
