#!/bin/bash
# imb.sh - the Intel MPI Benchmarks (IMB-MPI1) on mpigo's C ABI beside MPICH (and, if
# asked, Open MPI), each built from the same IMB sources with its own compiler wrapper
# and run the same way, alternated run by run; then the table of medians (min-max) and
# the ratio mpigo / better C MPI, by ../shared/anchors/compare.py (column mpigo_c: IMB is
# a C program on mpigo's ABI). The figures: docs/BENCHMARKS.md (IMB-MPI1 at 2 ranks).
#
# usage (from the project's root):  bench/imb.sh IMB_DIR [IMB-MPI1 ARGS...]
#   IMB_DIR   a checkout of intel/mpi-benchmarks (not part of this repository; it is
#             copied, without objects or IMB-* binaries an earlier build left, and
#             built under a temporary directory, never in place; each build must load
#             its own MPI library, or the script stops)
#   ARGS      default: -msglog 0:22 -iter 20000 -time 2 -iter_policy off
#             PingPong Sendrecv Allreduce Bcast Barrier (issue 36's bar)
# env:   RUNS=3, NP=2, IMPLS="mpich mpigo_c" (add openmpi for Open MPI), TIMEOUT=1800
#        (seconds per job), ANCHORS=../shared/anchors, OUT=$(mktemp -d) (raw outputs and
#        the RESULT lines, kept)
# needs: gcc, g++, mpich libmpich-dev (mpicc.mpich), openmpi-bin libopenmpi-dev for openmpi
#
# A key is BENCHMARK_nNP_BYTES (BENCHMARK_nNP where there are no sizes, as Barrier):
# PingPong and PingPing give t[usec], the others t_avg[usec]; rates (Uniband, Biband)
# are left out. Each job starts as bench/launch.sh says.
set -eu
imb=${1:?usage: bench/imb.sh IMB_DIR [IMB-MPI1 ARGS...]}; shift
[ -f "$imb/Makefile" ] && [ -d "$imb/src_c" ] || { echo "imb: $imb is not an IMB checkout"; exit 2; }
args=("$@")
[ ${#args[@]} -gt 0 ] || args=(-msglog 0:22 -iter 20000 -time 2 -iter_policy off PingPong Sendrecv Allreduce Bcast Barrier)
PROJECT=$(pwd)
ANCHORS=${ANCHORS:-$PROJECT/../shared/anchors}
[ -f "$ANCHORS/compare.py" ] || { echo "imb: $ANCHORS/compare.py not found (set ANCHORS)"; exit 2; }
RUNS=${RUNS:-3}
NP=${NP:-2}
IMPLS=${IMPLS:-mpich mpigo_c}
OUT=${OUT:-$(mktemp -d)}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
bin=$(mktemp -d); trap 'rm -rf "$bin"' EXIT

go build -o "$bin/mpigo" ./cmd/mpigo
MPIGO_SOURCE=$PROJECT "$bin/mpigo" abi install --prefix "$bin/abi" >/dev/null
for impl in $IMPLS; do
	case $impl in
	mpich) cc=mpicc.mpich cxx=mpicxx.mpich ;;
	openmpi) cc=mpicc.openmpi cxx=mpicxx.openmpi ;;
	mpigo_c) cc=$bin/abi/bin/mpicc cxx=$bin/abi/bin/mpicxx ;;
	*) echo "imb: unknown implementation $impl (mpich, openmpi, mpigo_c)"; exit 2 ;;
	esac
	mkdir -p "$bin/imb-$impl" "$OUT/$impl"
	# Without what an earlier build left in IMB_DIR (objects, IMB-* binaries), which
	# make would find up to date and run against the library that built them.
	(cd "$imb" && tar -c --exclude=.git --exclude='*.o' .) | tar -x -C "$bin/imb-$impl"
	find "$bin/imb-$impl" -type f -name 'IMB-*' -perm -u+x -delete
	make -C "$bin/imb-$impl" CC="$cc" CXX="$cxx" IMB-MPI1 >"$OUT/$impl/build.log" 2>&1 ||
		{ echo "imb: building IMB-MPI1 with $cc failed: $OUT/$impl/build.log"; exit 1; }
	case $impl in
	mpich) want=libmpich.so ;;
	openmpi) want=libmpi.so.40 ;;
	mpigo_c) want=$bin/abi/lib/libmpi_abi.so.1 ;;
	esac
	ldd "$bin/imb-$impl/IMB-MPI1" | grep -qF "$want" ||
		{ echo "imb: $impl's IMB-MPI1 does not load $want:"; ldd "$bin/imb-$impl/IMB-MPI1"; exit 1; }
done

. "$PROJECT/bench/launch.sh"

# results turns IMB's output into RESULT lines, one a benchmark, process count and size.
results() {
	awk '/^# Benchmarking / {b = $3; n = ""; next}
	/^# #processes = / {n = $4; next}
	/^#/ || b == "" || b ~ /band$/ || $1 !~ /^[0-9]+$/ {next}
	b ~ /^Ping(Pong|Ping)$/ && NF == 4 {print "RESULT imb", b "_n" n "_" $1, $3, "us"; next}
	NF == 4 && $4 ~ /^[0-9.]+$/ {print "RESULT imb", b "_n" n, $4, "us"; next}
	NF >= 5 && $5 ~ /^[0-9.]+$/ {print "RESULT imb", b "_n" n "_" $1, $5, "us"}'
}

for r in $(seq "$RUNS"); do
	for impl in $IMPLS; do
		echo "imb run $r $impl: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/load.txt"
		timeout "${TIMEOUT:-1800}" bash -c "$(declare -f launch); bin=$bin; launch ${impl%_c} $NP $bin/imb-$impl/IMB-MPI1 $(printf '%q ' "${args[@]}")" \
			>"$OUT/$impl/imb.$r.log" 2>&1 || echo "imb: $impl run $r failed: $OUT/$impl/imb.$r.log"
		results <"$OUT/$impl/imb.$r.log" >"$OUT/$impl/imb.$r.txt"
	done
done
python3 "$ANCHORS/compare.py" "$OUT"
echo "raw outputs and load averages: $OUT"
