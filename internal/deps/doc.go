// Package deps has no code: its tests check the module as a whole.
//
// deps_test.go states, as a list of rules ordered bottom up, which packages of the
// module each package may import, and fails on an import no rule allows, on a
// package no rule names and on a cycle; it is the picture of docs/ARCHITECTURE.md
// held to the code (the Go standard library keeps its own in go/build's deps test).
// tracked_test.go fails when git tracks a build output: an executable or an object
// file, rather than the sources it is built from.
package deps
