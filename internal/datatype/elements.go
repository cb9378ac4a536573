package datatype

// Elements returns the number of basic elements in one instance of t
// (MPI_Get_elements counts these): a predefined type is one, except the
// MAXLOC/MINLOC pair types, which are structs of two.
func (t *Type) Elements() int64 {
	d := &t.def
	switch d.op {
	case defBasic:
		if t.size == 0 {
			return 0
		}
		return 1
	case defResized:
		return d.old.Elements()
	case defVec:
		return d.count * d.blen * d.old.Elements()
	}
	var n int64
	for i := range d.nblocks() {
		b := d.block(i)
		if b.n > 0 {
			n += b.n * b.t.Elements()
		}
	}
	return n
}

// ElementsIn returns the number of basic elements in the first n bytes of
// the packed stream of instances of t, and false when those bytes end inside
// an element. Packed data holds the elements in typemap order with no gaps,
// so this is what a receive of n bytes into instances of t filled.
func (t *Type) ElementsIn(n int64) (int64, bool) {
	if n < 0 {
		return 0, false
	}
	if t.size == 0 {
		return 0, n == 0
	}
	whole := n / t.size
	part, ok := t.elementsIn(n % t.size)
	return whole*t.Elements() + part, ok
}

// BytesOfElements returns the length of the packed prefix of instances of t
// that holds exactly n basic elements (n >= 0): the least length whose
// ElementsIn is n, which MPI_Status_set_elements records so that
// MPI_Get_elements gives n back. ElementsIn grows with the length, and each
// basic element takes at least one byte, so a binary search in one instance
// finds it.
func (t *Type) BytesOfElements(n int64) int64 {
	per := t.Elements()
	if per == 0 || n <= 0 {
		return 0
	}
	whole, rest := n/per, n%per
	lo, hi := int64(0), t.size
	for lo < hi { // the least prefix of one instance with at least rest elements
		mid := (lo + hi) / 2
		if got, _ := t.ElementsIn(mid); got < rest {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return whole*t.size + lo
}

// elementsIn is ElementsIn for 0 <= n < t.size, walking the definition to the
// element where the bytes end.
func (t *Type) elementsIn(n int64) (int64, bool) {
	if n == 0 {
		return 0, true
	}
	d := &t.def
	switch d.op {
	case defBasic:
		return 0, false
	case defResized:
		return d.old.elementsIn(n)
	case defVec:
		s := d.old.size
		k, ok := d.old.elementsIn(n % s)
		return n/s*d.old.Elements() + k, ok
	}
	var e int64
	for i := range d.nblocks() {
		b := d.block(i)
		if b.n <= 0 || b.t.size == 0 {
			continue
		}
		bs := b.n * b.t.size
		if n >= bs {
			n -= bs
			e += b.n * b.t.Elements()
			continue
		}
		k, ok := b.t.elementsIn(n % b.t.size)
		return e + n/b.t.size*b.t.Elements() + k, ok
	}
	return e, n == 0
}

// Clone returns a new type object with t's typemap, envelope and contents,
// committed if t is and never freed, sharing t's compiled program: the handle
// MPI_Type_get_contents returns for a derived type, which stays valid after t
// is freed. A predefined type is returned as itself.
func (t *Type) Clone() *Type {
	if t.predefined {
		return t
	}
	ints, addrs := t.contents()
	c := &Type{name: t.name, kind: t.kind, comb: t.comb, ints: ints, addrs: addrs, types: t.types,
		size: t.size, xsize: t.xsize, xconv: t.xconv, lb: t.lb, ub: t.ub, marked: t.marked, tlb: t.tlb, tub: t.tub, align: t.align,
		def: def{op: defResized, old: t}, origin: t.Origin()}
	if t.committed.Load() {
		// c's program, when prepared, is t's.
		c.committed.Store(true)
	}
	return c
}

// Origin returns the type t was cloned from (through any number of clones),
// or t itself.
func (t *Type) Origin() *Type {
	if t.origin != nil {
		return t.origin
	}
	return t
}
