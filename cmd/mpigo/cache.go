package main

import (
	"fmt"
	"os"

	"github.com/mpigo/mpigo/abi"
	"github.com/mpigo/mpigo/internal/launch"
)

// cacheCmd shows (mpigo cache) or empties (mpigo cache clean) the cache of Go
// programs mpigo run has built, and the C ABI libraries mpigo cc has built (clean
// keeps the current sources' one).
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
		libs, others, size, err := abi.CacheUsage()
		if err != nil {
			fmt.Fprintf(os.Stderr, "mpigo cache: %v\n", err)
			return 1
		}
		fmt.Printf("%s: %d C ABI libraries, %.1f MiB (%d built from other sources than the current ones; 'mpigo cache clean' removes those)\n",
			abi.CacheDir(), libs, float64(size)/(1<<20), others)
		return 0
	case len(args) == 1 && args[0] == "clean":
		n, err := launch.CleanCache()
		if err != nil {
			fmt.Fprintf(os.Stderr, "mpigo cache clean: %v\n", err)
			return 1
		}
		fmt.Printf("removed %d programs from %s\n", n, dir)
		removed, size, err := abi.Clean()
		if err != nil {
			fmt.Fprintf(os.Stderr, "mpigo cache clean: %v\n", err)
			return 1
		}
		for _, d := range removed {
			fmt.Println("removed", d)
		}
		fmt.Printf("removed C ABI libraries of other sources: %d (%.1f MiB) from %s\n", len(removed), float64(size)/(1<<20), abi.CacheDir())
		return 0
	case args[0] == "-h" || args[0] == "--help" || args[0] == "help":
		fmt.Println("usage: mpigo cache [clean]\nshows mpigo's caches: the Go programs mpigo run built, and the C ABI libraries\n" +
			"mpigo cc built (one for each version of the sources). clean empties the first and removes\n" +
			"the libraries of other sources than the current ones; a program linked by mpigo cc\n" +
			"against a removed one must be linked again.")
		return 0
	}
	fmt.Fprintf(os.Stderr, "mpigo cache: unknown argument %q (want nothing, or clean)\n", args[0])
	return launch.ExitUsage
}
