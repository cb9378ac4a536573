#!/bin/bash
# scale.sh - mpigo beside Open MPI and MPICH with more ranks than cores: collective
# latency (bench/coll and ../shared/anchors/coll.c), launch time (examples/hello and
# hello.c) and memory per rank (hello or coll under /usr/bin/time), the MPIs interleaved
# run by run as ../shared/anchors/compare.sh does. The table: docs/BENCHMARKS.md, Scale
# beyond 4 ranks.
#
# usage (from the project's root):  bench/scale.sh WHAT NP...
#   WHAT  coll    bench/coll on NP ranks; medians (min-max) and mpigo / better C MPI,
#                 by ../shared/anchors/compare.py
#         launch  wall time of a whole hello job (launcher start to exit), ms
#         rss     max RSS of each rank of a job of PROG=hello (Init, Finalize) or PROG=coll
#                 (bench/coll at SCALE), bytes: median (min-max) over all ranks of all runs
# env:   RUNS=3, SCALE=0.01 (coll's iteration scale: 0.01 is 200 barriers, 6 bcasts of
#        1 MiB), TIMEOUT=600 (seconds per coll job), ANCHORS=../shared/anchors (from
#        the project's root), OUT=$(mktemp -d) (raw outputs, kept; load.txt holds the
#        1, 5 and 15 minute load averages before every run)
# needs: openmpi-bin libopenmpi-dev mpich libmpich-dev (mpicc.openmpi, mpicc.mpich)
#
# Each MPI's job starts as bench/launch.sh says (compare.sh's cmd_for).
set -eu
what=$1; shift
PROJECT=$(pwd)
ANCHORS=${ANCHORS:-$PROJECT/../shared/anchors}
[ -f "$ANCHORS/coll.c" ] || { echo "scale: $ANCHORS/coll.c not found (set ANCHORS)"; exit 2; }
RUNS=${RUNS:-3}
SCALE=${SCALE:-0.01}
OUT=${OUT:-$(mktemp -d)}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
bin=$(mktemp -d); trap 'rm -rf "$bin"' EXIT
for impl in openmpi mpich; do
	for b in coll hello; do "mpicc.$impl" -O2 -w -o "$bin/${b}_$impl" "$ANCHORS/$b.c"; done
done
go build -o "$bin/mpigo" ./cmd/mpigo
go build -o "$bin/coll_mpigo" ./bench/coll
go build -o "$bin/hello_mpigo" ./examples/hello

. "$PROJECT/bench/launch.sh"

for n in "$@"; do
	for r in $(seq "$RUNS"); do
		for impl in openmpi mpich mpigo; do
			mkdir -p "$OUT/$impl"
			echo "$what n$n run $r $impl: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/load.txt"
			case $what in
			coll) timeout "${TIMEOUT:-600}" bash -c "$(declare -f launch); bin=$bin; launch $impl $n $bin/coll_$impl $SCALE" \
				>"$OUT/$impl/coll_n$n.$r.txt" 2>"$OUT/$impl/coll_n$n.$r.err" || echo "coll $impl n$n run $r failed"
				;;
			launch) t0=$EPOCHREALTIME
				launch $impl "$n" "$bin/hello_$impl" >/dev/null 2>>"$OUT/$impl/launch.err" || echo "launch $impl n$n run $r failed"
				t1=$EPOCHREALTIME
				echo "RESULT launch n${n}_hello $(python3 -c "print('%.1f' % (($t1 - $t0) * 1000))") ms" >"$OUT/$impl/launch_n$n.$r.txt"
				;;
			rss) launch $impl "$n" /usr/bin/time -f "RSS %M" "$bin/${PROG:-hello}_$impl" $SCALE 2>&1 >/dev/null |
				awk -v k="n${n}_${PROG:-hello}_per_rank" '/^RSS/ {print "RESULT rss", k, $2 * 1024, "B"}' >"$OUT/$impl/rss_n$n.$r.txt"
				;;
			esac
		done
	done
done
python3 "$ANCHORS/compare.py" "$OUT"
echo "raw outputs and load averages: $OUT"
