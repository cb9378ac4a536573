#!/bin/bash
# ab.sh - compare a bench program of two builds of mpigo, interleaved, as compare.sh
# interleaves the C MPIs: the working tree against an older revision.
#
# usage (from the project's root):  bench/ab.sh REV BENCH NP N [ARGS...]
#   REV    the older revision (a commit, a tag, a branch)
#   BENCH  a bench/<name> package (lat, bw, coll, dtype, ...)
#   NP     ranks;  N  runs of each build, alternated;  ARGS  the program's arguments
# It prints, per RESULT key, the min, median and max of each build and their ratios (for
# a bandwidth the max is the best run, for a time the min). The builds take turns in
# both orders (old first in odd rounds, new first in even ones), so that what comes
# with a place in the order (a run inherits the host's state from the one before it:
# docs/BENCHMARKS.md, Host states) does not always fall to the same build.
set -eu
rev=$1 bench=$2 np=$3 n=$4; shift 4
dir=$(mktemp -d); trap 'git worktree remove --force "$dir/old" >/dev/null 2>&1; rm -rf "$dir"' EXIT
git worktree add -q --detach "$dir/old" "$rev"
(cd "$dir/old" && go build -o "$dir/old.bin" "./bench/$bench")
go build -o "$dir/new.bin" "./bench/$bench"
go build -o "$dir/mpigo" ./cmd/mpigo
for i in $(seq "$n"); do
	order="old new"
	if [ $((i % 2)) = 0 ]; then order="new old"; fi
	for v in $order; do
		"$dir/mpigo" run -n "$np" "$dir/$v.bin" "$@" 2>/dev/null | awk -v v=$v '/^RESULT/ && $2 !~ /_max$/ {print v, $2"/"$3, $4}'
	done
done >"$dir/raw"
python3 - "$dir/raw" <<'PY'
import collections, statistics, sys
d = collections.defaultdict(list)
for line in open(sys.argv[1]):
    v, k, x = line.split()
    d[(k, v)].append(float(x))
for k in sorted({k for k, _ in d}):
    o, w = d[(k, "old")], d[(k, "new")]
    if o and w:
        print(f"{k:28s} old min {min(o):9.3f} med {statistics.median(o):9.3f} max {max(o):9.3f} | new min {min(w):9.3f} "
              f"med {statistics.median(w):9.3f} max {max(w):9.3f} | new/old min {min(w)/min(o):.2f} "
              f"med {statistics.median(w)/statistics.median(o):.2f} max {max(w)/max(o):.2f}")
PY
