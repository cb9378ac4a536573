#!/bin/sh
# mpich-head.sh - make a run-mpich.sh list of every test MPICH's own testlists name
# in a copy of MPICH's test/mpi (the mirror's HEAD: git archive HEAD test/mpi), and
# lay out in that copy the programs MPICH's Makefile.am builds from another source
# (NAME.c a link to it, NAME.extra its -D flags and further sources), as run-mpich.sh
# expects them.
#
#   abi/suite/mpich-head.sh MPICH_TEST_DIR > LIST
#
# Directories: the C ones of the top testlist that mpigo has (attr ... topo, io,
# threads/*), not the Fortran and C++ ones, perf, impls, ckpoint, ft. A line's arg=
# words become the test's arguments and its timeLimit= is kept; MPICH's own keys
# (xfail=, env=MPIR_CVAR_..., mpiversion=, resultTest=, strict=, mem=) are dropped,
# so every test is counted as MPICH's testlist would run it. Lines behind a configure
# switch (@...@) are left out but for @comm_overlap@ and @namepub_tests@, which this
# harness has. spawn tests get universe=16 (MTestSpawnPossible).
set -eu
src=$(cd "${1:?usage: mpich-head.sh MPICH_TEST_DIR}" && pwd)
# dtpools' configure header (what its configure finds on any POSIX system), so that
# run-mpich.sh can build dtpools for the tests that draw datatypes from it.
if [ -d "$src/dtpools/src" ] && [ ! -f "$src/dtpools/dtpoolsconf.h" ]; then
	for h in STDLIB_H STRING_H LIMITS_H STDINT_H SYS_TYPES_H STRDUP MEMSET; do
		echo "#define HAVE_$h 1"
	done >"$src/dtpools/dtpoolsconf.h"
fi
dirs="attr coll comm datatype errhan group info init mpi_t pt2pt part rma session spawn topo io
threads/pt2pt threads/comm threads/coll threads/init threads/rma threads/mpi_t threads/part threads/spawn"
for d in $dirs; do
	list=$src/$d/testlist.in
	[ -f "$list" ] || list=$src/$d/testlist
	[ -f "$list" ] || continue
	# NAME SOURCES... | CPPFLAGS... from Makefile.am (continuation lines joined).
	am=$src/$d/Makefile.am
	vars=$(mktemp)
	if [ -f "$am" ]; then
		sed -e ':a' -e '/\\$/N; s/\\\n/ /; ta' "$am" |
			sed -n 's/^\([A-Za-z0-9_]*\)_\(SOURCES\|CPPFLAGS\)[[:space:]]*=[[:space:]]*\(.*\)$/\1 \2 \3/p' >"$vars"
	fi
	sed -e 's/@comm_overlap@//' -e 's/@namepub_tests@//' "$list" | grep -v '^[[:space:]]*#' | grep -v '@' |
		while read -r name np rest; do
			[ -n "${np:-}" ] || continue
			args="" keys=""
			for w in $rest; do
				case "$w" in
				arg=*) args="$args ${w#arg=}" ;;
				timeLimit=*) keys="$keys $w" ;;
				*=*) ;;
				*) args="$args $w" ;;
				esac
			done
			srcs=$(awk -v n="$name" '$1 == n && $2 == "SOURCES" {for (i = 3; i <= NF; i++) if ($i ~ /\.c$/) print $i}' "$vars")
			flags=$(awk -v n="$name" '$1 == n && $2 == "CPPFLAGS" {for (i = 3; i <= NF; i++) if ($i ~ /^-D/) print $i}' "$vars")
			if [ ! -e "$src/$d/$name.c" ]; then
				first=$(echo "$srcs" | head -n 1)
				[ -n "$first" ] || continue # not a C program of this directory
				ln -s "$first" "$src/$d/$name.c"
			fi
			more=$(echo "$srcs" | grep -vx "$name.c" | grep -vx "$(readlink "$src/$d/$name.c" || true)" | sed "s|^|$src/$d/|" || true)
			extra=$(echo $flags $more)
			[ -z "$extra" ] || [ -f "$src/$d/$name.extra" ] || echo "$extra" >"$src/$d/$name.extra"
			[ "$d" = spawn ] && keys="$keys universe=16"
			echo "$d/$name $np$args$keys"
		done
	rm -f "$vars"
done
