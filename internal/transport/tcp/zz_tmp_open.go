package tcp

import "errors"

// TEMPORARY (dyn-core) until dyn-tcp lands.
func Open(opts Options) (*Transport, error) { return nil, errors.New("not yet") }
func (t *Transport) Card() []byte                    { return nil }
func (t *Transport) Add(peer int, card []byte) error { return errors.New("not yet") }
func (t *Transport) Remove(peer int)                 {}
