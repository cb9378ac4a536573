package tcp

import (
	"fmt"
	"net"
	"strings"
)

// listenHosts picks the IP addresses to listen on. spec is setting tcp_interfaces:
// interface names and CIDR prefixes, comma-separated. With no spec, a job on one node
// uses loopback only (nothing else is needed, and nothing is exposed); a job on several
// nodes uses every address of every interface that is up and not loopback.
// interfacesRule is what tcp_interfaces accepts: the launcher checks the spelling only,
// since the interfaces that exist differ from node to node.
const interfacesRule = "comma-separated interface names (eth0) or CIDR prefixes (10.1.0.0/16), or empty"

// checkInterfaces refuses an item of tcp_interfaces that is spelt as neither.
func checkInterfaces(spec string) error {
	for item := range strings.SplitSeq(spec, ",") {
		item = strings.TrimSpace(item)
		if _, _, err := net.ParseCIDR(item); strings.Contains(item, "/") && err != nil {
			return err
		}
		if strings.ContainsAny(item, " \t") || len(item) > 15 && !strings.Contains(item, "/") {
			return fmt.Errorf("%q is not an interface name", item)
		}
	}
	return nil
}

func listenHosts(spec string, multiNode bool) ([]string, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" && !multiNode {
		return []string{"127.0.0.1"}, nil
	}
	ifs, err := net.Interfaces()
	if err != nil {
		return nil, fmt.Errorf("TCP: list network interfaces: %w", err)
	}
	var out []string
	seen := map[string]bool{}
	add := func(ip net.IP) {
		// Link-local IPv6 needs a zone to dial, which peers on other nodes cannot use.
		if ip.IsLinkLocalUnicast() || ip.IsUnspecified() || seen[ip.String()] {
			return
		}
		seen[ip.String()] = true
		out = append(out, ip.String())
	}
	addrsOf := func(ifc net.Interface) []net.IP {
		as, err := ifc.Addrs()
		if err != nil {
			return nil
		}
		var ips []net.IP
		for _, a := range as {
			if n, ok := a.(*net.IPNet); ok {
				ips = append(ips, n.IP)
			}
		}
		return ips
	}
	if spec == "" {
		for _, ifc := range ifs {
			if ifc.Flags&net.FlagUp == 0 || ifc.Flags&net.FlagLoopback != 0 {
				continue
			}
			for _, ip := range addrsOf(ifc) {
				if ip.To4() != nil {
					add(ip)
				}
			}
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("TCP: the job spans nodes but no interface is up with a routable IPv4 address; set tcp_interfaces")
		}
		return out, nil
	}
	for item := range strings.SplitSeq(spec, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		before := len(out)
		if strings.Contains(item, "/") {
			_, cidr, err := net.ParseCIDR(item)
			if err != nil {
				return nil, fmt.Errorf("TCP: tcp_interfaces item %q: not a CIDR prefix: %v", item, err)
			}
			for _, ifc := range ifs {
				if ifc.Flags&net.FlagUp == 0 {
					continue
				}
				for _, ip := range addrsOf(ifc) {
					if cidr.Contains(ip) {
						add(ip)
					}
				}
			}
		} else {
			ifc, err := net.InterfaceByName(item)
			if err != nil {
				return nil, fmt.Errorf("TCP: tcp_interfaces item %q: no such interface", item)
			}
			for _, ip := range addrsOf(*ifc) {
				add(ip)
			}
		}
		if len(out) == before {
			return nil, fmt.Errorf("TCP: tcp_interfaces item %q matches no usable address", item)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("TCP: tcp_interfaces %q names no interface", spec)
	}
	return out, nil
}
