package main

// #define MPIGO_ABI_NO_PROTOTYPES 1
// #include "mpi.h"
import "C"

import (
	"maps"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/mpigo/mpigo/internal/core"
)

// Info objects (MPI 4.1 chapter 10): ordered (key, value) pairs; Get_nthkey follows
// the order of first Set. MPI_INFO_ENV holds the job's environment (command, argv,
// maxprocs, host, arch, wdir, thread_level), is read-only and cannot be freed.
// Communicators keep the hints set on them (Comm_set_info, Comm_dup_with_info) and give
// them back as a new info (Comm_get_info); mpigo acts on none yet.

type info struct {
	mu   sync.Mutex
	keys []string
	vals map[string]string
}

var (
	infos   table[info]
	envInfo info
	envOnce sync.Once
)

const (
	maxInfoKey = 255  // MPI_MAX_INFO_KEY - 1
	maxInfoVal = 1024 // MPI_MAX_INFO_VAL
)

func fillEnv() {
	envInfo.vals = map[string]string{}
	put := func(k, v string) { envInfo.set(k, v) }
	put("command", os.Args[0])
	put("argv", strings.Join(os.Args[1:], " "))
	if core.Initialized() {
		put("maxprocs", strconv.Itoa(world.c.Size()))
		put("thread_level", [...]string{"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED", "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE"}[core.ThreadLevel()])
	}
	if h, err := os.Hostname(); err == nil {
		put("host", h)
	}
	put("arch", runtime.GOARCH)
	if wd, err := os.Getwd(); err == nil {
		put("wdir", wd)
	}
}

func (in *info) set(k, v string) {
	in.mu.Lock()
	if in.vals == nil {
		in.vals = map[string]string{}
	}
	if _, ok := in.vals[k]; !ok {
		in.keys = append(in.keys, k)
	}
	in.vals[k] = v
	in.mu.Unlock()
}

func (in *info) get(k string) (string, bool) {
	in.mu.Lock()
	defer in.mu.Unlock()
	v, ok := in.vals[k]
	return v, ok
}

func (in *info) clone() *info {
	in.mu.Lock()
	defer in.mu.Unlock()
	return &info{keys: append([]string(nil), in.keys...), vals: maps.Clone(in.vals)}
}

// infoOf is the info of handle h (nil if it is not one).
func infoOf(h uintptr) *info {
	if h == hInfoEnv {
		envOnce.Do(fillEnv)
		return &envInfo
	}
	return infos.get(h)
}

func needInfo(op string, h uintptr, write bool) (*info, error) {
	if h == hInfoNull {
		return nil, errorf(errInfo, op, "info is MPI_INFO_NULL")
	}
	in := infoOf(h)
	if in == nil {
		return nil, errorf(errInfo, op, "info %#x is not an info object", h)
	}
	if write && h == hInfoEnv {
		return nil, errorf(errInfo, op, "MPI_INFO_ENV is read-only (MPI_Info_dup it to change a copy)")
	}
	return in, nil
}

func infoKey(op string, p unsafe.Pointer) (string, error) {
	if p == nil {
		return "", errorf(errInfoKey, op, "key is NULL")
	}
	k := strings.TrimSpace(cstr(p))
	if k == "" || len(k) > maxInfoKey {
		return "", errorf(errInfoKey, op, "key %q must have 1 to %d characters", k, maxInfoKey)
	}
	return k, nil
}

//export PMPI_Info_create
func PMPI_Info_create(out unsafe.Pointer) int32 {
	if out == nil {
		return fail("Info_create", 0, errorf(errArg, "Info_create", "info is NULL"))
	}
	setHandle(out, infos.add(&info{vals: map[string]string{}}))
	return 0
}

//export PMPI_Info_create_env
func PMPI_Info_create_env(argc int32, argv, out unsafe.Pointer) int32 {
	if out == nil {
		return fail("Info_create_env", 0, errorf(errArg, "Info_create_env", "info is NULL"))
	}
	setHandle(out, infos.add(infoOf(hInfoEnv).clone()))
	return 0
}

//export PMPI_Info_set
func PMPI_Info_set(h uintptr, key, val unsafe.Pointer) int32 {
	const op = "Info_set"
	in, err := needInfo(op, h, true)
	if err != nil {
		return fail(op, 0, err)
	}
	k, err := infoKey(op, key)
	if err != nil {
		return fail(op, 0, err)
	}
	if val == nil {
		return fail(op, 0, errorf(errInfoValue, op, "value is NULL"))
	}
	v := cstr(val)
	if len(v) > maxInfoVal {
		return fail(op, 0, errorf(errInfoValue, op, "the value of %q has %d characters, more than MPI_MAX_INFO_VAL %d", k, len(v), maxInfoVal))
	}
	in.set(k, strings.TrimSpace(v))
	return 0
}

//export PMPI_Info_delete
func PMPI_Info_delete(h uintptr, key unsafe.Pointer) int32 {
	const op = "Info_delete"
	in, err := needInfo(op, h, true)
	if err != nil {
		return fail(op, 0, err)
	}
	k, err := infoKey(op, key)
	if err != nil {
		return fail(op, 0, err)
	}
	in.mu.Lock()
	_, ok := in.vals[k]
	if ok {
		delete(in.vals, k)
		for i, x := range in.keys {
			if x == k {
				in.keys = append(in.keys[:i], in.keys[i+1:]...)
				break
			}
		}
	}
	in.mu.Unlock()
	if !ok {
		return fail(op, 0, errorf(errInfoNokey, op, "the info has no key %q", k))
	}
	return 0
}

//export PMPI_Info_get
func PMPI_Info_get(h uintptr, key unsafe.Pointer, valuelen int32, val, flag unsafe.Pointer) int32 {
	const op = "Info_get"
	in, err := needInfo(op, h, false)
	if err != nil {
		return fail(op, 0, err)
	}
	k, err := infoKey(op, key)
	if err != nil {
		return fail(op, 0, err)
	}
	if valuelen < 0 {
		return fail(op, 0, errorf(errArg, op, "valuelen %d is negative", valuelen))
	}
	v, ok := in.get(k)
	setBool(flag, ok)
	if ok {
		// valuelen excludes the terminating zero (MPI 4.1 10.2): valuelen+1 bytes.
		putCString(val, int(valuelen)+1, v, nil)
	}
	return 0
}

//export PMPI_Info_get_string
func PMPI_Info_get_string(h uintptr, key unsafe.Pointer, buflen, val, flag unsafe.Pointer) int32 {
	const op = "Info_get_string"
	in, err := needInfo(op, h, false)
	if err != nil {
		return fail(op, 0, err)
	}
	k, err := infoKey(op, key)
	if err != nil {
		return fail(op, 0, err)
	}
	if buflen == nil {
		return fail(op, 0, errorf(errArg, op, "buflen is NULL"))
	}
	v, ok := in.get(k)
	setBool(flag, ok)
	if !ok {
		return 0
	}
	n := int(*(*int32)(buflen))
	if n > 0 {
		putCString(val, n, v, nil)
	}
	*(*int32)(buflen) = int32(len(v) + 1)
	return 0
}

//export PMPI_Info_get_valuelen
func PMPI_Info_get_valuelen(h uintptr, key unsafe.Pointer, n, flag unsafe.Pointer) int32 {
	const op = "Info_get_valuelen"
	in, err := needInfo(op, h, false)
	if err != nil {
		return fail(op, 0, err)
	}
	k, err := infoKey(op, key)
	if err != nil {
		return fail(op, 0, err)
	}
	v, ok := in.get(k)
	setBool(flag, ok)
	if ok {
		setInt(n, len(v))
	}
	return 0
}

//export PMPI_Info_get_nkeys
func PMPI_Info_get_nkeys(h uintptr, n unsafe.Pointer) int32 {
	in, err := needInfo("Info_get_nkeys", h, false)
	if err != nil {
		return fail("Info_get_nkeys", 0, err)
	}
	in.mu.Lock()
	setInt(n, len(in.keys))
	in.mu.Unlock()
	return 0
}

//export PMPI_Info_get_nthkey
func PMPI_Info_get_nthkey(h uintptr, n int32, key unsafe.Pointer) int32 {
	const op = "Info_get_nthkey"
	in, err := needInfo(op, h, false)
	if err != nil {
		return fail(op, 0, err)
	}
	in.mu.Lock()
	nk := len(in.keys)
	var k string
	if n >= 0 && int(n) < nk {
		k = in.keys[n]
	}
	in.mu.Unlock()
	if n < 0 || int(n) >= nk {
		return fail(op, 0, errorf(errArg, op, "n %d is not in [0,%d), the number of keys", n, nk))
	}
	putCString(key, maxInfoKey+1, k, nil)
	return 0
}

//export PMPI_Info_dup
func PMPI_Info_dup(h uintptr, out unsafe.Pointer) int32 {
	in, err := needInfo("Info_dup", h, false)
	if err != nil {
		return fail("Info_dup", 0, err)
	}
	setHandle(out, infos.add(in.clone()))
	return 0
}

//export PMPI_Info_free
func PMPI_Info_free(p unsafe.Pointer) int32 {
	const op = "Info_free"
	if p == nil {
		return fail(op, 0, errorf(errArg, op, "info is NULL"))
	}
	h := *(*uintptr)(p)
	if h == hInfoEnv {
		return fail(op, 0, errorf(errInfo, op, "MPI_INFO_ENV cannot be freed"))
	}
	if _, err := needInfo(op, h, true); err != nil {
		return fail(op, 0, err)
	}
	infos.remove(h)
	setHandle(p, hInfoNull)
	return 0
}

//export PMPI_Abi_get_info
func PMPI_Abi_get_info(out unsafe.Pointer) int32 {
	if out == nil {
		return fail("Abi_get_info", 0, errorf(errArg, "Abi_get_info", "info is NULL"))
	}
	in := &info{}
	in.set("mpi_aint_size", "8")
	in.set("mpi_count_size", "8")
	in.set("mpi_offset_size", "8")
	setHandle(out, infos.add(in))
	return 0
}

// hintsFor is the hints a new communicator made with info h gets: a copy of h's
// pairs, or of c's hints for MPI_INFO_NULL (or 0: no info argument).
func (c *comm) hintsFor(h uintptr) *info {
	if in := infoOf(h); in != nil && h != 0 {
		return in.clone()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.hints == nil {
		return nil
	}
	return c.hints.clone()
}

//export PMPI_Comm_set_info
func PMPI_Comm_set_info(ch uintptr, h uintptr) int32 {
	const op = "Comm_set_info"
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	in, err := needInfo(op, h, false)
	if err != nil {
		return fail(op, ch, err)
	}
	in = in.clone()
	c.mu.Lock()
	if c.hints == nil {
		c.hints = &info{}
	}
	h2 := c.hints
	c.mu.Unlock()
	for _, k := range in.keys {
		h2.set(k, in.vals[k])
	}
	return 0
}

//export PMPI_Comm_get_info
func PMPI_Comm_get_info(ch uintptr, out unsafe.Pointer) int32 {
	const op = "Comm_get_info"
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	if out == nil {
		return fail(op, ch, errorf(errArg, op, "info_used is NULL"))
	}
	in := c.hintsFor(0)
	if in == nil {
		in = &info{vals: map[string]string{}}
	}
	setHandle(out, infos.add(in))
	return 0
}
