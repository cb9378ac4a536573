package core

import (
	"strings"
	"testing"
)

// TestEveryClassNamedAndExplained: each predefined class has its MPI name and a
// meaning, and is its own code (MPI_Error_class maps a class onto itself).
func TestEveryClassNamedAndExplained(t *testing.T) {
	for c := ClassSuccess; c <= ClassABI; c++ {
		name, ok := c.name()
		if !ok || !strings.HasPrefix(name, "MPI_") {
			t.Errorf("class %d: name %q", int(c), name)
		}
		if classText[c] == "" {
			t.Errorf("%s has no meaning in classText", name)
		}
		if k, err := ClassOfCode("Error_class", ErrorCode(c)); err != nil || k != c {
			t.Errorf("ClassOfCode(%s) = %v, %v", name, k, err)
		}
		if s, err := CodeString("Error_string", ErrorCode(c)); err != nil || !strings.HasPrefix(s, name+": ") {
			t.Errorf("CodeString(%s) = %q, %v", name, s, err)
		}
	}
	if !ClassProcFailed.Predefined() || ClassProcFailed.String() != "MPIX_ERR_PROC_FAILED" || classText[ClassProcFailed] == "" {
		t.Errorf("ClassProcFailed: %v", ClassProcFailed)
	}
	if ErrorClass(LastCode).Predefined() || ErrorClass(-1).Predefined() {
		t.Error("a number that is no class is predefined")
	}
}

// TestAddedCodesAboveFacesCodes: a class or code a program adds is numbered from
// firstAdded, above MPI_ERR_LASTCODE and the codes a face makes for single errors.
func TestAddedCodesAboveFacesCodes(t *testing.T) {
	c, err := AddClass("Add_error_class")
	if err != nil {
		t.Fatal(err)
	}
	code, err := AddCode("Add_error_code", c)
	if err != nil {
		t.Fatal(err)
	}
	if ErrorCode(c) < firstAdded || code <= ErrorCode(c) || LastUsedCode() != code {
		t.Errorf("added class %d, code %d, last used %d; want from %d up", c, code, LastUsedCode(), firstAdded)
	}
	if k, err := ClassOfCode("Error_class", code); err != nil || k != c || c.Predefined() {
		t.Errorf("ClassOfCode(added code) = %v, %v", k, err)
	}
	if err := RemoveCode("Remove_error_code", code); err != nil {
		t.Error(err)
	}
	if err := RemoveClass("Remove_error_class", c); err != nil {
		t.Error(err)
	}
}
