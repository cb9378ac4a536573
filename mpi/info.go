package mpi

import (
	"github.com/mpigo/mpigo/internal/mpir"
)

// Info is a set of (key, value) strings: hints to the calls that take one
// (communicators, windows, sessions, AllocMem), and the description of the
// environment, InfoEnv (MPI_Info, MPI 4.1 chapter 10). A nil *Info is MPI_INFO_NULL:
// calls that take an info read it as no hints, and Info's own methods refuse it with
// an error of class ErrInfo, as they refuse a freed one. Every Info call may be made
// at any time, before Init and after Finalize too, and from many goroutines at once;
// their errors go to Self's error handler.
type Info struct {
	in  *mpir.Info
	env bool // InfoEnv: mpir's, filled on first use
}

const (
	// MaxInfoKey is the longest key in bytes, 255: MPI_MAX_INFO_KEY less C's NUL.
	MaxInfoKey = mpir.MaxInfoKey - 1
	// MaxInfoVal is the longest value in bytes Set takes, 1023: MPI_MAX_INFO_VAL less
	// C's NUL.
	MaxInfoVal = mpir.MaxInfoVal - 1
)

// InfoEnv describes how this process was started (MPI_INFO_ENV): "command" (the
// program, os.Args[0]), "argv" (its arguments, separated by spaces), "maxprocs" (the
// number of ranks the job started), "host" (this machine's name), "arch" (GOARCH) and
// "wdir" (the working directory). The standard's other keys, "soft", "file" and
// "thread_level", describe requests mpigo's launcher does not take, so they are not
// set. Values are whole, even a command line longer than MaxInfoVal (Get never cuts a
// value). InfoEnv is read-only and cannot be freed: InfoCreateEnv gives a copy to
// change.
var InfoEnv = &Info{env: true}

// InfoCreate makes an empty Info (MPI_Info_create).
func InfoCreate() *Info { return &Info{in: mpir.NewInfo()} }

// InfoCreateEnv makes a new Info holding what InfoEnv holds (MPI_Info_create_env; Go
// programs have their arguments in os.Args).
func InfoCreateEnv() *Info { return &Info{in: mpir.InfoCreateEnv()} }

// wrapInfo gives an info the implementation made to the program.
func wrapInfo(in *mpir.Info) *Info { return &Info{in: in} }

// obj is the info in stands for: nil for nil (MPI_INFO_NULL).
func (in *Info) obj() *mpir.Info {
	switch {
	case in == nil:
		return nil
	case in.env:
		return mpir.InfoEnv()
	}
	return in.in
}

// infoFail gives err of the Info call op its class and Self's handler.
func infoFail(op string, err error) error { return Self.fail(op, mpir.InfoErr(op, err)) }

// Set sets key to value, replacing any value it had; a key set again keeps its number
// (MPI_Info_set). A key must be 1 to MaxInfoKey bytes (else ErrInfoKey), a value at
// most MaxInfoVal bytes (else ErrInfoValue).
func (in *Info) Set(key, value string) error {
	return infoFail("InfoSet", in.obj().Set(key, value))
}

// Get returns key's value and whether key is set (MPI_Info_get_string; the length
// MPI_Info_get_valuelen reports is len(value)). The value is never cut short.
func (in *Info) Get(key string) (value string, ok bool, err error) {
	value, ok, err = in.obj().Get(key)
	return value, ok, infoFail("InfoGet", err)
}

// Delete removes key (MPI_Info_delete); a key that is not set is an error of class
// ErrInfoNokey. The keys after it move down one number.
func (in *Info) Delete(key string) error {
	return infoFail("InfoDelete", in.obj().Delete(key))
}

// Nkeys is the number of keys set (MPI_Info_get_nkeys).
func (in *Info) Nkeys() (int, error) {
	n, err := in.obj().Nkeys()
	return n, infoFail("InfoGetNkeys", err)
}

// Nthkey is key number n, from 0 to Nkeys()-1, in the order the keys were first set
// (MPI_Info_get_nthkey); another n is an error of class ErrArg.
func (in *Info) Nthkey(n int) (string, error) {
	k, err := in.obj().Nthkey(n)
	return k, infoFail("InfoGetNthkey", err)
}

// Keys lists the keys in Nthkey's order.
func (in *Info) Keys() ([]string, error) {
	ks, err := in.obj().Keys()
	return ks, infoFail("InfoKeys", err)
}

// Dup makes a new Info with the same pairs, numbered alike (MPI_Info_dup). A
// duplicate of InfoEnv can be changed.
func (in *Info) Dup() (*Info, error) {
	d, err := in.obj().Dup()
	if err != nil {
		return nil, infoFail("InfoDup", err)
	}
	return wrapInfo(d), nil
}

// Free frees the Info (MPI_Info_free): every later call on it returns an error of class
// ErrInfo. InfoEnv cannot be freed.
func (in *Info) Free() error {
	return infoFail("InfoFree", in.obj().Free())
}

// SetInfo updates c's hints with those of info that mpigo takes (MPI_Comm_set_info):
// the mpi_assert_no_any_tag, mpi_assert_no_any_source, mpi_assert_exact_length and
// mpi_assert_allow_overtaking assertions, "true" or "false". Hints info does not name
// keep their values; other keys are ignored, as MPI allows. A nil info changes
// nothing. Every rank of c calls it, with the same assertions.
func (c *Comm) SetInfo(info *Info) error {
	if err := c.check("SetInfo"); err != nil {
		return err
	}
	return c.fail("SetInfo", c.x.SetInfo("SetInfo", info.obj()))
}

// Info returns a new Info holding the hints in effect on c (MPI_Comm_get_info): every
// hint mpigo takes, at its value or default; keys mpigo ignored are not among them. The
// caller owns it.
func (c *Comm) Info() (*Info, error) {
	if err := c.check("Info"); err != nil {
		return nil, err
	}
	in, err := c.x.Info("Info")
	return wrapInfo(in), c.fail("Info", err)
}
