package launch

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// SlurmHosts returns the hosts and slots of the Slurm allocation this process runs in
// (inside sbatch or salloc), from SLURM_JOB_NODELIST and SLURM_TASKS_PER_NODE, and the
// launch agent that reaches them (srun, one task on the named node). ok is false
// outside an allocation.
func SlurmHosts() (hosts []Host, agent []string, ok bool, err error) {
	list := os.Getenv("SLURM_JOB_NODELIST")
	if list == "" {
		list = os.Getenv("SLURM_NODELIST")
	}
	if list == "" || os.Getenv("SLURM_JOB_ID") == "" {
		return nil, nil, false, nil
	}
	names, err := ExpandHostlist(list)
	if err != nil {
		return nil, nil, true, err
	}
	tasks := os.Getenv("SLURM_TASKS_PER_NODE")
	var counts []int
	if tasks != "" {
		if counts, err = ExpandTasksPerNode(tasks); err != nil {
			return nil, nil, true, err
		}
	}
	for i, n := range names {
		slots := 1
		if i < len(counts) {
			slots = counts[i]
		}
		hosts = append(hosts, Host{Name: n, Slots: slots})
	}
	// srun runs the agent as one task on exactly that node, inside this allocation;
	// unbuffered, since srun would otherwise hold the agent's frames until a newline.
	agent = []string{"srun", "--unbuffered", "--nodes=1", "--ntasks=1", "--kill-on-bad-exit", "--nodelist"}
	return hosts, agent, true, nil
}

// ExpandHostlist expands Slurm's compressed host list: "node[01-03,07],login1" is
// node01, node02, node03, node07, login1 (leading zeros are kept).
func ExpandHostlist(s string) ([]string, error) {
	var out []string
	for len(s) > 0 {
		// One item runs to the next comma outside brackets.
		depth, end := 0, len(s)
		for i, c := range s {
			if c == '[' {
				depth++
			} else if c == ']' {
				depth--
			} else if c == ',' && depth == 0 {
				end = i
				break
			}
		}
		item := s[:end]
		s = strings.TrimPrefix(s[end:], ",")
		names, err := expandItem(item)
		if err != nil {
			return nil, fmt.Errorf("host list %q: %v", item, err)
		}
		out = append(out, names...)
	}
	return out, nil
}

func expandItem(item string) ([]string, error) {
	open := strings.IndexByte(item, '[')
	if open < 0 {
		if item == "" {
			return nil, fmt.Errorf("empty host name")
		}
		return []string{item}, nil
	}
	close := strings.IndexByte(item[open:], ']')
	if close < 0 {
		return nil, fmt.Errorf("unclosed '['")
	}
	close += open
	prefix, ranges, rest := item[:open], item[open+1:close], item[close+1:]
	tails, err := expandItem(rest)
	if rest == "" {
		tails, err = []string{""}, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range strings.Split(ranges, ",") {
		lo, hi, isRange := strings.Cut(r, "-")
		a, err1 := strconv.Atoi(lo)
		b := a
		var err2 error
		if isRange {
			b, err2 = strconv.Atoi(hi)
		}
		if err1 != nil || err2 != nil || b < a {
			return nil, fmt.Errorf("bad range %q", r)
		}
		for v := a; v <= b; v++ {
			num := strconv.Itoa(v)
			for len(num) < len(lo) {
				num = "0" + num
			}
			for _, t := range tails {
				out = append(out, prefix+num+t)
			}
		}
	}
	return out, nil
}

// ExpandTasksPerNode expands SLURM_TASKS_PER_NODE: "2(x3),1" is 2, 2, 2, 1.
func ExpandTasksPerNode(s string) ([]int, error) {
	var out []int
	for _, item := range strings.Split(s, ",") {
		n, rep := item, "1"
		if i := strings.Index(item, "(x"); i >= 0 && strings.HasSuffix(item, ")") {
			n, rep = item[:i], item[i+2:len(item)-1]
		}
		v, err1 := strconv.Atoi(n)
		k, err2 := strconv.Atoi(rep)
		if err1 != nil || err2 != nil || v < 0 || k <= 0 {
			return nil, fmt.Errorf("SLURM_TASKS_PER_NODE %q: bad item %q", s, item)
		}
		for ; k > 0; k-- {
			out = append(out, v)
		}
	}
	return out, nil
}
