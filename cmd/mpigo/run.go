package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/mpigo/mpigo/internal/config"
	"github.com/mpigo/mpigo/internal/launch"
)

type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

func runCmd(args []string) int {
	fs := flag.NewFlagSet("mpigo run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var (
		n             int
		envs, sets    listFlag
		hosts         string
		hostfile      string
		agent         string
		fanout        int
		npernode      int
		wireupStats   bool
		profile       string
		report        bool
		tag           bool
		timeout       float64
		oversubscribe bool
		bindTo, mapBy string
		agentArgv     []string
		universe      int
	)
	fs.IntVar(&n, "n", 0, "number of ranks")
	fs.IntVar(&n, "np", 0, "number of ranks (same as -n)")
	fs.Var(&envs, "x", "export VAR (or set VAR=value) in every rank; repeatable")
	fs.Var(&sets, "set", "set an mpigo setting for the job, NAME=VALUE (see 'mpigo info'); repeatable")
	fs.BoolVar(&tag, "tag-output", false, "prefix every output line with [rank]")
	fs.Float64Var(&timeout, "timeout", 0, "end the job after SECONDS (exit code 124)")
	fs.BoolVar(&oversubscribe, "oversubscribe", false, "allow more ranks than cores (always allowed; ranks then wait politely)")
	fs.StringVar(&bindTo, "bind-to", "auto", "none, core, or auto (core where a node has as many ranks as CPUs or more)")
	fs.StringVar(&mapBy, "map-by", "slot", "slot or node")
	fs.StringVar(&hosts, "host", "", "hosts to run on, with slots: a,b:4")
	fs.StringVar(&hosts, "H", "", "same as --host")
	fs.StringVar(&hostfile, "hostfile", "", "file of hosts, one a line: NAME [slots=N]")
	fs.StringVar(&agent, "launch-agent", "ssh", "command that runs a command on a host: CMD HOST COMMAND...")
	fs.IntVar(&fanout, "fanout", 32, "agents each agent starts (the launch tree's fan-out)")
	fs.IntVar(&npernode, "npernode", 0, "ranks on each host (0: by slots)")
	fs.StringVar(&profile, "profile", "", "profile the job into DIR: every rank's MPI calls (counters, matrix, timeline); at the end a summary, matrix.csv, trace.json and profile.html (setting profile)")
	fs.BoolVar(&report, "report", false, "at the end, print one line per rank of its time in MPI")
	fs.IntVar(&universe, "universe-size", 0, "MPI_UNIVERSE_SIZE, how many processes the job may spawn up to (0: the hosts' slots, else this machine's CPUs)")
	fs.BoolVar(&wireupStats, "wireup-stats", false, "print the fence traffic per node at the end (with --host)")
	fs.Usage = func() {}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			runUsage(fs)
			return 0
		}
		msg := strings.TrimPrefix(err.Error(), "flag ")
		if name, ok := strings.CutPrefix(msg, "provided but not defined: -"); ok {
			typed := "-" + name // as the user typed it: -name or --name
			for _, a := range args {
				if k, _, _ := strings.Cut(a, "="); strings.TrimLeft(k, "-") == name && strings.HasPrefix(k, "-") {
					typed = k
					break
				}
			}
			msg = fmt.Sprintf("unknown flag %q", typed)
		}
		fmt.Fprintf(os.Stderr, "mpigo run: %s\n", msg)
		fmt.Fprintln(os.Stderr, "run 'mpigo run --help' for the flags")
		return launch.ExitUsage
	}
	bad := func(format string, a ...any) int {
		fmt.Fprintf(os.Stderr, "mpigo run: "+format+"\n", a...)
		return launch.ExitUsage
	}
	if fs.NArg() == 0 || fs.Arg(0) == ":" {
		return bad("no program given: mpigo run -n N PROGRAM [ARGS...]")
	}
	first, more, err := splitApps(fs.Args())
	if err != nil {
		return bad("%v", err)
	}
	if universe < 0 {
		return bad("--universe-size %d: must not be negative", universe)
	}
	if n <= 0 && hosts == "" && hostfile == "" && os.Getenv("SLURM_JOB_ID") == "" {
		if n == 0 && !flagSet(fs, "n") && !flagSet(fs, "np") {
			return bad("-n is required: how many ranks to start (mpigo run -n 4 %s)", fs.Arg(0))
		}
		return bad("-n %d: the number of ranks must be at least 1", n)
	}
	if timeout < 0 {
		return bad("--timeout %v: must not be negative", timeout)
	}
	if bindTo != "none" && bindTo != "core" && bindTo != "auto" {
		return bad("--bind-to %q: must be none, core or auto", bindTo)
	}
	if mapBy != "slot" && mapBy != "node" {
		return bad("--map-by %q: must be slot or node", mapBy)
	}
	var hostList []launch.Host
	switch {
	case hosts != "" && hostfile != "":
		return bad("--host and --hostfile: give one or the other")
	case hosts != "":
		hostList, err = launch.ParseHosts(hosts)
	case hostfile != "":
		hostList, err = launch.ReadHostfile(hostfile)
	}
	if err != nil {
		return bad("%v", err)
	}
	if hostList == nil {
		// Inside a Slurm allocation the allocation is the host list, and srun reaches it.
		sh, sagent, inSlurm, err := launch.SlurmHosts()
		if err != nil {
			return bad("in the Slurm allocation: %v", err)
		}
		if inSlurm {
			hostList = sh
			if !flagSet(fs, "launch-agent") {
				agent = strings.Join(sagent, " ")
			}
		}
	}
	if fanout < 1 {
		return bad("--fanout %d: must be at least 1", fanout)
	}
	if npernode < 0 {
		return bad("-npernode %d: must not be negative", npernode)
	}
	if len(hostList) > 0 && !flagSet(fs, "n") && !flagSet(fs, "np") && n <= 0 {
		n = 0 // filled below from the slots
		for _, h := range hostList {
			n += h.Slots
		}
		if npernode > 0 {
			n = npernode * len(hostList)
		}
	}
	if len(hostList) > 0 {
		if n <= 0 {
			return bad("-n %d: the number of ranks must be at least 1", n)
		}
		// Every named host starts an agent, even this one: the host list says where ranks
		// go, and an agent per host keeps one way of doing it.
		if a := strings.Fields(agent); len(a) > 0 {
			agentArgv = a
		} else {
			return bad("--launch-agent %q: empty command", agent)
		}
	}
	spec := launch.Spec{N: n, Args: first[1:], TagOutput: tag, UniverseSize: universe,
		Hosts: hostList, Agent: agentArgv, Fanout: fanout, WireupStats: wireupStats,
		Profile: profile, Report: report,
		Mapping: launch.Mapping{ByNode: mapBy == "node", PerNode: npernode, Oversubscribe: oversubscribe},
		Timeout: time.Duration(timeout * float64(time.Second)), Stdin: os.Stdin,
		Settings: map[string]string{}}
	for _, e := range envs {
		name, val, ok := strings.Cut(e, "=")
		if name == "" {
			return bad("-x %q: want VAR or VAR=value", e)
		}
		if !ok {
			val = os.Getenv(name)
		}
		spec.Env = append(spec.Env, name+"="+val)
	}
	for _, s := range sets {
		name, val, ok := strings.Cut(s, "=")
		st, known := config.Lookup(name)
		if !ok || !known {
			return bad("--set %q: want NAME=VALUE with a setting listed by 'mpigo info'", s)
		}
		spec.Settings[st.Name] = val
	}
	if bindTo != "auto" {
		spec.Settings["bind_to"] = bindTo
	}
	// Before the program is resolved, which may build it.
	if err := launch.CheckSettings(&spec); err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			fmt.Fprintf(os.Stderr, "mpigo run: %s\n", line)
		}
		return launch.ExitUsage
	}
	prog, err := launch.Resolve(first[0])
	if err != nil {
		return bad("%v", err)
	}
	spec.Program = prog
	if len(more) > 0 {
		spec.Apps = []launch.App{{Program: prog, Args: spec.Args, N: n}}
		for _, a := range more {
			if a.Program, err = launch.Resolve(a.Program); err != nil {
				return bad("%v", err)
			}
			spec.Apps = append(spec.Apps, a)
		}
	}
	return launch.Run(spec)
}

// splitApps splits the command line after the flags at its ':' words (MPMD: mpigo
// run -n 2 ./a : -n 3 ./b x): the first part is the program and arguments the global
// flags apply to; each later part is -n N PROGRAM [ARGS...], its program unresolved.
func splitApps(args []string) (first []string, more []launch.App, err error) {
	var parts [][]string
	start := 0
	for i, a := range args {
		if a == ":" {
			parts = append(parts, args[start:i])
			start = i + 1
		}
	}
	parts = append(parts, args[start:])
	for i, p := range parts[1:] {
		fs := flag.NewFlagSet("part", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		n := 0
		fs.IntVar(&n, "n", 0, "")
		fs.IntVar(&n, "np", 0, "")
		if err := fs.Parse(p); err != nil {
			return nil, nil, fmt.Errorf("part %d after ':' (%s): %v (a part takes -n N PROGRAM [ARGS...])", i+1, strings.Join(p, " "), strings.TrimPrefix(err.Error(), "flag "))
		}
		if n <= 0 || fs.NArg() == 0 {
			return nil, nil, fmt.Errorf("part %d after ':' (%s): want -n N PROGRAM [ARGS...] with N at least 1", i+1, strings.Join(p, " "))
		}
		more = append(more, launch.App{Program: fs.Arg(0), Args: fs.Args()[1:], N: n})
	}
	return parts[0], more, nil
}

func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			set = true
		}
	})
	return set
}

// runUsage prints the flags to stdout (mpigo run --help | less), spelt as the README
// spells them: one dash for one letter (-n, -x, -H), two for words (--timeout).
func runUsage(fs *flag.FlagSet) {
	w := os.Stdout
	fmt.Fprintln(w, "usage: mpigo run [flags] PROGRAM [ARGS...] [: -n N PROGRAM [ARGS...]]...")
	fmt.Fprintln(w, "PROGRAM is an executable, a command in PATH, or a Go package (./examples/pi).")
	fmt.Fprintln(w, "Parts after ':' add programs to the job (MPMD): their ranks follow, and MPI_APPNUM is the part's index.")
	fmt.Fprintln(w, "flags:")
	fs.VisitAll(func(f *flag.Flag) {
		fmt.Fprintf(w, "  %s\n    \t%s\n", flagSpelling(f), strings.ReplaceAll(f.Usage, "\n", "\n    \t"))
	})
}

func flagSpelling(f *flag.Flag) string {
	dash := "--"
	if len(f.Name) == 1 || f.Name == "np" || f.Name == "npernode" {
		dash = "-" // as mpirun spells them
	}
	s := dash + f.Name
	name, _ := flag.UnquoteUsage(f)
	if name == "float" {
		name = "seconds"
	}
	if _, isBool := f.Value.(interface{ IsBoolFlag() bool }); !isBool && name != "" {
		s += " " + strings.ToUpper(name)
	}
	if d := f.DefValue; d != "" && d != "0" && d != "false" && d != "[]" {
		s += " (default " + d + ")"
	}
	return s
}
