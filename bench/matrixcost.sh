#!/bin/bash
# matrixcost.sh - instructions per call of bench/matrixcost's loops (an 8-byte Put, Get
# or Accumulate plus Flush, an 8-byte Allreduce), counted by callgrind: the always-on
# cost of the communication matrix's counts, and the check that a change to those
# paths costs nothing. Per mode it runs 1000 and 3000 calls on 2 ranks and prints the
# difference per call (and rank, for Allreduce; the one-sided loops run on rank 0
# only), summed over the self costs of mpigo's own functions (mpi, the device's
# packages core, window and collective, mpir, prof, rma) and the program's loop; the
# waiting in shmcoll, p2p, the transports and the runtime is left out (prof.Blocked
# too: the target waiting in Free), as the machine's load sets it.
#
# Mode pingpong counts an 8-byte Send/Recv ping-pong per send-receive pair and rank: the
# per-message counters' cost (the record's current call and counts, the engine's
# count per destination) on the hottest path. It sums every function of mpigo's but
# those that wait (the engine's and the transports' polls, block, idle, yield,
# prof.Blocked), the engine and the transports included.
#
# Mode c-pingpong counts the same ping-pong in C (bench/matrixcost/c/pingpong.c, built
# with mpigo cc against this checkout): MPI_Send/MPI_Recv of one MPI_INT64_T, per pair
# and rank, as pingpong sums it (the C library's Go functions, abi/libmpi's main.*
# among them, and MPI_Send's short way in C, abi/libmpi/p2pshort.c; the cgo crossing,
# which is the runtime's, is left out of that sum). It
# also prints the crossings' own sum (c-crossing): the cgo stubs of the exports and
# crosscall2, the runtime's cgocallback, cgocallbackg(1), exitsyscall and
# reentersyscall, the M's lock and unwind, and the wait for package initialisation
# that every callback on a thread not running Go makes (a receive from a closed
# channel; its lock's runtime.lock2 and unlock2 are left out, as the waits share them).
# CPINGPONG="BYTES [split] [sendrecv]" in the environment makes it a ping-pong of BYTES
# MPI_BYTEs, on a split of MPI_COMM_WORLD with split (as the Intel MPI Benchmarks
# communicate), and with sendrecv an exchange of MPI_Sendrecv calls instead (per call
# and rank); with isend the ping-pong through MPI_Isend/MPI_Irecv and MPI_Wait, with
# window the anchors' bw.c loop (64 MPI_Isend or MPI_Irecv and an MPI_Waitall per
# iteration and rank, and an ack: divide by 64 for a message's share).
#
# Modes c-barrier, c-bcast and c-allreduce count the short collectives in C
# (bench/matrixcost/c/coll.c, built with mpigo cc against this checkout: MPI_Barrier,
# MPI_Bcast of one MPI_INT64_T from rank 0, MPI_Allreduce (MPI_SUM) of one, on a
# duplicate of MPI_COMM_WORLD) per call and rank, summed as c-pingpong sums, the C
# short ways of abi/libmpi/collshort.c counted as the library's work; the waits
# (shmcoll's, collshort.c's spin, and what a wait calls: the engine's progress, the
# peers' liveness checks) are left out, and the crossings printed apart (c-crossing:
# where a wait outlasts the C spin and goes on in Go, that crossing too). Modes
# go-barrier, go-bcast and go-allreduce are the same calls from Go, on the world,
# summed the same way.
#
# Modes c-fence and c-pscw count the anchors' rma.c active-target loops in C (the same
# coll.c: fence, rank 0's 8-byte Put, fence; rank 0's Start, Put and Complete against
# rank 1's Post and Wait) per round and rank, summed as c-barrier sums (the C short
# ways of abi/libmpi/winshort.c and short.c counted as the library's work, their
# polls left out as waiting), the crossings apart.
#
# Mode c-put counts the C loop (bench/matrixcost/c/put.c, built with mpigo cc against
# this checkout): the self cost of the C short ways PMPI_Put and PMPI_Win_flush
# (abi/libmpi/short.c) per call, over 3000 calls (they do nothing else).
#
# usage (from the project's root):  bench/matrixcost.sh [-v] [MODE...]
#   -v     list the functions too;  MODE  put get acc allreduce pingpong c-pingpong c-put
#          c-barrier c-bcast c-allreduce c-fence c-pscw go-barrier go-bcast go-allreduce
set -eu
verbose=0
if [ "${1:-}" = -v ]; then verbose=1; shift; fi
modes=${*:-put allreduce}
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
go build -o "$dir/matrixcost" ./bench/matrixcost
go build -o "$dir/mpigo" ./cmd/mpigo
count() { # mode iters -> "function cost" lines over both ranks
	rm -f "$dir"/cg.*
	if [ "$1" = c-pingpong ]; then
		GODEBUG=asyncpreemptoff=1 MPIGO_SOURCE=$PWD "$dir/mpigo" run -n 2 valgrind --tool=callgrind \
			--callgrind-out-file="$dir/cg.%p" "$dir/cpingpong" "$2" ${CPINGPONG:-} >/dev/null 2>&1
	elif [ "${1#c-}" != "$1" ]; then
		GODEBUG=asyncpreemptoff=1 MPIGO_SOURCE=$PWD "$dir/mpigo" run -n 2 valgrind --tool=callgrind \
			--callgrind-out-file="$dir/cg.%p" "$dir/ccoll" "$2" "${1#c-}" >/dev/null 2>&1
	else
		GODEBUG=asyncpreemptoff=1 "$dir/mpigo" run -n 2 valgrind --tool=callgrind \
			--callgrind-out-file="$dir/cg.%p" "$dir/matrixcost" "$2" "${1#go-}" >/dev/null 2>&1
	fi
	for f in "$dir"/cg.*; do callgrind_annotate --auto=no --threshold=100 "$f"; done | awk -v mode="$1" '
		/^ *[0-9,]+ .*:/ {
			v = $1; gsub(",", "", v)
			if (mode ~ /pingpong|^c-|^go-/) {
				fn = $0; sub(/^ *[0-9,]+ \([ 0-9.%]+\) */, "", fn); sub(/ \[.*$/, "", fn); sub(/^.*:/, "", fn)
				if (mode ~ /^c-/ && $0 ~ /(coll|p2p|win)short\.c:.*(spin|poll|await)/) next # the C short ways: waiting
				if (mode ~ /^c-/ && $0 ~ /(p2p|coll|win)?short\.c:/) { # the C short way: work of the library, not the crossing
					s["c:" fn] += v
					next
				}
				if (mode ~ /^c-/ && fn ~ /^(PMPI_|crosscall2|_cgo_|_cgoexp_|runtime\.(cgocallback|exitsyscall|reentersyscall|save$|unlockOSThread|lockOSThread|callbackUpdateSystemStack|unwindm|chanrecv))/) {
					s["crossing|" fn] += v
					next
				}
				if ($0 ~ /pollPeer|pollHead|\)\.Arrived|\)\.Poll([^a-zA-Z]|$)|drain|progressLocked|checkPeers|\(\*Engine\)\.block([^a-zA-Z]|$)|internal\/idle|internal\/yield|prof\.Blocked/) next
				if (mode ~ /^(c|go)-/ && $0 ~ /shmcoll\.\(\*Group\)\.(waitSlow|waitFrom|WaitLong)|main\.mpigo_(coll|win_coll)_wait|main\.mpigo_win_await|\(\*Win\)\.(awaitOr|AwaitAbove|Wait\.func|Start\.func)|collective\.ShortWait|\(\*Engine\)\.Progress|CheckPeer|liveness|checkOut|waitOptions\.func/) next
				if ($0 !~ /mpigo\/mpigo\/|main\./) next
			} else {
				if ($0 ~ /shmcoll|internal\/p2p|transport|internal\/idle|internal\/yield|prof\.Blocked|(core|collective)\.waitOptions/) next
				if ($0 !~ /mpigo\/mpigo\/mpi\.|internal\/(core|window|collective|rma|prof)\.|main\./) next
			}
			fn = $0; sub(/^ *[0-9,]+ \([ 0-9.%]+\) */, "", fn); sub(/ \[.*$/, "", fn); sub(/^.*:/, "", fn); sub(/\x272$/, "", fn)
			s[fn] += v
		}
		END { for (k in s) print k, s[k] }'
}
cput() {
	MPIGO_SOURCE=$PWD "$dir/mpigo" cc -O2 -o "$dir/cput" bench/matrixcost/c/put.c
	rm -f "$dir"/cg.*
	GODEBUG=asyncpreemptoff=1 MPIGO_SOURCE=$PWD "$dir/mpigo" run -n 2 valgrind --tool=callgrind \
		--callgrind-out-file="$dir/cg.%p" "$dir/cput" 3000 >/dev/null 2>&1
	for f in "$dir"/cg.*; do callgrind_annotate --auto=no --threshold=100 "$f"; done | awk '
		/short\.c:PMPI_(Put|Win_flush) / { v = $1; gsub(",", "", v); fn = $0; sub(/ \[.*$/, "", fn); sub(/^.*:/, "", fn); s[fn] += v }
		END { for (k in s) { printf "c-put      %-14s %6.1f instructions per call\n", k, s[k] / 3000; t += s[k] / 3000 }
		      printf "c-put      %6.1f instructions per Put+flush\n", t }' | sort
}
for m in $modes; do
	if [ "$m" = c-put ]; then cput; continue; fi
	if [ "$m" = c-pingpong ] && [ ! -x "$dir/cpingpong" ]; then
		MPIGO_SOURCE=$PWD "$dir/mpigo" cc -O2 -o "$dir/cpingpong" bench/matrixcost/c/pingpong.c
	fi
	case $m in c-barrier | c-bcast | c-allreduce | c-fence | c-pscw) [ -x "$dir/ccoll" ] ||
		MPIGO_SOURCE=$PWD "$dir/mpigo" cc -O2 -o "$dir/ccoll" bench/matrixcost/c/coll.c ;;
	esac
	count "$m" 1000 >"$dir/a"
	count "$m" 3000 >"$dir/b"
	per=4000 # 2000 calls on each of 2 ranks
	case $m in put | get | acc) per=2000 ;; esac # rank 0 only
	awk -v m="$m" -v per=$per -v verbose=$verbose '
		NR == FNR { a[$1] = $2; next }
		$1 ~ /^crossing\|/ { c += ($2 - a[$1]) / per; next }
		{ d = ($2 - a[$1]) / per; t += d; if (verbose && (d >= 2 || d <= -2)) printf "  %8.1f %s\n", d, $1 }
		END { printf "%-10s %6.1f instructions per call\n", m, t
		      if (m ~ /^c-/) printf "%-10s %6.1f instructions per call: the cgo crossings\n", "c-crossing", c }' "$dir/a" "$dir/b" | sort -n
done
