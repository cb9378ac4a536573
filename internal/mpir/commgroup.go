package mpir

import (
	"cmp"

	"github.com/mpigo/mpigo/internal/collective"
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/group"
)

// Communicators and their groups: comparison, and the constructors from groups
// (MPI 4.1 section 7.4.2), which need no parent communicator and so are how a program
// of sessions makes its communicators. The face checks its own arguments (the error
// handler passed in, the info's hints, its handles) and gives the new communicator
// its handler and hints; what MPI says of the groups is here.
//
// bad, in each constructor, is the error the face met in this rank's arguments (a
// NULL output, a handle it could not convert), nil if none. The rank still takes part
// where it can, and the creation fails at every member (core's creation calls), so
// that one rank's refusal never leaves the others waiting in a collective call.

// Split is MPI_Comm_split of c (core.Comm.SplitCore).
func Split(op string, c *core.Comm, color, key int, bad error) (*core.Comm, error) {
	return collective.Split(c, op, color, key, bad)
}

// Create is MPI_Comm_create of c, owned by owner: the communicator of g's members,
// collective over all of c (core.Comm.CreateCore). A nil g (MPI_GROUP_NULL), or one of
// another owner, is bad (ClassGroup).
func Create(op string, c *core.Comm, owner *Session, g *Group, bad error) (*core.Comm, error) {
	if bad == nil && g == nil {
		bad = core.Errorf(core.ClassGroup, op, "the group is nil (MPI_GROUP_NULL)")
	}
	var members *group.Group
	if bad = cmp.Or(bad, Owns(op, owner, g)); bad == nil {
		members = g.Members()
	}
	return collective.Create(c, op, members, bad)
}

// CreateGroup is MPI_Comm_create_group of c, owned by owner, collective over g's
// members only (core.Comm.CreateGroupCore): without g a rank cannot know whom to agree
// with, so a nil g is its error alone; g of another owner is bad (ClassGroup).
func CreateGroup(op string, c *core.Comm, owner *Session, g *Group, tag int, bad error) (*core.Comm, error) {
	if g == nil {
		return nil, core.Errorf(core.ClassGroup, op, "the group is nil (MPI_GROUP_NULL)")
	}
	return collective.CreateGroup(c, op, g.Members(), tag, cmp.Or(bad, Owns(op, owner, g)))
}

// Merge is MPI_Intercomm_merge of c (core.Comm.MergeCore).
func Merge(op string, c *core.Comm, high bool, bad error) (*core.Comm, error) {
	return collective.Merge(c, op, high, bad)
}

// CommFromGroup makes the intracommunicator of g's members, collectively over them
// (MPI_Comm_create_from_group): nil at once for EmptyGroup. The communicator belongs
// to g's owner: where that is a session, a finalized one is an error of class
// ClassSession, and the communicator's buffered sends use the session's buffer when
// it has none of its own. The string tag is at most core.MaxStringTag-1 bytes (else
// ClassArg).
func CommFromGroup(op string, g *Group, stringtag string, bad error) (*core.Comm, error) {
	if g == nil {
		return nil, core.Errorf(core.ClassGroup, op, "the group is MPI_GROUP_NULL")
	}
	if s := g.owner; s != nil {
		if err := s.Check(op); err != nil {
			return nil, err
		}
	}
	d, err := collective.CreateFromGroup(op, g.g, stringtag, bad)
	if err != nil {
		return nil, core.MapErr(op, err)
	}
	if g.owner != nil {
		d.UseSessionBuffer(g.owner.d)
	}
	return d, nil
}

// IntercommFromGroups makes the intercommunicator between local, the caller's group,
// and remote (MPI_Intercomm_create_from_groups), collectively over both. The groups
// have one owner (else ClassGroup), which the communicator belongs to as for
// CommFromGroup; they are disjoint and not empty (else ClassGroup); the leaders are
// ranks in each (else ClassRank).
func IntercommFromGroups(op string, local *Group, localLeader int, remote *Group, remoteLeader int, stringtag string, bad error) (*core.Comm, error) {
	if local == nil || remote == nil {
		return nil, core.Errorf(core.ClassGroup, op, "local_group or remote_group is MPI_GROUP_NULL")
	}
	s, err := SameOwner(op, local, remote)
	if err != nil {
		return nil, err
	}
	if s != nil {
		if err := s.Check(op); err != nil {
			return nil, err
		}
	}
	d, err := collective.IntercommFromGroups(op, local.g, localLeader, remote.g, remoteLeader, stringtag, bad)
	if err != nil {
		return nil, core.MapErr(op, err)
	}
	if s != nil {
		d.UseSessionBuffer(s.d)
	}
	return d, nil
}

// weakerLast: the engine numbers its comparisons from the strongest.
const weakerLast = uint(group.Unequal-group.Similar-1) + uint(group.Similar-group.Ident-1)

// IntercommCreate makes the intercommunicator of local's group and the group led by
// remoteLeader of peer (MPI_Intercomm_create), localOwner and peerOwner being their
// owners. peer is significant at the local leader only, and there it has local's
// owner (else ClassComm: MPI 4.1 section 11.3 mixes no objects of different owners).
// A leader's peer of another owner is not used: its group gets an error rather than
// waits (core.IntercommCreateCore's peerBad).
func IntercommCreate(op string, local *core.Comm, localOwner *Session, localLeader int, peer *core.Comm, peerOwner *Session, remoteLeader, tag int, bad error) (*core.Comm, error) {
	var peerBad error
	if local != nil && peer != nil && local.Rank() == localLeader && peerOwner != localOwner {
		peerBad = mixed(op, core.ClassComm, localOwner, peerOwner)
	}
	return collective.IntercommCreate(op, bad, peerBad, local, localLeader, peer, remoteLeader, tag)
}

// CommCompare compares two live communicators (MPI_Comm_compare): Ident for one
// communication context (the same communicator, or a view of it), Congruent for the
// same groups in the same order (an intercommunicator's local and remote groups
// both), Similar for the same members in another order, else Unequal; an
// intracommunicator and an intercommunicator are Unequal.
func CommCompare(op string, c1, c2 *core.Comm) (Comparison, error) {
	if c1 == c2 {
		return Ident, nil
	}
	if c1.IsInter() != c2.IsInter() {
		return Unequal, nil
	}
	cmp, err := group.Compare(c1.Group(), c2.Group())
	if err != nil {
		return Unequal, core.GroupErr(op, err)
	}
	if c1.IsInter() {
		rc, err := group.Compare(c1.Remote(), c2.Remote())
		if err != nil {
			return Unequal, core.GroupErr(op, err)
		}
		cmp = max(cmp, rc) // the weaker of the two (weakerLast)
	}
	if cmp == group.Ident {
		return Congruent, nil
	}
	return comparison(cmp), nil
}
