package shm

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
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
	// The thread goes to sleep just after it has said its id: look until it has.
	for deadline := time.Now().Add(10 * time.Second); ; runtime.Gosched() {
		stat, err := os.ReadFile("/proc/self/task/" + strconv.Itoa(tid) + "/stat")
		if err != nil {
			t.Fatalf("thread %d is not one of this process's: %v", tid, err)
		}
		// The state follows the command's closing parenthesis.
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(f) > 0 && f[0] == "S" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("thread %d is not asleep after 10 s: %s", tid, stat)
		}
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
