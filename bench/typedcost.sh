#!/bin/bash
# typedcost.sh - instructions per call of bench/typedcost's forms, counted by
# callgrind: the load-independent measure of issue 20's bar (typed collectives at
# most as costly as packing by hand). Per form it runs 1000 and 3000 calls on 2
# ranks and prints the difference per call and rank (start-up cancels out), summed
# over the self costs of mpigo's own functions (mpi, core, datatype, coll, prof),
# the program's loops, sync.Pool and memmove; the waiting in shmcoll, p2p, the
# transports and the runtime's scheduler is left out, as the machine's load sets it.
#
# usage (from the project's root):  bench/typedcost.sh [-v] [MODE...]
#   -v     list the functions too;  MODE  column-typed column-hand records-typed records-hand
set -eu
verbose=0
if [ "${1:-}" = -v ]; then verbose=1; shift; fi
modes=${*:-column-typed column-hand records-typed records-hand}
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
go build -o "$dir/typedcost" ./bench/typedcost
go build -o "$dir/mpigo" ./cmd/mpigo
count() { # mode iters -> "function cost" lines over both ranks
	rm -f "$dir"/cg.*
	GODEBUG=asyncpreemptoff=1 "$dir/mpigo" run -n 2 valgrind --tool=callgrind \
		--callgrind-out-file="$dir/cg.%p" "$dir/typedcost" "$2" "$1" >/dev/null 2>&1
	for f in "$dir"/cg.*; do callgrind_annotate --auto=no --threshold=100 "$f"; done | awk '
		/^ *[0-9,]+ .*:/ {
			v = $1; gsub(",", "", v)
			if ($0 ~ /shmcoll|internal\/p2p|transport|internal\/idle|internal\/yield/) next
			if ($0 !~ /mpigo\/mpigo\/mpi\.|internal\/(core|datatype|coll|prof)\.|main\.|sync\.\(\*Pool\)|runtime\.memmove/) next
			fn = $0; sub(/^ *[0-9,]+ \([ 0-9.%]+\) */, "", fn); sub(/ \[.*$/, "", fn); sub(/^.*:/, "", fn); sub(/\x272$/, "", fn)
			s[fn] += v
		}
		END { for (k in s) print k, s[k] }'
}
for m in $modes; do
	count "$m" 1000 >"$dir/a"
	count "$m" 3000 >"$dir/b"
	# 2000 calls on each of 2 ranks
	awk -v m="$m" -v verbose=$verbose '
		NR == FNR { a[$1] = $2; next }
		{ d = ($2 - a[$1]) / 4000; t += d; if (verbose && (d >= 5 || d <= -5)) printf "  %8.0f %s\n", d, $1 }
		END { printf "%-14s %6.0f instructions per call and rank\n", m, t }' "$dir/a" "$dir/b" | sort -n
done
