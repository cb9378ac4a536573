package mpi_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/mpigo/mpigo/mpi"
)

// Values of every shape the value calls must carry.
type vInner struct {
	Label string
	Xs    []float64
}

type vRecord struct {
	ID     int
	Name   string
	Data   []byte
	Tags   map[string]int
	In     vInner
	Ins    []vInner
	Ptr    *vInner
	Grid   [][]int32
	Nil    []int
	Empty  []string
	NilMap map[string]int
	Big    []float64 // out of band when long
}

func sampleRecord(rank, big int) vRecord {
	r := vRecord{
		ID: rank, Name: fmt.Sprintf("rank %d", rank), Data: []byte("bytes"),
		Tags:  map[string]int{"a": rank, "b": 2},
		In:    vInner{"in", []float64{1, float64(rank)}},
		Ins:   []vInner{{"x", nil}, {"", []float64{}}},
		Ptr:   &vInner{"p", []float64{3}},
		Grid:  [][]int32{{1, 2}, nil, {}},
		Empty: []string{},
	}
	if big > 0 {
		r.Big = make([]float64, big)
		for i := range r.Big {
			r.Big[i] = float64(rank*big + i)
		}
	}
	return r
}

func wantEqual[T any](t *testing.T, what string, got, want T) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: got %+v\nwant %+v", what, got, want)
	}
}

// TestValuePointToPoint: every point-to-point value call carries maps, nested
// structs, slices of structs, strings, nil and empty values, and large out-of-band
// slices, around a ring.
func TestValuePointToPoint(t *testing.T) {
	jobEach(t, 3, func(t *testing.T, rank, size int) {
		w := mpi.World
		next, prev := (rank+1)%size, (rank+size-1)%size
		for _, big := range []int{0, 100, 1 << 16} {
			// SendValue / RecvValue (the even ranks send first).
			if rank%2 == 0 {
				must(t, mpi.SendValue(w, sampleRecord(rank, big), next, 1))
			}
			got, st, err := mpi.RecvValue[vRecord](w, prev, 1)
			must(t, err)
			if rank%2 == 1 {
				must(t, mpi.SendValue(w, sampleRecord(rank, big), next, 1))
			}
			wantEqual(t, "RecvValue", got, sampleRecord(prev, big))
			if st.Source != prev || st.Tag != 1 || st.Bytes() < int64(8*big) {
				t.Fatalf("status %+v (%d bytes)", st, st.Bytes())
			}
			// IsendValue / IrecvValue, the receive posted first.
			rr, err := mpi.IrecvValue[vRecord](w, mpi.AnySource, 2)
			must(t, err)
			sr, err := mpi.IsendValue(w, sampleRecord(rank, big), next, 2)
			must(t, err)
			got, st, err = rr.Wait()
			must(t, err)
			wantEqual(t, "IrecvValue", got, sampleRecord(prev, big))
			if st.Source != prev {
				t.Fatalf("IrecvValue from %d, want %d", st.Source, prev)
			}
			_, _, err = sr.Wait()
			must(t, err)
			// SendrecvValue.
			got, _, err = mpi.SendrecvValue[vRecord, vRecord](w, sampleRecord(rank, big), next, 3, prev, 3)
			must(t, err)
			wantEqual(t, "SendrecvValue", got, sampleRecord(prev, big))
		}
		// Other types, nil and empty values.
		m, _, err := mpi.SendrecvValue[map[string]int, map[string]int](w, map[string]int{"k": rank}, next, 4, prev, 4)
		must(t, err)
		wantEqual(t, "map", m, map[string]int{"k": prev})
		s, _, err := mpi.SendrecvValue[string, string](w, "", next, 4, prev, 4)
		must(t, err)
		wantEqual(t, "empty string", s, "")
		var nilMap map[string]int
		m, _, err = mpi.SendrecvValue[map[string]int, map[string]int](w, nilMap, next, 4, prev, 4)
		must(t, err)
		if m != nil {
			t.Fatalf("nil map arrived as %v", m)
		}
		ps, _, err := mpi.SendrecvValue[[]*vInner, []*vInner](w, []*vInner{nil, {"q", nil}}, next, 4, prev, 4)
		must(t, err)
		wantEqual(t, "pointers", ps, []*vInner{nil, {"q", nil}})
		// ProcNull: nothing moves.
		must(t, mpi.SendValue(w, 5, mpi.ProcNull, 0))
		z, st, err := mpi.RecvValue[int](w, mpi.ProcNull, 0)
		if err != nil || z != 0 || st.Source != mpi.ProcNull {
			t.Fatalf("from ProcNull: %v %+v %v", z, st, err)
		}
	})
}

// TestValueErrors: a type that cannot be sent is refused naming the field; a
// receive of the wrong type names both types and leaves the communicator usable,
// also when the value had out-of-band slices.
func TestValueErrors(t *testing.T) {
	jobEach(t, 2, func(t *testing.T, rank, size int) {
		w := mpi.World
		type bad struct {
			Jobs []struct{ Done chan bool }
		}
		err := mpi.SendValue(w, bad{}, 1-rank, 0)
		if !errors.Is(err, mpi.ErrType) || !strings.Contains(err.Error(), ".Jobs[i].Done") {
			t.Fatalf("chan field: %v", err)
		}
		if err := mpi.SendValue(w, func() {}, 1-rank, 0); !errors.Is(err, mpi.ErrType) {
			t.Fatalf("func: %v", err)
		}
		if rank == 0 {
			must(t, mpi.SendValue(w, map[string]int{"a": 1}, 1, 5))
			must(t, mpi.SendValue(w, make([]float64, 1<<15), 1, 5)) // out of band
			must(t, mpi.SendValue(w, "after", 1, 5))
		} else {
			_, _, err := mpi.RecvValue[[]string](w, 0, 5)
			if !errors.Is(err, mpi.ErrType) || !strings.Contains(err.Error(), "map[string]int") || !strings.Contains(err.Error(), "[]string") {
				t.Fatalf("wrong type: %v", err)
			}
			_, _, err = mpi.RecvValue[int](w, 0, 5)
			if !errors.Is(err, mpi.ErrType) || !strings.Contains(err.Error(), "[]float64") {
				t.Fatalf("wrong type (out of band): %v", err)
			}
			s, _, err := mpi.RecvValue[string](w, 0, 5)
			must(t, err)
			wantEqual(t, "after errors", s, "after")
		}
		// Typed messages are not values.
		if rank == 0 {
			must(t, mpi.Send(w, []int32{1, 2}, 1, 6))
		} else if _, _, err := mpi.RecvValue[int](w, 0, 6); err == nil {
			t.Fatal("a typed message decoded as a value")
		}
		// Plain values, small (the pooled path) and large (new memory): a value of
		// another plain type is ErrType naming both; the right one round-trips.
		type point struct{ X, Y int32 }
		var big [100]int64
		for i := range big {
			big[i] = int64(i * i)
		}
		if rank == 0 {
			must(t, mpi.SendValue(w, int32(7), 1, 7))
			must(t, mpi.SendValue(w, point{3, 4}, 1, 7))
			must(t, mpi.SendValue(w, big, 1, 7))
			must(t, mpi.SendValue(w, big, 1, 7))
		} else {
			if _, _, err := mpi.RecvValue[int64](w, 0, 7); !errors.Is(err, mpi.ErrType) ||
				!strings.Contains(err.Error(), "int32") || !strings.Contains(err.Error(), "int64") {
				t.Fatalf("int32 received as int64: %v, want ErrType naming both", err)
			}
			p, st, err := mpi.RecvValue[point](w, 0, 7)
			must(t, err)
			wantEqual(t, "plain struct", p, point{3, 4})
			if st.Source != 0 || st.Tag != 7 {
				t.Errorf("status %+v, want source 0 tag 7", st)
			}
			if _, _, err := mpi.RecvValue[[99]int64](w, 0, 7); !errors.Is(err, mpi.ErrType) {
				t.Fatalf("[100]int64 received as [99]int64: %v, want ErrType", err)
			}
			b, _, err := mpi.RecvValue[[100]int64](w, 0, 7)
			must(t, err)
			wantEqual(t, "large plain value", b, big)
		}
		// A named plain type arrives as its underlying type (the structure is the
		// type's identity); a plain value received as a general type, and a general
		// one as a plain type, are ErrType naming both.
		type celsius float64
		if rank == 0 {
			must(t, mpi.SendValue(w, celsius(21.5), 1, 8))
			must(t, mpi.SendValue(w, int32(9), 1, 8))
			must(t, mpi.SendValue(w, []string{"x"}, 1, 8))
			must(t, mpi.SendValue(w, celsius(-4), 1, 8))
		} else {
			f, _, err := mpi.RecvValue[float64](w, 0, 8)
			must(t, err)
			wantEqual(t, "celsius as float64", f, 21.5)
			if _, _, err := mpi.RecvValue[map[string]int](w, 0, 8); !errors.Is(err, mpi.ErrType) ||
				!strings.Contains(err.Error(), "int32") || !strings.Contains(err.Error(), "map[string]int") {
				t.Fatalf("int32 received as a map: %v, want ErrType naming both", err)
			}
			if _, _, err := mpi.RecvValue[float64](w, 0, 8); !errors.Is(err, mpi.ErrType) ||
				!strings.Contains(err.Error(), "[]string") || !strings.Contains(err.Error(), "float64") {
				t.Fatalf("[]string received as float64: %v, want ErrType naming both", err)
			}
			var c celsius
			_, err = mpi.RecvValueInto(w, &c, 0, 8)
			must(t, err)
			wantEqual(t, "celsius into", c, celsius(-4))
		}
	})
}

// TestValueCollectives: every value collective on 1 to 8 ranks, over shared memory
// and forced TCP, with nested values, large out-of-band slices (BcastValue), nil
// and empty values, roots other than 0, and a reduction that does not commute.
func TestValueCollectives(t *testing.T) {
	for _, n := range []int{1, 2, 3, 5, 8} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			jobEach(t, n, valueCollectives)
		})
	}
}

func valueCollectives(t *testing.T, rank, size int) {
	w := mpi.World
	root := size - 1
	for _, big := range []int{0, 1 << 13} {
		var in vRecord
		if rank == root {
			in = sampleRecord(root, big)
		}
		got, err := mpi.BcastValue(w, in, root)
		must(t, err)
		wantEqual(t, "BcastValue", got, sampleRecord(root, big))
	}
	nilMap, err := mpi.BcastValue[map[string]int](w, nil, 0)
	must(t, err)
	if nilMap != nil {
		t.Fatalf("BcastValue of a nil map: %v", nilMap)
	}
	all, err := mpi.GatherValues(w, sampleRecord(rank, 10), root)
	must(t, err)
	if rank == root {
		for i := range size {
			wantEqual(t, "GatherValues", all[i], sampleRecord(i, 10))
		}
	} else if all != nil {
		t.Fatalf("GatherValues off the root: %v", all)
	}
	var vs []map[string][]string
	if rank == 0 {
		for i := range size {
			vs = append(vs, map[string][]string{"to": {fmt.Sprint(i)}, "empty": {}})
		}
	}
	mine, err := mpi.ScatterValues(w, vs, 0)
	must(t, err)
	wantEqual(t, "ScatterValues", mine, map[string][]string{"to": {fmt.Sprint(rank)}, "empty": {}})
	strs, err := mpi.AllgatherValues(w, strings.Repeat("x", rank))
	must(t, err)
	for i := range size {
		wantEqual(t, "AllgatherValues", strs[i], strings.Repeat("x", i))
	}
	out := make([][]vInner, size)
	for j := range size {
		out[j] = []vInner{{fmt.Sprintf("%d->%d", rank, j), []float64{float64(j)}}}
	}
	in, err := mpi.AlltoallValues(w, out)
	must(t, err)
	for i := range size {
		wantEqual(t, "AlltoallValues", in[i], []vInner{{fmt.Sprintf("%d->%d", i, rank), []float64{float64(rank)}}})
	}
	// Concatenation does not commute: the result shows the order.
	cat := func(a, b []int) []int { return append(append([]int{}, a...), b...) }
	want := make([]int, size)
	for i := range want {
		want[i] = i
	}
	for r := range size {
		red, err := mpi.ReduceValue(w, []int{rank}, cat, r)
		must(t, err)
		if rank == r {
			wantEqual(t, "ReduceValue", red, want)
		} else if red != nil {
			t.Fatalf("ReduceValue off the root: %v", red)
		}
	}
	red, err := mpi.AllreduceValue(w, []int{rank}, cat)
	must(t, err)
	wantEqual(t, "AllreduceValue", red, want)
	sum, err := mpi.AllreduceValue(w, map[string]int{"n": 1}, func(a, b map[string]int) map[string]int {
		return map[string]int{"n": a["n"] + b["n"]}
	})
	must(t, err)
	wantEqual(t, "AllreduceValue of maps", sum, map[string]int{"n": size})
	// A rank whose value cannot be encoded: every rank gets an error, none waits.
	type withChan struct{ C chan int }
	_, err = mpi.AllgatherValues(w, withChan{})
	if !errors.Is(err, mpi.ErrType) {
		t.Fatalf("AllgatherValues of a chan: %v", err)
	}
	must(t, w.Barrier())
}

// TestValueRequests: Test completes a value request, Cancel cancels a value receive
// that has no message, and a view reports its context.
func TestValueRequests(t *testing.T) {
	jobEach(t, 2, func(t *testing.T, rank, size int) {
		w := mpi.World
		peer := 1 - rank
		rr, err := mpi.IrecvValue[[]vInner](w, peer, 1)
		must(t, err)
		sr, err := mpi.IsendValue(w, []vInner{{"t", make([]float64, 1<<13)}}, peer, 1)
		must(t, err)
		for {
			v, st, ok, err := rr.Test()
			must(t, err)
			if ok {
				if len(v) != 1 || v[0].Label != "t" || len(v[0].Xs) != 1<<13 || st.Source != peer {
					t.Fatalf("Test gave %d values, status %+v", len(v), st)
				}
				break
			}
		}
		for {
			_, _, ok, err := sr.Test()
			must(t, err)
			if ok {
				break
			}
		}
		never, err := mpi.IrecvValue[string](w, peer, 99)
		must(t, err)
		must(t, never.Cancel())
		s, st, err := never.Wait()
		if err != nil || s != "" || !st.Cancelled() {
			t.Fatalf("cancelled value receive: %q %+v %v", s, st, err)
		}
		if w.Context() != context.Background() {
			t.Fatal("World has a context of its own")
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		if w.WithContext(ctx).Context() != ctx {
			t.Fatal("a view does not report its context")
		}
		must(t, w.Barrier())
	})
}

// TestValueNilComm: every value call on a nil communicator (MPI_COMM_NULL) is an
// error of class ErrComm, not a panic.
func TestValueNilComm(t *testing.T) {
	job(t, 1, func(t *testing.T, rank, size int) {
		var c *mpi.Comm
		add := func(a, b int) int { return a + b }
		errs := map[string]error{}
		errs["SendValue"] = mpi.SendValue(c, 1, 0, 0)
		_, _, errs["RecvValue"] = mpi.RecvValue[int](c, 0, 0)
		_, errs["IsendValue"] = mpi.IsendValue(c, 1, 0, 0)
		_, errs["IrecvValue"] = mpi.IrecvValue[int](c, 0, 0)
		_, _, errs["SendrecvValue"] = mpi.SendrecvValue[int, int](c, 1, 0, 0, 0, 0)
		_, errs["BcastValue"] = mpi.BcastValue(c, 1, 0)
		_, errs["GatherValues"] = mpi.GatherValues(c, 1, 0)
		_, errs["ScatterValues"] = mpi.ScatterValues(c, []int{1}, 0)
		_, errs["AllgatherValues"] = mpi.AllgatherValues(c, 1)
		_, errs["AlltoallValues"] = mpi.AlltoallValues(c, []int{1})
		_, errs["ReduceValue"] = mpi.ReduceValue(c, 1, add, 0)
		_, errs["AllreduceValue"] = mpi.AllreduceValue(c, 1, add)
		errs["Recv through a view"] = func() error { _, err := mpi.Recv(c.WithContext(context.Background()), []int{0}, 0, 0); return err }()
		for name, err := range errs {
			if !errors.Is(err, mpi.ErrComm) {
				t.Errorf("%s on a nil communicator: %v", name, err)
			}
		}
		// Wrong arguments: a short vs, a nil operation, a root out of range.
		if _, err := mpi.ScatterValues(mpi.World, []int{1, 2}, 0); !errors.Is(err, mpi.ErrCount) {
			t.Errorf("ScatterValues with 2 values on 1 rank: %v", err)
		}
		if _, err := mpi.ReduceValue[int](mpi.World, 1, nil, 0); !errors.Is(err, mpi.ErrOp) {
			t.Errorf("ReduceValue with a nil op: %v", err)
		}
		if _, err := mpi.ReduceValue(mpi.World, 1, add, 3); !errors.Is(err, mpi.ErrRoot) {
			t.Errorf("ReduceValue to root 3 of 1: %v", err)
		}
	})
}

// TestRecvValueInto: receiving into the same value again reuses its large slices'
// memory and overwrites every part; a wrong type leaves it as it was.
func TestRecvValueInto(t *testing.T) {
	jobEach(t, 2, func(t *testing.T, rank, size int) {
		w := mpi.World
		if rank == 0 {
			for i := range 3 {
				must(t, mpi.SendValue(w, sampleRecord(i, 1<<13), 1, 0))
			}
			must(t, mpi.SendValue(w, vRecord{}, 1, 0))
			must(t, mpi.SendValue(w, "not a record", 1, 0))
			return
		}
		var v vRecord
		var mem *float64
		for i := range 3 {
			_, err := mpi.RecvValueInto(w, &v, 0, 0)
			must(t, err)
			wantEqual(t, "RecvValueInto", v, sampleRecord(i, 1<<13))
			if i == 0 {
				mem = &v.Big[0]
			} else if &v.Big[0] != mem {
				t.Fatalf("receive %d: the large slice was not received into the memory it had", i)
			}
		}
		_, err := mpi.RecvValueInto(w, &v, 0, 0)
		must(t, err)
		wantEqual(t, "RecvValueInto of the zero record", v, vRecord{})
		v = sampleRecord(5, 0)
		if _, err := mpi.RecvValueInto(w, &v, 0, 0); !errors.Is(err, mpi.ErrType) {
			t.Fatalf("wrong type: %v", err)
		}
		wantEqual(t, "value after a wrong type", v, sampleRecord(5, 0))
		if _, err := mpi.RecvValueInto[int](w, nil, 0, 0); !errors.Is(err, mpi.ErrArg) {
			t.Fatalf("nil pointer: %v", err)
		}
	})
}

// TestValueConcurrentGoroutines: at ThreadMultiple, goroutines sending and receiving
// small plain values at once (each with its own tag) share the scratch buffers
// safely: every value arrives intact. Run under -race too.
func TestValueConcurrentGoroutines(t *testing.T) {
	jobEach(t, 2, func(t *testing.T, rank, size int) {
		w := mpi.World
		type pair struct{ G, I int64 }
		const goroutines, n = 4, 300
		errs := make(chan error, goroutines)
		for g := 0; g < goroutines; g++ {
			go func() {
				for i := 0; i < n; i++ {
					if err := mpi.SendValue(w, pair{int64(g), int64(i)}, 1-rank, 10+g); err != nil {
						errs <- err
						return
					}
					v, _, err := mpi.RecvValue[pair](w, 1-rank, 10+g)
					if err != nil {
						errs <- err
						return
					}
					if v != (pair{int64(g), int64(i)}) {
						errs <- fmt.Errorf("goroutine %d, value %d: got %+v", g, i, v)
						return
					}
				}
				errs <- nil
			}()
		}
		for g := 0; g < goroutines; g++ {
			must(t, <-errs)
		}
	})
}

// TestValueCollectivesInter: every value collective on an intercommunicator of
// groups of 2 (world ranks 0 and 2) and 1 (world rank 1), over shared memory and
// forced TCP: values go from one group to the other, roots pass Root and ProcNull,
// the large slices of BcastValue's value out of band, a reduction in rank order.
func TestValueCollectivesInter(t *testing.T) {
	jobEach(t, 3, func(t *testing.T, rank, size int) {
		w := mpi.World
		side := rank % 2
		local, err := w.Split(side, rank)
		must(t, err)
		ic, err := mpi.IntercommCreate(local, 0, w, 1-side, 8) // leaders: world 0 and 1
		must(t, err)
		remote := map[int][]int{0: {1}, 1: {0, 2}}[side] // world ranks of the remote group
		lr := local.Rank()
		val := func(r int) string { return fmt.Sprintf("rank %d", r) }
		// rooted: root is the local rank rootLocal of side rootSide.
		rootArg := func(rootSide, rootLocal int) int {
			switch {
			case side != rootSide:
				return rootLocal
			case lr == rootLocal:
				return mpi.Root
			}
			return mpi.ProcNull
		}

		// BcastValue from world rank 2 (side 0, local 1), with an out-of-band slice.
		got, err := mpi.BcastValue(ic, sampleRecord(rank, 1<<14), rootArg(0, 1))
		must(t, err)
		switch {
		case side == 1:
			wantEqual(t, "BcastValue", got, sampleRecord(2, 1<<14))
		case rank == 2:
			wantEqual(t, "BcastValue at the root", got, sampleRecord(2, 1<<14))
		default:
			wantEqual(t, "BcastValue at a rank that takes no part", got, vRecord{})
		}

		// GatherValues at world rank 1 (side 1's only rank).
		all, err := mpi.GatherValues(ic, val(rank), rootArg(1, 0))
		must(t, err)
		if side == 1 {
			wantEqual(t, "GatherValues", all, []string{val(0), val(2)})
		} else if all != nil {
			t.Fatalf("GatherValues at a sender: %v", all)
		}

		// ScatterValues from world rank 0 (side 0, local 0) to side 1.
		var vs []map[string]int
		if rank == 0 {
			vs = []map[string]int{{"to 1": 1}}
		}
		one, err := mpi.ScatterValues(ic, vs, rootArg(0, 0))
		must(t, err)
		if side == 1 {
			wantEqual(t, "ScatterValues", one, map[string]int{"to 1": 1})
		} else if one != nil {
			t.Fatalf("ScatterValues at side 0: %v", one)
		}

		// AllgatherValues: each group gets the other's values.
		all, err = mpi.AllgatherValues(ic, val(rank))
		must(t, err)
		want := []string{}
		for _, r := range remote {
			want = append(want, val(r))
		}
		wantEqual(t, "AllgatherValues", all, want)

		// AlltoallValues: vs[j] to remote rank j.
		out := make([]string, len(remote))
		for j, r := range remote {
			out[j] = fmt.Sprintf("%d->%d", rank, r)
		}
		in, err := mpi.AlltoallValues(ic, out)
		must(t, err)
		want = want[:0]
		for _, r := range remote {
			want = append(want, fmt.Sprintf("%d->%d", r, rank))
		}
		wantEqual(t, "AlltoallValues", in, want)

		// ReduceValue at world rank 1 and AllreduceValue, with an operation that does
		// not commute: the other group's values in rank order.
		cat := func(a, b string) string { return a + "," + b }
		red, err := mpi.ReduceValue(ic, val(rank), cat, rootArg(1, 0))
		must(t, err)
		if side == 1 {
			wantEqual(t, "ReduceValue", red, val(0)+","+val(2))
		} else if red != "" {
			t.Fatalf("ReduceValue at a sender: %q", red)
		}
		red, err = mpi.AllreduceValue(ic, val(rank), cat)
		must(t, err)
		wantEqual(t, "AllreduceValue", red, map[int]string{0: val(1), 1: val(0) + "," + val(2)}[side])

		// A wrong count is refused naming the rule.
		if _, err := mpi.AlltoallValues(ic, []string{"a", "b", "c"}); !errors.Is(err, mpi.ErrCount) || !strings.Contains(err.Error(), "RemoteSize") {
			t.Fatalf("AlltoallValues with 3 values: %v", err)
		}
		// A root whose value cannot be encoded (a cycle): the root says why, the other
		// group gets ErrRoot, the idle rank nothing, and the calls after still match.
		type link struct{ Next *link }
		cyc := &link{}
		cyc.Next = cyc
		check := func(what string, err error) {
			t.Helper()
			switch {
			case rank == 0 && (err == nil || !strings.Contains(err.Error(), "cycle")):
				t.Fatalf("%s at the root: %v, want the cycle named", what, err)
			case side == 1 && !errors.Is(err, mpi.ErrRoot):
				t.Fatalf("%s at the other group: %v, want ErrRoot", what, err)
			case rank == 2 && err != nil:
				t.Fatalf("%s at the idle rank: %v", what, err)
			}
		}
		_, err = mpi.ScatterValues(ic, []*link{cyc}, rootArg(0, 0))
		check("ScatterValues", err)
		_, err = mpi.BcastValue(ic, cyc, rootArg(0, 0))
		check("BcastValue", err)
		all, err = mpi.AllgatherValues(ic, val(rank))
		must(t, err)
		if len(all) != len(remote) {
			t.Fatalf("AllgatherValues after the failures: %v", all)
		}
		must(t, ic.Free())
		must(t, local.Free())
	})
}
