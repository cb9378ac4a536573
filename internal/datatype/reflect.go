package datatype

import (
	"reflect"
	"sync"
)

var ofCache sync.Map // reflect.Type -> *Type

// Of returns the committed datatype describing values of the Go type rt, built
// from the real field offsets: structs become Struct types resized to the Go
// size (so arrays of them step by the Go stride), arrays become Contiguous,
// and basic kinds the predefined types. Pointers, slices, maps, strings,
// interfaces, channels, functions and unsafe pointers are refused with an
// error naming the field, since their bytes mean nothing in another process.
// Results are cached per Go type.
func Of(rt reflect.Type) (*Type, error) {
	if rt == nil {
		return nil, argErr("rt", "nil reflect.Type")
	}
	if t, ok := ofCache.Load(rt); ok {
		return t.(*Type), nil
	}
	t, err := of(rt, rt.String())
	if err != nil {
		return nil, err
	}
	if err := t.Commit(); err != nil {
		return nil, err
	}
	v, _ := ofCache.LoadOrStore(rt, t)
	return v.(*Type), nil
}

var basicOf = map[reflect.Kind]*Type{
	reflect.Int8: Int8, reflect.Int16: Int16, reflect.Int32: Int32, reflect.Int64: Int64,
	reflect.Int: Int, reflect.Uint8: Uint8, reflect.Uint16: Uint16, reflect.Uint32: Uint32,
	reflect.Uint64: Uint64, reflect.Uint: Uint, reflect.Uintptr: Uint64,
	reflect.Float32: Float32, reflect.Float64: Float64, reflect.Complex64: Complex64,
	reflect.Complex128: Complex128, reflect.Bool: Bool,
}

func of(rt reflect.Type, path string) (*Type, error) {
	if t, ok := basicOf[rt.Kind()]; ok {
		if t.size != int64(rt.Size()) {
			return nil, argErr(path, "%s is %d bytes here, datatype %s has %d", rt, rt.Size(), t.name, t.size)
		}
		return t, nil
	}
	switch rt.Kind() {
	case reflect.Array:
		et, err := of(rt.Elem(), path+"[]")
		if err != nil {
			return nil, err
		}
		return Contiguous(int64(rt.Len()), et)
	case reflect.Struct:
		n := rt.NumField()
		bl := make([]int64, 0, n)
		disp := make([]int64, 0, n)
		types := make([]*Type, 0, n)
		for i := range n {
			f := rt.Field(i)
			if f.Type.Size() == 0 {
				continue
			}
			ft, err := of(f.Type, path+"."+f.Name)
			if err != nil {
				return nil, err
			}
			bl = append(bl, 1)
			disp = append(disp, int64(f.Offset))
			types = append(types, ft)
		}
		st, err := Struct(bl, disp, types)
		if err != nil {
			return nil, err
		}
		return Resized(st, 0, int64(rt.Size()))
	}
	return nil, argErr(path, "%s field of kind %s cannot be sent: only numbers, bools, arrays and structs of them can", rt, rt.Kind())
}
