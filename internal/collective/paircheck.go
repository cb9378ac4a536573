package collective

import (
	"unsafe"

	"github.com/mpigo/mpigo/internal/coll"
	"github.com/mpigo/mpigo/internal/core"
)

// coll_check's second look, for the collectives whose block sizes differ from pair to
// pair of processes (Alltoallw, and on intercommunicators Alltoallv and Allgatherv):
// the first exchange (verify, verifyInter) finds that every process made the same
// call; this one has every process tell each peer how many bytes it will send it, and
// each compares what it hears with what it expects to receive. A mismatch is known to
// its receiver only, so a reduction then gives every process the same verdict, and
// all of them return the error instead of some waiting for a message that never
// comes. Both exchanges use the call's check tag, one after the other.

// checkPairs runs that look for the call whose schedule is s: out[j] is the number of
// bytes this process sends peer j, in[j] the number it expects from j (peers of the
// remote group on an intercommunicator). On an error it frees s, which must not run.
func (c *comm) checkPairs(name string, s *coll.Sched, out, in []int64) error {
	err := c.comparePairs(name, s, out, in)
	if err != nil {
		s.Free()
	}
	return err
}

func (c *comm) comparePairs(name string, s *coll.Sched, out, in []int64) error {
	var (
		conn coll.Conn
		tag  int
	)
	inter := c.remote != nil
	if inter {
		conn, tag = c.Inter(), s.Tag()-core.TagInterColl+core.TagInterCheck
	} else {
		conn, tag = c.Local(), core.TagCheck+s.Tag()
	}
	n := len(in)
	got := make([]int64, n)
	x := coll.New(conn, tag, 8)
	if inter {
		x.InterAlltoall(words(out), words(got), n)
	} else {
		x.Alltoall(words(out), words(got))
	}
	if err := Run(name, x); err != nil {
		return err
	}
	// bad is 0, or 1 + the first disagreeing pair, encoded so that every process can
	// name it: the receiver's group (on an intercommunicator), the sender and the
	// receiver.
	grp := int64(0)
	if inter && c.Group().WorldRank(0) > c.remote.WorldRank(0) {
		grp = 1
	}
	var bad, verdict, remote [1]int64
	for i := range got {
		if got[i] != in[i] {
			bad[0] = 1 + (grp<<40 | int64(i)<<20 | int64(c.rank))
			break
		}
	}
	k := coll.Op{Fn: maxInt64, Commute: true}
	x = coll.New(conn, tag, 8)
	x.Allreduce(words(bad[:]), words(verdict[:]), k)
	if err := Run(name, x); err != nil {
		return err
	}
	if inter {
		x = coll.New(conn, tag, 8)
		x.InterAllreduce(words(verdict[:]), words(remote[:]), k)
		if err := Run(name, x); err != nil {
			return err
		}
		verdict[0] = max(verdict[0], remote[0])
	}
	if verdict[0] == 0 {
		return nil
	}
	v := verdict[0] - 1
	g, from, to := v>>40, v>>20&(1<<20-1), v&(1<<20-1)
	if !inter {
		return core.Errorf(core.ClassCount, name, "coll_check: the block rank %d sends rank %d is not the size rank %d expects (a block sent and the block received for it must have the same type signature)", from, to, to)
	}
	where := [2]string{"this group", "the remote group"}
	rg := 0 // the receiver's group, as this process sees it
	if g != grp {
		rg = 1
	}
	return core.Errorf(core.ClassCount, name, "coll_check: the block rank %d of %s sends rank %d of %s is not the size that process expects (a block sent and the block received for it must have the same type signature)",
		from, where[1-rg], to, where[rg])
}

// vPairs returns, for checkPairs, the bytes a process of a rooted v collective (Gatherv
// when gather, else Scatterv) sends to and receives from each of the n processes it
// addresses: at the root (atRoot) its counts, on the side of the blocks it receives
// (gather) or sends; at a process that exchanges a block with the root (atOther: every
// process of an intracommunicator, the root too, and the remote group of an
// intercommunicator's) its own block of mine bytes.
func vPairs(n, root int, atRoot, atOther bool, counts []int, mine, esz int, gather bool) (out, in []int64) {
	out, in = make([]int64, n), make([]int64, n)
	if atRoot {
		if gather {
			in = bytesOf(counts, esz)
		} else {
			out = bytesOf(counts, esz)
		}
	}
	if atOther {
		if gather {
			out[root] = int64(mine)
		} else {
			in[root] = int64(mine)
		}
	}
	return out, in
}

// blocksOf returns n copies of a block of bytes bytes, as checkPairs takes them.
func blocksOf(n, bytes int) []int64 {
	b := make([]int64, n)
	for j := range b {
		b[j] = int64(bytes)
	}
	return b
}

// bytesOf returns counts[j]*esize for every j, as checkPairs takes them.
func bytesOf(counts []int, esize int) []int64 {
	b := make([]int64, len(counts))
	for j, n := range counts {
		b[j] = int64(n) * int64(esize)
	}
	return b
}

// maxInt64 is the verdict's reduction.
func maxInt64(inout, in []byte) {
	a, b := unsafe.Slice((*int64)(unsafe.Pointer(&inout[0])), len(inout)/8), unsafe.Slice((*int64)(unsafe.Pointer(&in[0])), len(in)/8)
	for i := range a {
		a[i] = max(a[i], b[i])
	}
}
