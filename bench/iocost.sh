#!/bin/bash
# iocost.sh - instructions per call and rank of a file access (bench/iocost: MODE
# "ordered", bench/io's write_ordered; "small", its write_small; "strided", its
# write_strided), counted by callgrind, of the working tree and of an older
# revision. Per size it runs LO and HI calls (1000 and 3000 unless the environment
# says) on NP ranks and prints the difference per call and rank (start-up
# cancels out), summed over the self costs of mpigo's own functions (mpi, mpir, mpio,
# datatype, window, prof: the record, the device's core, collective, coll, shmcoll),
# memmove, memclr (the zeroing of fresh allocations) and the
# system calls' way in and out of the Go runtime (runtime.entersyscall and
# exitsyscall, x/sys's Syscall), leaving out the waiting (shmcoll's wait*, p2p's
# engine and the transports, the schedules' advance and the windows' drain, which
# poll, idle, yield, the runtime's scheduler), as the
# machine's load sets it. The kernel's side of a system call is not counted.
# With -v it lists the functions' costs per call and rank as well.
#
# usage (from the project's root):  [LO=1000 HI=3000] bench/iocost.sh [-v] REV MODE NP SIZE...
set -eu
verbose=; [ "$1" = -v ] && { verbose=1; shift; }
rev=$1 mode=$2 np=$3; shift 3
. "$(dirname "$0")/oldnew.sh"
oldnew iocost "$rev"
count() { # bin iters size -> "function cost" lines over all ranks
	rm -f "$dir"/cg.*
	GOGC=off GODEBUG=asyncpreemptoff=1 "$dir/mpigo" run -n "$np" valgrind --tool=callgrind \
		--callgrind-out-file="$dir/cg.%p" "$dir/$1" "$mode" "$2" "$3" >/dev/null 2>&1
	for f in "$dir"/cg.*; do callgrind_annotate --auto=no --threshold=100 "$f"; done | awk '
		/^ *[0-9,]+ .*:/ {
			v = $1; gsub(",", "", v)
			if ($0 ~ /internal\/idle|internal\/yield|[wW]ait|Sched\)\.advance|Conn\)\.Test|Win\)\.(drain|serveWhile|schedBarrier)/) next
			if ($0 !~ /mpigo\/mpigo\/mpi\.|internal\/(core|collective|coll|shmcoll|mpir|mpio|datatype|window|prof)\.|runtime\.memmove|runtime\.memclrNoHeapPointers|runtime\.(re)?entersyscall|runtime\.exitsyscall|golang.org\/x\/sys\/unix\.Syscall|internal\/runtime\/syscall/) next
			fn = $0; sub(/^ *[0-9,]+ \([ 0-9.%]+\) */, "", fn); sub(/ \[.*$/, "", fn); sub(/^.*:/, "", fn)
			s[fn] += v
		}
		END { for (k in s) print k, s[k] }'
}
perCall "$mode" "$np" "$@"
