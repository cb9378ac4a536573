package group_test

import (
	"fmt"

	"github.com/mpigo/mpigo/internal/group"
)

// Every other rank of a million-rank world costs one 32-byte struct, and finding a
// member's world rank, or a world rank's member, is arithmetic.
func ExampleGroup_RangeIncl() {
	world, _ := group.NewWorld(1<<20, group.Sparse)
	evens, _ := world.RangeIncl([]group.Range{{First: 0, Last: 1<<20 - 1, Stride: 2}})
	fmt.Println(evens.Size(), evens.Kind(), evens.Bytes())
	fmt.Println(evens.WorldRank(12345), evens.Rank(24690), evens.Rank(24691) == group.Undefined)
	// Output:
	// 524288 stride 32
	// 24690 12345 true
}

// The union of two strided groups is two strided runs; the same group stored densely
// takes 4 bytes per member.
func ExampleUnion() {
	world, _ := group.NewWorld(1<<20, group.Sparse)
	a, _ := world.RangeIncl([]group.Range{{First: 0, Last: 1<<20 - 1, Stride: 2}})
	b, _ := world.RangeIncl([]group.Range{{First: 0, Last: 1<<20 - 1, Stride: 3}})
	u, _ := group.Union(a, b)
	fmt.Println(u, u.Bytes())
	fmt.Println(u.WithStorage(group.Dense), u.WithStorage(group.Dense).Bytes())
	// Output:
	// group(range n=699051 runs=2) 88
	// group(dense n=699051) 2801728
}

func ExampleTranslateRanks() {
	world, _ := group.NewWorld(8, group.Sparse)
	rev, _ := world.RangeIncl([]group.Range{{First: 7, Last: 0, Stride: -1}})
	odd, _ := world.RangeIncl([]group.Range{{First: 1, Last: 7, Stride: 2}})
	r, _ := group.TranslateRanks(odd, []int{0, 1, 2, 3, group.ProcNull}, rev)
	fmt.Println(r)
	c, _ := group.Compare(world, rev)
	fmt.Println(c)
	// Output:
	// [6 4 2 0 -1]
	// similar
}

func ExampleGroup_Incl() {
	world, _ := group.NewWorld(16, group.Sparse)
	_, err := world.Incl([]int{1, 2, 3, 17})
	fmt.Println(err)
	// Output: Incl: ranks[3] = 17 out of range [0,16)
}
