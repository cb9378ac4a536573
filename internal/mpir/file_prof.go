package mpir

import (
	"github.com/mpigo/mpigo/internal/prof"
)

// The record's names of the file calls (internal/prof): a data access's by what it
// does, so that the faces need not say, and a hung job's explanation shows the file
// calls a rank is blocked in as it shows the others (the collective ones by the
// file's communicator).

// accessKey indexes the tables below: write, explicit offset, collective, shared.
func accessKey(a Access) int {
	k := 0
	if a.Write {
		k |= 1
	}
	if a.Explicit {
		k |= 2
	}
	if a.Coll {
		k |= 4
	}
	if a.Shared {
		k |= 8
	}
	return k
}

var (
	blockingCalls = [16]prof.Call{
		0: prof.FileRead, 1: prof.FileWrite, 2: prof.FileReadAt, 3: prof.FileWriteAt,
		4: prof.FileReadAll, 5: prof.FileWriteAll, 6: prof.FileReadAtAll, 7: prof.FileWriteAtAll,
		8: prof.FileReadShared, 9: prof.FileWriteShared, 12: prof.FileReadOrdered, 13: prof.FileWriteOrdered,
	}
	startCalls = [16]prof.Call{
		0: prof.FileIread, 1: prof.FileIwrite, 2: prof.FileIreadAt, 3: prof.FileIwriteAt,
		4: prof.FileIreadAll, 5: prof.FileIwriteAll, 6: prof.FileIreadAtAll, 7: prof.FileIwriteAtAll,
		8: prof.FileIreadShared, 9: prof.FileIwriteShared, 12: prof.FileIreadOrdered, 13: prof.FileIwriteOrdered,
	}
	beginCalls = [16]prof.Call{
		4: prof.FileReadAllBegin, 5: prof.FileWriteAllBegin, 6: prof.FileReadAtAllBegin, 7: prof.FileWriteAtAllBegin,
		12: prof.FileReadOrderedBegin, 13: prof.FileWriteOrderedBegin,
	}
)

// endCall is the record's name of the end of the split collective kind names.
func endCall(kind string) prof.Call {
	switch kind {
	case "File_read_all":
		return prof.FileReadAllEnd
	case "File_write_all":
		return prof.FileWriteAllEnd
	case "File_read_at_all":
		return prof.FileReadAtAllEnd
	case "File_write_at_all":
		return prof.FileWriteAtAllEnd
	case "File_read_ordered":
		return prof.FileReadOrderedEnd
	case "File_write_ordered":
		return prof.FileWriteOrderedEnd
	}
	return prof.None
}

// ioBytes is the bytes b's access asks for, for the record.
func ioBytes(b *IOBuf) int {
	if b.Type == nil || b.Count <= 0 {
		return 0
	}
	return int(b.Count * b.Type.Size())
}

// fileEnter records the start of call on f, timed; fileExit its end, having moved n
// bytes. prof.None (a split collective's end of no known kind: an error) is not
// recorded.
func (f *File) fileEnter(call prof.Call, n int) int64 {
	if call == prof.None {
		return 0
	}
	return prof.EnterTimed(call, f.profComm(), prof.NoPeer, -2, n)
}

func fileExit(call prof.Call, t int64, n int) {
	if call != prof.None {
		prof.Exit(call, t, n)
	}
}

// profComm is f's communicator as the record knows it (nil: f is not open).
func (f *File) profComm() *prof.Comm {
	if f == nil || f.comm == nil {
		return nil
	}
	return f.comm.Prof()
}
