#!/bin/bash
# collcost.sh - instructions per call and rank of a collective (OP: bcast from rank 0,
# allreduce of float64 Sum, barrier), counted by callgrind, of the working tree and of
# an older revision: the load-independent check that a change to the collective's
# path costs nothing. Per size it runs 1000 and 3000 calls on NP ranks and prints the
# difference per call and rank (start-up cancels out), summed over the self costs of
# mpigo's own functions (mpi, mpir, the device's core and collective, coll, shmcoll,
# op: the kernels) and
# memmove, leaving out the waiting (shmcoll's wait*, p2p's engine and the transports,
# which poll, idle, yield, the runtime's scheduler), as the machine's load sets it.
#
# usage (from the project's root):  bench/collcost.sh REV OP NP SIZE...
set -eu
rev=$1 op=$2 np=$3; shift 3
. "$(dirname "$0")/oldnew.sh"
oldnew collcost "$rev"
count() { # bin iters size -> "function cost" lines over all ranks
	rm -f "$dir"/cg.*
	GODEBUG=asyncpreemptoff=1 "$dir/mpigo" run -n "$np" valgrind --tool=callgrind \
		--callgrind-out-file="$dir/cg.%p" "$dir/$1" "$op" "$2" "$3" >/dev/null 2>&1
	for f in "$dir"/cg.*; do callgrind_annotate --auto=no --threshold=100 "$f"; done | awk '
		/^ *[0-9,]+ .*:/ {
			v = $1; gsub(",", "", v)
			if ($0 ~ /internal\/idle|internal\/yield|[wW]ait/) next
			if ($0 !~ /mpigo\/mpigo\/mpi\.|internal\/(core|collective|coll|shmcoll|op|mpir)\.|runtime\.memmove/) next
			fn = $0; sub(/^ *[0-9,]+ \([ 0-9.%]+\) */, "", fn); sub(/ \[.*$/, "", fn); sub(/^.*:/, "", fn)
			s[fn] += v
		}
		END { for (k in s) print k, s[k] }'
}
perCall "$op" "$np" "$@"
