package mpitest

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// Jobs started by other launchers (MPICH's Hydra, Slurm) can leave ranks behind:
// Hydra puts each rank in a process group of its own and its proxies may exit before
// their ranks. A test marks every process of such a job with an environment variable
// and, once the launcher is gone, kills what still carries the mark.

// JobMark returns a NAME=VALUE, unique to one job, to put in its launcher's
// environment (which every rank inherits).
func JobMark() string {
	b := make([]byte, 8)
	rand.Read(b)
	return "MPIGO_TEST_JOB=" + hex.EncodeToString(b)
}

// Marked lists the processes whose environment holds mark.
func Marked(mark string) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err == nil && bytes.Contains(append([]byte{0}, env...), []byte("\x00"+mark+"\x00")) {
			out = append(out, p)
		}
	}
	return out
}

// KillMarked kills every process that carries mark and returns their pids.
func KillMarked(mark string) []int {
	var killed []int
	for _, p := range Marked(mark) {
		if unix.Kill(p, unix.SIGKILL) == nil {
			killed = append(killed, p)
		}
	}
	return killed
}
