package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestClassFilesUpToDate: the Go files of the error classes are what head.h makes, so
// that a class's number is written in one place only (run `go generate ./abi` after
// changing head.h).
func TestClassFilesUpToDate(t *testing.T) {
	head, err := os.ReadFile("head.h")
	if err != nil {
		t.Fatal(err)
	}
	files, err := classFiles(head)
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range files {
		got, err := os.ReadFile(filepath.Join("..", path)) // paths are from abi/
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not what head.h makes: run go generate ./abi", path)
		}
	}
}

// TestGoClassNames: the Go names of the classes keep MPI's words, and acronyms stay
// capitals.
func TestGoClassNames(t *testing.T) {
	for c, want := range map[string]string{"MPI_SUCCESS": "Success", "MPI_ERR_INFO_NOKEY": "InfoNokey",
		"MPI_ERR_RMA_SYNC": "RMASync", "MPI_ERR_IO": "IO", "MPI_ERR_ABI": "ABI", "MPI_ERR_IN_STATUS": "InStatus",
		"MPI_ERR_UNSUPPORTED_OPERATION": "UnsupportedOperation"} {
		if got := goClassName(c); got != want {
			t.Errorf("goClassName(%s) = %s, want %s", c, got, want)
		}
	}
}
