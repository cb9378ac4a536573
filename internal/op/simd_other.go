//go:build !amd64

package op

// simdKernels: no vector loops on this platform; the Go kernels serve.
func simdKernels() {}
