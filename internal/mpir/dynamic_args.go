package mpir

import (
	"sync"

	"github.com/mpigo/mpigo/internal/core"
)

// What both faces need around the dynamic-process procedures of dynamic.go that is
// argument semantics, not the device's work: the checks of the arguments every
// process of a collective call gives (so that every process finds the same fault and
// none waits for the others), and the one parent object that MPI_Comm_get_parent
// gives back every time.

// CheckCollective checks the arguments that every process of a collective
// dynamic-process call (MPI_Comm_spawn, _spawn_multiple, _accept, _connect) gives
// alike: c must be an intracommunicator (ClassComm) and root a rank of it
// (ClassRoot). Every process finds the same fault, so none is left waiting for the
// others. c must be live (the faces' handle check comes first).
func CheckCollective(op string, root int, c *core.Comm) error {
	if c.IsInter() {
		return core.Errorf(core.ClassComm, op, "comm is an intercommunicator: %s is collective over an intracommunicator", op)
	}
	if root < 0 || root >= c.Size() {
		return core.Errorf(core.ClassRoot, op, "root %d out of range [0,%d)", root, c.Size())
	}
	return nil
}

// parent is the object of the intercommunicator to the parent job, made on the first
// MPI_Comm_get_parent, so that every later call gives the same one back, as MPI 4.1
// section 11.8.2 says, until it is freed or disconnected.
var parent struct {
	sync.Mutex
	x *Comm
}

// Parent is MPI_Comm_get_parent: the object of the intercommunicator to the job that
// spawned this one, the same object on every call until it is freed or disconnected;
// nil when this job was not spawned or the parent communicator is gone. The first
// call makes the object, with the face's initial error handler (the parent
// communicator is made by Init, as MPI_COMM_WORLD is, and inherits from nothing) and
// gives it to name, which gives the object its handle in the face (sets Handle); both
// happen once, under a lock, so concurrent first calls get one object.
func Parent(initial *Errhandler, name func(*Comm)) *Comm {
	d := CommGetParent()
	if d == nil || d.Check("Comm_get_parent") != nil {
		return nil // none, or freed or disconnected since
	}
	parent.Lock()
	defer parent.Unlock()
	if parent.x == nil || parent.x.d != d {
		parent.x = NewComm(d, nil, initial, nil)
		name(parent.x)
	}
	return parent.x
}
