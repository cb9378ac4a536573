package mpir

import (
	"path/filepath"
	"strconv"
	"testing"

	"github.com/mpigo/mpigo/internal/core"
)

// TestFileSlots follows a communicator's slot window in the singleton job: files
// take the lowest free slot, a closed file's slot goes to the next file, files past
// the slots make windows of their own, and freeing the communicator with files open
// leaves the window to the last of them, which frees it.
func TestFileSlots(t *testing.T) {
	startWorld(t)
	const op = "TestFileSlots"
	x, err := NewComm(core.World, nil, ErrorsReturn, nil).Dup(op, nil, nil, func(*Comm) any { return nil })
	mustOK(t, err)
	dir := t.TempDir()
	n := 0
	open := func() *File {
		n++
		f, err := FileOpen(op, x.Dev(), nil, filepath.Join(dir, strconv.Itoa(n)), int(ModeCreate|ModeRdwr|ModeDeleteOnClose), nil, nil)
		mustOK(t, err)
		return f
	}
	files := []*File{open(), open()}
	s := slotStores.m[x.Dev()]
	if s == nil || files[0].slots != s || files[0].slot != 0 || files[1].slot != 1 {
		t.Fatalf("the first two files' slots: %v %d, %v %d; want the communicator's window, 0 and 1",
			files[0].slots, files[0].slot, files[1].slots, files[1].slot)
	}
	mustOK(t, files[0].Close(op))
	files[0] = open()
	if files[0].slots != s || files[0].slot != 0 || files[0].spDisp != 0 || files[1].spDisp != spSlotWords {
		t.Errorf("a file opened after slot 0's was closed took slot %d (displacement %d; slot 1's %d)", files[0].slot, files[0].spDisp, files[1].spDisp)
	}
	for range spSlotCount - 1 {
		files = append(files, open())
	}
	last := files[len(files)-1]
	if last.slots != nil || last.sp == nil || last.sp == s.w {
		t.Errorf("file %d of %d slots: slots %v; want a window of its own", len(files), spSlotCount, last.slots)
	}
	mustOK(t, last.Close(op))
	files = files[:len(files)-1]

	mustOK(t, x.Free(op))
	if _, ok := slotStores.m[x.Dev()]; ok || !s.orphan {
		t.Fatalf("the freed communicator's window: listed %v, orphan %v; want gone from the list, orphan", ok, s.orphan)
	}
	if _, err := files[1].PositionShared(op); err != nil {
		t.Errorf("a file's pointer after its communicator was freed: %v", err)
	}
	for _, f := range files {
		mustOK(t, s.w.Check(op)) // the window lives while a file does
		mustOK(t, f.Close(op))
	}
	if err := s.w.Check(op); err == nil {
		t.Error("the window of a freed communicator lives after its last file was closed")
	}
}
