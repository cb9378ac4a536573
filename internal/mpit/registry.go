package mpit

import (
	"fmt"
	"strings"
)

// Registry is what a process offers through the interface: control and performance
// variables, event types and their sources, categories and enumerations, each indexed
// from 0 in the order added. It is built once (Interface's build function) and read
// only after.
type Registry struct {
	CVars      []*CVar
	PVars      []*PVar
	Events     []*EventType
	Sources    []*EventSource
	Categories []*Category
	Enums      []*Enum

	cvarIdx  map[string]int
	pvarIdx  map[pvarKey]int
	eventIdx map[string]int
	catIdx   map[string]int
	enumIdx  map[*Enum]int
}

type pvarKey struct {
	name  string
	class Class
}

// Category groups variables, event types and other categories.
type Category struct {
	Name, Desc string
	CVars      []int
	PVars      []int
	Events     []int
	Categories []int
}

// AddCVar adds v and returns its index. A duplicate name, a missing name, or an
// enumeration on a type other than TypeInt is a programming error: it panics, when
// the registry is built.
func (r *Registry) AddCVar(v *CVar) int {
	r.init()
	mustName("control variable", v.Name, r.cvarIdx)
	if v.Enum != nil && v.Type != TypeInt {
		panic("mpit: control variable " + v.Name + ": an enumeration needs TypeInt")
	}
	if v.Count < 1 || v.Read == nil {
		panic("mpit: control variable " + v.Name + ": no count or no Read")
	}
	r.addEnum(v.Enum)
	r.cvarIdx[v.Name] = len(r.CVars)
	r.CVars = append(r.CVars, v)
	return len(r.CVars) - 1
}

// AddPVar adds v and returns its index; the name and class together are unique.
func (r *Registry) AddPVar(v *PVar) int {
	r.init()
	k := pvarKey{v.Name, v.Class}
	if v.Name == "" {
		panic("mpit: a performance variable with no name")
	}
	if _, dup := r.pvarIdx[k]; dup {
		panic("mpit: performance variable " + v.Name + " of class " + v.Class.String() + " added twice")
	}
	if v.Bind == 0 || v.Source == nil {
		panic("mpit: performance variable " + v.Name + ": no binding or no Source")
	}
	if v.Enum != nil && v.Type != TypeInt {
		panic("mpit: performance variable " + v.Name + ": an enumeration needs TypeInt")
	}
	if k := v.kind(); (k != accumulating && !v.Readonly && k != watermark) || (v.Atomic && v.Readonly) {
		panic("mpit: performance variable " + v.Name + ": only accumulating classes and watermarks may be written or reset atomically")
	}
	r.addEnum(v.Enum)
	r.pvarIdx[k] = len(r.PVars)
	r.PVars = append(r.PVars, v)
	return len(r.PVars) - 1
}

// AddSource adds an event source and returns its index.
func (r *Registry) AddSource(s *EventSource) int {
	r.init()
	r.Sources = append(r.Sources, s)
	return len(r.Sources) - 1
}

// AddEvent adds an event type (of an added source) and returns its index.
func (r *Registry) AddEvent(e *EventType) int {
	r.init()
	mustName("event type", e.Name, r.eventIdx)
	if e.Source < 0 || e.Source >= len(r.Sources) || len(e.Elements) == 0 {
		panic("mpit: event type " + e.Name + ": no such source, or no elements")
	}
	r.addEnum(e.Enum)
	e.layout()
	r.eventIdx[e.Name] = len(r.Events)
	r.Events = append(r.Events, e)
	return len(r.Events) - 1
}

// AddCategory adds c, whose members must have been added (a category's categories
// before it, so that none can contain itself), and returns its index.
func (r *Registry) AddCategory(c *Category) int {
	r.init()
	mustName("category", c.Name, r.catIdx)
	check := func(what string, ix []int, n int) {
		for _, i := range ix {
			if i < 0 || i >= n {
				panic(fmt.Sprintf("mpit: category %s: %s %d does not exist", c.Name, what, i))
			}
		}
	}
	check("control variable", c.CVars, len(r.CVars))
	check("performance variable", c.PVars, len(r.PVars))
	check("event type", c.Events, len(r.Events))
	check("category", c.Categories, len(r.Categories))
	r.catIdx[c.Name] = len(r.Categories)
	r.Categories = append(r.Categories, c)
	return len(r.Categories) - 1
}

func (r *Registry) init() {
	if r.cvarIdx == nil {
		r.cvarIdx, r.pvarIdx, r.eventIdx = map[string]int{}, map[pvarKey]int{}, map[string]int{}
		r.catIdx, r.enumIdx = map[string]int{}, map[*Enum]int{}
	}
}

func (r *Registry) addEnum(e *Enum) {
	if e == nil {
		return
	}
	if _, ok := r.enumIdx[e]; ok {
		return
	}
	if len(e.Items) == 0 || e.Name == "" {
		panic("mpit: an enumeration with no name or no items")
	}
	for _, o := range r.Enums {
		if o.Name == e.Name {
			panic("mpit: two enumerations named " + e.Name)
		}
	}
	r.enumIdx[e] = len(r.Enums)
	r.Enums = append(r.Enums, e)
}

func mustName(what, name string, idx map[string]int) {
	if name == "" {
		panic("mpit: a " + what + " with no name")
	}
	if _, dup := idx[name]; dup {
		panic("mpit: " + what + " " + name + " added twice")
	}
}

// EnumIndex is e's index among the registry's enumerations, -1 when it has none.
func (r *Registry) EnumIndex(e *Enum) int {
	if i, ok := r.enumIdx[e]; ok {
		return i
	}
	return -1
}

// index checks i against n items of what, for op's argument arg.
func index(op, arg string, i, n int, what string) error {
	if i < 0 || i >= n {
		if n == 0 {
			return errorf(CodeInvalidIndex, op, "%s %d is out of range: there are no %s", arg, i, what)
		}
		return errorf(CodeInvalidIndex, op, "%s %d is out of range: there are %d %s (0 to %d)", arg, i, n, what, n-1)
	}
	return nil
}

// CVar returns control variable i.
func (r *Registry) CVar(op string, i int) (*CVar, error) {
	if err := index(op, "cvar_index", i, len(r.CVars), "control variables"); err != nil {
		return nil, err
	}
	return r.CVars[i], nil
}

// PVar returns performance variable i.
func (r *Registry) PVar(op string, i int) (*PVar, error) {
	if err := index(op, "pvar_index", i, len(r.PVars), "performance variables"); err != nil {
		return nil, err
	}
	return r.PVars[i], nil
}

// Event returns event type i.
func (r *Registry) Event(op string, i int) (*EventType, error) {
	if err := index(op, "event_index", i, len(r.Events), "event types"); err != nil {
		return nil, err
	}
	return r.Events[i], nil
}

// Source returns event source i.
func (r *Registry) Source(op string, i int) (*EventSource, error) {
	if err := index(op, "source_index", i, len(r.Sources), "event sources"); err != nil {
		return nil, err
	}
	return r.Sources[i], nil
}

// Category returns category i.
func (r *Registry) Category(op string, i int) (*Category, error) {
	if err := index(op, "cat_index", i, len(r.Categories), "categories"); err != nil {
		return nil, err
	}
	return r.Categories[i], nil
}

// notFound is the error of a name that names nothing of what.
func notFound(op, what, name string) error {
	if strings.TrimSpace(name) == "" {
		return errorf(CodeInvalidName, op, "name is empty: no %s has it", what)
	}
	return errorf(CodeInvalidName, op, "name %q: no %s has it", name, what)
}

// CVarIndex is the index of the control variable named name.
func (r *Registry) CVarIndex(op, name string) (int, error) {
	if i, ok := r.cvarIdx[name]; ok {
		return i, nil
	}
	return -1, notFound(op, "control variable", name)
}

// PVarIndex is the index of the performance variable named name of class class.
func (r *Registry) PVarIndex(op, name string, class Class) (int, error) {
	if i, ok := r.pvarIdx[pvarKey{name, class}]; ok {
		return i, nil
	}
	if _, ok := classNames[class]; !ok {
		return -1, errorf(CodeInvalidName, op, "var_class %d is no performance variable class, so no variable %q has it", int32(class), name)
	}
	for _, v := range r.PVars {
		if v.Name == name {
			return -1, errorf(CodeInvalidName, op, "performance variable %q has class %v, not %v", name, v.Class, class)
		}
	}
	return -1, notFound(op, "performance variable", name)
}

// PVarNamed is the performance variable named name, whatever its class (the first
// added, where two classes share a name).
func (r *Registry) PVarNamed(op, name string) (*PVar, error) {
	for _, v := range r.PVars {
		if v.Name == name {
			return v, nil
		}
	}
	return nil, notFound(op, "performance variable", name)
}

// EventIndex is the index of the event type named name.
func (r *Registry) EventIndex(op, name string) (int, error) {
	if i, ok := r.eventIdx[name]; ok {
		return i, nil
	}
	return -1, notFound(op, "event type", name)
}

// CategoryIndex is the index of the category named name.
func (r *Registry) CategoryIndex(op, name string) (int, error) {
	if i, ok := r.catIdx[name]; ok {
		return i, nil
	}
	return -1, notFound(op, "category", name)
}
