package main

// #define MPIGO_ABI_NO_PROTOTYPES 1
// #include "mpi.h"
import "C"

import (
	"unsafe"

	"github.com/mpigo/mpigo/internal/core"
)

// Collectives: each C buffer becomes a core.Vec over the C memory (cvec); a rooted
// collective's buffer that the standard says is ignored on a process (the receive
// buffer of Gather off the root, ...) is not looked at, as the standard allows it to
// be anything there. A nonblocking collective's request keeps the Go copies of the C
// count arrays alive until it completes.

func isRoot(c *comm, root int32) bool {
	if c.c.IsInter() {
		return root == -4 // MPI_ROOT
	}
	return rankIn(root) == c.c.Rank()
}

// ignored is a buffer the call does not use on this process.
func ignored(esz int) core.Vec { return core.Vec{Esz: max(esz, 1)} }

func esz(v core.Vec) int {
	if v.Type != nil {
		return int(v.Type.Size())
	}
	return v.Esz
}

// maxItems is how many items the v forms' counts and displacements reach.
func maxItems(counts, displs []int) int64 {
	var m int64
	for i := range counts {
		if e := int64(displs[i] + counts[i]); counts[i] > 0 && e > m {
			m = e
		}
	}
	return m
}

// finishColl turns a collective's result into the C return, and for a nonblocking
// one its request.
func finishColl(op string, c *comm, ch uintptr, p *core.Pending, err error, req unsafe.Pointer, keep any) int32 {
	if err != nil {
		return fail(op, ch, err)
	}
	if req != nil {
		addPending(p, c, ch, keep, req)
	}
	return 0
}

func commArg(op string, ch uintptr, req unsafe.Pointer, nb bool) (*comm, int32) {
	c, r := needComm(op, ch)
	if c == nil {
		return nil, r
	}
	if nb && req == nil {
		return nil, fail(op, ch, errorf(errArg, op, "request is NULL"))
	}
	return c, 0
}

//export PMPI_Barrier
func PMPI_Barrier(ch uintptr) int32 {
	c, r := needComm("Barrier", ch)
	if c == nil {
		return r
	}
	return fail("Barrier", ch, c.c.Barrier("Barrier"))
}

//export PMPI_Ibarrier
func PMPI_Ibarrier(ch uintptr, req unsafe.Pointer) int32 {
	c, r := commArg("Ibarrier", ch, req, true)
	if c == nil {
		return r
	}
	p, err := c.c.Ibarrier("Ibarrier")
	return finishColl("Ibarrier", c, ch, p, err, req, nil)
}

func bcast(op string, buf unsafe.Pointer, count int64, dh uintptr, root int32, ch uintptr, req unsafe.Pointer) int32 {
	c, r := commArg(op, ch, req, req != nil)
	if c == nil {
		return r
	}
	v, err := cvec(op, buf, count, dh)
	if err != nil {
		return fail(op, ch, err)
	}
	if req == nil {
		return fail(op, ch, c.c.Bcast(op, &v, rankIn(root)))
	}
	p, err := c.c.Ibcast(op, v, rankIn(root))
	return finishColl(op, c, ch, p, err, req, nil)
}

//export PMPI_Bcast
func PMPI_Bcast(buf unsafe.Pointer, count int32, dh uintptr, root int32, ch uintptr) int32 {
	return bcast("Bcast", buf, int64(count), dh, root, ch, nil)
}

//export PMPI_Bcast_c
func PMPI_Bcast_c(buf unsafe.Pointer, count int64, dh uintptr, root int32, ch uintptr) int32 {
	return bcast("Bcast", buf, count, dh, root, ch, nil)
}

//export PMPI_Ibcast
func PMPI_Ibcast(buf unsafe.Pointer, count int32, dh uintptr, root int32, ch uintptr, req unsafe.Pointer) int32 {
	if req == nil {
		return fail("Ibcast", ch, errorf(errArg, "Ibcast", "request is NULL"))
	}
	return bcast("Ibcast", buf, int64(count), dh, root, ch, req)
}

// reduceArgs makes the buffers and the reduction of the reductions.
func reduceArgs(op string, c *comm, sbuf, rbuf unsafe.Pointer, scount, rcount int64, dh, oh uintptr, recvUsed bool) (s, rv core.Vec, rd core.Red, err error) {
	rd, err = red(op, oh, dh)
	if err != nil {
		return
	}
	if s, err = cvec(op, sbuf, scount, dh); err != nil {
		return
	}
	if !recvUsed {
		return s, ignored(esz(s)), rd, nil
	}
	rv, err = cvec(op, rbuf, rcount, dh)
	return
}

func reduce(op string, sbuf, rbuf unsafe.Pointer, count int64, dh, oh uintptr, root int32, ch uintptr, req unsafe.Pointer) int32 {
	c, r := commArg(op, ch, req, req != nil)
	if c == nil {
		return r
	}
	s, rv, rd, err := reduceArgs(op, c, sbuf, rbuf, count, count, dh, oh, isRoot(c, root))
	if err != nil {
		return fail(op, ch, err)
	}
	if req == nil {
		return fail(op, ch, c.c.Reduce(op, &s, &rv, &rd, rankIn(root)))
	}
	p, err := c.c.Ireduce(op, s, rv, rd, rankIn(root))
	return finishColl(op, c, ch, p, err, req, nil)
}

//export PMPI_Reduce
func PMPI_Reduce(sbuf, rbuf unsafe.Pointer, count int32, dh, oh uintptr, root int32, ch uintptr) int32 {
	return reduce("Reduce", sbuf, rbuf, int64(count), dh, oh, root, ch, nil)
}

//export PMPI_Reduce_c
func PMPI_Reduce_c(sbuf, rbuf unsafe.Pointer, count int64, dh, oh uintptr, root int32, ch uintptr) int32 {
	return reduce("Reduce", sbuf, rbuf, count, dh, oh, root, ch, nil)
}

//export PMPI_Ireduce
func PMPI_Ireduce(sbuf, rbuf unsafe.Pointer, count int32, dh, oh uintptr, root int32, ch uintptr, req unsafe.Pointer) int32 {
	if req == nil {
		return fail("Ireduce", ch, errorf(errArg, "Ireduce", "request is NULL"))
	}
	return reduce("Ireduce", sbuf, rbuf, int64(count), dh, oh, root, ch, req)
}

func allreduce(op string, sbuf, rbuf unsafe.Pointer, count int64, dh, oh uintptr, ch uintptr, req unsafe.Pointer) int32 {
	c, r := commArg(op, ch, req, req != nil)
	if c == nil {
		return r
	}
	s, rv, rd, err := reduceArgs(op, c, sbuf, rbuf, count, count, dh, oh, true)
	if err != nil {
		return fail(op, ch, err)
	}
	if req == nil {
		return fail(op, ch, c.c.Allreduce(op, &s, &rv, &rd))
	}
	p, err := c.c.Iallreduce(op, s, rv, rd)
	return finishColl(op, c, ch, p, err, req, nil)
}

//export PMPI_Allreduce
func PMPI_Allreduce(sbuf, rbuf unsafe.Pointer, count int32, dh, oh uintptr, ch uintptr) int32 {
	return allreduce("Allreduce", sbuf, rbuf, int64(count), dh, oh, ch, nil)
}

//export PMPI_Allreduce_c
func PMPI_Allreduce_c(sbuf, rbuf unsafe.Pointer, count int64, dh, oh uintptr, ch uintptr) int32 {
	return allreduce("Allreduce", sbuf, rbuf, count, dh, oh, ch, nil)
}

//export PMPI_Iallreduce
func PMPI_Iallreduce(sbuf, rbuf unsafe.Pointer, count int32, dh, oh uintptr, ch uintptr, req unsafe.Pointer) int32 {
	if req == nil {
		return fail("Iallreduce", ch, errorf(errArg, "Iallreduce", "request is NULL"))
	}
	return allreduce("Iallreduce", sbuf, rbuf, int64(count), dh, oh, ch, req)
}

func scan(op string, sbuf, rbuf unsafe.Pointer, count int64, dh, oh uintptr, ch uintptr, excl bool, req unsafe.Pointer) int32 {
	c, r := commArg(op, ch, req, req != nil)
	if c == nil {
		return r
	}
	s, rv, rd, err := reduceArgs(op, c, sbuf, rbuf, count, count, dh, oh, true)
	if err != nil {
		return fail(op, ch, err)
	}
	p, err := c.c.Scan(op, s, rv, rd, excl, req != nil)
	return finishColl(op, c, ch, p, err, req, nil)
}

//export PMPI_Scan
func PMPI_Scan(sbuf, rbuf unsafe.Pointer, count int32, dh, oh uintptr, ch uintptr) int32 {
	return scan("Scan", sbuf, rbuf, int64(count), dh, oh, ch, false, nil)
}

//export PMPI_Exscan
func PMPI_Exscan(sbuf, rbuf unsafe.Pointer, count int32, dh, oh uintptr, ch uintptr) int32 {
	return scan("Exscan", sbuf, rbuf, int64(count), dh, oh, ch, true, nil)
}

//export PMPI_Iscan
func PMPI_Iscan(sbuf, rbuf unsafe.Pointer, count int32, dh, oh uintptr, ch uintptr, req unsafe.Pointer) int32 {
	if req == nil {
		return fail("Iscan", ch, errorf(errArg, "Iscan", "request is NULL"))
	}
	return scan("Iscan", sbuf, rbuf, int64(count), dh, oh, ch, false, req)
}

//export PMPI_Iexscan
func PMPI_Iexscan(sbuf, rbuf unsafe.Pointer, count int32, dh, oh uintptr, ch uintptr, req unsafe.Pointer) int32 {
	if req == nil {
		return fail("Iexscan", ch, errorf(errArg, "Iexscan", "request is NULL"))
	}
	return scan("Iexscan", sbuf, rbuf, int64(count), dh, oh, ch, true, req)
}

//export PMPI_Reduce_scatter_block
func PMPI_Reduce_scatter_block(sbuf, rbuf unsafe.Pointer, rcount int32, dh, oh uintptr, ch uintptr) int32 {
	const op = "Reduce_scatter_block"
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	n := int64(rcount) * int64(c.c.Size())
	s, rv, rd, err := reduceArgs(op, c, sbuf, rbuf, n, int64(rcount), dh, oh, true)
	if err != nil {
		return fail(op, ch, err)
	}
	_, err = c.c.ReduceScatterBlock(op, s, rv, rd, false)
	return fail(op, ch, err)
}

//export PMPI_Reduce_scatter
func PMPI_Reduce_scatter(sbuf, rbuf unsafe.Pointer, rcounts unsafe.Pointer, dh, oh uintptr, ch uintptr) int32 {
	const op = "Reduce_scatter"
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	counts := toInts(ints(rcounts, c.c.Size()))
	var total int64
	for _, k := range counts {
		total += int64(k)
	}
	s, rv, rd, err := reduceArgs(op, c, sbuf, rbuf, total, int64(counts[c.c.Rank()]), dh, oh, true)
	if err != nil {
		return fail(op, ch, err)
	}
	_, err = c.c.ReduceScatter(op, s, rv, counts, rd, false)
	return fail(op, ch, err)
}

// peers is the number of blocks of the all-to-all forms: the remote group's size on
// an intercommunicator.
func peers(c *comm) int { return c.c.Peers() }

func gather(op string, sbuf unsafe.Pointer, scount int64, sdt uintptr, rbuf unsafe.Pointer, rcount int64, rdt uintptr, root int32, ch uintptr, req unsafe.Pointer) int32 {
	c, r := commArg(op, ch, req, req != nil)
	if c == nil {
		return r
	}
	rootHere := isRoot(c, root)
	var s, rv core.Vec
	var err error
	if !c.c.IsInter() || !rootHere {
		if s, err = cvec(op, sbuf, scount, sdt); err != nil {
			return fail(op, ch, err)
		}
	}
	if rootHere {
		if rv, err = cvec(op, rbuf, rcount*int64(peers(c)), rdt); err != nil {
			return fail(op, ch, err)
		}
		if c.c.IsInter() {
			s = ignored(esz(rv))
		}
	} else {
		rv = ignored(esz(s))
	}
	p, err := c.c.Gather(op, s, rv, rankIn(root), req != nil)
	return finishColl(op, c, ch, p, err, req, nil)
}

//export PMPI_Gather
func PMPI_Gather(sbuf unsafe.Pointer, scount int32, sdt uintptr, rbuf unsafe.Pointer, rcount int32, rdt uintptr, root int32, ch uintptr) int32 {
	return gather("Gather", sbuf, int64(scount), sdt, rbuf, int64(rcount), rdt, root, ch, nil)
}

//export PMPI_Igather
func PMPI_Igather(sbuf unsafe.Pointer, scount int32, sdt uintptr, rbuf unsafe.Pointer, rcount int32, rdt uintptr, root int32, ch uintptr, req unsafe.Pointer) int32 {
	if req == nil {
		return fail("Igather", ch, errorf(errArg, "Igather", "request is NULL"))
	}
	return gather("Igather", sbuf, int64(scount), sdt, rbuf, int64(rcount), rdt, root, ch, req)
}

//export PMPI_Gatherv
func PMPI_Gatherv(sbuf unsafe.Pointer, scount int32, sdt uintptr, rbuf unsafe.Pointer, rcounts, displs unsafe.Pointer, rdt uintptr, root int32, ch uintptr) int32 {
	const op = "Gatherv"
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	rootHere := isRoot(c, root)
	var s, rv core.Vec
	var counts, ds []int
	var err error
	if !c.c.IsInter() || !rootHere {
		if s, err = cvec(op, sbuf, int64(scount), sdt); err != nil {
			return fail(op, ch, err)
		}
	}
	if rootHere {
		counts, ds = toInts(ints(rcounts, peers(c))), toInts(ints(displs, peers(c)))
		if rv, err = cvec(op, rbuf, maxItems(counts, ds), rdt); err != nil {
			return fail(op, ch, err)
		}
		if c.c.IsInter() {
			s = ignored(esz(rv))
		}
	} else {
		rv = ignored(esz(s))
	}
	_, err = c.c.Gatherv(op, s, rv, counts, ds, rankIn(root), false)
	return fail(op, ch, err)
}

func scatter(op string, sbuf unsafe.Pointer, scount int64, sdt uintptr, rbuf unsafe.Pointer, rcount int64, rdt uintptr, root int32, ch uintptr, req unsafe.Pointer) int32 {
	c, r := commArg(op, ch, req, req != nil)
	if c == nil {
		return r
	}
	rootHere := isRoot(c, root)
	var s, rv core.Vec
	var err error
	if !c.c.IsInter() || !rootHere {
		if rv, err = cvec(op, rbuf, rcount, rdt); err != nil {
			return fail(op, ch, err)
		}
	}
	if rootHere {
		if s, err = cvec(op, sbuf, scount*int64(peers(c)), sdt); err != nil {
			return fail(op, ch, err)
		}
		if c.c.IsInter() {
			rv = ignored(esz(s))
		}
	} else {
		s = ignored(esz(rv))
	}
	p, err := c.c.Scatter(op, s, rv, rankIn(root), req != nil)
	return finishColl(op, c, ch, p, err, req, nil)
}

//export PMPI_Scatter
func PMPI_Scatter(sbuf unsafe.Pointer, scount int32, sdt uintptr, rbuf unsafe.Pointer, rcount int32, rdt uintptr, root int32, ch uintptr) int32 {
	return scatter("Scatter", sbuf, int64(scount), sdt, rbuf, int64(rcount), rdt, root, ch, nil)
}

//export PMPI_Iscatter
func PMPI_Iscatter(sbuf unsafe.Pointer, scount int32, sdt uintptr, rbuf unsafe.Pointer, rcount int32, rdt uintptr, root int32, ch uintptr, req unsafe.Pointer) int32 {
	if req == nil {
		return fail("Iscatter", ch, errorf(errArg, "Iscatter", "request is NULL"))
	}
	return scatter("Iscatter", sbuf, int64(scount), sdt, rbuf, int64(rcount), rdt, root, ch, req)
}

//export PMPI_Scatterv
func PMPI_Scatterv(sbuf unsafe.Pointer, scounts, displs unsafe.Pointer, sdt uintptr, rbuf unsafe.Pointer, rcount int32, rdt uintptr, root int32, ch uintptr) int32 {
	const op = "Scatterv"
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	rootHere := isRoot(c, root)
	var s, rv core.Vec
	var counts, ds []int
	var err error
	if !c.c.IsInter() || !rootHere {
		if rv, err = cvec(op, rbuf, int64(rcount), rdt); err != nil {
			return fail(op, ch, err)
		}
	}
	if rootHere {
		counts, ds = toInts(ints(scounts, peers(c))), toInts(ints(displs, peers(c)))
		if s, err = cvec(op, sbuf, maxItems(counts, ds), sdt); err != nil {
			return fail(op, ch, err)
		}
		if c.c.IsInter() {
			rv = ignored(esz(s))
		}
	} else {
		s = ignored(esz(rv))
	}
	_, err = c.c.Scatterv(op, s, counts, ds, rv, rankIn(root), false)
	return fail(op, ch, err)
}

func allgather(op string, sbuf unsafe.Pointer, scount int64, sdt uintptr, rbuf unsafe.Pointer, rcount int64, rdt uintptr, ch uintptr, req unsafe.Pointer) int32 {
	c, r := commArg(op, ch, req, req != nil)
	if c == nil {
		return r
	}
	s, err := cvec(op, sbuf, scount, sdt)
	if err != nil {
		return fail(op, ch, err)
	}
	rv, err := cvec(op, rbuf, rcount*int64(peers(c)), rdt)
	if err != nil {
		return fail(op, ch, err)
	}
	p, err := c.c.Allgather(op, s, rv, req != nil)
	return finishColl(op, c, ch, p, err, req, nil)
}

//export PMPI_Allgather
func PMPI_Allgather(sbuf unsafe.Pointer, scount int32, sdt uintptr, rbuf unsafe.Pointer, rcount int32, rdt uintptr, ch uintptr) int32 {
	return allgather("Allgather", sbuf, int64(scount), sdt, rbuf, int64(rcount), rdt, ch, nil)
}

//export PMPI_Iallgather
func PMPI_Iallgather(sbuf unsafe.Pointer, scount int32, sdt uintptr, rbuf unsafe.Pointer, rcount int32, rdt uintptr, ch uintptr, req unsafe.Pointer) int32 {
	if req == nil {
		return fail("Iallgather", ch, errorf(errArg, "Iallgather", "request is NULL"))
	}
	return allgather("Iallgather", sbuf, int64(scount), sdt, rbuf, int64(rcount), rdt, ch, req)
}

//export PMPI_Allgatherv
func PMPI_Allgatherv(sbuf unsafe.Pointer, scount int32, sdt uintptr, rbuf unsafe.Pointer, rcounts, displs unsafe.Pointer, rdt uintptr, ch uintptr) int32 {
	const op = "Allgatherv"
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	counts, ds := toInts(ints(rcounts, peers(c))), toInts(ints(displs, peers(c)))
	s, err := cvec(op, sbuf, int64(scount), sdt)
	if err != nil {
		return fail(op, ch, err)
	}
	rv, err := cvec(op, rbuf, maxItems(counts, ds), rdt)
	if err != nil {
		return fail(op, ch, err)
	}
	_, err = c.c.Allgatherv(op, s, rv, counts, ds, false)
	return fail(op, ch, err)
}

func alltoall(op string, sbuf unsafe.Pointer, scount int64, sdt uintptr, rbuf unsafe.Pointer, rcount int64, rdt uintptr, ch uintptr, req unsafe.Pointer) int32 {
	c, r := commArg(op, ch, req, req != nil)
	if c == nil {
		return r
	}
	n := int64(peers(c))
	s, err := cvec(op, sbuf, scount*n, sdt)
	if err != nil {
		return fail(op, ch, err)
	}
	rv, err := cvec(op, rbuf, rcount*n, rdt)
	if err != nil {
		return fail(op, ch, err)
	}
	p, err := c.c.Alltoall(op, s, rv, req != nil)
	return finishColl(op, c, ch, p, err, req, nil)
}

//export PMPI_Alltoall
func PMPI_Alltoall(sbuf unsafe.Pointer, scount int32, sdt uintptr, rbuf unsafe.Pointer, rcount int32, rdt uintptr, ch uintptr) int32 {
	return alltoall("Alltoall", sbuf, int64(scount), sdt, rbuf, int64(rcount), rdt, ch, nil)
}

//export PMPI_Ialltoall
func PMPI_Ialltoall(sbuf unsafe.Pointer, scount int32, sdt uintptr, rbuf unsafe.Pointer, rcount int32, rdt uintptr, ch uintptr, req unsafe.Pointer) int32 {
	if req == nil {
		return fail("Ialltoall", ch, errorf(errArg, "Ialltoall", "request is NULL"))
	}
	return alltoall("Ialltoall", sbuf, int64(scount), sdt, rbuf, int64(rcount), rdt, ch, req)
}

//export PMPI_Alltoallv
func PMPI_Alltoallv(sbuf unsafe.Pointer, scounts, sdispls unsafe.Pointer, sdt uintptr, rbuf unsafe.Pointer, rcounts, rdispls unsafe.Pointer, rdt uintptr, ch uintptr) int32 {
	const op = "Alltoallv"
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	n := peers(c)
	rc, rd := toInts(ints(rcounts, n)), toInts(ints(rdispls, n))
	var sc, sd []int
	var s core.Vec
	var err error
	if uintptr(sbuf) == 1 {
		s, sc, sd = core.InPlaceVec(1), rc, rd
	} else {
		sc, sd = toInts(ints(scounts, n)), toInts(ints(sdispls, n))
		if s, err = cvec(op, sbuf, maxItems(sc, sd), sdt); err != nil {
			return fail(op, ch, err)
		}
	}
	rv, err := cvec(op, rbuf, maxItems(rc, rd), rdt)
	if err != nil {
		return fail(op, ch, err)
	}
	if s.InPlace {
		s = core.InPlaceVec(esz(rv))
	}
	_, err = c.c.Alltoallv(op, s, sc, sd, rv, rc, rd, false)
	return fail(op, ch, err)
}
