package mpi

// Neighbors exposes neighbors, the lists the neighbourhood collectives will use, to the
// tests of package mpi_test.
func Neighbors(c *Comm) (sources, destinations []int, ok bool) { return c.neighbors() }
