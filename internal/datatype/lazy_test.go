package datatype

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

// TestCompactIndexContents checks that the index constructors which keep
// their blocks as the compiled arrays (compactIdx) give the caller's
// arguments back, take the general path where those arrays could not, and
// pack as the reference typemap says.
func TestCompactIndexContents(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var compactSeen, generalSeen int
	defer func() {
		if compactSeen == 0 || generalSeen == 0 {
			t.Errorf("compact %d, general %d: both paths must be tried", compactSeen, generalSeen)
		}
	}()
	for trial := range 200 {
		n := 1 + r.IntN(40)
		lens32, disps32 := make([]int32, n), make([]int32, n)
		var off int32
		for i := range n {
			off += int32(r.IntN(5)) // a gap of 0 touches the block before
			lens32[i] = int32(r.IntN(4))
			disps32[i] = off
			off += lens32[i]
		}
		if trial%3 == 0 {
			r.Shuffle(n, func(i, j int) {
				lens32[i], lens32[j] = lens32[j], lens32[i]
				disps32[i], disps32[j] = disps32[j], disps32[i]
			})
		}
		lens, disps := make([]int64, n), make([]int64, n)
		copyInts(lens, lens32)
		copyInts(disps, disps32)
		// compactIdx applies when no block is empty or touches the one before.
		want := true
		for i := range n {
			want = want && lens[i] > 0 && (i == 0 || disps[i] != disps[i-1]+lens[i-1])
		}
		if want {
			compactSeen++
		} else {
			generalSeen++
		}
		old := []*Type{Float64, Int16, must(t)(Contiguous(3, Int32))}[trial%3]
		ext := old.Extent()
		hd := make([]int64, n)
		for i := range n {
			hd[i] = disps[i] * ext
		}
		for _, tc := range []struct {
			ty          *Type
			comb        Combiner
			ints, addrs []int64
		}{
			{must(t)(IndexedOf(lens32, disps32, old)), CombinerIndexed, slices.Concat([]int64{int64(n)}, lens, disps), nil},
			{must(t)(Indexed(lens, disps, old)), CombinerIndexed, slices.Concat([]int64{int64(n)}, lens, disps), nil},
			{must(t)(HindexedOf(lens32, hd, old)), CombinerHindexed, slices.Concat([]int64{int64(n)}, lens), hd},
			{must(t)(IndexedBlockOf(2, disps32, old)), CombinerIndexedBlock, slices.Concat([]int64{int64(n), 2}, disps), nil},
			{must(t)(HindexedBlockOf(2, hd, old)), CombinerHindexedBlock, []int64{int64(n), 2}, hd},
		} {
			ints, addrs, _, err := tc.ty.Contents()
			c, ni, na, nt := tc.ty.Envelope()
			if err != nil || c != tc.comb || ni != len(tc.ints) || na != len(tc.addrs) || nt != 1 ||
				!slices.Equal(ints, tc.ints) || !slices.Equal(addrs, tc.addrs) {
				t.Fatalf("trial %d %s: envelope %d %d %d contents %v %v %v, want %v %v", trial, tc.comb, ni, na, nt, ints, addrs, err, tc.ints, tc.addrs)
			}
			if tc.comb == CombinerIndexed || tc.comb == CombinerHindexed {
				if got := tc.ty.def.cx != nil; got != want {
					t.Fatalf("trial %d %s: compact %v, want %v (lens %v disps %v)", trial, tc.comb, got, want, lens, disps)
				}
			}
			c2 := tc.ty.Clone()
			if ci, ca, _, _ := c2.Contents(); !slices.Equal(ci, tc.ints) || !slices.Equal(ca, tc.addrs) {
				t.Fatalf("trial %d %s: clone contents %v %v", trial, tc.comb, ci, ca)
			}
			checkAgainstRef(t, r, tc.ty, 1+int64(trial%3))
		}
	}
}

// TestLazyCommitConcurrent uses a type committed once from many goroutines at
// once: its program is compiled on first use, once (run with -race).
func TestLazyCommitConcurrent(t *testing.T) {
	bl, d, ext := anchorIndexed()
	for round := range 4 {
		ty, err := Indexed(bl, d, Float64)
		if err != nil {
			t.Fatal(err)
		}
		dup, _ := Dup(ty)
		if err := ty.Commit(); err != nil {
			t.Fatal(err)
		}
		src := make([]byte, ext*8)
		for i := range src {
			src[i] = byte(i)
		}
		want := make([]byte, ty.Size())
		p := 0
		for i := range bl {
			p += copy(want[p:], src[d[i]*8:(d[i]+bl[i])*8])
		}
		var wg sync.WaitGroup
		for g := range 8 {
			wg.Go(func() {
				got := make([]byte, ty.Size())
				var err error
				switch (g + round) % 4 {
				case 0:
					_, err = ty.Pack(got, src, 1)
				case 1:
					var b Bound
					if b, err = ty.Bind(src, 1); err == nil {
						err = b.Pack(got)
					}
				case 2:
					if err = dup.Commit(); err == nil {
						_, err = dup.Pack(got, src, 1)
					}
				case 3:
					if ty.IsContiguous() {
						t.Error("indexed type reported contiguous")
					}
					_, err = ty.Pack(got, src, 1)
				}
				if err != nil || !bytes.Equal(got, want) {
					t.Errorf("goroutine %d: %v", g, err)
				}
			})
		}
		wg.Wait()
		if ty.Program() != "idx128c(100000 blocks)" {
			t.Errorf("program %s", ty.Program())
		}
	}
}

// TestFinishVecAgrees checks the vector constructors' short way (finishVec)
// against finish's general one on random vectors of various old types.
func TestFinishVecAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	olds := []*Type{Float64, Int8, Float64Int32, Int16Int32, must(t)(Contiguous(0, Int32)),
		must(t)(Resized(Int32, -4, 12)), must(t)(Vector(3, 2, -4, Int16)),
		must(t)(Struct([]int64{1, 1}, []int64{0, 9}, []*Type{Int8, Float64})), CLong}
	fast := 0
	for range 2000 {
		old := olds[r.IntN(len(olds))]
		count, blen, stride := r.Int64N(6), r.Int64N(4), r.Int64N(21)-10
		if r.IntN(10) == 0 {
			stride <<= 26 + r.IntN(8) // about the short way's limits
		}
		edges := []int64{1 << 20, 1<<31 - 1, 1 << 31, 1<<31 + 1, 1 << 32, 1 << 33}
		switch r.IntN(20) {
		case 0:
			count = edges[r.IntN(len(edges))]
		case 1:
			blen = edges[r.IntN(len(edges))]
		case 2:
			count, blen = edges[r.IntN(len(edges))], edges[r.IntN(len(edges))]
		}
		ty, err := Hvector(count, blen, stride*3, old)
		ref := &Type{comb: CombinerHvector, def: def{op: defVec, count: count, blen: blen, stride: stride * 3, old: old}}
		_, rerr := ref.finishAll()
		if (err == nil) != (rerr == nil) {
			t.Fatalf("hvector(%d, %d, %d, %s): %v, general way %v", count, blen, stride*3, old.Name(), err, rerr)
		}
		if err != nil {
			continue
		}
		if ty.size != ref.size || ty.lb != ref.lb || ty.ub != ref.ub || ty.tlb != ref.tlb || ty.tub != ref.tub ||
			ty.align != ref.align || ty.kind != ref.kind || ty.xsize != ref.xsize || ty.xconv != ref.xconv || ty.marked != ref.marked {
			t.Fatalf("hvector(%d, %d, %d, %s): short way %+v, general %+v", count, blen, stride*3, old.Name(),
				[]int64{ty.size, ty.lb, ty.ub, ty.tlb, ty.tub, ty.align, int64(ty.kind), ty.xsize},
				[]int64{ref.size, ref.lb, ref.ub, ref.tlb, ref.tub, ref.align, int64(ref.kind), ref.xsize})
		}
		if ty.finishVec() {
			fast++
		}
	}
	if fast < 500 {
		t.Errorf("the short way applied %d times of 2000", fast)
	}
}

// TestUnpackShortBlocks unpacks indexes of short blocks of every length from 1
// to 128 bytes (the branch-free kernel's range and its fallbacks) into memory
// whose other bytes must stay as they were, at several counts, and packs them
// back (the fixed-size moves' kernels).
func TestUnpackShortBlocks(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for trial := range 300 {
		maxLen := []int{8, 16, 32, 64, 128}[trial%5]
		n := 1 + r.IntN(60)
		lens, disps := make([]int64, n), make([]int64, n)
		var off int64
		for i := range n {
			off += 1 + r.Int64N(20)
			lens[i] = 1 + r.Int64N(int64(maxLen))
			if trial%7 == 0 {
				lens[i] = 8 * (1 + r.Int64N(int64(maxLen/8)))
			}
			disps[i] = off
			off += lens[i]
		}
		if trial%4 == 0 {
			r.Shuffle(n, func(i, j int) {
				lens[i], lens[j] = lens[j], lens[i]
				disps[i], disps[j] = disps[j], disps[i]
			})
		}
		ty := must(t)(Indexed(lens, disps, Int8))
		if err := ty.Commit(); err != nil {
			t.Fatal(err)
		}
		count := 1 + int64(trial%3)
		ext := ty.Extent()
		packed := make([]byte, count*ty.Size())
		for i := range packed {
			packed[i] = byte(r.Uint32()) | 1
		}
		mem := make([]byte, ty.LB()+count*ext+8)
		want := make([]byte, len(mem))
		p := 0
		for k := range count {
			for i := range n {
				p += copy(want[k*ext+disps[i]:k*ext+disps[i]+lens[i]], packed[p:])
			}
		}
		if _, err := ty.Unpack(mem, packed, count); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(mem, want) {
			t.Fatalf("trial %d %s x%d: unpacked memory differs (lens %v disps %v)", trial, ty.Program(), count, lens, disps)
		}
		// A bound buffer of one instance runs the index's own kernel.
		clear(mem)
		b, err := ty.Bind(mem, count)
		if err == nil {
			err = b.Unpack(packed)
		}
		if err != nil || !bytes.Equal(mem, want) {
			t.Fatalf("trial %d %s x%d: bound unpack %v (lens %v disps %v)", trial, ty.Program(), count, err, lens, disps)
		}
		// Packed into a buffer with room to spare, whose bytes past the
		// packed ones stay as they were.
		out := make([]byte, len(packed)+130)
		for i := range out {
			out[i] = 0xee
		}
		if k, err := ty.Pack(out, want, count); err != nil || k != int64(len(packed)) ||
			!bytes.Equal(out[:k], packed) || bytes.Count(out[k:], []byte{0xee}) != len(out)-int(k) {
			t.Fatalf("trial %d %s x%d: pack = %d, %v (lens %v disps %v)", trial, ty.Program(), count, k, err, lens, disps)
		}
	}
}
