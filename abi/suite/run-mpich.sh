#!/bin/sh
# run-mpich.sh - build and run MPICH's own test programs (test/mpi of pmodels/mpich)
# against mpigo's C ABI library, and print a pass/fail table.
#
#   abi/suite/run-mpich.sh MPICH_TEST_DIR [LIST]
#
# MPICH_TEST_DIR holds MPICH's test sources as in MPICH's tree (pt2pt/anyall.c,
# coll/bcast.c, ...); LIST (default abi/suite/mpich-tests.txt) names the tests, one a
# line: DIR/NAME NPROCS [ARGS...] [pass=RE] [universe=N] [timeLimit=S] [xfail=REASON], as
# in MPICH's testlist files (universe=N: the job's MPI_UNIVERSE_SIZE; timeLimit=S: the
# test's own TIMEOUT; mem=GB, MPICH's memory note, is dropped); each runs in a fresh directory, removed afterwards, where ./NAME is the
# program; '#' starts a comment. A test marked xfail (a test whose
# expectation MPICH itself has withdrawn, or a known limitation of mpigo) is reported
# XFAIL when it fails, XPASS when it passes, and counts as neither.
# The tests include mpitest.h: the MTest support they call is mpigo's own (abi/suite/mtest,
# no MPICH code). A test passes when its job exits 0 and prints " No Errors" (or, given
# pass=RE, prints a line matching RE and none saying FAIL; pass=exit: the exit status).
#
# Environment: MPIGO (the mpigo command, default: mpigo in PATH), OUT (work directory,
# default /tmp/mpich-suite-run), TIMEOUT (seconds a job may take, default 60), RUNFLAGS
# (more flags for mpigo run, e.g. "--set transports=self,tcp"), ONLY (a regular
# expression: run only the tests whose DIR/NAME matches).
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=${1:?usage: run-mpich.sh MPICH_TEST_DIR [LIST]}
list=${2:-$here/mpich-tests.txt}
mpigo=${MPIGO:-mpigo}
out=${OUT:-/tmp/mpich-suite-run}
timeout=${TIMEOUT:-60}
runflags=${RUNFLAGS:-}
only=${ONLY:-.}
src=$(cd "$src" && pwd)

mkdir -p "$out/bin" "$out/log"
# MTest support, built once.
if ! "$mpigo" cc -O1 -w -I"$here/mtest" -c -o "$out/mtest.o" "$here/mtest/mtest.c" >"$out/log/mtest.build" 2>&1; then
	echo "building the MTest support failed:" >&2
	cat "$out/log/mtest.build" >&2
	exit 2
fi

# The thread part of MTest (threads/*), linked into every test.
if ! "$mpigo" cc -O1 -w -I"$here/mtest" -c -o "$out/mtestthread.o" "$here/mtest/mtestthread.c" >>"$out/log/mtest.build" 2>&1; then
	echo "building the MTest support failed:" >&2
	cat "$out/log/mtest.build" >&2
	exit 2
fi

# The main of newer tests that define run() instead (MPICH's MULTI_TESTS form).
if ! "$mpigo" cc -O1 -w -I"$here/mtest" -c -o "$out/runmain.o" "$here/mtest/runmain.c" >>"$out/log/mtest.build" 2>&1; then
	echo "building the MTest support failed:" >&2
	cat "$out/log/mtest.build" >&2
	exit 2
fi

# MPICH's dtpools (test/mpi/dtpools: datatype pools the newer coll, pt2pt and rma tests
# draw from, MPICH's code built here as it is), where the copy has its configure header
# (abi/suite/mpich-head.sh writes it).
dtpools=""
if [ -f "$src/dtpools/dtpoolsconf.h" ]; then
	rm -f "$out/dtpools.a"
	for f in "$src"/dtpools/src/*.c; do
		"$mpigo" cc -O1 -w -I"$src/dtpools/include" -c -o "$out/dtpools.$(basename "$f" .c).o" "$f" >>"$out/log/mtest.build" 2>&1 || {
			echo "building dtpools failed:" >&2
			cat "$out/log/mtest.build" >&2
			exit 2
		}
	done
	ar rcs "$out/dtpools.a" "$out"/dtpools.*.o
	dtpools="-I$src/dtpools/include $out/dtpools.a"
fi

pass=0 fail=0 nobuild=0
results="$out/results.txt"
: >"$results"
grep -v '^[[:space:]]*#' "$list" | grep -v '^[[:space:]]*$' | while read -r test np args; do
	echo "$test" | grep -Eq "$only" || continue
	xfail=$(echo "$args" | sed -n 's/.*xfail=\(.*\)/\1/p')
	args=$(echo "$args" | sed 's/ *xfail=.*//')
	# pass=RE: a test that prints no "No Errors" (basic/) passes when its job exits 0,
	# its output matches RE (no spaces; "exit" alone: the exit status only) and no
	# line says FAIL.
	passre=$(echo "$args" | sed -n 's/.*pass=\([^ ]*\).*/\1/p')
	args=$(echo "$args" | sed 's/ *pass=[^ ]*//')
	# universe=N: MPI_UNIVERSE_SIZE for the job (spawn/: MTestSpawnPossible spawns only
	# when it exceeds the job's size, and this machine's CPUs may not).
	universe=$(echo "$args" | sed -n 's/.*universe=\([0-9]*\).*/\1/p')
	args=$(echo "$args" | sed 's/ *universe=[0-9]*//')
	# mem=GB: MPICH's note of the memory a test needs (io/bigtype: 6.5), kept as its
	# testlist has it; nothing to pass on.
	args=$(echo "$args" | sed 's/ *mem=[0-9.]*//')
	# timeLimit=S: the seconds this test may take, as MPICH's testlists say it, where
	# TIMEOUT is too short (io/rdwrord -large-count moves 13 GB).
	limit=$(echo "$args" | sed -n 's/.*timeLimit=\([0-9]*\).*/\1/p')
	args=$(echo "$args" | sed 's/ *timeLimit=[0-9]*//')
	[ -n "$limit" ] || limit=$timeout
	testflags=""
	[ -n "$universe" ] && testflags="--universe-size $universe"
	dir=${test%/*}
	name=${test##*/}
	flat=$(echo "$dir" | tr / .) # threads/pt2pt -> threads.pt2pt
	bin="$out/bin/$flat.$name"
	log="$out/log/$flat.$name"
	# Some tests share a source file of a directory's own (e.g. coll's helpers).
	extra=""
	[ -f "$src/$dir/$name.extra" ] && extra=$(cat "$src/$dir/$name.extra")
	grep -q 'mtest_dtp\.h' "$src/$dir/$name.c" && extra="$extra $dtpools"
	# MPICH's MTestDatatype2 pairs (test/mpi/util/dtypes.c, built as it is).
	grep -q '"dtypes\.h"' "$src/$dir/$name.c" && [ -f "$src/util/dtypes.c" ] && extra="$extra $src/util/dtypes.c"
	if grep -q '^int run(const char \*arg)' "$src/$dir/$name.c" && ! grep -q 'main(' "$src/$dir/$name.c"; then
		extra="$extra $out/runmain.o"
	fi
	if [ ! -f "$bin" ] || [ "$src/$dir/$name.c" -nt "$bin" ] || [ "$out/mtest.o" -nt "$bin" ]; then
		# shellcheck disable=SC2086
		if ! "$mpigo" cc -O1 -w -I"$here/mtest" -include "$here/mtest/mpi1compat.h" -I"$src/include" -I"$src/$dir" -o "$bin" \
			"$src/$dir/$name.c" $extra "$out/mtest.o" "$out/mtestthread.o" -lm -pthread >"$log.build" 2>&1; then
			why=$(grep -m1 -E 'error|undefined' "$log.build" | cut -c1-150)
			if [ -n "$xfail" ]; then # an expected failure may be one to build
				printf '%-40s %2s  XFAIL  %s\n' "$test" "$np" "$xfail" | tee -a "$results"
			else
				printf '%-40s %2s  BUILD  %s\n' "$test" "$np" "$why" | tee -a "$results"
			fi
			continue
		fi
	fi
	start=$(date +%s)
	# shellcheck disable=SC2086
	# Run from a fresh directory where ./NAME is the program (spawn/ tests spawn
	# themselves so), removed afterwards with whatever the test wrote there (io/ tests
	# write ./testfile and the like).
	mkdir -p "$out/run"
	rundir=$(mktemp -d "$out/run/$flat.$name.XXXXXX")
	ln -s "$bin" "$rundir/$name"
	# shellcheck disable=SC2086
	(cd "$rundir" && "$mpigo" run -n "$np" --timeout "$limit" $testflags $runflags "./$name" $args) >"$log.out" 2>&1
	rc=$?
	rm -rf "$rundir"
	secs=$(($(date +%s) - start))
	ok=0
	if [ $rc -eq 0 ]; then
		if [ -z "$passre" ]; then
			grep -Eq '^ *No [Ee]rrors' "$log.out" && ok=1
		elif ! grep -q 'FAIL' "$log.out"; then
			[ "$passre" = exit ] || grep -Eq "$passre" "$log.out" && ok=1
		fi
	fi
	if [ $ok -eq 1 ]; then
		if [ -n "$xfail" ]; then
			printf '%-40s %2s  XPASS  %s\n' "$test" "$np" "$xfail" | tee -a "$results"
		else
			printf '%-40s %2s  pass   %ss\n' "$test" "$np" "$secs" | tee -a "$results"
		fi
	elif [ -n "$xfail" ]; then
		printf '%-40s %2s  XFAIL  %s\n' "$test" "$np" "$xfail" | tee -a "$results"
	else
		why=$(grep -Ev '^ *No [Ee]rrors' "$log.out" | grep -m1 -v '^[[:space:]]*$' | cut -c1-150)
		[ $rc -eq 124 ] && why="timeout after ${limit}s; $why"
		printf '%-40s %2s  FAIL   rc=%s %s\n' "$test" "$np" "$rc" "$why" | tee -a "$results"
	fi
done
pass=$(grep -c '  pass ' "$results")
fail=$(grep -c '  FAIL ' "$results")
nobuild=$(grep -c '  BUILD ' "$results")
echo
xfails=$(grep -c '  X[A-Z]* ' "$results")
echo "per directory (pass/fail/build failure/xfail):"
awk '{split($1, a, "/"); d=a[1]; n[d]; if ($3=="pass") p[d]++; else if ($3=="FAIL") f[d]++; else if ($3=="BUILD") b[d]++; else x[d]++}
	END {for (d in n) printf "  %-10s %3d %3d %3d %3d\n", d, p[d], f[d], b[d], x[d]}' "$results" | sort
echo "total: $pass passed, $fail failed, $nobuild did not build, $xfails marked xfail (logs in $out/log)"
[ "$fail" -eq 0 ] && [ "$nobuild" -eq 0 ]
