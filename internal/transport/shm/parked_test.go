package shm

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// TestParkedTID: the thread that peers' single-copy calls name is a thread of this
// process other than the main one, asleep, and a read naming it reads this process's
// memory; after release its goroutine is gone.
func TestParkedTID(t *testing.T) {
	before := runtime.NumGoroutine()
	p := park()
	tid := p.tid
	if tid == os.Getpid() || tid <= 0 {
		t.Fatalf("parked thread id %d; the process is %d", tid, os.Getpid())
	}
	stat, err := os.ReadFile("/proc/self/task/" + strconv.Itoa(tid) + "/stat")
	if err != nil {
		t.Fatalf("thread %d is not one of this process's: %v", tid, err)
	}
	// The state follows the command's closing parenthesis.
	if f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:])); len(f) == 0 || f[0] != "S" {
		t.Fatalf("thread %d is not asleep: %s", tid, stat)
	}
	want := uint64(0x5eed_c0de_1234_5678)
	var got uint64
	if err := readv(tid, unsafe.Slice((*byte)(unsafe.Pointer(&got)), 8), uint64(uintptr(unsafe.Pointer(&want)))); err != nil {
		p.release()
		t.Skipf("process_vm_readv is not permitted here: %v", err)
	}
	if got != want {
		t.Fatalf("read %#x through thread %d, want %#x", got, tid, want)
	}
	p.release()
	for runtime.NumGoroutine() > before {
		runtime.Gosched()
	}
}
