package prof

import "sync"

// Processes of other jobs. The layer below addresses a process of another job (a
// spawned child, a parent, a job joined through a port) by an index past the world's
// ranks, its own: another process may index the same peer differently. So that a
// launcher can say who such a peer is, the layer below names each index here once,
// when it first learns of it, and State lists the names of the ones its answer
// mentions (Where.Others).

// Proc names a process of another job: its index in this process's numbering, the
// job's id (as the launcher gave it) and its rank in that job's world.
type Proc struct {
	Index int
	Job   string
	Rank  int
}

var others struct {
	sync.Mutex
	names map[int]Proc
}

// NameProc records that index names rank of job (a process of another job).
func NameProc(index int, job string, rank int) {
	others.Lock()
	defer others.Unlock()
	if others.names == nil {
		others.names = map[int]Proc{}
	}
	others.names[index] = Proc{index, job, rank}
}

// nameOthers fills w.Others with the names of the processes of other jobs that w
// mentions: its peer (a world rank, not a collective's root) and its groups' members.
func nameOthers(w *Where, peerIsRank bool) {
	others.Lock()
	defer others.Unlock()
	if len(others.names) == 0 {
		return
	}
	seen := map[int]bool{}
	add := func(i int) {
		if p, ok := others.names[i]; ok && !seen[i] {
			seen[i] = true
			w.Others = append(w.Others, p)
		}
	}
	if peerIsRank {
		add(w.Peer)
	}
	for _, i := range w.Group {
		add(i)
	}
	for _, i := range w.Remote {
		add(i)
	}
}
