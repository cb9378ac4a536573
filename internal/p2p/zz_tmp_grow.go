package p2p

import (
	"errors"

	"github.com/mpigo/mpigo/internal/transport"
)

// TEMPORARY (dyn-core) until dyn-tcp lands.
func (e *Engine) AddTransport(t transport.Transport) {}
func (e *Engine) AddPeers(n int) error               { return errors.New("not yet") }
