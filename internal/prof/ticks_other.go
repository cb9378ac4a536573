//go:build !amd64

package prof

import "time"

var clock0 = time.Now()

// ticks is nanoseconds since the package started (+1, so that 0 means "not read").
func ticks() int64 { return int64(time.Since(clock0)) + 1 }
