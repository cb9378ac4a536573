package p2p

import (
	"bytes"
	"testing"
)

// TestIrecvAlloc: receives of any size get buffers of exactly their message's length,
// under every protocol and transport shape, posted before and after the messages
// arrive, in order; a cancelled one gets nothing and leaves the message to the next.
func TestIrecvAlloc(t *testing.T) {
	sizes := []int{0, 1, 8, 100, 4097, 65536, 200000, 3}
	for _, proto := range protocols {
		for _, cfg := range netCfgs {
			t.Run(proto+"/"+cfg.name, func(t *testing.T) {
				es := cfg.net(2).engines(t, Options{Protocol: proto, Serialized: cfg.serialized})
				bufs := make([][]byte, len(sizes))
				recvs := make([]Request, len(sizes))
				early := len(sizes) / 2
				for i := range early {
					var err error
					recvs[i], err = es[1].IrecvAlloc(&bufs[i], 0, 4, 2)
					mustOK(t, err)
				}
				sends := make([]Request, len(sizes))
				for i, n := range sizes {
					var err error
					sends[i], err = es[0].Isend(Bytes(pattern(i, n)), 1, 4, 2, Standard)
					mustOK(t, err)
				}
				es[0].Progress()
				es[1].Progress()
				for i := early; i < len(sizes); i++ {
					var err error
					recvs[i], err = es[1].IrecvAlloc(&bufs[i], AnySource, AnyTag, 2)
					mustOK(t, err)
				}
				driveAll(t, es, sends, recvs)
				sts := make([]Status, len(sizes))
				mustOK(t, es[0].Waitall(sends, nil))
				mustOK(t, es[1].Waitall(recvs, sts))
				for i, n := range sizes {
					if sts[i].Count != int64(n) || len(bufs[i]) != n || !bytes.Equal(bufs[i], pattern(i, n)) {
						t.Errorf("message %d: count %d, got %d bytes, want %d (or wrong data)", i, sts[i].Count, len(bufs[i]), n)
					}
				}
			})
		}
	}
	es := newMemNet(2).engines(t, Options{})
	var b []byte
	q, err := es[1].IrecvAlloc(&b, 0, 1, 0)
	mustOK(t, err)
	mustOK(t, es[1].Cancel(&q))
	if st, err := es[1].Wait(&q); err != nil || !st.Cancelled || b != nil {
		t.Fatalf("cancelled: %+v %v, buffer %v", st, err, b)
	}
	if _, err := es[1].IrecvAlloc(nil, 0, 1, 0); err == nil {
		t.Fatal("nil destination accepted")
	}
}

// TestIrecvAllocFit: a fit receive takes a message that fits into the caller's buffer
// (in place, its length the message's) and a longer one whole into new memory, under
// every protocol and transport shape, posted before and after the messages arrive.
func TestIrecvAllocFit(t *testing.T) {
	sizes := []int{0, 8, 100, 4097, 65536, 200000, 100, 65536}
	fits := []int{16, 8, 50, 8192, 65535, 300000, 100, 200000}
	for _, proto := range protocols {
		for _, cfg := range netCfgs {
			t.Run(proto+"/"+cfg.name, func(t *testing.T) {
				es := cfg.net(2).engines(t, Options{Protocol: proto, Serialized: cfg.serialized})
				msgs := make([][]byte, len(sizes))
				fit := make([][]byte, len(sizes))
				recvs := make([]Request, len(sizes))
				post := func(i int) {
					fit[i] = make([]byte, fits[i])
					var err error
					recvs[i], err = es[1].IrecvAllocFit(fit[i], &msgs[i], 0, 4, 2)
					mustOK(t, err)
				}
				early := len(sizes) / 2
				for i := range early {
					post(i)
				}
				sends := make([]Request, len(sizes))
				for i, n := range sizes {
					var err error
					sends[i], err = es[0].Isend(Bytes(pattern(i, n)), 1, 4, 2, Standard)
					mustOK(t, err)
				}
				es[0].Progress()
				es[1].Progress()
				for i := early; i < len(sizes); i++ {
					post(i)
				}
				driveAll(t, es, sends, recvs)
				mustOK(t, es[0].Waitall(sends, nil))
				mustOK(t, es[1].Waitall(recvs, nil))
				for i, n := range sizes {
					inPlace := n > 0 && &msgs[i][0] == &fit[i][0]
					if len(msgs[i]) != n || !bytes.Equal(msgs[i], pattern(i, n)) || (n > 0 && inPlace != (n <= fits[i])) {
						t.Errorf("message %d: got %d bytes (in place %v), want %d in a buffer of %d (or wrong data)", i, len(msgs[i]), inPlace, n, fits[i])
					}
				}
			})
		}
	}
}
