//go:build !amd64

package datatype

import "unsafe"

// haveShortAVX: there is no packShortAVX or unpackShortAVX here.
const haveShortAVX = false

func unpackShortAVX(disp, pre unsafe.Pointer, n int, src, u unsafe.Pointer, o int64, scratch unsafe.Pointer) {
	panic("datatype: unpackShortAVX called without AVX")
}

func packShortAVX(disp, pre unsafe.Pointer, n int, dst, u unsafe.Pointer, o int64) {
	panic("datatype: packShortAVX called without AVX")
}
