package mpi

import (
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/mpir"
	"github.com/mpigo/mpigo/internal/prof"
)

// Split types of SplitType and SplitTypeInfo (MPI 4.1 section 7.4.2).
const (
	// SplitTypeShared groups the ranks that can share memory: those of one node
	// (MPI_COMM_TYPE_SHARED).
	SplitTypeShared = core.SplitShared
	// SplitTypeHWUnguided splits by the largest hardware resource that parts the
	// communicator into strict subsets (MPI_COMM_TYPE_HW_UNGUIDED).
	SplitTypeHWUnguided = core.SplitHWUnguided
	// SplitTypeHWGuided splits by the hardware resource type the info key
	// mpi_hw_resource_type names (MPI_COMM_TYPE_HW_GUIDED).
	SplitTypeHWGuided = core.SplitHWGuided
	// SplitTypeResourceGuided splits by the hardware resource type of
	// mpi_hw_resource_type or the process set of mpi_pset_name
	// (MPI_COMM_TYPE_RESOURCE_GUIDED).
	SplitTypeResourceGuided = core.SplitResourceGuided
)

// Values of the info keys SplitTypeInfo reads.
const (
	// HWSharedMemory is the mpi_hw_resource_type value that splits as SplitTypeShared
	// does ("mpi_shared_memory").
	HWSharedMemory = core.SharedMemory
	// PsetWorld and PsetSelf are the process sets mpigo has for mpi_pset_name: every
	// rank of the job, and the calling rank alone.
	PsetWorld = core.PsetWorld
	PsetSelf  = core.PsetSelf
)

// SplitType is SplitTypeInfo with no info (MPI_INFO_NULL): SplitTypeShared gives one
// communicator per node, SplitTypeHWUnguided the next level of the hardware, and the
// guided types, which need their info key, nil.
func (c *Comm) SplitType(kind, key int) (*Comm, error) {
	defer prof.Exit(prof.SplitType, c.enterRare(prof.SplitType, prof.NoPeer, 0), 0)
	if nc, done, err := c.aroundNew("SplitType", func(b *Comm) (*Comm, error) { return b.SplitType(kind, key) }); done {
		return nc, err
	}
	return c.splitType("SplitType", kind, key, nil)
}

// SplitTypeInfo splits c by where its ranks run (MPI_Comm_split_type). Every rank
// passes the same kind, or Undefined to get nil; the new communicators rank their
// members by key, ties by rank in c, and take their hints from info.
//
//   - SplitTypeShared: the ranks of one node.
//   - SplitTypeHWGuided: the ranks within one instance of the hardware resource type
//     that info's "mpi_hw_resource_type" names: HWSharedMemory (the node), or a type of
//     GetHwResourceInfo ("hwloc://Machine", "hwloc://Package", "hwloc://NUMANode",
//     "hwloc://L4Cache" to "hwloc://L1Cache", "hwloc://Core", "hwloc://PU"). A rank not bound within one instance (see mpigo run --bind-to) gets
//     nil, and so does every rank when info is nil, lacks the key or names a type
//     mpigo does not know.
//   - SplitTypeResourceGuided: as SplitTypeHWGuided, or by the process set that
//     "mpi_pset_name" names: PsetWorld (all of c in one communicator) or PsetSelf (each
//     rank alone); other sets give nil. Giving both keys is an error (ErrInfoKey).
//   - SplitTypeHWUnguided: the first level from the node down whose instances part c's
//     ranks into strict subsets; nil where a rank is within none, everywhere when no
//     level parts them. The type chosen is set as info's "mpi_hw_resource_type" on the
//     ranks that get a communicator (unless info is nil or InfoEnv).
//
// The ranks must give the same kind (other than Undefined), and for
// SplitTypeHWGuided the same "mpi_hw_resource_type": else every rank gets an error
// (ErrArg, ErrInfoValue). SplitTypeResourceGuided's keys are hints: where the ranks
// give them differently, or only some give one, they are ignored, and every rank gets
// nil as with none.
// On an intercommunicator the ranks of both groups within one instance form an
// intercommunicator (nil where the instance has ranks in one group only), as Split's
// colors do.
func (c *Comm) SplitTypeInfo(kind, key int, info *Info) (*Comm, error) {
	defer prof.Exit(prof.SplitType, c.enterRare(prof.SplitType, prof.NoPeer, 0), 0)
	if nc, done, err := c.aroundNew("SplitTypeInfo", func(b *Comm) (*Comm, error) { return b.SplitTypeInfo(kind, key, info) }); done {
		return nc, err
	}
	return c.splitType("SplitTypeInfo", kind, key, info)
}

func (c *Comm) splitType(op string, kind, key int, info *Info) (*Comm, error) {
	if err := c.check(op); err != nil {
		return nil, err
	}
	nd, hints, err := mpir.SplitType(op, c.d, core.SplitTypeArgs{Kind: kind, Key: key}, info.obj(), nil)
	if err != nil {
		return nil, c.fail(op, err)
	}
	return newComm(c.x.Derive(nd, nil, hints)), nil
}

// GetHwResourceInfo returns a new Info describing the hardware this process runs on
// (MPI_Get_hw_resource_info, MPI 4.1 section 9.1.2): a key for each hardware resource
// type this machine has, in the standard's URI form provider://type with hwloc's
// names ("hwloc://Machine", "hwloc://Package", "hwloc://NUMANode", "hwloc://L4Cache"
// to "hwloc://L1Cache", "hwloc://Core", "hwloc://PU", as many as /sys shows), whose value is "true" if the CPUs this process may run on lie within one
// instance of the type and "false" otherwise. Each key is a value SplitTypeInfo takes
// for "mpi_hw_resource_type". It reads the machine at the moment of the call, and may
// be called at any time, before Init and after Finalize too. The caller frees the Info.
func GetHwResourceInfo() (*Info, error) {
	const op = "GetHwResourceInfo"
	in, err := mpir.HWResourceInfo(op)
	if err != nil {
		return nil, Self.fail(op, err)
	}
	return wrapInfo(in), nil
}
