package prof

// Call names an MPI call the recorder counts: an index into fixed arrays, so that
// counting a call is an add at a constant offset, with no map and no string.
type Call uint8

// The calls, grouped by Kind. None is "not in MPI".
const (
	None Call = iota
	Init
	Finalize
	Send
	Ssend
	Rsend
	Bsend
	Recv
	Sendrecv
	Isend
	Irecv
	Probe
	Iprobe
	Mrecv
	Wait
	Waitall
	Waitany
	Waitsome
	Test
	Testall
	Testany
	Testsome
	Barrier
	Bcast
	Reduce
	Allreduce
	Gather
	Gatherv
	Scatter
	Scatterv
	Allgather
	Allgatherv
	Alltoall
	Alltoallv
	ReduceScatterBlock
	ReduceScatter
	Scan
	Exscan
	Ibarrier
	Ibcast
	Ireduce
	Iallreduce
	Icoll // the other nonblocking collectives' starts
	NumCalls
)

// Kind groups calls for the summary and the timeline.
type Kind uint8

const (
	KindOther Kind = iota
	KindSend       // a call that sends a message (counted in the matrix)
	KindRecv       // a call that receives one
	KindWait       // completion calls and probes: waiting for something started before
	KindColl       // blocking collectives
	KindStart      // nonblocking collectives' starts
)

var names = [NumCalls]string{
	None: "-", Init: "Init", Finalize: "Finalize",
	Send: "Send", Ssend: "Ssend", Rsend: "Rsend", Bsend: "Bsend", Recv: "Recv", Sendrecv: "Sendrecv",
	Isend: "Isend", Irecv: "Irecv", Probe: "Probe", Iprobe: "Iprobe", Mrecv: "Mrecv",
	Wait: "Wait", Waitall: "Waitall", Waitany: "Waitany", Waitsome: "Waitsome",
	Test: "Test", Testall: "Testall", Testany: "Testany", Testsome: "Testsome",
	Barrier: "Barrier", Bcast: "Bcast", Reduce: "Reduce", Allreduce: "Allreduce",
	Gather: "Gather", Gatherv: "Gatherv", Scatter: "Scatter", Scatterv: "Scatterv",
	Allgather: "Allgather", Allgatherv: "Allgatherv", Alltoall: "Alltoall", Alltoallv: "Alltoallv",
	ReduceScatterBlock: "ReduceScatterBlock", ReduceScatter: "ReduceScatter", Scan: "Scan", Exscan: "Exscan",
	Ibarrier: "Ibarrier", Ibcast: "Ibcast", Ireduce: "Ireduce", Iallreduce: "Iallreduce", Icoll: "Icoll",
}

// String is the call's name as the facade spells it.
func (c Call) String() string {
	if c < NumCalls {
		return names[c]
	}
	return "?"
}

// CallNamed returns the call of that name, None if there is none.
func CallNamed(name string) Call {
	for i, n := range names {
		if n == name {
			return Call(i)
		}
	}
	return None
}

// Kind says what sort of call c is.
func (c Call) Kind() Kind {
	switch {
	case c >= Send && c <= Bsend, c == Isend:
		return KindSend
	case c == Recv, c == Irecv, c == Mrecv:
		return KindRecv
	case c == Sendrecv:
		return KindSend
	case c >= Probe && c <= Testsome:
		return KindWait
	case c >= Barrier && c <= Exscan:
		return KindColl
	case c >= Ibarrier && c <= Icoll:
		return KindStart
	}
	return KindOther
}

func (k Kind) String() string {
	return [...]string{"other", "send", "recv", "wait", "collective", "start"}[k]
}
