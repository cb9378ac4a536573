package mpir

import (
	"errors"
	"slices"
	"testing"

	"github.com/mpigo/mpigo/internal/attr"
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/window"
)

// pairs lists an info's pairs as "k=v".
func pairs(t *testing.T, in *Info) []string {
	t.Helper()
	ps, err := in.Pairs()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range ps {
		out = append(out, p[0]+"="+p[1])
	}
	return out
}

// TestHints: the hints in effect are every supported key at its value or default; a
// key mpigo ignores, or a value a hint does not take, changes nothing and is not
// reported; set_info leaves a hint taken at creation as it was; Dup is independent.
func TestHints(t *testing.T) {
	in := InfoOf("no_locks", "true", "accumulate_ordering", "raw,bogus", "alloc_shared_noncontig", "true",
		"mine", "x", "mpi_accumulate_granularity", "-1")
	h, err := NewWinHints("WinCreate", in)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"no_locks=true", "accumulate_ordering=rar,raw,war,waw", "accumulate_ops=same_op_no_op",
		"same_size=false", "same_disp_unit=false", "alloc_shared_noncontig=true", "mpi_accumulate_granularity=8"}
	if got := pairs(t, h.Info()); !slices.Equal(got, want) {
		t.Errorf("window hints\n got %v\nwant %v", got, want)
	}
	d := h.Dup()
	if err := h.Set("WinSetInfo", InfoOf("alloc_shared_noncontig", "false", "accumulate_ordering", "none", "accumulate_ops", "same_op")); err != nil {
		t.Fatal(err)
	}
	if !h.Bool("alloc_shared_noncontig") || !h.Bool("no_locks") || h.Bool("mine") {
		t.Error("Set changed a hint taken at creation, or Bool reads wrong")
	}
	if got := pairs(t, h.Info())[1:3]; !slices.Equal(got, []string{"accumulate_ordering=none", "accumulate_ops=same_op"}) {
		t.Errorf("after Set: %v", got)
	}
	if got := pairs(t, d.Info())[1]; got != "accumulate_ordering=rar,raw,war,waw" {
		t.Errorf("the duplicate changed with the original: %v", got)
	}
	if err := h.Set("WinSetInfo", nil); err != nil {
		t.Errorf("Set(MPI_INFO_NULL): %v", err)
	}
	for _, c := range []struct {
		flavor window.Flavor
		want   bool
	}{{window.FlavorShared, true}, {window.FlavorAllocate, false}} {
		a := window.Args{Flavor: c.flavor}
		h.ShapeWin(&a)
		if a.Noncontig != c.want {
			t.Errorf("ShapeWin of flavour %v: Noncontig %v", c.flavor, a.Noncontig)
		}
	}

	c := DefaultCommHints()
	if err := c.Set("SetInfo", InfoOf("mpi_assert_no_any_tag", "true", "mpi_assert_exact_length", "maybe")); err != nil {
		t.Fatal(err)
	}
	want = []string{"mpi_assert_no_any_tag=true", "mpi_assert_no_any_source=false",
		"mpi_assert_exact_length=false", "mpi_assert_allow_overtaking=false"}
	if got := pairs(t, c.Info()); !slices.Equal(got, want) {
		t.Errorf("communicator hints %v", got)
	}
	freed := NewInfo()
	_ = freed.Free()
	if _, err := NewCommHints("DupWithInfo", freed); core.ClassOf(err) != core.ClassInfo {
		t.Errorf("hints of a freed info: %v, want ErrInfo", err)
	}
}

// TestInfoErrClasses: each of info's errors gets its MPI class.
func TestInfoErrClasses(t *testing.T) {
	in := NewInfo()
	env := InfoEnv()
	for _, c := range []struct {
		err   error
		class core.ErrorClass
	}{
		{in.Set("", "x"), core.ClassInfoKey},
		{in.Set("k", string(make([]byte, MaxInfoVal))), core.ClassInfoValue},
		{in.Delete("k"), core.ClassInfoNokey},
		{func() error { _, err := in.Nthkey(0); return err }(), core.ClassArg},
		{(*Info)(nil).Set("a", "b"), core.ClassInfo},
		{env.Set("a", "b"), core.ClassInfo},
	} {
		if got := InfoErr("Op", c.err); core.ClassOf(got) != c.class {
			t.Errorf("%v: class %v, want %v", c.err, core.ClassOf(got), c.class)
		}
	}
	if InfoErr("Op", nil) != nil {
		t.Error("InfoErr(nil) is not nil")
	}
	if _, ok, _ := env.Get("thread_level"); ok {
		t.Error("MPI_INFO_ENV has thread_level, which no launcher request set")
	}
	for _, k := range []string{"command", "argv", "maxprocs", "arch"} {
		if _, ok, _ := env.Get(k); !ok {
			t.Errorf("MPI_INFO_ENV has no %s", k)
		}
	}
}

// TestSessionAndMemInfo: the thread level a session's info asks for, the info a
// session reports, and the alignment hint of Alloc_mem.
func TestSessionAndMemInfo(t *testing.T) {
	for _, c := range []struct {
		in   *Info
		want int
	}{
		{nil, core.ThreadMultiple},
		{InfoOf("thread_level", "MPI_THREAD_FUNNELED"), core.ThreadFunneled},
		{InfoOf("thread_level", "lots"), core.ThreadMultiple},
	} {
		if l, err := sessionLevel("SessionInit", c.in); l != c.want || err != nil {
			t.Errorf("sessionLevel = %d, %v; want %d", l, err, c.want)
		}
	}
	if got := pairs(t, sessionInfo(core.ThreadSerialized)); !slices.Equal(got, []string{
		"mpi_thread_support_level=MPI_THREAD_SERIALIZED", "thread_level=MPI_THREAD_SERIALIZED"}) {
		t.Errorf("sessionInfo %v", got)
	}
	if ThreadLevelName(7) != "" || ThreadLevelName(-1) != "" {
		t.Error("ThreadLevelName of no level")
	}
	for _, c := range []struct {
		in    *Info
		def   bool
		want  MemHints
		class core.ErrorClass
	}{
		{nil, false, MemHints{}, core.ClassSuccess},
		{nil, true, MemHints{Mapped: true}, core.ClassSuccess},
		{InfoOf("mpi_minimum_memory_alignment", "4096"), false, MemHints{Align: 4096}, core.ClassSuccess},
		{InfoOf("mpi_minimum_memory_alignment", "3"), false, MemHints{}, core.ClassInfoValue},
		{InfoOf("mpi_minimum_memory_alignment", "4294967296"), false, MemHints{}, core.ClassInfoValue},
		{InfoOf(KeyNodeMapped, "true", "mpi_minimum_memory_alignment", "64"), false, MemHints{Align: 64, Mapped: true}, core.ClassSuccess},
		{InfoOf(KeyNodeMapped, " false"), true, MemHints{}, core.ClassSuccess},
		{InfoOf(KeyNodeMapped, "yes"), false, MemHints{}, core.ClassInfoValue},
		{InfoOf("some_other_key", "x"), true, MemHints{Mapped: true}, core.ClassSuccess},
	} {
		h, err := AllocHints("Alloc_mem", c.in, c.def)
		if core.ClassOf(err) != c.class || err == nil && h != c.want {
			t.Errorf("AllocHints(%v, %v) = %+v, %v; want %+v, %v", c.in, c.def, h, err, c.want, c.class)
		}
	}
}

// TestAttrErrClasses: a keyval's misuse is MPI_ERR_KEYVAL; a callback's error is the
// call's, with its own class where it has one, else MPI_ERR_OTHER.
func TestAttrErrClasses(t *testing.T) {
	var s Attrs
	mine := errors.New("mine")
	coded := core.Errorf(core.ClassRank, "Op", "from a nested call")
	k := NewKeyval(AttrComm, nil, func(obj any, _ *Keyval, v any) error { return v.(error) }, nil)
	if err := SetAttr("Set", AttrComm, &s, "c", k, mine); err != nil {
		t.Fatal(err)
	}
	if err := DeleteAttr("Delete", AttrComm, &s, "c", k); core.ClassOf(err) != core.ClassOther || !errors.Is(err, mine) {
		t.Errorf("a plain error of a delete function: %v", err)
	}
	if err := SetAttr("Set", AttrComm, &s, "c", k, coded); core.ClassOf(err) != core.ClassOther || !errors.Is(err, mine) {
		t.Errorf("replacing a value whose delete function fails: %v, want that error", err)
	}
	var tmp Attrs
	if err := SetAttr("Set", AttrComm, &tmp, "c", k, coded); err != nil {
		t.Fatal(err)
	}
	if err := FreeAttrs("Free", &tmp, "c"); err != coded {
		t.Errorf("a coded error of a delete function: %v, want it as it is", err)
	}
	if err := FinalizeAttrs("Finalize", &tmp, "self", "MPI_COMM_SELF"); err != coded || tmp.Len() != 0 {
		t.Errorf("FinalizeAttrs: %v, %d left", err, tmp.Len())
	}
	for _, err := range []error{
		SetAttr("Set", AttrComm, &s, "c", KeyTagUB, 1),
		SetAttr("Set", AttrType, &s, "c", k, 1),
		FreeKeyval("Free", AttrWin, KeyWinBase),
		func() error { _, _, err := TypeAttr("Get", &s, nil); return err }(),
		func() error { _, _, err := CommAttr("Get", &s, KeyWinSize); return err }(),
		func() error { _, _, err := WinAttr("Get", &s, KeyIO, WinAttrs{}); return err }(),
	} {
		if core.ClassOf(err) != core.ClassKeyval {
			t.Errorf("%v: want MPI_ERR_KEYVAL", err)
		}
	}
	if !errors.Is(FreeKeyval("Free", AttrComm, KeyAppNum), attr.ErrPredefined) {
		t.Error("freeing MPI_APPNUM")
	}
}

// TestPredefinedValues: every predefined communicator and window attribute has its
// value, of the type the faces convert.
func TestPredefinedValues(t *testing.T) {
	for k, want := range map[*Keyval]any{KeyTagUB: int(core.MaxTag), KeyHost: int(core.ProcNull), KeyIO: int(core.AnySource),
		KeyWtimeIsGlobal: false} {
		if v, ok := CommPredefined(k); !ok || v != want {
			t.Errorf("%s = %v (%v), want %v", k.Name(), v, ok, want)
		}
	}
	for k, f := range map[*Keyval]func() (int, bool){KeyUniverseSize: UniverseSize, KeyAppNum: AppNum} {
		n, there := f()
		if v, ok := CommPredefined(k); ok != there || (ok && v != n) {
			t.Errorf("%s = %v (%v), want the process manager's %d (%v)", k.Name(), v, ok, n, there)
		}
	}
	if v, ok := CommPredefined(KeyLastUsedCode); !ok || v.(core.ErrorCode) < core.LastCode {
		t.Errorf("MPI_LASTUSEDCODE = %v", v)
	}
	if _, ok := CommPredefined(KeyWinBase); ok {
		t.Error("MPI_WIN_BASE is a communicator attribute")
	}
	a := WinAttrs{Base: make([]byte, 8), Size: 8, DispUnit: 4, Flavor: window.FlavorShared, Model: ModelUnified}
	for k, want := range map[*Keyval]any{KeyWinSize: 8, KeyWinDispUnit: 4, KeyWinCreateFlavor: window.FlavorShared, KeyWinModel: ModelUnified} {
		if v, ok := a.Value(k); !ok || v != want {
			t.Errorf("%s = %v, want %v", k.Name(), v, want)
		}
	}
	if v, ok := a.Value(KeyWinBase); !ok || len(v.([]byte)) != 8 {
		t.Errorf("MPI_WIN_BASE = %v", v)
	}
	var s Attrs
	if v, ok, err := WinAttr("Get", &s, KeyWinDispUnit, a); v != 4 || !ok || err != nil {
		t.Errorf("WinAttr(MPI_WIN_DISP_UNIT) = %v, %v, %v", v, ok, err)
	}
}
