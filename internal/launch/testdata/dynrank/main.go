// Dynrank is the program the launcher's tests of dynamic processes run: a rank that
// speaks to the launcher through wireup's client directly (no MPI), doing what its
// arguments say.
//
//	dynrank child [CODE RANK]           say what the launcher told it; rank RANK exits CODE
//	dynrank spawn PORT CMD...           rank 0 spawns the commands, each N|PROG[|KEY=VAL...] with
//	                                    the arguments after "--" (all commands), and prints each error
//	dynrank spawn-block PORT CMD...     as spawn, then blocks until the launcher stops it
//	dynrank names                       publish, look up and unpublish, as stdin's lines say
//	dynrank stamps K                    rank 0 spawns 4 children K times (dynrank hello I) and prints
//	                                    when it asked and when the answer came
//	dynrank hello I                     Hello, print when, Finalize
package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/mpigo/mpigo/internal/pm"
	"github.com/mpigo/mpigo/internal/wireup"
)

func main() {
	c, err := wireup.FromEnv()
	if err != nil || c == nil {
		fmt.Fprintf(os.Stderr, "dynrank: not under mpigo's launcher: %v\n", err)
		os.Exit(1)
	}
	args := os.Args[1:]
	switch args[0] {
	case "child":
		say(c)
		if len(args) == 3 && strconv.Itoa(c.Rank()) == args[2] {
			code, _ := strconv.Atoi(args[1])
			os.Exit(code)
		}
	case "spawn", "spawn-block":
		if c.Rank() == 0 {
			say(c)
			spawn(c, args[1], args[2:])
		}
		if args[0] == "spawn-block" {
			fmt.Println("spawned")
			select {}
		}
	case "names":
		names(c)
	case "stamps":
		k, _ := strconv.Atoi(args[1])
		self, _ := os.Executable()
		for i := 0; i < k; i++ {
			fmt.Printf("start %d %d\n", i, time.Now().UnixNano())
			errs, err := c.Spawn([]pm.SpawnCmd{{Program: self, Args: []string{"hello", strconv.Itoa(i)}, MaxProcs: 4}}, "port")
			if err != nil || errs[0] != nil {
				fmt.Fprintln(os.Stderr, "spawn:", err, errs)
				os.Exit(1)
			}
			fmt.Printf("answer %d %d\n", i, time.Now().UnixNano())
		}
	case "hello":
		c.Hello(false)
		fmt.Printf("hello %s %d\n", args[1], time.Now().UnixNano())
		c.Finalize()
	}
}

// say prints what the launcher told this process of its job.
func say(c *wireup.Client) {
	u, uok := c.UniverseSize()
	a, aok := c.AppNum()
	wd, _ := os.Getwd()
	fmt.Printf("job %s rank %d size %d appnum %d %v universe %d %v parent %q host %s wd %s args %q\n",
		c.JobID(), c.Rank(), c.Size(), a, aok, u, uok, c.ParentPort(), c.HostName(c.NodeOf(c.Rank())), wd, os.Args[1:])
}

// spawn spawns cmds, each "N|PROG[|KEY=VALUE...]"; the words after "--" are every
// command's arguments.
func spawn(c *wireup.Client, port string, words []string) {
	var cmds []pm.SpawnCmd
	var args []string
	for i, w := range words {
		if w == "--" {
			args = words[i+1:]
			break
		}
		f := strings.Split(w, "|")
		n, _ := strconv.Atoi(f[0])
		info := map[string]string{}
		for _, kv := range f[2:] {
			k, v, _ := strings.Cut(kv, "=")
			info[k] = v
		}
		cmds = append(cmds, pm.SpawnCmd{Program: f[1], MaxProcs: n, Info: info})
	}
	for i := range cmds {
		cmds[i].Args = args
	}
	errs, err := c.Spawn(cmds, port)
	if err != nil {
		fmt.Printf("spawn failed: %v\n", err)
		return
	}
	for i, e := range errs {
		fmt.Printf("proc %d: %v\n", i, e)
	}
}

// names runs stdin's lines: "publish S P", "lookup S", "unpublish S P", printing
// each result; "wait" waits for the next line.
func names(c *wireup.Client) {
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		var out string
		switch {
		case len(f) == 3 && f[0] == "publish":
			out = fmt.Sprint(c.Publish(f[1], f[2]))
		case len(f) == 2 && f[0] == "lookup":
			p, err := c.Lookup(f[1])
			out = fmt.Sprintf("%q %v", p, err)
		case len(f) == 3 && f[0] == "unpublish":
			out = fmt.Sprint(c.Unpublish(f[1], f[2]))
		default:
			out = "?"
		}
		fmt.Printf("%s: %s\n", sc.Text(), out)
	}
}
