package mpir

import (
	"testing"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/datatype"
)

// TestFileDatarep: the names a view takes, whatever their case.
func TestFileDatarep(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"native", RepNative}, {"NATIVE", RepNative}, {"internal", RepInternal},
		{"External32", RepExternal32}, {"external", ""}, {"", ""}, {"ieee", ""},
	} {
		if got := FileDatarep(c.in); got != c.want {
			t.Errorf("FileDatarep(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestRepExtent: get_type_extent's extents, in memory and in external32, and the
// views external32 refuses.
func TestRepExtent(t *testing.T) {
	for _, c := range []struct {
		rep  string
		t    *datatype.Type
		want int64
	}{
		{RepNative, datatype.CLong, 8}, {RepExternal32, datatype.CLong, 4},
		{RepExternal32, datatype.Int32, 4}, {RepExternal32, datatype.Float64, 8},
		{RepInternal, datatype.Int16, 2}, {RepExternal32, datatype.LongDouble, 16},
	} {
		if got, err := repExtent("File_get_type_extent", c.rep, c.t); err != nil || got != c.want {
			t.Errorf("repExtent(%s, %s) = %d, %v; want %d", c.rep, c.t.Name(), got, err, c.want)
		}
	}
	classOf(t, "an external32 view of C longs", repView("File_set_view", RepExternal32, datatype.CLong, datatype.CLong), core.ClassUnsupportedDatarep)
	if err := repView("File_set_view", RepExternal32, datatype.Int32, datatype.Int32); err != nil {
		t.Errorf("an external32 view of int32s: %v", err)
	}
	if err := repView("File_set_view", RepNative, datatype.CLong, datatype.CLong); err != nil {
		t.Errorf("a native view of C longs: %v", err)
	}
}
