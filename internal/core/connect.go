package core

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"strings"
	"syscall"

	"github.com/mpigo/mpigo/internal/coll"
	"github.com/mpigo/mpigo/internal/pm"
)

// Connecting groups of different jobs (MPI_Comm_accept, MPI_Comm_connect, and through
// them MPI_Comm_spawn and MPI_Comm_join). Both sides run the same steps over their
// own communicator:
//
//  1. every member opens the transport to other jobs and sends its record (name and
//     card) to its root;
//  2. the roots meet on the port (connectors dial, acceptors accept) and swap their
//     groups' records, with a word on whether their side is sound; the acceptor adds
//     a random tag that keeps this connection's agreement apart from others;
//  3. each root broadcasts the other side's records (or the failure) to its members;
//  4. every member makes the remote processes reachable, and the members of both
//     sides agree on a context id over their union, on the reserved bootstrap
//     context (dynCtx), the one context every process has free for this.
//
// A failure at either root or any member is carried through steps 2 and 3, so that
// every process of both sides returns an error rather than waits.

// dynCtx is the context pair reserved for the agreements of dynamic connections
// (ctx.go keeps its bit out of the free mask).
const dynCtx = 6

const (
	tagDynGather = tagManage + 600 // a member's record to its root
	tagDynBcast  = tagManage + 601 // the root's word to its members
	tagDynDone   = tagManage + 602 // Disconnect's barrier
	tagDynAgree  = tagManage + 603 // a spawn's agreement on its members' arguments
)

// AcceptCore is MPI_Comm_accept: port is significant at root only. bad, at root, is
// an error the root's arguments already gave: the root then reaches no port and
// every member returns an error of bad's class and text, rather than waits. mine, at
// any member, is an error of that member's own arguments that does not keep the root
// from the port (a NULL output): the connection is made, and its context agreement
// fails at every member of both sides, as every constructor's (allocCtx).
// A member with mine returns it, whatever else failed: it says what it did wrong.
func AcceptCore(op, port string, bad, mine error, root int, c *Comm) (*Comm, error) {
	return joinGroups(op, port, bad, mine, root, c, true)
}

// ConnectCore is MPI_Comm_connect: port, bad and mine are as for AcceptCore.
func ConnectCore(op, port string, bad, mine error, root int, c *Comm) (*Comm, error) {
	return joinGroups(op, port, bad, mine, root, c, false)
}

func checkRoot(op string, root int, c *Comm) error {
	if err := c.Check(op); err != nil {
		return err
	}
	if c.remote != nil {
		return Errorf(ClassComm, op, "%q is an intercommunicator; connecting groups takes an intracommunicator", c.Name())
	}
	if root < 0 || root >= c.size {
		return Errorf(ClassRoot, op, "root %d out of range [0,%d) of %q", root, c.size, c.Name())
	}
	return nil
}

func joinGroups(op, portName string, bad, mine error, root int, c *Comm, accept bool) (nc *Comm, err error) {
	defer func() {
		if err != nil && mine != nil {
			nc, err = nil, mine
		}
	}()
	if err := checkRoot(op, root, c); err != nil {
		return nil, err
	}
	// Step 1. A member whose card cannot be had sends an empty record, which fails
	// the whole connection at its root.
	var rec []byte
	if card, err := myCard(op); err == nil {
		rec = encodeRecs([]procRec{{myName(), card}})
	}
	word := []byte(nil)
	if c.rank == root {
		local, ferr := gatherRecs(op, c, root, rec)
		if bad != nil {
			word = failWord(bad)
		} else {
			word = rootMeet(op, portName, accept, local, ferr)
		}
	} else if err := c.lconn.Send(rec, root, tagDynGather); err != nil {
		return nil, MapErr(op, err)
	}
	// Step 3.
	word, err = bcastBytes(op, c, root, word)
	if err != nil {
		return nil, err
	}
	if len(word) == 0 || word[0] != 0 {
		if c.rank == root && bad != nil {
			return nil, bad
		}
		return nil, wordErr(op, word)
	}
	tag := int(binary.LittleEndian.Uint32(word[1:5]))
	remote, err := decodeRecs(word[5:])
	if err != nil {
		return nil, Wrap(ClassIntern, op, "the other side's processes", err)
	}
	// Step 4.
	ws, err := addProcs(op, remote)
	if err != nil {
		return nil, err
	}
	defer releaseIdx(ws)
	rg, err := procGroup(op, ws)
	if err != nil {
		return nil, err
	}
	a, b := c.group, rg
	if !accept {
		a, b = rg, c.group
	}
	k := unionConn(a, b, dynCtx+1)
	ctx, err := allocCtx(op, &k, dynCtx, tag, mine)
	if err != nil {
		return nil, err
	}
	return newComm(ctx, c.group, rg), nil
}

// gatherRecs collects the members' records at root, in rank order.
func gatherRecs(op string, c *Comm, root int, mine []byte) ([]byte, error) {
	var all []procRec
	var bad error
	for r := 0; r < c.size; r++ {
		b := mine
		if r != root {
			var err error
			if b, err = c.lconn.RecvFit(nil, r, tagDynGather); err != nil {
				return nil, MapErr(op, err)
			}
		}
		recs, err := decodeRecs(b)
		if err != nil || len(recs) != 1 {
			bad = fmt.Errorf("rank %d of %q cannot reach other jobs", r, c.Name())
			continue
		}
		all = append(all, recs[0])
	}
	if bad != nil {
		return nil, bad
	}
	return encodeRecs(all), nil
}

// rootMeet is step 2 at a root: it returns the word for its members, a status byte
// (0: sound) then the tag and the other side's records, or the failure's text.
func rootMeet(op, portName string, accept bool, local []byte, ferr error) []byte {
	failed := failWord
	var conn net.Conn
	var err error
	if accept {
		conn, err = acceptOn(op, portName)
	} else {
		conn, err = dialPort(op, portName)
	}
	if err != nil {
		return failed(err)
	}
	defer conn.Close()
	mine := []byte{0}
	if ferr != nil {
		mine = append([]byte{1}, ferr.Error()...)
	} else {
		if accept {
			var t [4]byte
			rand.Read(t[:])
			mine = binary.LittleEndian.AppendUint32(mine, binary.LittleEndian.Uint32(t[:])&(1<<30-1))
		}
		mine = append(mine, local...)
	}
	var theirs []byte
	if accept {
		// The connector speaks first; the acceptor answers with the tag.
		if theirs, err = readMsg(conn, connectTimeout); err == nil {
			err = writeMsg(conn, mine)
		}
	} else if err = writeMsg(conn, mine); err == nil {
		// The acceptor's root may be busy until its own members are in: no bound.
		theirs, err = readMsg(conn, 0)
	}
	switch {
	case err != nil:
		return failed(fmt.Errorf("talking to the other side's root: %v", err))
	case ferr != nil:
		return failed(ferr)
	case len(theirs) == 0:
		return failed(errors.New("the other side's root sent nothing"))
	case theirs[0] != 0:
		return append([]byte{1, byte(ClassPort)}, "the other side failed: "+string(theirs[1:])...)
	}
	if accept {
		return append(mine[:5], theirs[1:]...)
	}
	if len(theirs) < 5 {
		return failed(errors.New("the other side's root sent a short answer"))
	}
	return theirs
}

// failWord is root's word to its members that the connection failed with err: 1,
// err's class (ClassPort where err has none) and its text.
func failWord(err error) []byte {
	var e *Error
	if errors.As(err, &e) {
		return append([]byte{1, byte(e.Class)}, e.Msg+errTail(e.Err)...)
	}
	return append([]byte{1, byte(ClassPort)}, err.Error()...)
}

// wordErr is the error a member returns for root's failure word.
func wordErr(op string, word []byte) error {
	if len(word) < 2 {
		return Errorf(ClassPort, op, "the connection failed")
	}
	return Errorf(ErrorClass(word[1]), op, "%s", word[2:])
}

func errTail(err error) string {
	if err == nil {
		return ""
	}
	return ": " + err.Error()
}

// bcastBytes sends root's b, of any length, to every member of c.
func bcastBytes(op string, c *Comm, root int, b []byte) ([]byte, error) {
	n := make([]byte, 8)
	binary.LittleEndian.PutUint64(n, uint64(len(b)))
	if err := c.lconn.Run(tagDynBcast, 1, func(s *coll.Sched) { s.Bcast(n, root) }); err != nil {
		return nil, MapErr(op, err)
	}
	if c.rank != root {
		b = make([]byte, binary.LittleEndian.Uint64(n))
	}
	if len(b) == 0 {
		return b, nil
	}
	if err := c.lconn.Run(tagDynBcast, 1, func(s *coll.Sched) { s.Bcast(b, root) }); err != nil {
		return nil, MapErr(op, err)
	}
	return b, nil
}

// SpawnCore is MPI_Comm_spawn(_multiple): cmds is significant at root only. It
// returns the intercommunicator to the new job (nil if no process started), and one
// error per process asked for (nil where it started), at every member of c.
//
// bad, at root, is what is wrong with cmds (mpir's checks): nothing is started, every
// member fails, and root returns bad itself. mine, at any member, is an error of its
// own arguments (a NULL output): the members agree on it first, so that nothing is
// started and every member fails (agreeBad).
func SpawnCore(op string, cmds []pm.SpawnCmd, bad, mine error, root int, c *Comm) (*Comm, []error, error) {
	if err := checkRoot(op, root, c); err != nil {
		return nil, nil, err
	}
	if err := agreeBad(op, &c.lconn, tagDynAgree, mine); err != nil {
		return nil, nil, err
	}
	var word []byte
	var portName string
	if c.rank == root {
		if bad != nil {
			word = encodeSpawn(0, nil, bad.Error())
		} else {
			portName, word = spawnAtRoot(op, cmds)
		}
	}
	word, err := bcastBytes(op, c, root, word)
	if err != nil {
		return nil, nil, err
	}
	errs, started, whole := decodeSpawn(word)
	if c.rank == root && bad != nil {
		return nil, errs, bad
	}
	if whole != "" || started == 0 {
		if portName != "" {
			ClosePortCore(op, portName)
		}
		if whole == "" {
			whole = firstReason(errs)
		}
		return nil, errs, Errorf(ClassSpawn, op, "%s", whole)
	}
	inter, err := AcceptCore(op, portName, nil, nil, root, c)
	if portName != "" {
		ClosePortCore(op, portName)
	}
	return inter, errs, err
}

// firstReason is the call's error when every process failed: the launcher's reason
// for the first (a missing program, a soft count that fits no free slot), since a
// caller that reads only the call's error must still learn why.
func firstReason(errs []error) string {
	for _, e := range errs {
		if e != nil {
			return "no process could be started: " + e.(*Error).Msg
		}
	}
	return "no process could be started"
}

// spawnAtRoot asks the process manager to start cmds, and returns the port the new
// job connects to and the word for the members (encodeSpawn).
func spawnAtRoot(op string, cmds []pm.SpawnCmd) (string, []byte) {
	n := 0
	for _, c := range cmds {
		n += c.MaxProcs
	}
	sp, ok := proc.(pm.Spawner)
	if !ok {
		return "", encodeSpawn(n, nil, "this job's process manager cannot start processes (run the job with mpigo run)")
	}
	portName, err := OpenPortCore(op)
	if err != nil {
		return "", encodeSpawn(n, nil, err.Error())
	}
	errs, err := sp.Spawn(cmds, portName)
	if err != nil {
		ClosePortCore(op, portName)
		return "", encodeSpawn(n, nil, err.Error())
	}
	return portName, encodeSpawn(n, errs, "")
}

// encodeSpawn: the number of processes asked for, the whole request's failure (or
// ""), and per process its error's text ("" where it started).
func encodeSpawn(n int, errs []error, whole string) []byte {
	b := binary.AppendUvarint(nil, uint64(n))
	b = appendBytes(b, []byte(whole))
	for i := 0; i < n; i++ {
		s := ""
		switch {
		case whole != "":
			s = whole
		case i >= len(errs):
			s = "the process manager did not say whether it started"
		case errs[i] != nil:
			s = errs[i].Error()
		}
		b = appendBytes(b, []byte(s))
	}
	return b
}

func decodeSpawn(b []byte) (errs []error, started int, whole string) {
	r := wire{b: b}
	errs = make([]error, r.count())
	whole = string(r.bytes())
	for i := range errs {
		if s := r.bytes(); len(s) > 0 {
			errs[i] = &Error{Class: ClassSpawn, Op: "Spawn", Msg: string(s)}
		} else if !r.bad {
			started++
		}
	}
	if r.bad {
		return nil, 0, "a malformed answer to the spawn"
	}
	return errs, started, whole
}

// Parent is the intercommunicator to the job that spawned this one, nil where there
// is none (MPI_Comm_get_parent); made at Init.
func Parent() *Comm {
	dyn.Lock()
	defer dyn.Unlock()
	if dyn.parent != nil && dyn.parent.freed.Load() {
		return nil
	}
	return dyn.parent
}

// connectParent, in Init, connects a spawned job's World to its parents.
func connectParent(op string) error {
	ji, ok := proc.(pm.JobInfo)
	if !ok || ji.ParentPort() == "" {
		return nil
	}
	p, err := ConnectCore(op, ji.ParentPort(), nil, nil, 0, World)
	if err != nil {
		return Wrap(ClassSpawn, op, "connecting to the job that spawned this one", err)
	}
	p.SetName("MPI_COMM_PARENT")
	dyn.Lock()
	dyn.parent = p
	dyn.Unlock()
	return nil
}

// JoinCore is MPI_Comm_join: the processes at the two ends of the connected socket
// fd make an intercommunicator of the two. Each opens a port and sends its name; the
// one whose name sorts first accepts, the other connects.
func JoinCore(op string, fd int) (*Comm, error) {
	if err := Ready(op); err != nil {
		return nil, err
	}
	if fd < 0 {
		return nil, Errorf(ClassArg, op, "fd %d is not a file descriptor", fd)
	}
	mine, err := OpenPortCore(op)
	if err != nil {
		return nil, err
	}
	defer ClosePortCore(op, mine)
	if err := fdWrite(fd, binary.LittleEndian.AppendUint32(nil, uint32(len(mine)))); err != nil {
		return nil, Wrap(ClassArg, op, fmt.Sprintf("writing to fd %d", fd), err)
	}
	if err := fdWrite(fd, []byte(mine)); err != nil {
		return nil, Wrap(ClassArg, op, fmt.Sprintf("writing to fd %d", fd), err)
	}
	var h [4]byte
	if err := fdRead(fd, h[:]); err != nil {
		return nil, Wrap(ClassArg, op, fmt.Sprintf("reading from fd %d", fd), err)
	}
	n := binary.LittleEndian.Uint32(h[:])
	if n == 0 || n > MaxPortName {
		return nil, Errorf(ClassArg, op, "the process at the other end of fd %d is not in MPI_Comm_join", fd)
	}
	theirs := make([]byte, n)
	if err := fdRead(fd, theirs); err != nil {
		return nil, Wrap(ClassArg, op, fmt.Sprintf("reading from fd %d", fd), err)
	}
	if !strings.HasPrefix(string(theirs), portPrefix) || string(theirs) == mine {
		return nil, Errorf(ClassArg, op, "the process at the other end of fd %d is not in MPI_Comm_join", fd)
	}
	if mine < string(theirs) {
		return AcceptCore(op, mine, nil, nil, 0, Self)
	}
	return ConnectCore(op, string(theirs), nil, nil, 0, Self)
}

func fdWrite(fd int, b []byte) error {
	for len(b) > 0 {
		n, err := syscall.Write(fd, b)
		if err == syscall.EINTR || err == syscall.EAGAIN {
			continue
		}
		if err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}

func fdRead(fd int, b []byte) error {
	for len(b) > 0 {
		n, err := syscall.Read(fd, b)
		if err == syscall.EINTR || err == syscall.EAGAIN {
			continue
		}
		if err != nil {
			return err
		}
		if n == 0 {
			return errors.New("the other end closed the socket")
		}
		b = b[n:]
	}
	return nil
}

// DisconnectWait is MPI_Comm_disconnect's wait: it returns once every member of c
// (both groups of an intercommunicator) has reached it, so that everything sent on c
// before has arrived. The caller then frees c and calls DropUnused.
func (c *Comm) DisconnectWait(op string) error {
	if err := c.Check(op); err != nil {
		return err
	}
	if c == World || c == Self {
		return Errorf(ClassComm, op, "%s cannot be disconnected", c.Name())
	}
	if err := eng.FlushAllBuffers(); err != nil {
		return MapErr(op, err)
	}
	k := c.lconn
	if c.remote != nil {
		k = c.iconn
	}
	if err := k.Run(tagDynDone, 1, func(s *coll.Sched) { s.Barrier() }); err != nil {
		return MapErr(op, err)
	}
	return nil
}

// DropUnused makes unreachable the processes of other jobs that no live communicator
// names any more.
func DropUnused() { dropUnused() }

// The name service (MPI_Publish_name and its kin) is the process manager's.
func nameService(op string) (pm.NameService, error) {
	if err := Ready(op); err != nil {
		return nil, err
	}
	ns, ok := proc.(pm.NameService)
	if !ok {
		return nil, Errorf(ClassService, op, "this job's process manager keeps no name service (mpigo run keeps one)")
	}
	return ns, nil
}

// PublishCore publishes port under service.
func PublishCore(op, service, port string) error {
	ns, err := nameService(op)
	if err != nil {
		return err
	}
	if err := ns.Publish(service, port); err != nil {
		return Wrap(ClassService, op, fmt.Sprintf("publishing %q", service), err)
	}
	return nil
}

// UnpublishCore withdraws service.
func UnpublishCore(op, service, port string) error {
	ns, err := nameService(op)
	if err != nil {
		return err
	}
	if err := ns.Unpublish(service, port); err != nil {
		return Wrap(ClassService, op, fmt.Sprintf("unpublishing %q", service), err)
	}
	return nil
}

// LookupCore returns the port published under service.
func LookupCore(op, service string) (string, error) {
	ns, err := nameService(op)
	if err != nil {
		return "", err
	}
	p, err := ns.Lookup(service)
	if err != nil {
		return "", Wrap(ClassName, op, fmt.Sprintf("looking up %q", service), err)
	}
	return p, nil
}

// UniverseSize and AppNum are what the process manager says of the job
// (MPI_UNIVERSE_SIZE, MPI_APPNUM); ok is false where it says nothing.
func UniverseSize() (int, bool) {
	if ji, ok := proc.(pm.JobInfo); ok {
		return ji.UniverseSize()
	}
	return 0, false
}

func AppNum() (int, bool) {
	if ji, ok := proc.(pm.JobInfo); ok {
		return ji.AppNum()
	}
	return 0, false
}
