package launch

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Host is a machine to run ranks on and how many it takes.
type Host struct {
	Name  string
	Slots int
}

// ParseHosts reads a --host list: "a,b:4,c" (a host without a count has one slot; a
// host named twice adds up).
func ParseHosts(list string) ([]Host, error) {
	var hosts []Host
	for _, item := range strings.Split(list, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, count, hasCount := strings.Cut(item, ":")
		slots := 1
		if hasCount {
			n, err := strconv.Atoi(count)
			if err != nil || n <= 0 {
				return nil, fmt.Errorf("--host %q: the slot count %q must be a positive whole number", item, count)
			}
			slots = n
		}
		hosts = addHost(hosts, name, slots)
	}
	if len(hosts) == 0 {
		return nil, fmt.Errorf("--host %q names no host", list)
	}
	return hosts, nil
}

func addHost(hosts []Host, name string, slots int) []Host {
	for i := range hosts {
		if hosts[i].Name == name {
			hosts[i].Slots += slots
			return hosts
		}
	}
	return append(hosts, Host{name, slots})
}

// ReadHostfile reads an Open MPI style hostfile: one host a line, "name slots=N"
// (max_slots is accepted and ignored), '#' starts a comment.
func ReadHostfile(path string) ([]Host, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--hostfile: %v", err)
	}
	defer f.Close()
	var hosts []Host
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text, _, _ := strings.Cut(sc.Text(), "#")
		fields := strings.Fields(text)
		if len(fields) == 0 {
			continue
		}
		slots := 1
		for _, kv := range fields[1:] {
			k, v, ok := strings.Cut(kv, "=")
			switch {
			case ok && (k == "slots" || k == "count"):
				n, err := strconv.Atoi(v)
				if err != nil || n <= 0 {
					return nil, fmt.Errorf("%s:%d: %s must be a positive whole number", path, line, kv)
				}
				slots = n
			case ok && k == "max_slots":
			default:
				return nil, fmt.Errorf("%s:%d: unknown field %q (want slots=N)", path, line, kv)
			}
		}
		hosts = addHost(hosts, fields[0], slots)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("--hostfile %s: %v", path, err)
	}
	if len(hosts) == 0 {
		return nil, fmt.Errorf("--hostfile %s names no host", path)
	}
	return hosts, nil
}

// Mapping places ranks on hosts.
type Mapping struct {
	ByNode        bool // round robin over hosts (--map-by node); else fill each host's slots in turn
	PerNode       int  // -npernode: exactly this many on each host (0: by slots)
	Oversubscribe bool // allow more ranks than slots
}

// Map returns the host index of every rank: by slot, each host's slots are filled in
// turn (ranks on a host are consecutive); by node, ranks go round robin over the hosts.
// Ranks beyond the slots (with Oversubscribe) go round robin.
func Map(n int, hosts []Host, m Mapping) ([]int32, error) {
	slots := make([]int, len(hosts))
	total := 0
	for i, h := range hosts {
		slots[i] = h.Slots
		if m.PerNode > 0 {
			slots[i] = m.PerNode
		}
		total += slots[i]
	}
	if n > total && !m.Oversubscribe {
		return nil, fmt.Errorf("-n %d: the hosts have %d slots; add hosts or slots, or pass --oversubscribe", n, total)
	}
	out := make([]int32, 0, n)
	used := make([]int, len(hosts))
	if m.ByNode {
		for len(out) < min(n, total) {
			for i := range hosts {
				if used[i] < slots[i] && len(out) < n {
					out = append(out, int32(i))
					used[i]++
				}
			}
		}
	} else {
		for i := range hosts {
			for ; used[i] < slots[i] && len(out) < n; used[i]++ {
				out = append(out, int32(i))
			}
		}
	}
	for i := 0; len(out) < n; i = (i + 1) % len(hosts) {
		out = append(out, int32(i))
	}
	return out, nil
}
