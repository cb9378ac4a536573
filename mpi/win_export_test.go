package mpi

// WinRoute exposes how this rank reaches w's targets (the device's Route, as `mpigo
// info` prints it) to the tests of package mpi_test.
func WinRoute(w *Win) string { return w.d.Route() }
