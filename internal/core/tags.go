package core

// The tag spaces of a communicator's internal context (Ctx+1), all in one place. The
// collectives number their calls (the communicator's collective sequence) and keep
// below tagManage; everything else the library sends on that context (communicator
// creation, topologies, neighbourhood collectives, intercommunicator collectives) has
// a range above it, but for the context agreements of creations that are collectives
// of the communicator (Dup, Idup, Split, Create, Merge), which take a number of its
// sequence as a collective does. User messages travel on Ctx and never meet any of these.
const (
	tagSeqMask = 1<<29 - 1 // a collective's tag: its sequence number, masked
	TagCheck   = 1 << 29   // + seq: coll_check's exchange before a collective

	tagManage       = 1 << 30
	tagGather       = tagManage + 2  // Split's (color, key) allgather
	tagInterLeaders = tagManage + 10 // + the user's tag mod interLeadersSpan: leaders swap groups on the peer communicator
	tagInterBcast   = tagManage + 11 // a side learns the other's group from its leader
	tagInterCtx     = tagManage + 12 // context agreement over both groups
	tagMergeFlags   = tagManage + 13 // IntercommMerge's high flags
	tagFinalize     = tagManage + 14 // Finalize's agreement on how the ranks end (on World)
	TagHier         = tagManage + 20 // a hierarchical Reduce's result to a root that does not lead its node
	TagNodeGather   = tagManage + 21 // a node Gather's block too long for the region, to the root

	// TagTopoAgree, TagTopoCount and TagTopoEdges are the topology constructors':
	// the agreement on the old communicator, DistGraphCreate's edge counts and edges on
	// the new one.
	TagTopoAgree = tagManage + 100
	TagTopoCount = tagManage + 101
	TagTopoEdges = tagManage + 102

	// TagNeighbor (+ a slot on a Cartesian grid, below 1<<10) is the neighbourhood
	// collectives': its range lies clear of the ones below and above it.
	TagNeighbor = tagManage + 1<<12

	// TagValueReduce is the value reductions' (mpi's ReduceValue) tree; TagValueOOB
	// (+ a sequence number masked by TagValueMask) a value message's out-of-band parts.
	TagValueReduce = tagManage + 300
	// TagValueHead is BcastValue's on an intercommunicator: the root's group learns
	// the root's head (its members other than the root do not know which it is).
	TagValueHead = tagManage + 301
	TagValueOOB  = tagManage + 1<<16
	TagValueMask = 1<<16 - 1

	// TagFileAgree is the agreements of a file's collective calls (open, close,
	// set_view, the collective data accesses, ...), on the file's own communicator.
	TagFileAgree = tagManage + 500
	// TagFileOrdered carries a member's record to member 0 in a joined ordered
	// write (mpir's file_ordered.go).
	TagFileOrdered = tagManage + 501

	// tagPartHello carries a partitioned send's description to its receiver;
	// tagPartData + sid<<partBits + i is partition i of the sender's channel sid.
	tagPartHello = tagManage + 400
	tagPartData  = tagManage + 1<<28

	// tagGroupBase + the user's tag mod groupTagLimit: CreateGroup. A user's tag may be
	// any up to MaxTag, more than the internal context's tags can hold beside the
	// library's own, so CreateGroup and IntercommCreate fold it into their spans: only
	// concurrent creations over overlapping processes whose tags differ by a multiple
	// of the span (2^20; 2^30-10 for IntercommCreate's leaders) share one.
	tagGroupBase  = tagManage + 1<<20
	groupTagLimit = 1 << 20
	// interLeadersSpan is IntercommCreate's span: tagInterLeaders to MaxTag.
	interLeadersSpan = MaxTag - tagInterLeaders + 1

	TagInterColl    = tagManage + 1<<29    // + seq: an intercommunicator collective
	TagInterCheck   = TagInterColl + 1<<25 // + seq: its coll_check exchange
	TagInterSeqMask = 1<<24 - 1
)
