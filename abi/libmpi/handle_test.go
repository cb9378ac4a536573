package main

import (
	"strings"
	"sync"
	"testing"
)

// The handle layout and a table's lookups, in one process (the C programs of
// abi/testdata check the same through the library in real jobs).

func TestHandleLayout(t *testing.T) {
	for k := kComm; k < nKinds; k++ {
		top := maxSlots - 1
		if k == kCMsg {
			top = cMsgSlots - 1 // p2pshort.c's table is smaller
			if h := newHandle(k, cMsgSlots); kindOf(h) != 0 {
				t.Errorf("kind %d: %#x, past p2pshort.c's table, decodes as kind %d", k, h, kindOf(h))
			}
		}
		h := newHandle(k, top)
		if h < handleBase || h > 1<<31-1 {
			t.Errorf("kind %d: handle %#x outside [handleBase, 2^31)", k, h)
		}
		if kindOf(h) != k || slotOf(h) != top {
			t.Errorf("kind %d: %#x decodes as kind %d slot %d", k, h, kindOf(h), slotOf(h))
		}
		g := h
		for i := 0; i < 1<<7; i++ {
			n := nextGen(g)
			if n == g || kindOf(n) != k || slotOf(n) != slotOf(h) {
				t.Fatalf("kind %d: nextGen(%#x) = %#x", k, g, n)
			}
			g = n
		}
		if g != h {
			t.Errorf("kind %d: 128 generations on, %#x is not back at %#x", k, g, h)
		}
	}
	for _, h := range []uintptr{0, 0x101, 0x3ff, 0x12345, 1 << 31, 0x7fffffff, ^uintptr(0)} {
		if k := kindOf(h); k != 0 {
			t.Errorf("kindOf(%#x) = %d, want none", h, k)
		}
	}
}

func TestTableGenerations(t *testing.T) {
	tab := &groups // whatHandle asks the kind's table whether a slot was used
	a, b := new(grp), new(grp)
	ha := tab.add(a)
	if tab.get(ha) != a {
		t.Fatal("a live handle does not find its object")
	}
	tab.remove(ha)
	if tab.get(ha) != nil {
		t.Fatal("a freed handle finds an object")
	}
	// Churn past the quarantine: the first slot comes back under a new generation.
	live := map[uintptr]*grp{}
	stale := []uintptr{ha}
	for i := 0; i < 3*quarantine; i++ {
		h := tab.add(b)
		if slotOf(h) == slotOf(ha) {
			live[h] = b
			break
		}
		stale = append(stale, h)
		tab.remove(h)
	}
	if len(live) != 1 {
		t.Fatalf("the first slot was not reused within %d frees", 3*quarantine)
	}
	for _, h := range stale {
		if o := tab.get(h); o != nil {
			t.Errorf("stale handle %#x finds an object", h)
		}
		if got := whatHandle(h, kGroup); got != "is a group that was freed" {
			t.Errorf("whatHandle(stale %#x) = %q", h, got)
		}
	}
	for h, o := range live {
		if tab.get(h) != o {
			t.Errorf("live handle %#x does not find its object", h)
		}
		// The same slot under another kind finds nothing.
		other := newHandle(kComm, slotOf(h))
		if tab.get(other) != nil {
			t.Errorf("a communicator handle %#x finds a group", other)
		}
	}
}

// Lookups take no lock: readers on other goroutines must find every live handle's own
// object, and nothing under a freed one, while adds grow the table past several
// chunks (a new directory each time) and removes free slots for reuse. Under -race
// this checks the publication order too.
func TestTableLookupsWhileGrowing(t *testing.T) {
	var tab table[grp]
	tab.kind = kGroup
	const n = 3 * tableChunk
	objs := make([]*grp, n)
	hs := make([]uintptr, n)
	for i := range objs {
		objs[i] = new(grp)
	}
	hs[0] = tab.add(objs[0])
	var wg sync.WaitGroup
	done := make(chan struct{})
	errs := make(chan string, 4)
	for r := 0; r < 2; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				if o := tab.get(hs[0]); o != objs[0] {
					errs <- "the first handle lost its object"
					return
				}
				// A handle of a slot beyond the table, or of another kind, finds nothing.
				if tab.get(newHandle(kGroup, maxSlots-1)) != nil || tab.get(newHandle(kComm, 0)) != nil {
					errs <- "a handle finds an object it does not name"
					return
				}
			}
		}()
	}
	for i := 1; i < n; i++ {
		hs[i] = tab.add(objs[i])
		if i%2 == 0 {
			tab.remove(hs[i])
		}
	}
	close(done)
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
	for i := 1; i < n; i++ {
		want := objs[i]
		if i%2 == 0 {
			want = nil
		}
		if got := tab.get(hs[i]); got != want {
			t.Fatalf("handle %d (%#x): found %p, want %p", i, hs[i], got, want)
		}
	}
}

func TestWhatHandle(t *testing.T) {
	for _, c := range []struct {
		h    uintptr
		want kind
		says string
	}{
		{newHandle(kType, 3), kComm, "is a datatype, not a communicator"},
		{newHandle(kTypeC, 3), kInfo, "is a datatype, not an info object"},
		{0x209, kComm, "is a predefined datatype, not a communicator"},
		{0x101, kWin, "is a predefined communicator, not a window"},
		{0x12345, kComm, "is not a communicator"},
		{1 << 40, kErrh, "is not an error handler"},
		{newHandle(kFile, 0), kFile, "is not a file"},
		{501, kKeyval, "is not a keyval this program made"},
	} {
		if got := whatHandle(c.h, c.want); got != c.says {
			t.Errorf("whatHandle(%#x, %s) = %q, want %q", c.h, kinds[c.want].name, got, c.says)
		}
	}
	err := badHandle("Comm_size", "comm", hCommNull, kComm)
	if codeOf(err) != int32(kinds[kComm].class) || !strings.Contains(err.Error(), "comm is MPI_COMM_NULL") {
		t.Errorf("badHandle of MPI_COMM_NULL: %d %q", codeOf(err), err)
	}
}
