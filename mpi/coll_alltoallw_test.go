package mpi_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/mpi"
)

// Alltoallw tests move float64 values between regions of region float64s, one region
// per peer, each block laid out by one of three type families:
//
//	0: contiguous, k items of Float64
//	1: a vector, 1 item of k float64s two apart
//	2: a struct, k items of one float64 at byte 8 of a 16-byte cell (a hole before it)
//
// so the sender and the receiver of a block use different layouts of one signature
// (k float64s), and the holes of a received region must stay untouched.
const region = 32

type wLayout struct {
	dt    *mpi.Datatype
	count int
	idx   []int // float64 index, within the region, of each of the k elements
}

func wType(t *testing.T, family, k int) wLayout {
	t.Helper()
	idx := make([]int, k)
	switch family {
	case 0:
		for e := range idx {
			idx[e] = e
		}
		return wLayout{mpi.Float64, k, idx}
	case 1:
		v, err := mpi.TypeVector(k, 1, 2, mpi.Float64)
		must(t, err)
		must(t, v.Commit())
		for e := range idx {
			idx[e] = 2 * e
		}
		return wLayout{v, 1, idx}
	}
	st, err := mpi.TypeStruct([]int{1}, []int{8}, []*mpi.Datatype{mpi.Float64})
	must(t, err)
	cell, err := mpi.TypeResized(st, 0, 16)
	must(t, err)
	must(t, cell.Commit())
	for e := range idx {
		idx[e] = 2*e + 1
	}
	return wLayout{cell, k, idx}
}

// wArgs is one side of an Alltoallw over n peers: block j in region j, from byte
// j*region*8, laid out by lay(j).
func wArgs(n int, lay func(j int) wLayout) (counts, displs []int, types []*mpi.Datatype) {
	counts, displs, types = make([]int, n), make([]int, n), make([]*mpi.Datatype, n)
	for j := 0; j < n; j++ {
		l := lay(j)
		counts[j], displs[j], types[j] = l.count, 8*region*j, l.dt
	}
	return
}

// wVal is element e of the block process a sends process b (both named by an id).
func wVal(a, b, e int) float64 { return float64(10000*a + 100*b + e) }

// checkRegions checks that recv holds, in region i, the block from peer i laid out by
// lay(i), with value(i, e) as element e, and the hole value elsewhere.
func checkRegions(t *testing.T, what string, recv []float64, n int, lay func(i int) wLayout, value func(i, e int) float64, hole float64) {
	t.Helper()
	for i := 0; i < n; i++ {
		want := make([]float64, region)
		for x := range want {
			want[x] = hole
		}
		for e, x := range lay(i).idx {
			want[x] = value(i, e)
		}
		got := recv[i*region : (i+1)*region]
		for x := range want {
			if got[x] != want[x] {
				t.Errorf("%s: region %d = %v, want %v", what, i, got, want)
				break
			}
		}
	}
}

// k is the number of elements rank a sends rank b: not symmetric, and 1 to 4.
func wK(a, b int) int { return (a+2*b)%4 + 1 }

func TestAlltoallw(t *testing.T) {
	for _, n := range []int{1, 3, 4} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			job(t, n, func(t *testing.T, r, n int) {
				c := mpi.World
				// To rank j: wK(r, j) elements in family (r+j)%3; from rank i: wK(i, r)
				// elements in family (r+i+1)%3, another layout of the same signature.
				sl := func(j int) wLayout { return wType(t, (r+j)%3, wK(r, j)) }
				rl := func(i int) wLayout { return wType(t, (r+i+1)%3, wK(i, r)) }
				send := make([]float64, n*region)
				for j := 0; j < n; j++ {
					for x := range region {
						send[j*region+x] = -1
					}
					for e, x := range sl(j).idx {
						send[j*region+x] = wVal(r, j, e)
					}
				}
				sc, sd, st := wArgs(n, sl)
				rc, rd, rt := wArgs(n, rl)
				from := func(i, e int) float64 { return wVal(i, r, e) }
				for _, nb := range []bool{false, true} {
					recv := make([]float64, n*region)
					for x := range recv {
						recv[x] = -7
					}
					if nb {
						req, err := mpi.Ialltoallw(c, send, sc, sd, st, recv, rc, rd, rt)
						must(t, err)
						_, err = req.Wait()
						must(t, err)
					} else {
						must(t, mpi.Alltoallw(c, send, sc, sd, st, recv, rc, rd, rt))
					}
					checkRegions(t, fmt.Sprintf("rank %d Alltoallw nonblocking=%v", r, nb), recv, n, rl, from, -7)
				}

				// In place: the block for rank j and the one from it share a layout, so
				// the counts are symmetric: (r+j)%4+1 elements, family (r+j)%3.
				il := func(j int) wLayout { return wType(t, (r+j)%3, (r+j)%4+1) }
				buf := make([]float64, n*region)
				for j := 0; j < n; j++ {
					for x := range region {
						buf[j*region+x] = -5
					}
					for e, x := range il(j).idx {
						buf[j*region+x] = wVal(r, j, e)
					}
				}
				ic, id, it := wArgs(n, il)
				must(t, mpi.Alltoallw(c, mpi.InPlace[byte](), nil, nil, nil, buf, ic, id, it))
				checkRegions(t, fmt.Sprintf("rank %d Alltoallw in place", r), buf, n, il, from, -5)
			})
		})
	}
}

// TestAlltoallwMixed: the element types of send and recv are any pointer-free types,
// and the blocks between two ranks may be of different datatypes each way: rank 0
// sends rank 1 two Go structs (by TypeOf), rank 1 sends rank 0 five int16s, which
// land in a byte slice.
func TestAlltoallwMixed(t *testing.T) {
	type rec struct {
		X float64
		N int32
		_ [4]byte
	}
	job(t, 2, func(t *testing.T, r, n int) {
		c := mpi.World
		rt, err := mpi.TypeOf[rec]()
		must(t, err)
		none := []*mpi.Datatype{mpi.Byte, mpi.Byte}
		if r == 0 {
			send := []rec{{1, 2, [4]byte{}}, {3, 4, [4]byte{}}, {5, 6, [4]byte{}}}
			recv := make([]byte, 20)
			// To rank 1: recs 1 and 2 (from byte 16); from rank 1: 5 int16s at byte 6.
			must(t, mpi.Alltoallw(c, send, []int{0, 2}, []int{0, 16}, []*mpi.Datatype{mpi.Byte, rt},
				recv, []int{0, 5}, []int{0, 6}, []*mpi.Datatype{mpi.Byte, mpi.Int16}))
			want := []byte{0, 0, 0, 0, 0, 0, 101, 0, 102, 0, 103, 0, 104, 0, 105, 0, 0, 0, 0, 0}
			if string(recv) != string(want) {
				t.Errorf("rank 0 received % x, want % x", recv, want)
			}
			return
		}
		send := []int16{100, 101, 102, 103, 104, 105, 106}
		recv := make([]rec, 2)
		must(t, mpi.Alltoallw(c, send, []int{5, 0}, []int{2, 0}, []*mpi.Datatype{mpi.Int16, mpi.Byte},
			recv, []int{2, 0}, []int{0, 0}, []*mpi.Datatype{rt, none[1]}))
		if want := []rec{{3, 4, [4]byte{}}, {5, 6, [4]byte{}}}; recv[0] != want[0] || recv[1] != want[1] {
			t.Errorf("rank 1 received %v, want %v", recv, want)
		}
	})
}

func TestAlltoallwErrors(t *testing.T) {
	job(t, 3, func(t *testing.T, r, n int) {
		c := mpi.World
		send, recv := make([]float64, 3*region), make([]float64, 3*region)
		ok := func(j int) wLayout { return wType(t, 0, 2) }
		sc, sd, st := wArgs(n, ok)
		rc, rd, rt := wArgs(n, ok)
		check := func(what string, err error, class error, words ...string) {
			t.Helper()
			if !errors.Is(err, class) {
				t.Errorf("%s: %v, want %v", what, err, class)
				return
			}
			for _, w := range words {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%s: %q does not name %q", what, err, w)
				}
			}
		}
		check("short scounts", mpi.Alltoallw(c, send, sc[:2], sd, st, recv, rc, rd, rt), mpi.ErrArg, "len(scounts) 2")
		check("long rtypes", mpi.Alltoallw(c, send, sc, sd, st, recv, rc, rd, append(rt, mpi.Float64)), mpi.ErrArg, "len(rtypes) 4")
		bad := append([]int(nil), rd...)
		bad[1] = len(recv)*8 - 8 // the block's second element falls off the end
		check("block outside recv", mpi.Alltoallw(c, send, sc, sd, st, recv, rc, bad, rt), mpi.ErrBuffer, "rdispls[1]", "recv")
		neg := append([]int(nil), sd...)
		neg[2] = -8
		check("negative displacement", mpi.Alltoallw(c, send, sc, neg, st, recv, rc, rd, rt), mpi.ErrBuffer, "sdispls[2]")
		v, err := mpi.TypeVector(2, 1, 2, mpi.Float64)
		must(t, err)
		unc := append([]*mpi.Datatype(nil), st...)
		unc[0] = v
		check("uncommitted type", mpi.Alltoallw(c, send, sc, sd, unc, recv, rc, rd, rt), mpi.ErrType, "stypes[0]", "not committed")
		f, err := mpi.TypeVector(2, 1, 2, mpi.Float64)
		must(t, err)
		must(t, f.Commit())
		must(t, f.Free())
		unc[0] = f
		check("freed type", mpi.Alltoallw(c, send, sc, sd, unc, recv, rc, rd, rt), mpi.ErrType, "stypes[0]")
		unc[0] = nil
		check("nil type", mpi.Alltoallw(c, send, sc, sd, unc, recv, rc, rd, rt), mpi.ErrType, "stypes[0]")
		cnt := append([]int(nil), rc...)
		cnt[0] = -1
		check("negative count", mpi.Alltoallw(c, send, sc, sd, st, recv, cnt, rd, rt), mpi.ErrCount, "rcounts[0]")
		cnt[0], cnt[r] = 2, 3
		check("own block mismatch", mpi.Alltoallw(c, send, sc, sd, st, recv, cnt, rd, rt), mpi.ErrCount, "to itself")
		_, err = mpi.Ialltoallw(c, send, sc[:1], sd, st, recv, rc, rd, rt)
		check("Ialltoallw short scounts", err, mpi.ErrArg, "len(scounts) 1")
		ptrs := make([]*int, 4)
		check("pointer elements", mpi.Alltoallw(c, ptrs, sc, sd, st, recv, rc, rd, rt), mpi.ErrBuffer, "send")
		// The refusals left the communicator usable.
		must(t, mpi.Alltoallw(c, send, sc, sd, st, recv, rc, rd, rt))
	})
}

// TestAlltoallwCheck: with coll_check on, a rank calling Alltoallv while the others
// call Alltoallw gets an error naming both, and so do the others.
func TestAlltoallwCheck(t *testing.T) {
	mpitest.Job(t, mpitest.Options{N: 3, Settings: map[string]string{"coll_check": "true"}}, alltoallwCheckBody)
}

func alltoallwCheckBody(t *testing.T) {
	chk(t, "Init", mpi.Init())
	c := mpi.World
	r, n := c.Rank(), c.Size()
	send, recv := make([]float64, n), make([]float64, n)
	ones, displs, bdispls := make([]int, n), make([]int, n), make([]int, n)
	types := make([]*mpi.Datatype, n)
	for i := range ones {
		ones[i], displs[i], bdispls[i], types[i] = 1, i, 8*i, mpi.Float64
	}
	chk(t, "Alltoallw", mpi.Alltoallw(c, send, ones, bdispls, types, recv, ones, bdispls, types))
	var err error
	if r == 1 {
		err = mpi.Alltoallv(c, send, ones, displs, recv, ones, displs)
	} else {
		err = mpi.Alltoallw(c, send, ones, bdispls, types, recv, ones, bdispls, types)
	}
	if err == nil || !strings.Contains(err.Error(), "coll_check") || !strings.Contains(err.Error(), "Alltoall") {
		t.Errorf("rank %d: Alltoallw against Alltoallv: %v", r, err)
	}
	// Rank 0 expects two float64s from rank 1, which sends one: every rank hears of it.
	rc := append([]int(nil), ones...)
	if r == 0 {
		rc[1] = 2
	}
	err = mpi.Alltoallw(c, send, ones, bdispls, types, make([]float64, n+1), rc, bdispls, types)
	if !errors.Is(err, mpi.ErrCount) || !strings.Contains(err.Error(), "the block rank 1 sends rank 0") {
		t.Errorf("rank %d: Alltoallw with a block of the wrong size: %v", r, err)
	}
	chk(t, "Barrier", c.Barrier())
	chk(t, "Finalize", mpi.Finalize())
}
