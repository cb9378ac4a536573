package shmcoll

import (
	"strings"
	"testing"

	"github.com/mpigo/mpigo/internal/transport/shm"
)

// TestRegion: a group over a memfd region made by shm.CreatePart and opened again
// through /proc (as a peer process would), then the descriptor closed and the
// region unmapped.
func TestRegion(t *testing.T) {
	l := Layout{Ranks: 2, Chunk: 4096, Chunks: 2, Slot: 4096}
	a, err := shm.CreatePart("test", l.Size(), l.Size())
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if err := Format(a.Mem, l); err != nil {
		t.Fatal(err)
	}
	b, err := shm.OpenPart(a.Addr(), l.Size())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	g0, err := Attach(a.Mem, 0, Options{})
	if err != nil {
		t.Fatal(err)
	}
	g1, err := Attach(b.Mem, 1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	got := make([]byte, 5000)
	go func() { done <- g1.Bcast(got, 0) }()
	want := []byte(strings.Repeat("region!", 1000)[:5000])
	if err := g0.Bcast(want, 0); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Error("Bcast through a reopened region: wrong data")
	}
	if err := a.CloseFd(); err != nil {
		t.Fatal(err)
	}
	if _, err := shm.OpenPart(a.Addr(), l.Size()); err == nil {
		t.Error("OpenPart succeeded after the creator closed its descriptor")
	}
	if _, err := shm.OpenPart([]byte{1, 2, 3}, 0); err == nil || !strings.Contains(err.Error(), "malformed") {
		t.Errorf("OpenPart of 3 bytes: %v", err)
	}
	if _, err := shm.CreatePart("test", 0, 0); err == nil || !strings.Contains(err.Error(), "size") {
		t.Errorf("CreatePart of 0 bytes: %v", err)
	}
}
