package main

import (
	"fmt"
	"os"

	"github.com/mpigo/mpigo/internal/launch"
)

// cacheCmd shows (mpigo cache) or empties (mpigo cache clean) the cache of Go
// programs mpigo run has built.
func cacheCmd(args []string) int {
	dir := launch.CacheDir()
	switch {
	case len(args) == 0:
		n, size, err := launch.CacheUsage()
		if err != nil {
			fmt.Fprintf(os.Stderr, "mpigo cache: %v\n", err)
			return 1
		}
		fmt.Printf("%s: %d programs, %.1f MiB (the %d most recently used are kept; 'mpigo cache clean' empties it)\n",
			dir, n, float64(size)/(1<<20), launch.CacheKeep)
		return 0
	case len(args) == 1 && args[0] == "clean":
		n, err := launch.CleanCache()
		if err != nil {
			fmt.Fprintf(os.Stderr, "mpigo cache clean: %v\n", err)
			return 1
		}
		fmt.Printf("removed %d programs from %s\n", n, dir)
		return 0
	case args[0] == "-h" || args[0] == "--help" || args[0] == "help":
		fmt.Println("usage: mpigo cache [clean]\nshows mpigo's cache of Go programs built by mpigo run; clean empties it")
		return 0
	}
	fmt.Fprintf(os.Stderr, "mpigo cache: unknown argument %q (want nothing, or clean)\n", args[0])
	return launch.ExitUsage
}
