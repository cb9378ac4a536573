package mpit

// CVar is a control variable: a setting of the implementation.
type CVar struct {
	Name, Desc string
	Verbosity  Verbosity
	Type       Type
	Enum       *Enum // names for a TypeInt variable's values, or nil
	Bind       Bind
	Scope      Scope
	// Count is the variable's elements: 1, or for TypeChar the longest value with
	// its terminating NUL.
	Count int
	// Read returns the value now.
	Read func() Value
	// Write makes v the value, or says why not with an *Error of its code
	// (MPI_T_ERR_CVAR_SET_NEVER, MPI_T_ERR_CVAR_SET_NOT_NOW, MPI_T_ERR_INVALID). Nil:
	// the variable is never written (scope CONSTANT or READONLY).
	Write func(op string, v Value) error
}

// CVarHandle is a control variable bound to its object (MPI_T_cvar_handle).
type CVarHandle struct {
	t     *Interface
	v     *CVar
	epoch uint64
}

// Var is h's variable.
func (h *CVarHandle) Var() *CVar { return h.v }

// AllocCVar binds control variable v to obj (ignored: every control variable of
// mpigo's applies to the whole process) and returns its handle and count.
func (t *Interface) AllocCVar(op string, v *CVar, obj any) (*CVarHandle, int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.ready(op); err != nil {
		return nil, 0, err
	}
	if v.Bind != BindNoObject && obj == nil {
		return nil, 0, errorf(CodeInvalidHandle, op, "obj_handle is NULL, but control variable %s is bound to %v", v.Name, v.Bind)
	}
	return &CVarHandle{t: t, v: v, epoch: t.epoch}, v.Count, nil
}

// check says whether h may be used now.
func (h *CVarHandle) check(op string) error {
	if h == nil {
		return errorf(CodeInvalidHandle, op, "handle is MPI_T_CVAR_HANDLE_NULL")
	}
	h.t.mu.Lock()
	defer h.t.mu.Unlock()
	if err := h.t.ready(op); err != nil {
		return err
	}
	if h.epoch != h.t.epoch {
		return errorf(CodeInvalidHandle, op, "handle was freed (by MPI_T_cvar_handle_free, or with the interface by its last MPI_T_finalize)")
	}
	return nil
}

// Free releases h (MPI_T_cvar_handle_free).
func (h *CVarHandle) Free(op string) error {
	if err := h.check(op); err != nil {
		return err
	}
	h.t.mu.Lock()
	h.epoch = 0
	h.t.mu.Unlock()
	return nil
}

// Read is the variable's value.
func (h *CVarHandle) Read(op string) (Value, error) {
	if err := h.check(op); err != nil {
		return Value{}, err
	}
	return h.v.Read(), nil
}

// Write sets the variable to v.
func (h *CVarHandle) Write(op string, v Value) error {
	if err := h.check(op); err != nil {
		return err
	}
	if h.v.Write == nil {
		return errorf(CodeCvarSetNever, op, "control variable %s has scope %v: it is never written", h.v.Name, h.v.Scope)
	}
	if h.v.Type == TypeChar && len(v.Str)+1 > h.v.Count {
		return errorf(CodeInvalid, op, "the value of %s is %d bytes with its NUL, more than its count, %d", h.v.Name, len(v.Str)+1, h.v.Count)
	}
	if h.v.Enum != nil && h.v.Enum.NameOf(int(v.Int)) == "" {
		return errorf(CodeInvalid, op, "%d is no value of %s's enumeration %s (MPI_T_enum_get_item lists them)", v.Int, h.v.Name, h.v.Enum.Name)
	}
	return h.v.Write(op, v)
}
