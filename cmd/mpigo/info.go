package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mpigo/mpigo/internal/collective"
	"github.com/mpigo/mpigo/internal/config"
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/launch"
	"github.com/mpigo/mpigo/internal/topo"
	"github.com/mpigo/mpigo/internal/window"
	"github.com/mpigo/mpigo/mpi"
)

func infoCmd(args []string) int {
	if len(args) > 0 && args[0] == "--probe" {
		return probe()
	}
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
		fmt.Println("usage: mpigo info\nprints the version, the machine, the transports and every setting with its value and source")
		return 0
	}
	if !noArgs("info", args) {
		return launch.ExitUsage
	}
	w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	v, sv := mpi.GetVersion()
	fmt.Fprintf(w, "library\t%s, MPI %d.%d\n", mpi.LibraryVersion(), v, sv)
	if p := config.FilePath(); p != "" {
		fmt.Fprintf(w, "config file\t%s\n", p)
	} else {
		fmt.Fprintf(w, "config file\tnone (set %s, or write ~/.config/mpigo/config)\n", config.FileVar)
	}
	fmt.Fprintf(w, "C ABI library\t%s\n", abiInfo())
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
	fmt.Println("transports and protocols (a 2-rank probe job on this machine; MPIGO_* settings apply):")
	if out, err := probeJob(); err != nil {
		fmt.Printf("  probe failed: %v\n", err)
	} else {
		for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			fmt.Println("  " + line)
		}
	}
	fmt.Println()
	fmt.Println("settings (flag: mpigo run --set NAME=VALUE; environment: MPIGO_NAME; file: NAME = VALUE):")
	w = tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "  NAME\tVALUE\tSOURCE\tVALID VALUES\tMEANING")
	for _, s := range config.All() {
		v, src := s.Value()
		fmt.Fprintf(w, "  %s\t%s\t%s\t%s\t%s\n", s.Name, v, src, s.Rule(), s.Help)
		if err := s.Err(); err != nil {
			fmt.Fprintf(w, "  \t\t\t\tignored: %v\n", err)
		}
	}
	w.Flush()
	return 0
}

// probeJob runs `mpigo info --probe` as a 2-rank job and returns what rank 0 reports.
func probeJob() (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", err
	}
	var out, errb bytes.Buffer
	code := launch.Run(launch.Spec{N: 2, Program: self, Args: []string{"info", "--probe"},
		Stdout: &out, Stderr: &errb, Timeout: 30 * time.Second})
	if code != 0 {
		return "", fmt.Errorf("exit code %d: %s", code, strings.TrimSpace(errb.String()))
	}
	return out.String(), nil
}

// probe is one rank of the probe job: rank 0 prints what it uses to reach rank 1.
func probe() int {
	if err := mpi.Init(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer mpi.Finalize()
	// A first message makes the connection, so the endpoint reports its real models.
	if mpi.World.Rank() == 0 {
		mpi.Send(mpi.World, []byte{1}, 1, 0)
		info, err := core.TransportInfo(1)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Print(info)
		fmt.Print(window.RMAInfo())
		fmt.Print(collective.Table(core.World))
	} else {
		mpi.Recv(mpi.World, []byte{0}, 0, 0)
	}
	return 0
}
