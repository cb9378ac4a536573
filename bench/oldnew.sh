# oldnew.sh - sourced by the *cost.sh scripts that compare a revision with the working
# tree: oldnew NAME REV makes a temporary directory $dir (removed at exit), builds
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
