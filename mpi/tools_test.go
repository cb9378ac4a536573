package mpi_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mpigo/mpigo/internal/config"
	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/mpi"
)

// openTools opens the tool interface for a test and closes it at its end.
func openTools(t *testing.T) *mpi.Tools {
	t.Helper()
	tools, err := mpi.ToolVars()
	must(t, err)
	t.Cleanup(func() { tools.Close() })
	return tools
}

// wantTool checks that err is a tool error of the code of sentinel, framed as every
// error of mpi ("mpi: <call>: ...", the call once) and of the class that is its code.
func wantTool(t *testing.T, what string, err, sentinel error) {
	t.Helper()
	var te *mpi.ToolError
	if !errors.Is(err, sentinel) || !errors.As(err, &te) || te.Msg == "" {
		t.Errorf("%s: %v, want an error of %v", what, err, sentinel)
		return
	}
	text := err.Error()
	if !strings.HasPrefix(text, "mpi: "+te.Op+": ") || strings.Count(text, te.Op) != 1 ||
		mpi.ClassOf(err) != mpi.ErrorClass(te.Code) {
		t.Errorf("%s: %q of class %v, want \"mpi: %s: ...\" of class %d", what, text, mpi.ClassOf(err), te.Op, te.Code)
	}
}

// infoSettings runs `mpigo info` and returns its settings: name to value, as its
// table prints them.
func infoSettings(t *testing.T) map[string]string {
	t.Helper()
	out, err := exec.Command(mpitest.Mpigo(t), "info").Output()
	if err != nil {
		t.Fatalf("mpigo info: %v", err)
	}
	lines := strings.Split(string(out), "\n")
	got := map[string]string{}
	for i, l := range lines {
		if !strings.HasPrefix(l, "  NAME") {
			continue
		}
		value, source := strings.Index(l, "VALUE"), strings.Index(l, "SOURCE")
		for _, row := range lines[i+1:] {
			if len(row) < source || strings.TrimSpace(row[:value]) == "" {
				continue // an "ignored:" line, or the end
			}
			got[strings.TrimSpace(row[:value])] = strings.TrimSpace(row[value:source])
		}
	}
	if len(got) == 0 {
		t.Fatalf("no settings in mpigo info's output:\n%s", out)
	}
	return got
}

// Every setting `mpigo info` lists is a control variable of the same name and value,
// and every control variable is a setting.
func TestToolsListSettings(t *testing.T) {
	info := infoSettings(t)
	res := jobWith(t, mpitest.Options{N: 1}, func(t *testing.T, rank, size int) {
		tools := openTools(t)
		for _, v := range tools.ControlVars() {
			fmt.Printf("cvar %s=%s|%v\n", v.Name(), v, v.Type())
		}
	})
	listed := map[string]bool{}
	for _, l := range strings.Split(res.Stdout, "\n") {
		kv, ok := strings.CutPrefix(l, "cvar ")
		if !ok {
			continue
		}
		name, rest, _ := strings.Cut(kv, "=")
		value, typ, _ := strings.Cut(rest, "|")
		listed[name] = true
		want, ok := info[name]
		if !ok {
			t.Errorf("control variable %s: mpigo info lists no such setting", name)
			continue
		}
		if !sameValue(typ, value, want) {
			t.Errorf("%s = %q (%s), mpigo info says %q", name, value, typ, want)
		}
	}
	for name := range info {
		if !listed[name] {
			t.Errorf("setting %s is no control variable", name)
		}
	}
}

// sameValue says whether a control variable's value (as String gives it) is the
// setting's text as mpigo info prints it.
func sameValue(typ, cvar, info string) bool {
	switch typ {
	case "MPI_DOUBLE":
		d, err := time.ParseDuration(info)
		return err == nil && fmt.Sprint(d.Seconds()) == cvar
	case "MPI_UNSIGNED_LONG_LONG":
		n, err := config.ParseSize(info)
		return err == nil && fmt.Sprint(n) == cvar
	}
	return cvar == info
}

// A setting read at Init takes a write before Init and applies it (the collectives'
// algorithm), refuses one after; a Live one takes a write after Init and the device
// applies it at once (eager_limit: messages above it then take a rendezvous).
func TestToolsWriteSetting(t *testing.T) {
	t.Run("before-init", func(t *testing.T) {
		mpitest.Job(t, mpitest.Options{N: 2, Transport: mpitest.Shm}, func(t *testing.T) {
			tools := openTools(t)
			setWord(t, tools, "coll_shm", "off")
			setWord(t, tools, "coll_allreduce", "ring")
			must(t, mpi.Init())
			s, err := tools.NewPerfSession()
			must(t, err)
			ring, _ := tools.PerfVar("coll_allreduce_ring")
			h, err := s.Handle(ring, nil)
			must(t, err)
			must(t, h.Start())
			if err := mpi.Allreduce(mpi.World, make([]float64, 64), make([]float64, 64), mpi.Sum); err != nil {
				t.Fatal(err)
			}
			if n, err := h.Uint(); err != nil || n != 1 {
				t.Errorf("allreduces by ring: %d, %v; want 1 (coll_allreduce=ring written before Init)", n, err)
			}
			v, _ := tools.ControlVar("coll_allreduce")
			wantTool(t, "write after Init", v.SetInt(0), mpi.ErrToolCvarSetNever)
			must(t, s.Free())
			must(t, mpi.Finalize())
		})
	})
	t.Run("live", func(t *testing.T) {
		jobWith(t, mpitest.Options{N: 2, Transport: mpitest.Shm}, func(t *testing.T, rank, size int) {
			tools := openTools(t)
			s, err := tools.NewPerfSession()
			must(t, err)
			rdv, _ := tools.PerfVar("shm_rendezvous_sends")
			h, err := s.Handle(rdv, nil)
			must(t, err)
			limit, _ := tools.ControlVar("eager_limit")
			msg := make([]byte, 1000)
			exchange := func() {
				if rank == 0 {
					must(t, mpi.Send(mpi.World, msg, 1, 0))
				} else {
					_, err := mpi.Recv(mpi.World, msg, 0, 0)
					must(t, err)
				}
			}
			exchange()
			if n, _ := h.Uint(); n != 0 {
				t.Errorf("a 1000-byte message took a rendezvous at the default eager limit (%d)", n)
			}
			must(t, limit.SetUint(64))
			if got, _ := limit.Uint(); got != 64 {
				t.Errorf("eager_limit reads %d after writing 64", got)
			}
			exchange()
			if n, _ := h.Uint(); rank == 0 && n != 1 {
				t.Errorf("after eager_limit=64 a 1000-byte message took %d rendezvous, want 1", n)
			}
			must(t, limit.SetUint(0))
			must(t, s.Free())
		})
	})
}

// setWord writes one of an enumerated setting's words.
func setWord(t *testing.T, tools *mpi.Tools, name, word string) {
	t.Helper()
	v, err := tools.ControlVar(name)
	must(t, err)
	for _, it := range v.Enum().Items {
		if it.Name == word {
			must(t, v.SetInt(int64(it.Value)))
			if v.String() != word {
				t.Errorf("%s reads %s after writing %s", name, v, word)
			}
			return
		}
	}
	t.Fatalf("%s has no value %s", name, word)
}

// Messages that arrive before their receives move the unexpected counts (in all and
// on the communicator), the queue's length and high-water mark, and raise an event per
// message; the sender's transport and call counts move too.
func TestToolsCounters(t *testing.T) {
	const n = 5
	jobEach(t, 2, func(t *testing.T, rank, size int) {
		tools := openTools(t)
		s, err := tools.NewPerfSession()
		must(t, err)
		defer s.Free()
		handle := func(name string, obj any) *mpi.PerfHandle {
			t.Helper()
			v, err := tools.PerfVar(name)
			must(t, err)
			h, err := s.Handle(v, obj)
			must(t, err)
			return h
		}
		tr := "shm"
		if strings.Contains(t.Name(), "/tcp") {
			tr = "tcp"
		}
		all, onWorld, queue := handle("unexpected_messages", nil), handle("comm_unexpected_messages", mpi.World), handle("unexpected_queue_length", nil)
		hwm, waited := handle("unexpected_queue_max", nil), handle("p2p_wait_time", nil)
		sent, sends := handle(tr+"_messages_sent", nil), handle("send_calls", nil)
		must(t, s.StartAll())
		events := make(chan *mpi.ToolEvent, n+1)
		ev, err := tools.Event("unexpected_message")
		must(t, err)
		sub, err := tools.Subscribe(ev, mpi.World, func(e *mpi.ToolEvent) { events <- e })
		must(t, err)
		defer sub.Close()
		marker, err := mpi.Irecv(mpi.World, make([]byte, 1), 1-rank, 99)
		must(t, err)
		must(t, mpi.World.Barrier())
		if rank == 1 {
			for i := range n {
				must(t, mpi.Send(mpi.World, make([]byte, 10*i), 0, i))
			}
			must(t, mpi.Send(mpi.World, []byte{1}, 0, 99))
			if got, _ := sent.Uint(); got < n+1 {
				t.Errorf("%s_messages_sent %d, want at least %d", tr, got, n+1)
			}
			if got, _ := sends.Uint(); got != n+1 {
				t.Errorf("send_calls %d, want %d", got, n+1)
			}
		} else {
			must(t, mpi.Send(mpi.World, []byte{1}, 1, 99))
		}
		_, err = marker.Wait()
		must(t, err)
		if rank == 1 {
			_, err := mpi.Recv(mpi.World, make([]byte, 1), 0, 98)
			must(t, err)
		}
		if rank == 0 {
			// The marker came last from rank 1: the n messages before it are queued.
			for h, want := range map[*mpi.PerfHandle]uint64{onWorld: n, queue: n} {
				if got, err := h.Uint(); err != nil || got != want {
					t.Errorf("%s: %d, %v; want %d", h.Var().Name(), got, err, want)
				}
			}
			if got, _ := all.Uint(); got < n {
				t.Errorf("unexpected_messages %d, want at least %d", got, n)
			}
			for i := range n {
				select {
				case e := <-events:
					if e.Data[0] != 1 || e.Data[1] != int64(i) || e.Data[2] != int64(10*i) || e.Type != ev {
						t.Errorf("event %d: %+v", i, e)
					}
				case <-time.After(30 * time.Second):
					t.Fatalf("%d events of %d", i, n)
				}
			}
			for i := range n {
				_, err := mpi.Recv(mpi.World, make([]byte, 10*i), 1, i)
				must(t, err)
			}
			if got, _ := queue.Uint(); got != 0 {
				t.Errorf("queue %d after the receives", got)
			}
			if got, _ := hwm.Uint(); got < n {
				t.Errorf("unexpected_queue_max %d, want at least %d", got, n)
			}
			if got, err := onWorld.ReadResetUint(); got != n || err != nil {
				t.Errorf("readreset: %d %v", got, err)
			}
			if got, _ := onWorld.Uint(); got != 0 {
				t.Errorf("after readreset: %d", got)
			}
			// Rank 1 waits for this before it goes on, so that nothing else it sends
			// (the job's closing barrier) joins the queue while it is read.
			must(t, mpi.Send(mpi.World, []byte{1}, 1, 98))
		}
		if w, err := waited.Float(); err != nil || w < 0 {
			t.Errorf("p2p_wait_time %g, %v", w, err)
		}
		must(t, s.StopAll())
	})
}

// Every bad input gets the code the standard names, and a message.
func TestToolsErrors(t *testing.T) {
	jobWith(t, mpitest.Options{N: 1}, func(t *testing.T, rank, size int) {
		tools := openTools(t)
		_, err := tools.ControlVar("no such setting")
		wantTool(t, "ControlVar", err, mpi.ErrToolInvalidName)
		// The whole text, and the class (MPI_T_ERR_INVALID_NAME, 1011 in the ABI).
		if want := `mpi: Tools.ControlVar: name "no such setting": no control variable has it (MPI_T_ERR_INVALID_NAME)`; err == nil || err.Error() != want ||
			mpi.ClassOf(err) != 1011 || mpi.ClassOf(err).String() != "MPI_T_ERR_INVALID_NAME" {
			t.Errorf("ControlVar: %v of class %v (%d), want %s of class MPI_T_ERR_INVALID_NAME (1011)", err, mpi.ClassOf(err), int(mpi.ClassOf(err)), want)
		}
		_, err = tools.PerfVar("")
		wantTool(t, "PerfVar", err, mpi.ErrToolInvalidName)
		_, err = tools.Category("nope")
		wantTool(t, "Category", err, mpi.ErrToolInvalidName)
		_, err = tools.Event("nope")
		wantTool(t, "Event", err, mpi.ErrToolInvalidName)

		// A nil value describes nothing rather than panicking.
		var (
			nc *mpi.ControlVar
			np *mpi.PerfVar
			ne *mpi.EventType
			ns *mpi.EventSource
		)
		if nc.Name() != "" || nc.Index() != -1 || np.Desc() != "" || np.Index() != -1 || np.Readonly() ||
			ne.Name() != "" || ne.Source() != nil || len(ne.Elements()) != 0 || ns.Name() != "" || ns.Ordered() || ns.Index() != -1 {
			t.Error("a nil tool value describes something")
		}

		slack, _ := tools.ControlVar("rank_timer_slack")
		if slack.Scope() != mpi.ScopeConstant {
			t.Errorf("rank_timer_slack's scope %v", slack.Scope())
		}
		wantTool(t, "write a constant", slack.SetInt(5), mpi.ErrToolCvarSetNever)
		trs, _ := tools.ControlVar("transports")
		wantTool(t, "write a setting read at Init", trs.SetText("self,tcp"), mpi.ErrToolCvarSetNever)
		proto, _ := tools.ControlVar("p2p_protocol")
		wantTool(t, "a value of no item", proto.SetInt(99), mpi.ErrToolInvalid)
		_, err = proto.Float()
		wantTool(t, "a typed read of another type", err, mpi.ErrToolInvalid)
		limit, _ := tools.ControlVar("shm_ring_size")
		wantTool(t, "a value the rule refuses", limit.SetUint(3), mpi.ErrToolInvalid)

		s, err := tools.NewPerfSession()
		must(t, err)
		pv := func(name string) *mpi.PerfVar { v, err := tools.PerfVar(name); must(t, err); return v }
		_, err = s.Handle(pv("comm_unexpected_messages"), nil)
		wantTool(t, "a communicator's variable bound to nothing", err, mpi.ErrToolInvalidHandle)
		_, err = s.Handle(pv("comm_unexpected_messages"), 42)
		wantTool(t, "bound to no object", err, mpi.ErrToolInvalidHandle)
		level, _ := s.Handle(pv("unexpected_queue_length"), nil)
		wantTool(t, "start a continuous variable", level.Start(), mpi.ErrToolPvarNoStartstop)
		wantTool(t, "reset a level", level.Reset(), mpi.ErrToolPvarNoWrite)
		wantTool(t, "write a level", level.WriteUint(1), mpi.ErrToolPvarNoWrite)
		hwm, _ := s.Handle(pv("unexpected_queue_max"), nil)
		_, err = hwm.ReadResetUint()
		wantTool(t, "readreset a watermark", err, mpi.ErrToolPvarNoAtomic)
		_, err = level.Float()
		wantTool(t, "a typed read of another type", err, mpi.ErrToolInvalid)
		must(t, hwm.Free())
		_, err = hwm.Uint()
		wantTool(t, "read a freed handle", err, mpi.ErrToolInvalidHandle)
		must(t, s.Free())
		_, err = level.Uint()
		wantTool(t, "read in a freed session (a read with no session)", err, mpi.ErrToolInvalidSession)

		ev, _ := tools.Event("unexpected_message")
		_, err = tools.Subscribe(ev, nil, func(*mpi.ToolEvent) {})
		wantTool(t, "a communicator's event bound to nothing", err, mpi.ErrToolInvalidHandle)
		clock := tools.EventSources()[0]
		if ts, err := clock.Timestamp(); err != nil || ts <= 0 || !clock.Ordered() || clock.TicksPerSecond() != 1e9 {
			t.Errorf("the engine's clock: %d, %v", ts, err)
		}

		// Nil values are refused with the code of what is missing, never a panic.
		var nilTools *mpi.Tools
		_, err = nilTools.ControlVar("eager_limit")
		wantTool(t, "a lookup in a nil *Tools", err, mpi.ErrToolNotInitialized)
		wantTool(t, "close a nil *Tools", nilTools.Close(), mpi.ErrToolNotInitialized)
		if n := len(nilTools.ControlVars()) + len(nilTools.PerfVars()) + len(nilTools.Events()); n != 0 {
			t.Errorf("a nil *Tools lists %d entries", n)
		}
		var nilVar *mpi.ControlVar
		_, err = nilVar.Int()
		wantTool(t, "read a nil control variable", err, mpi.ErrToolInvalidHandle)
		wantTool(t, "write a nil control variable", nilVar.SetInt(1), mpi.ErrToolInvalidHandle)
		var nilSession *mpi.PerfSession
		_, err = nilSession.Handle(pv("unexpected_messages"), nil)
		wantTool(t, "a handle in a nil session", err, mpi.ErrToolInvalidSession)
		wantTool(t, "start all of a nil session", nilSession.StartAll(), mpi.ErrToolInvalidSession)
		wantTool(t, "free a nil session", nilSession.Free(), mpi.ErrToolInvalidSession)
		var nilHandle *mpi.PerfHandle
		_, err = nilHandle.Uint()
		wantTool(t, "read a nil handle", err, mpi.ErrToolInvalidHandle)
		wantTool(t, "start a nil handle", nilHandle.Start(), mpi.ErrToolInvalidHandle)
		wantTool(t, "write a nil handle", nilHandle.WriteUint(0), mpi.ErrToolInvalidHandle)
		wantTool(t, "free a nil handle", nilHandle.Free(), mpi.ErrToolInvalidHandle)
		var nilSub *mpi.EventSubscription
		wantTool(t, "close a nil subscription", nilSub.Close(), mpi.ErrToolInvalidHandle)
		wantTool(t, "a nil subscription's dropped handler", nilSub.OnDropped(nil), mpi.ErrToolInvalidHandle)
		_, err = (*mpi.EventSource)(nil).Timestamp()
		wantTool(t, "a nil source's clock", err, mpi.ErrToolInvalidIndex)

		// Closed, the interface refuses everything.
		other, err := mpi.ToolVars()
		must(t, err)
		must(t, other.Close())
		wantTool(t, "close twice", other.Close(), mpi.ErrToolNotInitialized)
		must(t, tools.Close())
		_, err = proto.Int()
		wantTool(t, "read after the last close", err, mpi.ErrToolNotInitialized)
		_, err = tools.NewPerfSession()
		wantTool(t, "a session after the last close", err, mpi.ErrToolNotInitialized)
		_, err = tools.ControlVar("eager_limit")
		wantTool(t, "a lookup after the last close", err, mpi.ErrToolNotInitialized)
		_, err = clock.Timestamp()
		wantTool(t, "a timestamp after the last close", err, mpi.ErrToolNotInitialized)
	})
}

// Categories hold every variable and event once, and their own subcategories.
func TestToolsCategories(t *testing.T) {
	jobWith(t, mpitest.Options{N: 1}, func(t *testing.T, rank, size int) {
		tools := openTools(t)
		cvars, pvars, events := map[string]int{}, map[string]int{}, map[string]int{}
		for _, c := range tools.Categories() {
			for _, v := range c.ControlVars {
				cvars[v.Name()]++
			}
			for _, v := range c.PerfVars {
				pvars[v.Name()]++
			}
			for _, e := range c.Events {
				events[e.Name()]++
			}
			if got, err := tools.Category(c.Name); err != nil || got != c {
				t.Errorf("category %s by name: %v", c.Name, err)
			}
		}
		for _, v := range tools.ControlVars() {
			if cvars[v.Name()] != 1 {
				t.Errorf("control variable %s is in %d categories", v.Name(), cvars[v.Name()])
			}
		}
		for _, v := range tools.PerfVars() {
			if pvars[v.Name()] != 1 {
				t.Errorf("performance variable %s is in %d categories", v.Name(), pvars[v.Name()])
			}
		}
		for _, e := range tools.Events() {
			if events[e.Name()] != 1 {
				t.Errorf("event %s is in %d categories", e.Name(), events[e.Name()])
			}
		}
		calls, err := tools.Category("calls")
		if err != nil || len(calls.Categories) != 8 || tools.CategoriesChanged() != 0 {
			t.Errorf("calls: %v", err)
		}
	})
}

// Every variable, event and source describes itself, as its kind's rules say; the
// typed calls each take their own type, and a subscription keeps no hints.
func TestToolsMetadata(t *testing.T) {
	jobWith(t, mpitest.Options{N: 1}, func(t *testing.T, rank, size int) {
		tools := openTools(t)
		for i, v := range tools.ControlVars() {
			if v.Index() != i || v.Name() == "" || !strings.Contains(v.Desc(), "Valid values") ||
				v.Bind() != mpi.BindNoObject || v.Verbosity() < mpi.VerbosityUserBasic || v.Verbosity() > mpi.VerbosityMpidevAll {
				t.Errorf("control variable %d: %s %q %v %v", i, v.Name(), v.Desc(), v.Bind(), v.Verbosity())
			}
		}
		sleep, _ := tools.ControlVar("p2p_sleep")
		wantTool(t, "a duration read once, written after Init", sleep.SetFloat(0.001), mpi.ErrToolCvarSetNever)
		if f, err := sleep.Float(); err != nil || f <= 0 {
			t.Errorf("p2p_sleep %g s, %v", f, err)
		}
		ifaces, _ := tools.ControlVar("tcp_interfaces")
		if _, err := ifaces.Text(); err != nil || ifaces.Type() != mpi.ToolString {
			t.Errorf("tcp_interfaces: %v, %v", ifaces.Type(), err)
		}
		for i, v := range tools.PerfVars() {
			current := v.Class() == mpi.PerfLevel || v.Class() == mpi.PerfState || v.Class() == mpi.PerfSize
			if v.Index() != i || v.Desc() == "" || v.Readonly() != current || v.Atomic() == v.Readonly() && v.Class() != mpi.PerfHighWatermark ||
				(v.Enum() != nil) != (v.Class() == mpi.PerfState) || (v.Type() == mpi.ToolFloat64) != (v.Class() == mpi.PerfTimer) ||
				v.Bind() != mpi.BindNoObject && v.Bind() != mpi.BindComm || v.Verbosity() == 0 {
				t.Errorf("performance variable %d %s: class %v, readonly %v, atomic %v, continuous %v", i, v.Name(), v.Class(),
					v.Readonly(), v.Atomic(), v.Continuous())
			}
		}
		s, err := tools.NewPerfSession()
		must(t, err)
		state, _ := tools.PerfVar("mpi_state")
		hs, err := s.Handle(state, nil)
		must(t, err)
		if n, err := hs.Int(); err != nil || state.Enum().Items[n].Name != "running" {
			t.Errorf("mpi_state %d, %v", n, err)
		}
		timer, _ := tools.PerfVar("allreduce_time")
		ht, err := s.Handle(timer, nil)
		must(t, err)
		must(t, ht.WriteFloat(2.5))
		if f, err := ht.ReadResetFloat(); err != nil || f < 2.5 {
			t.Errorf("written 2.5 s, read %g, %v", f, err)
		}
		waits, _ := tools.PerfVar("p2p_wait_time")
		hw, err := s.Handle(waits, nil)
		must(t, err)
		must(t, hw.Start())
		must(t, hw.Stop())
		must(t, s.ResetAll())
		if f, _ := hw.Float(); f != 0 || waits.Continuous() {
			t.Errorf("after ResetAll the wait timer reads %g", f)
		}
		must(t, s.Free())

		for i, e := range tools.Events() {
			if e.Index() != i || e.Desc() == "" || len(e.Elements()) == 0 || e.Source() != tools.EventSources()[0] ||
				e.Verbosity() == 0 || e.Bind() != mpi.BindNoObject && e.Bind() != mpi.BindComm {
				t.Errorf("event %d %s", i, e.Name())
			}
		}
		src := tools.EventSources()[0]
		if src.Index() != 0 || src.Name() != "p2p_engine" || src.Desc() == "" || src.MaxTicks() <= 0 {
			t.Errorf("source %s", src.Name())
		}
		failed, _ := tools.Event("peer_failed")
		sub, err := tools.Subscribe(failed, nil, func(*mpi.ToolEvent) {})
		must(t, err)
		must(t, sub.OnDropped(func(int64) {}))
		hints := mpi.InfoCreate()
		must(t, hints.Set("some_hint", "1"))
		must(t, sub.SetInfo(hints))
		got, err := sub.Info()
		must(t, err)
		if n, err := got.Nkeys(); err != nil || n != 0 {
			t.Errorf("the hints kept: %d, %v", n, err)
		}
		must(t, sub.Close())
		wantTool(t, "close twice", sub.Close(), mpi.ErrToolInvalidHandle)
		_, err = sub.Info()
		wantTool(t, "hints of a closed subscription", err, mpi.ErrToolInvalidHandle)
	})
}

// TestPcontrol: Pcontrol(2) writes the rank's profile at once (the job runs with the
// profile setting, as mpigo run --profile sets it); levels 0, 1 and others succeed and
// write nothing.
func TestPcontrol(t *testing.T) {
	const dirVar = "MPIGO_TEST_PCONTROL_DIR"
	dir := os.Getenv(dirVar)
	o := mpitest.Options{N: 2}
	if !mpitest.IsRank(t) {
		dir = t.TempDir()
		o.Env = []string{dirVar + "=" + dir}
		o.Settings = map[string]string{"profile": dir}
	}
	mpitest.Job(t, o, func(t *testing.T) {
		must(t, mpi.Init())
		defer mpi.Finalize()
		file := filepath.Join(dir, fmt.Sprintf("rank-%d.json", mpi.World.Rank()))
		for _, level := range []int{0, 1, 7, -1} {
			if err := mpi.Pcontrol(level); err != nil {
				t.Errorf("Pcontrol(%d): %v", level, err)
			}
			if _, err := os.Stat(file); err == nil {
				t.Fatalf("Pcontrol(%d) wrote %s", level, file)
			}
		}
		must(t, mpi.Pcontrol(2))
		if _, err := os.Stat(file); err != nil {
			t.Errorf("after Pcontrol(2): %v", err)
		}
	})
}
