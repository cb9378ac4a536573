package mpir

import (
	"slices"
	"strconv"
	"strings"
)

// The file hints (MPI 4.1 section 14.2.8) mpigo takes, with ROMIO's names for those
// the standard does not reserve, so that programs tuned for ROMIO tune mpigo alike:
//
//   - cb_nodes: how many processes aggregate a collective access (two-phase I/O);
//     by default one per node the file's group spans. At most the group's size.
//   - cb_buffer_size: each aggregator's buffer per round of a collective access.
//   - romio_cb_read, romio_cb_write: "enable", "disable" or "automatic" collective
//     buffering of collective reads and writes.
//   - romio_ds_read, romio_ds_write: the same for data sieving of independent
//     noncontiguous reads and writes. "enable" sieves every run a buffer holds;
//     "automatic" sieves reads of short runs close together (where reading the hole
//     costs less than a system call) on a file in memory or on a local disk, every
//     read elsewhere, and leaves writes unsieved (a sieved write
//     rewrites the holes it spans, under a lock).
//   - ind_rd_buffer_size, ind_wr_buffer_size: the sieving buffers.
//   - striping_unit: what file domains are aligned to; by default the file system's
//     block (st_blksize). Taken when the file is opened.
//   - access_style: the program's promise of how it accesses the file (a list of
//     read_once, write_once, read_mostly, write_mostly, sequential,
//     reverse_sequential, random); recorded and reported once given.
//   - file_perm: the permissions (octal) of a file the open creates; reported once
//     given.
//   - mpigo_write_behind: "enable", "disable" or "automatic": whether a write of 2
//     MiB or more starts the writeback of its bytes to the device while it goes on
//     (mpio.File.SetWriteBehind), which the sync at the latest Close would wait for.
//     "automatic" does so on a local disk; "enable" on every file not in memory. A
//     program that writes the same bytes again and again between syncs may disable
//     it. Each process's own: it may differ between processes.
//
// striping_factor (how many storage targets to stripe over) is ignored, as the
// standard lets an implementation ignore a hint, until mpigo sets a parallel file
// system's striping: so it is not reported either.
var fileHints = &hintKind{keys: []hintKey{
	{name: "access_style", takes: isAccessStyle},
	{name: "cb_buffer_size", def: "16777216", takes: isPositive},
	{name: "cb_nodes", def: "1", takes: isPositive},
	{name: "romio_cb_read", def: "automatic", takes: isSwitch},
	{name: "romio_cb_write", def: "automatic", takes: isSwitch},
	{name: "romio_ds_read", def: "automatic", takes: isSwitch},
	{name: "romio_ds_write", def: "automatic", takes: isSwitch},
	{name: "ind_rd_buffer_size", def: "4194304", takes: isPositive},
	{name: "ind_wr_buffer_size", def: "524288", takes: isPositive},
	{name: "striping_unit", takes: isPositive, atCreation: true}, // the block size once open
	{name: "file_perm", takes: isPerm, atCreation: true},
	{name: "mpigo_write_behind", def: "automatic", takes: isSwitch},
}}

func isPositive(v string) bool {
	n, err := strconv.ParseInt(v, 10, 64)
	return err == nil && n > 0
}

func isSwitch(v string) bool { return v == "enable" || v == "disable" || v == "automatic" }

func isPerm(v string) bool {
	n, err := strconv.ParseUint(v, 8, 32)
	return err == nil && n <= 0o7777
}

var accessStyles = []string{"read_once", "write_once", "read_mostly", "write_mostly", "sequential", "reverse_sequential", "random"}

func isAccessStyle(v string) bool {
	for _, s := range strings.Split(v, ",") {
		if !slices.Contains(accessStyles, strings.TrimSpace(s)) {
			return false
		}
	}
	return true
}

// newFileHints makes the hints of a file opened with info in, the defaults that
// depend on the file and its group in defs (key, value, ...).
func newFileHints(op string, in *Info, defs ...string) (*Hints, error) {
	return newHints(op, fileHints, in, defs...)
}

// clampInt lowers hint key to hi if it is above.
func (h *Hints) clampInt(key string, hi int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if i := h.index(key); i >= 0 {
		if n, err := strconv.ParseInt(h.vals[i], 10, 64); err == nil && n > hi {
			h.vals[i] = strconv.FormatInt(hi, 10)
		}
	}
}

// setDefault gives hint key the value v if it has none (a default known only once
// the object exists).
func (h *Hints) setDefault(key, v string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if i := h.index(key); i >= 0 && h.vals[i] == "" {
		h.vals[i] = v
	}
}
