package topo

import (
	"errors"
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/mpigo/mpigo/internal/config"
)

// BindTo is where a rank binds itself at Init (internal/core). Declared here, beside
// BindWatch, so that the launcher, which does not link the runtime, reads both.
var BindTo = config.String("bind_to", "auto",
	"bind each rank to a core: none; core (the i-th rank of a node to the i-th core, round robin); auto: core where a node has as many ranks as CPUs or more and nobody bound the ranks, else none; mpigo run --bind-to sets it").OneOf("none", "core", "auto")

// BindWatch is whether the process that starts a node's ranks watches the node's CPUs
// while they run: while other processes keep busy a CPU more than the ranks leave them,
// it frees the ranks that auto binding bound, and while they do or tasks wait for a
// CPU it tells every rank to wait as an oversubscribed one (internal/launch,
// cpuwatch.go).
// Declared here so that a rank links it too, as every setting is a control variable.
var BindWatch = config.Bool("bind_watch", true,
	"watch the CPUs of a node while its ranks run (mpigo's own launcher and agents): while other processes keep busy at least 0.4 CPU more than the CPUs the ranks leave them (one each), or tasks wait for a CPU half the time, have the ranks wait as on an oversubscribed node; while others keep that 0.4 CPU busy, under bind_to=auto, free the ranks from their cores; undo each once it stops").Launcher()

// maxAffinityCPU is what unix.CPUSet can hold; sched_{get,set}affinity work with it.
const maxAffinityCPU = 1024

func toUnix(s CPUSet) (unix.CPUSet, error) {
	var u unix.CPUSet
	for _, c := range s.List() {
		if c >= maxAffinityCPU {
			return u, fmt.Errorf("cpu %d is above the %d CPUs binding supports", c, maxAffinityCPU-1)
		}
		u.Set(c)
	}
	return u, nil
}

func fromUnix(u *unix.CPUSet) CPUSet {
	var s CPUSet
	for c := range maxAffinityCPU {
		if u.IsSet(c) {
			s.Add(c)
		}
	}
	return s
}

// Allowed returns the CPUs this process may run on. It asks for the calling thread,
// which has the process's mask unless something bound threads one by one.
func Allowed() (CPUSet, error) { return AllowedPID(0) }

// AllowedPID returns the CPUs process pid's main thread may run on.
func AllowedPID(pid int) (CPUSet, error) {
	var u unix.CPUSet
	if err := unix.SchedGetaffinity(pid, &u); err != nil {
		return CPUSet{}, fmt.Errorf("sched_getaffinity of pid %d: %w", pid, err)
	}
	return fromUnix(&u), nil
}

// Bind restricts the whole process to the CPUs of set (a core, for --bind-to core).
// sched_setaffinity works per thread and a Go process has several, so every thread in
// /proc/self/task is bound; threads created later inherit the mask from their creator.
// The listing is repeated until a pass finds no thread it has not bound, since the
// runtime may start one meanwhile.
func Bind(set CPUSet) error { return BindPID(os.Getpid(), set) }

// BindPID binds every thread of process pid (a launcher binds a rank it started).
func BindPID(pid int, set CPUSet) error {
	if set.IsEmpty() {
		return errors.New("bind: the CPU set is empty; a process needs at least one CPU")
	}
	u, err := toUnix(set)
	if err != nil {
		return err
	}
	done := map[int]bool{}
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	for pass := 0; pass < 10; pass++ {
		ents, err := os.ReadDir(dir)
		if err != nil {
			// No /proc: bind what we can name, the process's main thread.
			if err := unix.SchedSetaffinity(pid, &u); err != nil {
				return fmt.Errorf("bind pid %d to cpus %s: %w", pid, set, err)
			}
			return nil
		}
		fresh := 0
		for _, e := range ents {
			tid, err := strconv.Atoi(e.Name())
			if err != nil || done[tid] {
				continue
			}
			fresh++
			if err := unix.SchedSetaffinity(tid, &u); err != nil && !errors.Is(err, unix.ESRCH) {
				return fmt.Errorf("bind thread %d of pid %d to cpus %s: %w", tid, pid, set, err)
			}
			done[tid] = true
		}
		if fresh == 0 {
			return nil
		}
	}
	return nil
}
