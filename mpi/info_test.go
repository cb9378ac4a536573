package mpi_test

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/mpi"
)

// infoPairs lists an Info's pairs in Nthkey's order, through Nkeys, Nthkey and Get.
func infoPairs(t *testing.T, in *mpi.Info) []string {
	t.Helper()
	n, err := in.Nkeys()
	must(t, err)
	var out []string
	for i := 0; i < n; i++ {
		k, err := in.Nthkey(i)
		must(t, err)
		v, ok, err := in.Get(k)
		if err != nil || !ok {
			t.Fatalf("Get(%q) of key %d: %v, %v", k, i, ok, err)
		}
		out = append(out, k+"="+v)
	}
	return out
}

// TestInfo follows MPI 4.1 chapter 10: keys are numbered 0..N-1 and keep their numbers
// while the info is not changed (a key set again keeps its own); MPI_INFO_GET_STRING
// says whether a key is set; deleting a key that is not set is MPI_ERR_INFO_NOKEY; keys
// longer than MPI_MAX_INFO_KEY are MPI_ERR_INFO_KEY, values longer than
// MPI_MAX_INFO_VAL MPI_ERR_INFO_VALUE; MPI_INFO_DUP copies the pairs and their order; a
// freed info (and MPI_INFO_NULL) is MPI_ERR_INFO. The info calls may be made before Init
// and after Finalize ("MPI Functionality that is Always Available").
func TestInfo(t *testing.T) {
	mpitest.Run(t, 2, func(t *testing.T) {
		in := mpi.InfoCreate() // before Init
		must(t, in.Set("b", "1"))
		must(t, in.Set("a", "2"))
		must(t, in.Set("c", ""))
		must(t, in.Set("b", "3"))
		must(t, mpi.Init())
		if got := infoPairs(t, in); !slices.Equal(got, []string{"b=3", "a=2", "c="}) {
			t.Errorf("pairs %v", got)
		}
		if v, ok, err := in.Get("nope"); v != "" || ok || err != nil {
			t.Errorf("Get of a key not set: %q, %v, %v", v, ok, err)
		}
		d, err := in.Dup()
		must(t, err)
		must(t, in.Delete("b"))
		if got := infoPairs(t, in); !slices.Equal(got, []string{"a=2", "c="}) {
			t.Errorf("after Delete: pairs %v", got)
		}
		if got := infoPairs(t, d); !slices.Equal(got, []string{"b=3", "a=2", "c="}) {
			t.Errorf("the duplicate changed with the original: %v", got)
		}
		if keys, err := d.Keys(); err != nil || !slices.Equal(keys, []string{"b", "a", "c"}) {
			t.Errorf("Keys = %v, %v", keys, err)
		}
		longKey, longVal := strings.Repeat("k", mpi.MaxInfoKey+1), strings.Repeat("v", mpi.MaxInfoVal+1)
		must(t, in.Set(longKey[1:], longVal[1:])) // at the limits
		var null *mpi.Info
		bad := map[string]struct {
			err  error
			want *mpi.Error
			says string
		}{
			"Delete of a key not set": {in.Delete("b"), mpi.ErrInfoNokey, `"b"`},
			"Set of a long key":       {in.Set(longKey, "x"), mpi.ErrInfoKey, "MPI_MAX_INFO_KEY"},
			"Set of an empty key":     {in.Set("", "x"), mpi.ErrInfoKey, "empty"},
			"Set of a long value":     {in.Set("k", longVal), mpi.ErrInfoValue, "MPI_MAX_INFO_VAL"},
			"Get of a long key":       {func() error { _, _, err := in.Get(longKey); return err }(), mpi.ErrInfoKey, "MPI_MAX_INFO_KEY"},
			"Nthkey(3) of 3":          {func() error { _, err := in.Nthkey(3); return err }(), mpi.ErrArg, "n = 3"},
			"Nthkey(-1)":              {func() error { _, err := in.Nthkey(-1); return err }(), mpi.ErrArg, "n = -1"},
			"Set on nil":              {null.Set("a", "b"), mpi.ErrInfo, "MPI_INFO_NULL"},
			"Set on InfoEnv":          {mpi.InfoEnv.Set("a", "b"), mpi.ErrInfo, "read-only"},
			"Delete on InfoEnv":       {mpi.InfoEnv.Delete("host"), mpi.ErrInfo, "read-only"},
			"Free of InfoEnv":         {mpi.InfoEnv.Free(), mpi.ErrInfo, "read-only"},
		}
		must(t, d.Free())
		bad["Get on a freed info"] = struct {
			err  error
			want *mpi.Error
			says string
		}{func() error { _, _, err := d.Get("a"); return err }(), mpi.ErrInfo, "freed"}
		for _, f := range []func() error{
			func() error { _, err := d.Nkeys(); return err },
			func() error { _, err := d.Dup(); return err },
			func() error { _, err := d.Keys(); return err },
			d.Free,
		} {
			if err := f(); !errors.Is(err, mpi.ErrInfo) {
				t.Errorf("a call on a freed info: %v, want ErrInfo", err)
			}
		}
		for name, c := range bad {
			if !errors.Is(c.err, c.want) || !strings.Contains(fmt.Sprint(c.err), c.says) {
				t.Errorf("%s: %v, want class %v saying %q", name, c.err, c.want.Class, c.says)
			}
		}
		must(t, mpi.Finalize())
		must(t, in.Set("after", "Finalize"))
		if v, ok, err := in.Get("after"); v != "Finalize" || !ok || err != nil {
			t.Errorf("Get after Finalize: %q, %v, %v", v, ok, err)
		}
		must(t, in.Free())
	})
}

// TestInfoEnv: MPI_INFO_ENV holds the keys of MPI 4.1 section 11.2.2 that apply to an
// mpigo job (command, argv, maxprocs, host, arch, wdir), readable before Init, and no
// more after InitThread: "thread_level" is the level requested before the program
// started, which mpigo's launcher does not take; MPI_INFO_CREATE_ENV gives a copy that
// can be changed.
func TestInfoEnv(t *testing.T) {
	mpitest.Run(t, 3, func(t *testing.T) {
		wd, _ := os.Getwd()
		host, _ := os.Hostname()
		want := []string{"command=" + os.Args[0], "argv=" + strings.Join(os.Args[1:], " "), "maxprocs=3",
			"host=" + host, "arch=" + runtime.GOARCH, "wdir=" + wd}
		if got := infoPairs(t, mpi.InfoEnv); !slices.Equal(got, want) {
			t.Errorf("InfoEnv before Init:\n got %q\nwant %q", got, want)
		}
		if _, err := mpi.InitThread(mpi.ThreadSerialized); err != nil {
			t.Fatal(err)
		}
		if got := infoPairs(t, mpi.InfoEnv); !slices.Equal(got, want) {
			t.Errorf("InfoEnv after InitThread:\n got %q\nwant %q", got, want)
		}
		env := mpi.InfoCreateEnv()
		must(t, env.Set("maxprocs", "1"))
		must(t, env.Delete("host"))
		if v, _, _ := mpi.InfoEnv.Get("maxprocs"); v != strconv.Itoa(mpi.World.Size()) {
			t.Errorf("InfoEnv's maxprocs %q after a copy changed, world size %d", v, mpi.World.Size())
		}
		if _, ok, _ := env.Get("host"); ok {
			t.Error("the copy's host was not deleted")
		}
		must(t, env.Free())
		must(t, mpi.Finalize())
	})
}

// TestCommInfo follows MPI 4.1 section 7.4.4: MPI_COMM_GET_INFO returns a new info with
// every hint the implementation supports at its value or default, including the
// assertions MPI defines (mpi_assert_no_any_tag and the others, "false" by default);
// MPI_COMM_SET_INFO changes only the hints it names and ignores keys it does not know;
// MPI_COMM_DUP keeps the hints, MPI_COMM_DUP_WITH_INFO, MPI_COMM_IDUP_WITH_INFO and
// MPI_COMM_SPLIT_TYPE take them from their info instead.
func TestCommInfo(t *testing.T) {
	job(t, 3, func(t *testing.T, rank, size int) {
		hints := func(c *mpi.Comm) []string {
			in, err := c.Info()
			must(t, err)
			defer in.Free()
			return infoPairs(t, in)
		}
		defaults := []string{"mpi_assert_no_any_tag=false", "mpi_assert_no_any_source=false",
			"mpi_assert_exact_length=false", "mpi_assert_allow_overtaking=false"}
		c, err := mpi.World.Dup()
		must(t, err)
		if got := hints(c); !slices.Equal(got, defaults) {
			t.Errorf("a new communicator's hints: %v", got)
		}
		in := mpi.InfoCreate()
		must(t, in.Set("mpi_assert_no_any_tag", "true"))
		must(t, in.Set("something_else", "1"))
		must(t, in.Set("mpi_assert_exact_length", "maybe")) // not a boolean: ignored
		must(t, c.SetInfo(in))
		must(t, c.SetInfo(nil)) // MPI_INFO_NULL: nothing changes
		two := mpi.InfoCreate()
		must(t, two.Set("mpi_assert_allow_overtaking", "true"))
		must(t, c.SetInfo(two))
		set := []string{"mpi_assert_no_any_tag=true", "mpi_assert_no_any_source=false",
			"mpi_assert_exact_length=false", "mpi_assert_allow_overtaking=true"}
		if got := hints(c); !slices.Equal(got, set) {
			t.Errorf("after SetInfo: %v, want %v", got, set)
		}
		dup, err := c.Dup()
		must(t, err)
		if got := hints(dup); !slices.Equal(got, set) {
			t.Errorf("Dup's hints: %v, want %v", got, set)
		}
		withInfo, err := c.DupWithInfo(two)
		must(t, err)
		only := []string{"mpi_assert_no_any_tag=false", "mpi_assert_no_any_source=false",
			"mpi_assert_exact_length=false", "mpi_assert_allow_overtaking=true"}
		if got := hints(withInfo); !slices.Equal(got, only) {
			t.Errorf("DupWithInfo's hints: %v, want %v (the info's, not the parent's)", got, only)
		}
		split, err := mpi.World.SplitTypeInfo(mpi.SplitTypeShared, rank, two)
		must(t, err)
		if got := hints(split); !slices.Equal(got, only) {
			t.Errorf("SplitTypeInfo's hints: %v, want %v (its info's)", got, only)
		}
		must(t, split.Free())
		idup, req, err := c.IdupWithInfo(nil)
		must(t, err)
		_, err = req.Wait()
		must(t, err)
		if got := hints(idup); !slices.Equal(got, defaults) {
			t.Errorf("IdupWithInfo(nil)'s hints: %v, want the defaults", got)
		}
		sum := []int{0}
		must(t, mpi.Allreduce(idup, []int{1}, sum, mpi.Sum))
		if sum[0] != size {
			t.Errorf("Allreduce on IdupWithInfo's communicator: %d", sum[0])
		}
		must(t, in.Free())
		if err := c.SetInfo(in); !errors.Is(err, mpi.ErrInfo) {
			t.Errorf("SetInfo of a freed info: %v", err)
		}
		if _, err := c.DupWithInfo(in); !errors.Is(err, mpi.ErrInfo) {
			t.Errorf("DupWithInfo of a freed info: %v", err)
		}
		if _, _, err := c.IdupWithInfo(in); !errors.Is(err, mpi.ErrInfo) {
			t.Errorf("IdupWithInfo of a freed info: %v", err)
		}
		for _, x := range []*mpi.Comm{c, dup, withInfo, idup} {
			must(t, x.Free())
		}
		var null *mpi.Comm
		for name, x := range map[string]*mpi.Comm{"the nil communicator": null, "a freed communicator": c} {
			_, errInfo := x.Info()
			_, errDup := x.DupWithInfo(nil)
			_, _, errIdup := x.IdupWithInfo(nil)
			for call, err := range map[string]error{"Info": errInfo, "SetInfo": x.SetInfo(nil),
				"DupWithInfo": errDup, "IdupWithInfo": errIdup} {
				if !errors.Is(err, mpi.ErrComm) {
					t.Errorf("%s on %s: %v, want ErrComm", call, name, err)
				}
			}
		}
	})
}

// Info is a set of hints, usable before Init.
func ExampleInfo() {
	in := mpi.InfoCreate()
	defer in.Free()
	in.Set("mpi_assert_no_any_source", "true")
	in.Set("my_hint", "42")
	n, _ := in.Nkeys()
	for i := 0; i < n; i++ {
		k, _ := in.Nthkey(i)
		v, _, _ := in.Get(k)
		fmt.Println(k, "=", v)
	}
	_, ok, _ := in.Get("absent")
	fmt.Println("absent set:", ok)
	// Output:
	// mpi_assert_no_any_source = true
	// my_hint = 42
	// absent set: false
}

// A library adds its own error class and code, with strings, and reports errors of it
// as error values that carry the code.
func ExampleAddErrorCode() {
	class, _ := mpi.AddErrorClass()
	mpi.AddErrorString(mpi.ErrorCode(class), "widget library error")
	code, _ := mpi.AddErrorCode(class)
	mpi.AddErrorString(code, "out of widgets")

	err := mpi.NewError(code, "3 wanted")
	fmt.Println(err)
	fmt.Println(mpi.ClassOf(err) == class, mpi.CodeOf(err) == code)
	s, _ := mpi.ErrorString(mpi.ErrorCode(mpi.ClassOf(err)))
	fmt.Println(s)
	fmt.Println(mpi.NewError(mpi.ErrorCode(class), "no widget library"))
	// Output:
	// mpi: out of widgets: 3 wanted
	// true true
	// widget library error
	// mpi: widget library error: no widget library
}
