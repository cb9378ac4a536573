# oldnew.sh - sourced by the *cost.sh scripts that compare a revision with the working
# tree (iocost.sh, collcost.sh): the builds of both sides and the count per call.
#
# oldnew NAME REV makes a temporary directory $dir (removed at exit), builds
# bench/NAME at REV as $dir/old.bin (with this tree's main.go, so that both sides run
# the same loop over their own library), the working tree's as $dir/new.bin, and the
# working tree's launcher as $dir/mpigo.
oldnew() {
	dir=$(mktemp -d)
	trap 'git worktree remove --force "$dir/old" >/dev/null 2>&1; rm -rf "$dir"' EXIT
	git worktree add -q --detach "$dir/old" "$2"
	rm -rf "$dir/old/bench/$1" && mkdir -p "$dir/old/bench/$1" && cp "bench/$1/main.go" "$dir/old/bench/$1/"
	(cd "$dir/old" && go build -o "$dir/old.bin" "./bench/$1")
	go build -o "$dir/new.bin" "./bench/$1"
	go build -o "$dir/mpigo" ./cmd/mpigo
}

# perCall WHAT NP SIZE... prints, per size and side (old, new), the instructions per
# call and rank: the difference of the caller's count (a function: count BIN ITERS
# SIZE, printing "function cost" lines over all ranks) between HI and LO calls (3000
# and 1000 unless the environment says), divided by HI-LO calls and NP ranks
# (start-up cancels out). With verbose set it lists
# the functions that moved by more than 2 as well.
perCall() {
	local what=$1 np=$2 size v
	shift 2
	for size in "$@"; do
		for v in old new; do
			count $v.bin "${LO:-1000}" "$size" >"$dir/a"
			count $v.bin "${HI:-3000}" "$size" >"$dir/b"
			awk -v v=$v -v what="$what" -v size="$size" -v np="$np" -v verbose="${verbose:-}" -v calls=$((${HI:-3000} - ${LO:-1000})) '
				NR == FNR { a[$1] = $2; next }
				{ d = ($2 - a[$1]) / (calls * np); t += d; if (verbose && (d > 2 || d < -2)) printf "  %s %8.1f %s\n", v, d, $1 }
				END { printf "%s %s %8d B: %6.0f instructions per call and rank\n", v, what, size, t }' "$dir/a" "$dir/b"
		done
	done
}
