package prof

// Call names an MPI call the recorder counts: an index into fixed arrays, so that
// counting a call is an add at a constant offset, with no map and no string. The
// window calls that share a name with another call carry a Win prefix (WinWait,
// WinTest, WinStart, WinFree), Comm.Free is CommFree and Comm.Disconnect
// CommDisconnect; the constants of Request.Start and Win.Flush are ReqStart and
// WinFlush.
type Call uint8

// The calls, grouped by Kind. None is "not in MPI".
const (
	None Call = iota
	Init
	Finalize
	ReqStart
	Startall
	BufferFlush
	Send
	Ssend
	Rsend
	Bsend
	Isend
	Issend
	Irsend
	Ibsend
	Sendrecv
	SendrecvReplace
	Isendrecv
	IsendrecvReplace
	Recv
	Irecv
	Mrecv
	Imrecv
	Probe
	Iprobe
	Mprobe
	Improbe
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
	Alltoallw
	ReduceScatterBlock
	ReduceScatter
	Scan
	Exscan
	Dup
	Split
	SplitType
	Create
	CreateGroup
	IntercommCreate
	IntercommMerge
	CommFree
	CartCreate
	CartSub
	GraphCreate
	DistGraphCreate
	DistGraphCreateAdjacent
	WinCreate
	WinAllocate
	WinAllocateShared
	WinCreateDynamic
	WinFree
	Fence
	NeighborAllgather
	NeighborAllgatherv
	NeighborAlltoall
	NeighborAlltoallv
	NeighborAlltoallw
	Ibarrier
	Ibcast
	Ireduce
	Iallreduce
	Igather
	Igatherv
	Iscatter
	Iscatterv
	Iallgather
	Iallgatherv
	Ialltoall
	Ialltoallv
	Ialltoallw
	IreduceScatterBlock
	IreduceScatter
	Iscan
	Iexscan
	Idup
	IneighborAllgather
	IneighborAllgatherv
	IneighborAlltoall
	IneighborAlltoallv
	IneighborAlltoallw
	Put
	Get
	Accumulate
	GetAccumulate
	FetchAndOp
	CompareAndSwap
	Rput
	Rget
	Raccumulate
	RgetAccumulate
	WinStart
	Complete
	Post
	WinWait
	WinTest
	Lock
	Unlock
	LockAll
	UnlockAll
	WinFlush
	FlushAll
	FlushLocal
	FlushLocalAll
	Sync
	SendValue
	IsendValue
	SendrecvValue
	RecvValue
	IrecvValue
	BcastValue
	GatherValues
	ScatterValues
	AllgatherValues
	AlltoallValues
	ReduceValue
	AllreduceValue
	BarrierInit
	BcastInit
	ReduceInit
	AllreduceInit
	GatherInit
	GathervInit
	ScatterInit
	ScattervInit
	AllgatherInit
	AllgathervInit
	AlltoallInit
	AlltoallvInit
	AlltoallwInit
	ReduceScatterBlockInit
	ReduceScatterInit
	ScanInit
	ExscanInit
	NeighborAllgatherInit
	NeighborAllgathervInit
	NeighborAlltoallInit
	NeighborAlltoallvInit
	NeighborAlltoallwInit
	PsendInit
	PrecvInit
	Pready
	PreadyRange
	PreadyList
	Parrived
	SendInit
	SsendInit
	RsendInit
	BsendInit
	RecvInit
	RequestGetStatus
	RequestGetStatusAll
	RequestGetStatusAny
	RequestGetStatusSome
	Cancel
	RequestFree
	BufferIflush
	CommFlushBuffer
	CommIflushBuffer
	WinAttach
	WinDetach
	CommSpawn
	CommAccept
	CommConnect
	CommJoin
	CommDisconnect
	FileOpen
	FileClose
	FileSetSize
	FilePreallocate
	FileSync
	FileSetAtomicity
	FileSetInfo
	FileSetView
	FileSeekShared
	FileReadAtAll
	FileWriteAtAll
	FileReadAll
	FileWriteAll
	FileReadOrdered
	FileWriteOrdered
	FileReadAtAllBegin
	FileReadAtAllEnd
	FileWriteAtAllBegin
	FileWriteAtAllEnd
	FileReadAllBegin
	FileReadAllEnd
	FileWriteAllBegin
	FileWriteAllEnd
	FileReadOrderedBegin
	FileReadOrderedEnd
	FileWriteOrderedBegin
	FileWriteOrderedEnd
	FileDelete
	FileReadAt
	FileWriteAt
	FileRead
	FileWrite
	FileReadShared
	FileWriteShared
	FileIreadAt
	FileIwriteAt
	FileIread
	FileIwrite
	FileIreadShared
	FileIwriteShared
	FileIreadAtAll
	FileIwriteAtAll
	FileIreadAll
	FileIwriteAll
	FileIreadOrdered
	FileIwriteOrdered
	NumCalls
)

// Kind groups calls for the summary, the timeline and the hung job's diagnosis.
type Kind uint8

const (
	KindOther    Kind = iota
	KindSend          // a call that sends a message
	KindRecv          // a call that receives one
	KindWait          // completion calls and probes: waiting for something started before
	KindColl          // a blocking call every member of its communicator (or window, or file) enters: collectives, creation, fences
	KindNeighbor      // a blocking neighbourhood collective: the topology's neighbours enter it
	KindStart         // nonblocking collectives' starts
	KindRMA           // one-sided operations and their passive and general-active synchronisation
)

var calls = [NumCalls]struct {
	name string
	kind Kind
}{
	None:                    {"-", KindOther},
	Init:                    {"Init", KindOther},
	Finalize:                {"Finalize", KindOther},
	ReqStart:                {"Start", KindOther},
	Startall:                {"Startall", KindOther},
	BufferFlush:             {"BufferFlush", KindOther},
	Send:                    {"Send", KindSend},
	Ssend:                   {"Ssend", KindSend},
	Rsend:                   {"Rsend", KindSend},
	Bsend:                   {"Bsend", KindSend},
	Isend:                   {"Isend", KindSend},
	Issend:                  {"Issend", KindSend},
	Irsend:                  {"Irsend", KindSend},
	Ibsend:                  {"Ibsend", KindSend},
	Sendrecv:                {"Sendrecv", KindSend},
	SendrecvReplace:         {"SendrecvReplace", KindSend},
	Isendrecv:               {"Isendrecv", KindSend},
	IsendrecvReplace:        {"IsendrecvReplace", KindSend},
	Recv:                    {"Recv", KindRecv},
	Irecv:                   {"Irecv", KindRecv},
	Mrecv:                   {"Mrecv", KindRecv},
	Imrecv:                  {"Imrecv", KindRecv},
	Probe:                   {"Probe", KindWait},
	Iprobe:                  {"Iprobe", KindWait},
	Mprobe:                  {"Mprobe", KindWait},
	Improbe:                 {"Improbe", KindWait},
	Wait:                    {"Wait", KindWait},
	Waitall:                 {"Waitall", KindWait},
	Waitany:                 {"Waitany", KindWait},
	Waitsome:                {"Waitsome", KindWait},
	Test:                    {"Test", KindWait},
	Testall:                 {"Testall", KindWait},
	Testany:                 {"Testany", KindWait},
	Testsome:                {"Testsome", KindWait},
	Barrier:                 {"Barrier", KindColl},
	Bcast:                   {"Bcast", KindColl},
	Reduce:                  {"Reduce", KindColl},
	Allreduce:               {"Allreduce", KindColl},
	Gather:                  {"Gather", KindColl},
	Gatherv:                 {"Gatherv", KindColl},
	Scatter:                 {"Scatter", KindColl},
	Scatterv:                {"Scatterv", KindColl},
	Allgather:               {"Allgather", KindColl},
	Allgatherv:              {"Allgatherv", KindColl},
	Alltoall:                {"Alltoall", KindColl},
	Alltoallv:               {"Alltoallv", KindColl},
	Alltoallw:               {"Alltoallw", KindColl},
	ReduceScatterBlock:      {"ReduceScatterBlock", KindColl},
	ReduceScatter:           {"ReduceScatter", KindColl},
	Scan:                    {"Scan", KindColl},
	Exscan:                  {"Exscan", KindColl},
	Dup:                     {"Dup", KindColl},
	Split:                   {"Split", KindColl},
	SplitType:               {"SplitType", KindColl},
	Create:                  {"Create", KindColl},
	CreateGroup:             {"CreateGroup", KindColl},
	IntercommCreate:         {"IntercommCreate", KindColl},
	IntercommMerge:          {"IntercommMerge", KindColl},
	CommFree:                {"CommFree", KindColl},
	CartCreate:              {"CartCreate", KindColl},
	CartSub:                 {"CartSub", KindColl},
	GraphCreate:             {"GraphCreate", KindColl},
	DistGraphCreate:         {"DistGraphCreate", KindColl},
	DistGraphCreateAdjacent: {"DistGraphCreateAdjacent", KindColl},
	WinCreate:               {"WinCreate", KindColl},
	WinAllocate:             {"WinAllocate", KindColl},
	WinAllocateShared:       {"WinAllocateShared", KindColl},
	WinCreateDynamic:        {"WinCreateDynamic", KindColl},
	WinFree:                 {"WinFree", KindColl},
	Fence:                   {"Fence", KindColl},
	NeighborAllgather:       {"NeighborAllgather", KindNeighbor},
	NeighborAllgatherv:      {"NeighborAllgatherv", KindNeighbor},
	NeighborAlltoall:        {"NeighborAlltoall", KindNeighbor},
	NeighborAlltoallv:       {"NeighborAlltoallv", KindNeighbor},
	NeighborAlltoallw:       {"NeighborAlltoallw", KindNeighbor},
	Ibarrier:                {"Ibarrier", KindStart},
	Ibcast:                  {"Ibcast", KindStart},
	Ireduce:                 {"Ireduce", KindStart},
	Iallreduce:              {"Iallreduce", KindStart},
	Igather:                 {"Igather", KindStart},
	Igatherv:                {"Igatherv", KindStart},
	Iscatter:                {"Iscatter", KindStart},
	Iscatterv:               {"Iscatterv", KindStart},
	Iallgather:              {"Iallgather", KindStart},
	Iallgatherv:             {"Iallgatherv", KindStart},
	Ialltoall:               {"Ialltoall", KindStart},
	Ialltoallv:              {"Ialltoallv", KindStart},
	Ialltoallw:              {"Ialltoallw", KindStart},
	IreduceScatterBlock:     {"IreduceScatterBlock", KindStart},
	IreduceScatter:          {"IreduceScatter", KindStart},
	Iscan:                   {"Iscan", KindStart},
	Iexscan:                 {"Iexscan", KindStart},
	Idup:                    {"Idup", KindStart},
	IneighborAllgather:      {"IneighborAllgather", KindStart},
	IneighborAllgatherv:     {"IneighborAllgatherv", KindStart},
	IneighborAlltoall:       {"IneighborAlltoall", KindStart},
	IneighborAlltoallv:      {"IneighborAlltoallv", KindStart},
	IneighborAlltoallw:      {"IneighborAlltoallw", KindStart},
	Put:                     {"Put", KindRMA},
	Get:                     {"Get", KindRMA},
	Accumulate:              {"Accumulate", KindRMA},
	GetAccumulate:           {"GetAccumulate", KindRMA},
	FetchAndOp:              {"FetchAndOp", KindRMA},
	CompareAndSwap:          {"CompareAndSwap", KindRMA},
	Rput:                    {"Rput", KindRMA},
	Rget:                    {"Rget", KindRMA},
	Raccumulate:             {"Raccumulate", KindRMA},
	RgetAccumulate:          {"RgetAccumulate", KindRMA},
	WinStart:                {"WinStart", KindRMA},
	Complete:                {"Complete", KindRMA},
	Post:                    {"Post", KindRMA},
	WinWait:                 {"WinWait", KindRMA},
	WinTest:                 {"WinTest", KindRMA},
	Lock:                    {"Lock", KindRMA},
	Unlock:                  {"Unlock", KindRMA},
	LockAll:                 {"LockAll", KindRMA},
	UnlockAll:               {"UnlockAll", KindRMA},
	WinFlush:                {"Flush", KindRMA},
	FlushAll:                {"FlushAll", KindRMA},
	FlushLocal:              {"FlushLocal", KindRMA},
	FlushLocalAll:           {"FlushLocalAll", KindRMA},
	Sync:                    {"Sync", KindRMA},
	SendValue:               {"SendValue", KindSend},
	IsendValue:              {"IsendValue", KindSend},
	SendrecvValue:           {"SendrecvValue", KindSend},
	RecvValue:               {"RecvValue", KindRecv},
	IrecvValue:              {"IrecvValue", KindRecv},
	BcastValue:              {"BcastValue", KindColl},
	GatherValues:            {"GatherValues", KindColl},
	ScatterValues:           {"ScatterValues", KindColl},
	AllgatherValues:         {"AllgatherValues", KindColl},
	AlltoallValues:          {"AlltoallValues", KindColl},
	ReduceValue:             {"ReduceValue", KindColl},
	AllreduceValue:          {"AllreduceValue", KindColl},
	BarrierInit:             {"BarrierInit", KindStart},
	BcastInit:               {"BcastInit", KindStart},
	ReduceInit:              {"ReduceInit", KindStart},
	AllreduceInit:           {"AllreduceInit", KindStart},
	GatherInit:              {"GatherInit", KindStart},
	GathervInit:             {"GathervInit", KindStart},
	ScatterInit:             {"ScatterInit", KindStart},
	ScattervInit:            {"ScattervInit", KindStart},
	AllgatherInit:           {"AllgatherInit", KindStart},
	AllgathervInit:          {"AllgathervInit", KindStart},
	AlltoallInit:            {"AlltoallInit", KindStart},
	AlltoallvInit:           {"AlltoallvInit", KindStart},
	AlltoallwInit:           {"AlltoallwInit", KindStart},
	ReduceScatterBlockInit:  {"ReduceScatterBlockInit", KindStart},
	ReduceScatterInit:       {"ReduceScatterInit", KindStart},
	ScanInit:                {"ScanInit", KindStart},
	ExscanInit:              {"ExscanInit", KindStart},
	NeighborAllgatherInit:   {"NeighborAllgatherInit", KindStart},
	NeighborAllgathervInit:  {"NeighborAllgathervInit", KindStart},
	NeighborAlltoallInit:    {"NeighborAlltoallInit", KindStart},
	NeighborAlltoallvInit:   {"NeighborAlltoallvInit", KindStart},
	NeighborAlltoallwInit:   {"NeighborAlltoallwInit", KindStart},
	PsendInit:               {"PsendInit", KindOther},
	PrecvInit:               {"PrecvInit", KindOther},
	Pready:                  {"Pready", KindOther},
	PreadyRange:             {"PreadyRange", KindOther},
	PreadyList:              {"PreadyList", KindOther},
	Parrived:                {"Parrived", KindWait},
	SendInit:                {"SendInit", KindOther},
	SsendInit:               {"SsendInit", KindOther},
	RsendInit:               {"RsendInit", KindOther},
	BsendInit:               {"BsendInit", KindOther},
	RecvInit:                {"RecvInit", KindOther},
	RequestGetStatus:        {"RequestGetStatus", KindWait},
	RequestGetStatusAll:     {"RequestGetStatusAll", KindWait},
	RequestGetStatusAny:     {"RequestGetStatusAny", KindWait},
	RequestGetStatusSome:    {"RequestGetStatusSome", KindWait},
	Cancel:                  {"Cancel", KindOther},
	RequestFree:             {"RequestFree", KindOther},
	BufferIflush:            {"BufferIflush", KindOther},
	CommFlushBuffer:         {"CommFlushBuffer", KindOther},
	CommIflushBuffer:        {"CommIflushBuffer", KindOther},
	WinAttach:               {"WinAttach", KindRMA},
	WinDetach:               {"WinDetach", KindRMA},
	CommSpawn:               {"CommSpawn", KindColl},
	CommAccept:              {"CommAccept", KindColl},
	CommConnect:             {"CommConnect", KindColl},
	CommJoin:                {"CommJoin", KindOther},
	CommDisconnect:          {"CommDisconnect", KindColl},
	FileOpen:                {"FileOpen", KindColl},
	FileClose:               {"FileClose", KindColl},
	FileSetSize:             {"FileSetSize", KindColl},
	FilePreallocate:         {"FilePreallocate", KindColl},
	FileSync:                {"FileSync", KindColl},
	FileSetAtomicity:        {"FileSetAtomicity", KindColl},
	FileSetInfo:             {"FileSetInfo", KindColl},
	FileSetView:             {"FileSetView", KindColl},
	FileSeekShared:          {"FileSeekShared", KindColl},
	FileReadAtAll:           {"FileReadAtAll", KindColl},
	FileWriteAtAll:          {"FileWriteAtAll", KindColl},
	FileReadAll:             {"FileReadAll", KindColl},
	FileWriteAll:            {"FileWriteAll", KindColl},
	FileReadOrdered:         {"FileReadOrdered", KindColl},
	FileWriteOrdered:        {"FileWriteOrdered", KindColl},
	FileReadAtAllBegin:      {"FileReadAtAllBegin", KindColl},
	FileReadAtAllEnd:        {"FileReadAtAllEnd", KindColl},
	FileWriteAtAllBegin:     {"FileWriteAtAllBegin", KindColl},
	FileWriteAtAllEnd:       {"FileWriteAtAllEnd", KindColl},
	FileReadAllBegin:        {"FileReadAllBegin", KindColl},
	FileReadAllEnd:          {"FileReadAllEnd", KindColl},
	FileWriteAllBegin:       {"FileWriteAllBegin", KindColl},
	FileWriteAllEnd:         {"FileWriteAllEnd", KindColl},
	FileReadOrderedBegin:    {"FileReadOrderedBegin", KindColl},
	FileReadOrderedEnd:      {"FileReadOrderedEnd", KindColl},
	FileWriteOrderedBegin:   {"FileWriteOrderedBegin", KindColl},
	FileWriteOrderedEnd:     {"FileWriteOrderedEnd", KindColl},
	FileDelete:              {"FileDelete", KindOther},
	FileReadAt:              {"FileReadAt", KindOther},
	FileWriteAt:             {"FileWriteAt", KindOther},
	FileRead:                {"FileRead", KindOther},
	FileWrite:               {"FileWrite", KindOther},
	FileReadShared:          {"FileReadShared", KindOther},
	FileWriteShared:         {"FileWriteShared", KindOther},
	FileIreadAt:             {"FileIreadAt", KindOther},
	FileIwriteAt:            {"FileIwriteAt", KindOther},
	FileIread:               {"FileIread", KindOther},
	FileIwrite:              {"FileIwrite", KindOther},
	FileIreadShared:         {"FileIreadShared", KindOther},
	FileIwriteShared:        {"FileIwriteShared", KindOther},
	FileIreadAtAll:          {"FileIreadAtAll", KindStart},
	FileIwriteAtAll:         {"FileIwriteAtAll", KindStart},
	FileIreadAll:            {"FileIreadAll", KindStart},
	FileIwriteAll:           {"FileIwriteAll", KindStart},
	FileIreadOrdered:        {"FileIreadOrdered", KindStart},
	FileIwriteOrdered:       {"FileIwriteOrdered", KindStart},
}

// String is the call's name as the facade spells it.
func (c Call) String() string {
	if c < NumCalls {
		return calls[c].name
	}
	return "?"
}

// CallNamed returns the call of that name, None if there is none.
func CallNamed(name string) Call {
	for i := range calls {
		if calls[i].name == name {
			return Call(i)
		}
	}
	return None
}

// Kind says what sort of call c is.
func (c Call) Kind() Kind {
	if c < NumCalls {
		return calls[c].kind
	}
	return KindOther
}

func (k Kind) String() string {
	return [...]string{"other", "send", "recv", "wait", "collective", "neighbor", "start", "rma"}[k]
}
