package main

import (
	"bytes"
	"fmt"
	"strings"
)

// collFamilies are the collectives whose every form, blocking, nonblocking (I...) and
// persistent (..._init), each with int and large-count (_c) arguments, is one call of
// a function of abi/libmpi (coll.go, neighbor.go) named after the family in Go's way
// ("Reduce_scatter_block": reduceScatterBlock). That function takes the procedure's
// arguments in order, the counts widened to int64, and then whether the arrays and
// counts are the _c form's, the request (nil when blocking) and the mode (mBlock, mNB,
// or mPersist with the info); an MPI_Info argument and the request are passed there,
// not in their place.
var collFamilies = []string{
	"Barrier", "Bcast", "Reduce", "Allreduce", "Scan", "Exscan",
	"Reduce_scatter", "Reduce_scatter_block",
	"Gather", "Gatherv", "Scatter", "Scatterv", "Allgather", "Allgatherv",
	"Alltoall", "Alltoallv", "Alltoallw",
	"Neighbor_allgather", "Neighbor_allgatherv", "Neighbor_alltoall", "Neighbor_alltoallv",
	"Neighbor_alltoallw",
}

// collForm is how procedure name is a form of a collective family, if it is one.
type collForm struct {
	family, call     string // "Bcast"; the name errors give it: "Ibcast", "Bcast_init", "Bcast_c"
	big, nb, persist bool
}

func collFormOf(name string) (collForm, bool) {
	families := map[string]bool{}
	for _, f := range collFamilies {
		families[f] = true
	}
	base := strings.TrimPrefix(name, "MPI_")
	var f collForm
	f.call = base
	if b, ok := strings.CutSuffix(base, "_c"); ok {
		f.big, base = true, b
	}
	if b, ok := strings.CutSuffix(base, "_init"); ok {
		f.persist, base = true, b
	}
	if !families[base] && strings.HasPrefix(base, "I") && len(base) > 1 {
		if fam := strings.ToUpper(base[1:2]) + base[2:]; families[fam] {
			f.nb, base = true, fam
		}
	}
	if !families[base] {
		return collForm{}, false
	}
	f.family = base
	return f, true
}

// goName is a family's Go function: "Neighbor_allgather" is neighborAllgather.
func goName(family string) string {
	parts := strings.Split(family, "_")
	s := strings.ToLower(parts[0])
	for _, p := range parts[1:] {
		s += strings.ToUpper(p[:1]) + p[1:]
	}
	return s
}

// p2pSends are the send modes; each has the forms X, IX (lowercased after the I)
// and X_init, with int and _c counts. A form calls send (blocking) or isend with
// mpir's procedure of its name, and Recv's forms recv or irecv with the name.
var p2pSends = []string{"Send", "Ssend", "Rsend", "Bsend"}

// p2pCall is the Go call a point-to-point procedure's export makes, if it is one:
// its arguments are the procedure's, the counts widened, then (nonblocking and
// persistent forms) whether it is persistent and the request.
func p2pCall(name string, args []string) (string, bool) {
	full := strings.TrimPrefix(name, "MPI_")
	base, big := strings.CutSuffix(full, "_c")
	large := ""
	if big {
		large = ".Large()" // the same procedure, named as the _c form in its errors
	}
	for _, m := range p2pSends {
		nb := "I" + strings.ToLower(m[:1]) + m[1:]
		switch base {
		case m:
			return fmt.Sprintf("send(mpir.Proc%s%s, %s)", m, large, strings.Join(args, ", ")), true
		case nb:
			return fmt.Sprintf("isend(mpir.Proc%s%s, %s, false, %s)", nb, large, strings.Join(args[:len(args)-1], ", "), args[len(args)-1]), true
		case m + "_init":
			return fmt.Sprintf("isend(mpir.Proc%sInit%s, %s, true, %s)", m, large, strings.Join(args[:len(args)-1], ", "), args[len(args)-1]), true
		}
	}
	switch base {
	case "Recv":
		return fmt.Sprintf("recv(%q, %s)", full, strings.Join(args, ", ")), true
	case "Irecv":
		return fmt.Sprintf("irecv(%q, %s, false, %s)", full, strings.Join(args[:len(args)-1], ", "), args[len(args)-1]), true
	case "Recv_init":
		return fmt.Sprintf("irecv(%q, %s, true, %s)", full, strings.Join(args[:len(args)-1], ", "), args[len(args)-1]), true
	}
	return "", false
}

// collCall is the Go call a collective procedure's export makes, if it is one: the
// family's function with the procedure's arguments in order, the counts widened, an
// MPI_Info and the request left out of their places and passed at the end, after
// whether the form is the _c one, as the request (nil when blocking) and the mode
// (mBlock, mNB, or mPersist with the info).
func collCall(p proc, widened []string) (string, bool) {
	f, ok := collFormOf(p.name)
	if !ok {
		return "", false
	}
	var args []string
	req, mode := "nil", "mBlock"
	if f.nb {
		mode = "mNB"
	}
	for i, q := range p.params {
		switch q.typ {
		case "MPI_Info":
			mode = "mPersist(" + q.name + ")"
		case "MPI_Request *":
			req = q.name
		default:
			args = append(args, widened[i])
		}
	}
	args = append(args, fmt.Sprint(f.big), req, mode)
	return fmt.Sprintf("%s(%q, %s)", goName(f.family), f.call, strings.Join(args, ", ")), true
}

// fileCall is the Go call a file data-access procedure's export makes, if it is one:
// MPI_File_[i]{read|write}[_at][_all|_shared|_ordered][_begin|_end][_c]. Its mpir.Access
// follows from the name (write; _at: an explicit offset; _all and _ordered: collective;
// _shared and _ordered: the shared pointer), and the form chooses the function of
// file.go: fileIO (blocking), fileStart (nonblocking), fileBegin and fileEnd (split
// collectives, given the name of the access they split).
func fileCall(name string, args []string) (string, bool) {
	full := strings.TrimPrefix(name, "MPI_")
	base, _ := strings.CutSuffix(full, "_c")
	rest, ok := strings.CutPrefix(base, "File_")
	if !ok {
		return "", false
	}
	nb := false
	if r, ok := strings.CutPrefix(rest, "i"); ok && (strings.HasPrefix(r, "read") || strings.HasPrefix(r, "write")) {
		nb, rest = true, r
	}
	var split string
	for _, sfx := range []string{"_begin", "_end"} {
		if r, ok := strings.CutSuffix(rest, sfx); ok {
			split, rest = sfx, r
		}
	}
	var f struct{ write, at, coll, shared bool }
	switch {
	case strings.HasPrefix(rest, "read"):
		rest = rest[len("read"):]
	case strings.HasPrefix(rest, "write"):
		f.write, rest = true, rest[len("write"):]
	default:
		return "", false
	}
	if r, ok := strings.CutPrefix(rest, "_at"); ok {
		f.at, rest = true, r
	}
	switch rest {
	case "":
	case "_all":
		f.coll = true
	case "_shared":
		f.shared = true
	case "_ordered":
		f.shared, f.coll = true, true
	default:
		return "", false
	}
	var fields []string
	if f.write {
		fields = append(fields, "Write: true")
	}
	if f.at {
		fields = append(fields, "Explicit: true", "Offset: offset")
	}
	if f.shared {
		fields = append(fields, "Shared: true")
	}
	if f.coll {
		fields = append(fields, "Coll: true")
	}
	access := "mpir.Access{" + strings.Join(fields, ", ") + "}"
	if f.at && split != "_end" {
		args = append(args[:1:1], args[2:]...) // the offset is in the access
	}
	call := strings.TrimSuffix(base, split)
	switch {
	case split == "_end": // fh, buf, status
		return fmt.Sprintf("fileEnd(%q, %q, %s, %s)", full, call, args[0], args[2]), true
	case split == "_begin": // fh, buf, count, datatype
		return fmt.Sprintf("fileBegin(%q, %q, %s, %s, %s)", full, call, args[0], access, strings.Join(args[1:], ", ")), true
	case nb:
		return fmt.Sprintf("fileStart(%q, %s, %s, %s)", full, args[0], access, strings.Join(args[1:], ", ")), true
	}
	return fmt.Sprintf("fileIO(%q, %s, %s, %s)", full, args[0], access, strings.Join(args[1:], ", ")), true
}

// cFirst are the procedures whose PMPI_x is hand-written C (abi/libmpi/p2pshort.c,
// collshort.c, fileshort.c) that calls its generated export, named goPMPI_x, for all
// it does not do itself.
var cFirst = map[string]bool{"MPI_Send": true, "MPI_Send_c": true, "MPI_Recv": true, "MPI_Recv_c": true,
	"MPI_Isend": true, "MPI_Isend_c": true, "MPI_Irecv": true, "MPI_Irecv_c": true,
	"MPI_Barrier": true, "MPI_Bcast": true, "MPI_Bcast_c": true, "MPI_Allreduce": true, "MPI_Allreduce_c": true,
	"MPI_Gather": true, "MPI_Gather_c": true, "MPI_Gatherv": true, "MPI_Gatherv_c": true,
	"MPI_Allgather": true, "MPI_Allgather_c": true, "MPI_Allgatherv": true, "MPI_Allgatherv_c": true,
	"MPI_Reduce": true, "MPI_Reduce_c": true, "MPI_Scatter": true, "MPI_Scatter_c": true,
	"MPI_Alltoall": true, "MPI_Alltoall_c": true, "MPI_Alltoallv": true, "MPI_Alltoallv_c": true,
	"MPI_Scatterv": true, "MPI_Scatterv_c": true, "MPI_Reduce_scatter": true, "MPI_Reduce_scatter_c": true,
	"MPI_Reduce_scatter_block": true, "MPI_Reduce_scatter_block_c": true,
	"MPI_File_write_at": true, "MPI_File_write_at_c": true, "MPI_File_read_at": true, "MPI_File_read_at_c": true,
	"MPI_File_write_ordered": true, "MPI_File_write_ordered_c": true}

// generatedExports is abi/libmpi/zexports.go: the Go export of every procedure that
// is one call of the library's function for its family (collectives, point-to-point
// sends and receives, file data access), and how many there are.
func generatedExports(procs []proc) ([]byte, int) {
	var b bytes.Buffer
	b.WriteString("// Code generated by abi/gen from abi/gen/procs.txt. DO NOT EDIT.\n\n" +
		"package main\n\n" +
		"// #define MPIGO_ABI_NO_PROTOTYPES 1\n// #include \"mpi.h\"\nimport \"C\"\n\n" +
		"import (\n\t\"unsafe\"\n\n\t\"github.com/mpigo/mpigo/internal/mpir\"\n)\n")
	n := 0
	for _, p := range procs {
		var params, widened []string
		for _, q := range p.params {
			params = append(params, q.name+" "+goType(q.typ))
			if goType(q.typ) == "int32" && strings.Contains(q.name, "count") {
				widened = append(widened, "int64("+q.name+")")
			} else {
				widened = append(widened, q.name)
			}
		}
		call, ok := collCall(p, widened)
		if !ok {
			call, ok = p2pCall(p.name, widened)
		}
		if !ok {
			call, ok = fileCall(p.name, widened)
		}
		if !ok {
			continue
		}
		n++
		name := "P" + p.name
		if cFirst[p.name] {
			name = "goP" + p.name
		}
		fmt.Fprintf(&b, "\n//export %s\nfunc %s(%s) int32 {\n\treturn %s\n}\n",
			name, name, strings.Join(params, ", "), call)
	}
	return b.Bytes(), n
}
