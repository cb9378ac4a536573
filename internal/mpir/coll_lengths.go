package mpir

import (
	"math"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/datatype"
)

// The rules on the lengths of a collective's significant buffers: each kind's, given
// the communicator's shape, this process's role and the arguments with what is not
// significant emptied (a side in place is the marker, its length the other side's).
// A buffer's length is its elements (items of its datatype); where the two buffers
// compared hold elements of different sizes (two datatypes of one type signature in
// C), their bytes are compared instead. The v forms' blocks are checked against their
// buffer (checkV), a block of no elements not at all.

// checkLengths checks the lengths of k's significant buffers. (A switch, not a table
// of functions: an indirect call would move every call's arguments to the heap.)
func checkLengths(k CollKind, op string, v *view, ro role, a *CollArgs) error {
	switch k {
	case CollGather:
		return gatherLengths(op, v, ro, a)
	case CollGatherv:
		return gathervLengths(op, v, ro, a)
	case CollScatter:
		return scatterLengths(op, v, ro, a)
	case CollScatterv:
		return scattervLengths(op, v, ro, a)
	case CollAllgather:
		return allgatherLengths(op, v, ro, a)
	case CollAllgatherv:
		return allgathervLengths(op, v, ro, a)
	case CollAlltoall:
		return alltoallLengths(op, v, ro, a)
	case CollAlltoallv:
		return alltoallvLengths(op, v, ro, a)
	case CollReduce:
		return reduceLengths(op, v, ro, a)
	case CollAllreduce, CollScan, CollExscan:
		return allreduceLengths(op, v, ro, a)
	case CollReduceScatterBlock:
		return reduceScatterBlockLengths(op, v, ro, a)
	case CollReduceScatter:
		return reduceScatterLengths(op, v, ro, a)
	}
	return nil // Barrier, Bcast: nothing to compare
}

// length is v's length in the unit unit: elements (0) or bytes (1).
func length(v *Vec, unit int) int {
	if unit == 0 {
		return v.N()
	}
	return vecBytes(v)
}

// unitOf is the unit in which a and b compare: elements where both hold plain
// elements of one size, else bytes; and its name for messages.
func unitOf(a, b *Vec) (int, string) {
	if a.Type == nil && b.Type == nil && a.Esz == b.Esz {
		return 0, ""
	}
	return 1, " bytes"
}

// itemBytes is the bytes of one of v's elements (items).
func itemBytes(v *Vec) int {
	if v.Type != nil {
		return int(v.Type.Size())
	}
	return v.Esz
}

// wholeBlocks checks that v (named what) holds n equal blocks.
func wholeBlocks(op, what string, v *Vec, n int, group string) error {
	if v.N()%n != 0 {
		return core.Errorf(core.ClassCount, op, "len(%s) %d is not a multiple of %s %d", what, v.N(), group, n)
	}
	return nil
}

// blocksOf checks that whole holds n blocks of part's length (named as given).
func blocksOf(op string, whole, part *Vec, n int, wholeName, partName, where string) error {
	u, un := unitOf(whole, part)
	if w, p := length(whole, u), length(part, u); w != n*p {
		return core.Errorf(core.ClassCount, op, "len(%s) %d%s != size %d × len(%s) %d%s%s", wholeName, w, un, n, partName, p, un, where)
	}
	return nil
}

// sameLength checks that a and b are as long.
func sameLength(op string, a, b *Vec, where string) error {
	u, un := unitOf(a, b)
	if x, y := length(a, u), length(b, u); x != y {
		return core.Errorf(core.ClassCount, op, "len(send) %d%s != len(recv) %d%s%s", x, un, y, un, where)
	}
	return nil
}

// blockIs checks that part (named partName) holds count elements of whole's kind:
// a v form's own block. A block of no data matches any empty part, whatever its
// elements (an empty type signature is one, however it is spelled).
func blockIs(op, partName string, part, whole *Vec, i, count int, where string) error {
	bytes := vecBytes(part)
	if bytes != count*itemBytes(whole) || bytes > 0 && part.Type == nil && whole.Type == nil && part.Esz != whole.Esz {
		n := part.N()
		return core.Errorf(core.ClassCount, op, "len(%s) %d != counts[%d] %d%s", partName, n, i, count, where)
	}
	return nil
}

// reach is how many elements a v form's blocks may reach in v: its length, or for a
// buffer described by a datatype, as far as its memory goes (checkTyped checks the
// blocks' items against it).
func reach(v *Vec) int {
	if v.Type != nil {
		return math.MaxInt
	}
	return v.N()
}

// checkV checks a v form's counts and displacements (what: "", "s" or "r"), one per
// process of n, against a buffer of items elements: every count not negative, every
// block of elements inside the buffer. A block of no elements is not placed, so its
// displacement is never looked at (MPI 4.1 section 6.5: only the blocks that hold
// data are read or written).
func checkV(op, what string, n int, counts, displs []int, items int) error {
	if counts == nil && n > 0 || displs == nil && n > 0 {
		return core.Errorf(core.ClassArg, op, "%scounts or %sdispls is missing (NULL)", what, what)
	}
	if len(counts) != n || len(displs) != n {
		return core.Errorf(core.ClassCount, op, "len(%scounts) %d and len(%sdispls) %d must be the size %d", what, len(counts), what, len(displs), n)
	}
	for i, k := range counts {
		if k < 0 {
			return core.Errorf(core.ClassCount, op, "%scounts[%d] %d is negative", what, i, k)
		}
		if k > 0 && (displs[i] < 0 || displs[i] > items-k) {
			return core.Errorf(core.ClassCount, op, "%scounts[%d] %d at %sdispls[%d] %d out of the buffer of %d", what, i, k, what, i, displs[i], items)
		}
	}
	return nil
}

// redPairs checks that n elements are whole (value, index) pairs where r needs them
// (Maxloc and Minloc on a slice of Go numbers).
func redPairs(op string, r *Red, n int) error {
	if r.Pair && n%2 != 0 {
		return core.Errorf(core.ClassCount, op, "%s takes (value, index) pairs: the buffer's length %d is odd", r.Name, n)
	}
	return nil
}

func gatherLengths(op string, v *view, ro role, a *CollArgs) error {
	switch {
	case ro != roleRoot:
		return nil
	case v.inter:
		return wholeBlocks(op, "recv", &a.Recv, v.remote, "the remote group's size")
	case a.Send.InPlace:
		return wholeBlocks(op, "recv", &a.Recv, v.size, "the size")
	}
	return blocksOf(op, &a.Recv, &a.Send, v.size, "recv", "send", " at the root")
}

func gathervLengths(op string, v *view, ro role, a *CollArgs) error {
	if ro != roleRoot {
		return nil
	}
	if err := checkV(op, "", v.peers(), a.Counts, a.Displs, reach(&a.Recv)); err != nil || v.inter || a.Send.InPlace {
		return err
	}
	return blockIs(op, "send", &a.Send, &a.Recv, v.rank, a.Counts[v.rank], " at the root")
}

func scatterLengths(op string, v *view, ro role, a *CollArgs) error {
	switch {
	case ro != roleRoot:
		return nil
	case v.inter:
		return wholeBlocks(op, "send", &a.Send, v.remote, "the remote group's size")
	case a.Recv.InPlace:
		return wholeBlocks(op, "send", &a.Send, v.size, "the size")
	}
	return blocksOf(op, &a.Send, &a.Recv, v.size, "send", "recv", " at the root")
}

func scattervLengths(op string, v *view, ro role, a *CollArgs) error {
	if ro != roleRoot {
		return nil
	}
	if err := checkV(op, "", v.peers(), a.Counts, a.Displs, reach(&a.Send)); err != nil || v.inter || a.Recv.InPlace {
		return err
	}
	return blockIs(op, "recv", &a.Recv, &a.Send, v.rank, a.Counts[v.rank], " at the root")
}

func allgatherLengths(op string, v *view, _ role, a *CollArgs) error {
	switch {
	case v.inter:
		return wholeBlocks(op, "recv", &a.Recv, v.remote, "the remote group's size")
	case a.Send.InPlace:
		return wholeBlocks(op, "recv", &a.Recv, v.size, "the size")
	}
	return blocksOf(op, &a.Recv, &a.Send, v.size, "recv", "send", "")
}

func allgathervLengths(op string, v *view, _ role, a *CollArgs) error {
	if err := checkV(op, "", v.peers(), a.Counts, a.Displs, reach(&a.Recv)); err != nil || v.inter || a.Send.InPlace {
		return err
	}
	return blockIs(op, "send", &a.Send, &a.Recv, v.rank, a.Counts[v.rank], "")
}

func alltoallLengths(op string, v *view, _ role, a *CollArgs) error {
	n := v.peers()
	if v.inter {
		if a.Send.N()%n != 0 || a.Recv.N()%n != 0 {
			return core.Errorf(core.ClassCount, op, "len(send) %d and len(recv) %d must be multiples of the remote group's size %d", a.Send.N(), a.Recv.N(), n)
		}
		return nil
	}
	if a.Send.InPlace {
		return wholeBlocks(op, "recv", &a.Recv, n, "the size")
	}
	u, un := unitOf(&a.Send, &a.Recv)
	if s, r := length(&a.Send, u), length(&a.Recv, u); s != r || a.Recv.N()%n != 0 || a.Send.N()%n != 0 {
		return core.Errorf(core.ClassCount, op, "len(send) %d%s and len(recv) %d%s must be equal multiples of the size %d", s, un, r, un, n)
	}
	return nil
}

func alltoallvLengths(op string, v *view, _ role, a *CollArgs) error {
	n := v.peers()
	if !a.Send.InPlace {
		if err := checkV(op, "s", n, a.SCounts, a.SDispls, reach(&a.Send)); err != nil {
			return err
		}
	}
	return checkV(op, "r", n, a.Counts, a.Displs, reach(&a.Recv))
}

func reduceLengths(op string, v *view, ro role, a *CollArgs) error {
	switch {
	case ro == roleRoot && v.inter:
		return nil
	case ro == roleRoot && a.Send.InPlace:
		return redPairs(op, &a.Red, a.Recv.N())
	case ro == roleRoot:
		if err := sameLength(op, &a.Send, &a.Recv, " at the root"); err != nil {
			return err
		}
	}
	return redPairs(op, &a.Red, a.Send.N())
}

func allreduceLengths(op string, _ *view, _ role, a *CollArgs) error {
	if !a.Send.InPlace {
		if err := sameLength(op, &a.Send, &a.Recv, ""); err != nil {
			return err
		}
	}
	return redPairs(op, &a.Red, a.Recv.N())
}

func reduceScatterBlockLengths(op string, v *view, _ role, a *CollArgs) error {
	n, m := v.size, a.Recv.N()
	if a.Send.InPlace {
		if err := wholeBlocks(op, "recv", &a.Recv, n, "the size"); err != nil {
			return core.Errorf(core.ClassCount, op, "in place: len(recv) %d is not a multiple of the size %d", a.Recv.N(), n)
		}
		m = a.Recv.N() / n
	} else if v.inter {
		// Each group's send holds its own group's size of blocks of recvcount (MPI 4.1
		// section 6.10.1); the two groups' totals must agree, which the exchange finds.
		if err := blocksOf(op, &a.Send, &a.Recv, n, "send", "recv", " (the local group's size)"); err != nil {
			return err
		}
	} else if err := blocksOf(op, &a.Send, &a.Recv, n, "send", "recv", ""); err != nil {
		return err
	}
	return redPairs(op, &a.Red, m)
}

func reduceScatterLengths(op string, v *view, _ role, a *CollArgs) error {
	group := "the size"
	if v.inter {
		group = "the local group's size"
	}
	if len(a.Counts) != v.size {
		if a.Counts == nil && v.size > 0 {
			return core.Errorf(core.ClassArg, op, "recvcounts is missing (NULL)")
		}
		return core.Errorf(core.ClassCount, op, "len(counts) %d != %s %d", len(a.Counts), group, v.size)
	}
	total := 0
	for i, k := range a.Counts {
		if k < 0 {
			return core.Errorf(core.ClassCount, op, "counts[%d] %d is negative", i, k)
		}
		if err := redPairs(op, &a.Red, k); err != nil {
			return err
		}
		total += k
	}
	in := &a.Send
	if a.Send.InPlace {
		in = &a.Recv
	} else if a.Recv.N() != a.Counts[v.rank] {
		return core.Errorf(core.ClassCount, op, "len(recv) %d != counts[%d] %d", a.Recv.N(), v.rank, a.Counts[v.rank])
	}
	if in.N() != total {
		return core.Errorf(core.ClassCount, op, "len(send) %d != sum(counts) %d", in.N(), total)
	}
	return nil
}

// checkTyped checks a significant buffer described by a datatype (what: "send" or
// "recv"): the datatype committed, the count not negative, and the items its blocks
// reach (bl: the v forms' counts and displacements, nil for all Count items) inside
// its memory.
func checkTyped(op, what string, v *Vec, bl [2][]int) error {
	t := v.Type
	if t == nil {
		return nil
	}
	if t == datatype.Null { // MPI_DATATYPE_NULL: for no items only (NullFor)
		items := int64(v.Count)
		if bl[0] != nil {
			items = 0
			for _, k := range bl[0] {
				items += int64(max(k, 0))
			}
		}
		_, err := NullFor(op, what+"'s datatype", items)
		return err
	}
	if t.IsFreed() {
		return core.Errorf(core.ClassType, op, "%s: datatype %s has been freed", what, t.Name())
	}
	if !t.IsCommitted() {
		return NotCommitted(op, what+": datatype", t.Name())
	}
	if v.Count < 0 {
		return core.Errorf(core.ClassCount, op, "%s: count %d is negative", what, v.Count)
	}
	items := v.Count
	if bl[0] != nil {
		items = BlocksEnd(bl[0], bl[1])
	}
	lo, hi, err := t.Span(int64(items))
	switch {
	case err != nil:
		return core.TypeErr(op, err)
	case items > 0 && (lo < 0 || hi > int64(len(v.B))):
		return core.Errorf(core.ClassBuffer, op, "%s: %d items of %s span bytes [%d,%d) but the buffer has %d bytes", what, items, t.Name(), lo, hi, len(v.B))
	}
	return nil
}

// BlocksEnd is the element just past the last block of a v form's counts and
// displacements: how far its buffer must reach. Blocks of no elements count for
// nothing, wherever their displacements point.
func BlocksEnd(counts, displs []int) int {
	end := 0
	for i, k := range counts {
		if i < len(displs) && k > 0 {
			end = max(end, displs[i]+k)
		}
	}
	return end
}
