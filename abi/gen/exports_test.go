package main

import (
	"bytes"
	"os"
	"testing"
)

// TestGeneratedExportsUpToDate: abi/libmpi/zexports.go is what procs.txt makes (run
// `go generate ./abi` after changing procs.txt or the families).
func TestGeneratedExportsUpToDate(t *testing.T) {
	procs, err := parseProcs("procs.txt")
	if err != nil {
		t.Fatal(err)
	}
	want, n := generatedExports(procs)
	got, err := os.ReadFile("../libmpi/zexports.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("abi/libmpi/zexports.go is not what procs.txt makes: run go generate ./abi")
	}
	// Every collective family has its six forms (Barrier has no _c forms: it has no
	// counts); each send mode and the receive too; and the file data accesses, read
	// and write: blocking at six places (individual, _at, _all, _at_all, _shared,
	// _ordered) with _c (24), nonblocking at all but _ordered with _c (20), and the
	// split collectives of _all, _at_all and _ordered (begin, begin_c, end: 18).
	if wantN := 6*len(collFamilies) - 3 + 6*(len(p2pSends)+1) + 24 + 20 + 18; n != wantN {
		t.Errorf("%d generated exports, want %d", n, wantN)
	}
}

func TestCollFormOf(t *testing.T) {
	for name, want := range map[string]collForm{
		"MPI_Bcast":                       {family: "Bcast", call: "Bcast"},
		"MPI_Ibarrier":                    {family: "Barrier", call: "Ibarrier", nb: true},
		"MPI_Reduce_scatter_block_init_c": {family: "Reduce_scatter_block", call: "Reduce_scatter_block_init_c", big: true, persist: true},
		"MPI_Ineighbor_alltoallw_c":       {family: "Neighbor_alltoallw", call: "Ineighbor_alltoallw_c", big: true, nb: true},
		"MPI_Ireduce_scatter":             {family: "Reduce_scatter", call: "Ireduce_scatter", nb: true},
		"MPI_Allgatherv_init":             {family: "Allgatherv", call: "Allgatherv_init", persist: true},
	} {
		if got, ok := collFormOf(name); !ok || got != want {
			t.Errorf("collFormOf(%s) = %+v, %v; want %+v", name, got, ok, want)
		}
	}
	for _, name := range []string{"MPI_Init", "MPI_Iprobe", "MPI_Reduce_local", "MPI_Info_create", "MPI_Isend_c", "MPI_Comm_idup"} {
		if f, ok := collFormOf(name); ok {
			t.Errorf("collFormOf(%s) = %+v, want no collective", name, f)
		}
	}
	if got := goName("Neighbor_alltoallw"); got != "neighborAlltoallw" {
		t.Errorf("goName(Neighbor_alltoallw) = %s", got)
	}
}

func TestP2PCall(t *testing.T) {
	args := []string{"buf", "int64(count)", "datatype", "dest", "tag", "comm", "request"}
	for name, want := range map[string]string{
		"MPI_Issend_c":    "isend(mpir.ProcIssend.Large(), buf, int64(count), datatype, dest, tag, comm, false, request)",
		"MPI_Bsend_init":  "isend(mpir.ProcBsendInit, buf, int64(count), datatype, dest, tag, comm, true, request)",
		"MPI_Recv_init_c": `irecv("Recv_init_c", buf, int64(count), datatype, dest, tag, comm, true, request)`,
		"MPI_Send":        "send(mpir.ProcSend, buf, int64(count), datatype, dest, tag, comm, request)",
		"MPI_Recv_c":      `recv("Recv_c", buf, int64(count), datatype, dest, tag, comm, request)`,
	} {
		if got, ok := p2pCall(name, args); !ok || got != want {
			t.Errorf("p2pCall(%s) = %q, %v; want %q", name, got, ok, want)
		}
	}
	for _, name := range []string{"MPI_Sendrecv", "MPI_Isendrecv", "MPI_Mrecv", "MPI_Psend_init", "MPI_Irecv_init"} {
		if got, ok := p2pCall(name, args); ok {
			t.Errorf("p2pCall(%s) = %q, want none", name, got)
		}
	}
}

func TestFileCall(t *testing.T) {
	at := []string{"fh", "offset", "buf", "int64(count)", "datatype", "status"}
	ind := []string{"fh", "buf", "int64(count)", "datatype", "request"}
	begin := []string{"fh", "buf", "count", "datatype"}
	end := []string{"fh", "buf", "status"}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"MPI_File_read_at", at, `fileIO("File_read_at", fh, mpir.Access{Explicit: true, Offset: offset}, buf, int64(count), datatype, status)`},
		{"MPI_File_write_at_all", at, `fileIO("File_write_at_all", fh, mpir.Access{Write: true, Explicit: true, Offset: offset, Coll: true}, buf, int64(count), datatype, status)`},
		{"MPI_File_iwrite_shared_c", ind, `fileStart("File_iwrite_shared_c", fh, mpir.Access{Write: true, Shared: true}, buf, int64(count), datatype, request)`},
		{"MPI_File_read_ordered_begin_c", begin, `fileBegin("File_read_ordered_begin_c", "File_read_ordered", fh, mpir.Access{Shared: true, Coll: true}, buf, count, datatype)`},
		{"MPI_File_write_at_all_end", end, `fileEnd("File_write_at_all_end", "File_write_at_all", fh, status)`},
	} {
		if got, ok := fileCall(c.name, c.args); !ok || got != c.want {
			t.Errorf("fileCall(%s) = %q, %v; want %q", c.name, got, ok, c.want)
		}
	}
	for _, name := range []string{"MPI_File_open", "MPI_File_seek_shared", "MPI_File_get_position_shared", "MPI_File_set_info", "MPI_Init"} {
		if got, ok := fileCall(name, ind); ok {
			t.Errorf("fileCall(%s) = %q, want none", name, got)
		}
	}
}
