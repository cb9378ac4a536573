package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"text/tabwriter"

	"github.com/mpigo/mpigo/internal/config"
	"github.com/mpigo/mpigo/internal/topo"
	_ "github.com/mpigo/mpigo/mpi" // declares the library's settings
)

func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

func infoCmd(args []string) int {
	w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "mpigo\t%s\n", version())
	fmt.Fprintf(w, "go\t%s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	if p := config.FilePath(); p != "" {
		fmt.Fprintf(w, "config file\t%s\n", p)
	} else {
		fmt.Fprintf(w, "config file\tnone (set %s, or write ~/.config/mpigo/config)\n", config.FileVar)
	}
	w.Flush()
	fmt.Println()
	fmt.Println("machine:")
	var b strings.Builder
	topo.Machine().Describe(&b)
	for _, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		fmt.Println("  " + line)
	}
	if set, err := topo.Allowed(); err == nil {
		fmt.Printf("  this process may run on cpus %s\n", set)
	}
	fmt.Println()
	fmt.Println("settings (flag: mpigo run --set NAME=VALUE; environment: MPIGO_NAME; file: NAME = VALUE):")
	w = tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "  NAME\tVALUE\tSOURCE\tMEANING")
	for _, s := range config.All() {
		v, src := s.Value()
		fmt.Fprintf(w, "  %s\t%s\t%s\t%s\n", s.Name, v, src, s.Help)
		if err := s.Err(); err != nil {
			fmt.Fprintf(w, "  \t\t\tignored: %v\n", err)
		}
	}
	w.Flush()
	return 0
}
