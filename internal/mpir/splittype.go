package mpir

import (
	"cmp"
	"strconv"

	"github.com/mpigo/mpigo/internal/collective"
	"github.com/mpigo/mpigo/internal/core"
)

// The info of MPI_Comm_split_type (MPI 4.1 section 7.4.2) and of
// MPI_Get_hw_resource_info (section 9.1.2).

// The info keys MPI_Comm_split_type reads.
const (
	HWTypeKey = "mpi_hw_resource_type" // a hardware resource type (also what HW_UNGUIDED chose)
	PsetKey   = "mpi_pset_name"        // a process set
)

// SplitType splits c by where its processes run, a giving the split type and key: it
// reads in's keys, and for MPI_COMM_TYPE_HW_UNGUIDED sets in's mpi_hw_resource_type to
// the type it split by (MPI_INFO_ENV, MPI_INFO_NULL and a freed info are left alone).
// bad is the error the face met in this rank's arguments (the info argument, a NULL
// output), nil if none; it fails the split at every rank, as an info this rank cannot
// read does (core.Comm.SplitTypeCore). The new communicator (nil where the rank is
// left out) takes its hints from in.
func SplitType(op string, c *core.Comm, a core.SplitTypeArgs, in *Info, bad error) (*core.Comm, *Hints, error) {
	pairs, err := in.Pairs()
	bad = cmp.Or(bad, InfoErr(op, err))
	for _, p := range pairs {
		switch p[0] {
		case HWTypeKey:
			a.HWType, a.HasHWType = p[1], true
		case PsetKey:
			a.Pset, a.HasPset = p[1], true
		}
	}
	nc, typ, err := collective.SplitType(c, op, a, bad)
	if err != nil || nc == nil {
		return nil, nil, err
	}
	if typ != "" {
		_ = in.Set(HWTypeKey, typ) // refused by a read-only or freed info: left alone
	}
	hints, _ := NewCommHints(op, in) // its pairs were read above
	return nc, hints, nil
}

// HWResourceInfo is MPI_Get_hw_resource_info's info: a key for each hardware resource
// type this machine has, in the standard's URI form (hwloc://Package, ...), "true" if
// the CPUs this process may run on lie within one instance of the type, else "false".
func HWResourceInfo(op string) (*Info, error) {
	hw, err := core.HWResources()
	if err != nil {
		return nil, core.Errorf(core.ClassOther, op, "cannot read the CPUs this process may run on: %v", err)
	}
	kv := make([]string, 0, 2*len(hw))
	for _, r := range hw {
		kv = append(kv, core.HWPrefix+r.Type, strconv.FormatBool(r.Within))
	}
	return InfoOf(kv...), nil
}
