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
		tag           bool
		timeout       float64
		oversubscribe bool
		bindTo, mapBy string
	)
	fs.IntVar(&n, "n", 0, "number of ranks")
	fs.IntVar(&n, "np", 0, "number of ranks (same as -n)")
	fs.Var(&envs, "x", "export VAR (or set VAR=value) in every rank; repeatable")
	fs.Var(&sets, "set", "set an mpigo setting for the job, NAME=VALUE (see 'mpigo info'); repeatable")
	fs.BoolVar(&tag, "tag-output", false, "prefix every output line with [rank]")
	fs.Float64Var(&timeout, "timeout", 0, "end the job after SECONDS (exit code 124)")
	fs.BoolVar(&oversubscribe, "oversubscribe", false, "allow more ranks than cores (always allowed; ranks then wait politely)")
	fs.StringVar(&bindTo, "bind-to", "none", "none or core")
	fs.StringVar(&mapBy, "map-by", "slot", "slot or node")
	fs.StringVar(&hosts, "host", "", "hosts to run on; only this machine for now")
	fs.StringVar(&hosts, "H", "", "same as --host")
	fs.Usage = func() {}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			runUsage(fs)
			return 0
		}
		fmt.Fprintf(os.Stderr, "mpigo run: %v\n", strings.TrimPrefix(err.Error(), "flag "))
		fmt.Fprintln(os.Stderr, "run 'mpigo run -h' for the flags")
		return launch.ExitUsage
	}
	bad := func(format string, a ...any) int {
		fmt.Fprintf(os.Stderr, "mpigo run: "+format+"\n", a...)
		return launch.ExitUsage
	}
	if fs.NArg() == 0 {
		return bad("no program given: mpigo run -n N PROGRAM [ARGS...]")
	}
	if n <= 0 {
		if n == 0 && !flagSet(fs, "n") && !flagSet(fs, "np") {
			return bad("-n is required: how many ranks to start (mpigo run -n 4 %s)", fs.Arg(0))
		}
		return bad("-n %d: the number of ranks must be at least 1", n)
	}
	if timeout < 0 {
		return bad("--timeout %v: must not be negative", timeout)
	}
	if bindTo != "none" && bindTo != "core" {
		return bad("--bind-to %q: must be none or core", bindTo)
	}
	if mapBy != "slot" && mapBy != "node" {
		return bad("--map-by %q: must be slot or node", mapBy)
	}
	if hosts != "" {
		self, _ := os.Hostname()
		for _, h := range strings.Split(hosts, ",") {
			h, _, _ = strings.Cut(h, ":")
			if h != "localhost" && h != self && h != "127.0.0.1" {
				return bad("--host %s: runs on other machines are not supported yet; only this machine (%s)", h, self)
			}
		}
	}
	spec := launch.Spec{N: n, Args: fs.Args()[1:], TagOutput: tag,
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
	if bindTo == "core" {
		spec.Settings["bind_to"] = "core"
	}
	prog, err := launch.Resolve(fs.Arg(0))
	if err != nil {
		return bad("%v", err)
	}
	spec.Program = prog
	return launch.Run(spec)
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

func runUsage(fs *flag.FlagSet) {
	fmt.Fprintln(os.Stderr, "usage: mpigo run [flags] PROGRAM [ARGS...]")
	fmt.Fprintln(os.Stderr, "PROGRAM is an executable, a command in PATH, or a Go package (./examples/pi).")
	fmt.Fprintln(os.Stderr, "flags:")
	fs.SetOutput(os.Stderr)
	fs.PrintDefaults()
}
