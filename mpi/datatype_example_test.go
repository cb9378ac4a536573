package mpi_test

import (
	"fmt"

	"github.com/mpigo/mpigo/mpi"
)

// TypeIndexed picks blocks of different lengths at chosen places: here the upper
// triangle of a 4x4 row-major matrix, row i from its diagonal element on. Sent with
// mpi.SendBuf(c, mpi.Typed(a, 1, upper), dest, tag), those elements travel one after
// another, as Pack lays them out here.
func ExampleTypeIndexed() {
	const n = 4
	a := make([]float64, n*n)
	for i := range a {
		a[i] = float64(i)
	}
	lens, displs := make([]int, n), make([]int, n)
	for i := range n {
		lens[i], displs[i] = n-i, i*n+i // in elements of the old type
	}
	upper, err := mpi.TypeIndexed(lens, displs, mpi.Float64)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := upper.Commit(); err != nil {
		fmt.Println(err)
		return
	}
	size, err := mpi.PackSize(1, upper)
	if err != nil {
		fmt.Println(err)
		return
	}
	packed := make([]byte, size)
	pos := 0
	if err := mpi.Pack(mpi.Typed(a, 1, upper), packed, &pos); err != nil {
		fmt.Println(err)
		return
	}
	tri := make([]float64, n*(n+1)/2)
	pos = 0
	if err := mpi.Unpack(packed, &pos, mpi.Typed(tri, len(tri), mpi.Float64)); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(tri)
	// Output: [0 1 2 3 5 6 7 10 11 15]
}

// Contents gives back what a type was built with, so that a tool can print or rebuild
// it; the old type comes back as the package's own handle.
func ExampleDatatype_Contents() {
	col, err := mpi.TypeVector(3, 1, 4, mpi.Float64) // a column of a 3x4 matrix
	if err != nil {
		fmt.Println(err)
		return
	}
	comb, _, _, _, _ := col.Envelope()
	ints, _, types, err := col.Contents()
	if err != nil {
		fmt.Println(err)
		return
	}
	name, _ := types[0].Name()
	fmt.Println(comb, ints, name, types[0] == mpi.Float64)
	// Output: vector [3 1 4] MPI_DOUBLE true
}

// TypeGetValueIndex finds the pair type Maxloc and Minloc take for a value type and
// an index type; a Go struct of the same layout holds the pairs.
func ExampleTypeGetValueIndex() {
	pair, err := mpi.TypeGetValueIndex(mpi.Float64, mpi.Int32)
	if err != nil {
		fmt.Println(err)
		return
	}
	name, _ := pair.Name()
	none, _ := mpi.TypeGetValueIndex(mpi.Float64, mpi.Int64)
	fmt.Println(name, none == nil)
	// Output: MPI_DOUBLE_INT true
}

// TypeResized may give a type a negative extent: successive items of a count then
// step backwards through memory. Here one float64 at the end of a slice, resized to
// extent -8, walks a slice from its last element to its first.
func ExampleTypeResized() {
	a := []float64{1, 2, 3, 4, 5}
	last, err := mpi.TypeHindexedBlock(1, []int{8 * (len(a) - 1)}, mpi.Float64)
	if err != nil {
		fmt.Println(err)
		return
	}
	rev, err := mpi.TypeResized(last, 0, -8)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := rev.Commit(); err != nil {
		fmt.Println(err)
		return
	}
	packed := make([]byte, 8*len(a))
	pos := 0
	if err := mpi.Pack(mpi.Typed(a, len(a), rev), packed, &pos); err != nil {
		fmt.Println(err)
		return
	}
	out := make([]float64, len(a))
	pos = 0
	if err := mpi.Unpack(packed, &pos, mpi.Typed(out, len(out), mpi.Float64)); err != nil {
		fmt.Println(err)
		return
	}
	ext, _ := rev.Extent()
	fmt.Println(ext, out)
	// Output: -8 [5 4 3 2 1]
}

// TypeCreateF90Real and TypeMatchSize find the predefined type for a precision and
// range, or for a size in bytes, as Fortran programs do with its KINDs.
func ExampleTypeCreateF90Real() {
	d, err := mpi.TypeCreateF90Real(12, mpi.Undefined) // 12 decimal digits
	if err != nil {
		fmt.Println(err)
		return
	}
	size, _ := d.Size()
	comb, _, _, _, _ := d.Envelope()
	fmt.Println(size, comb)
	i, _ := mpi.TypeMatchSize(mpi.TypeClassInteger, 2)
	name, _ := i.Name()
	fmt.Println(name)
	if _, err := mpi.TypeCreateF90Real(20, mpi.Undefined); err != nil {
		fmt.Println("20 digits: no such type")
	}
	// Output:
	// 8 f90_real
	// MPI_INT16_T
	// 20 digits: no such type
}
