package mpio

import (
	"errors"
	"testing"
)

func TestAmodeCheck(t *testing.T) {
	for _, c := range []struct {
		a  Amode
		ok bool
	}{
		{Rdonly, true},
		{Rdwr | Create, true},
		{Wronly | Create | Excl | DeleteOnClose | UniqueOpen | Append, true},
		{Wronly | Sequential, true},
		{Rdonly | Sequential, true},
		{Rdonly | Excl, false},
		{Rdonly | Create, false},
		{Rdwr | Sequential, false},
		{Rdonly | Rdwr, false},
		{Rdwr | Wronly, false},
		{Create, false},
		{0, false},
		{Rdwr | 1024, false}, // MPI_MODE_NOCHECK is no access mode
		{Rdwr | Excl, true},  // Excl without Create: nothing to create
	} {
		err := c.a.Check()
		if (err == nil) != c.ok || err != nil && !errors.Is(err, ErrAmode) {
			t.Errorf("%s: %v, want ok %v (else ErrAmode)", c.a, err, c.ok)
		}
	}
	if s := (Rdwr | Create | 4096).String(); s != "MPI_MODE_RDWR|MPI_MODE_CREATE|0x1000" {
		t.Errorf("String: %q", s)
	}
}
