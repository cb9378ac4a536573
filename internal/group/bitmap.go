package group

import "math/bits"

// bitmapStore holds a group whose members ascend as one bit per world rank, from the
// lowest member (the group's first) to the highest. Two small indexes make both
// lookups cost a handful of loads:
//   - blk[k] counts the members before 512-bit block k, so the rank of a world rank
//     is blk plus at most eight popcounts (1/128 byte per bit);
//   - pos[j] is the bit of member j<<shift, with shift chosen so that a sample
//     spans about four words: member i is found by scanning forward from the
//     sample before it. Where the members are locally too sparse for that scan to
//     be short (more than scanWords words between two samples), the search goes
//     through blk instead, so no lookup scans more than eight words or one block.
//
// The samples cost about a quarter of the bitmap itself, whatever the density.
type bitmapStore struct {
	words []uint64
	blk   []int32
	pos   []int32
	nbits int32
	shift uint8
}

// scanWords bounds the forward scan of selectBit.
const scanWords = 8

// rank returns the rank of the member at bit b, or -1 when bit b is clear.
func (s *bitmapStore) rank(b int32) int32 {
	if b < 0 || b >= s.nbits {
		return -1
	}
	wi := int(b >> 6)
	x := s.words[wi]
	bit := uint64(1) << (b & 63)
	if x&bit == 0 {
		return -1
	}
	r := s.blk[wi>>3]
	for k := wi &^ 7; k < wi; k++ {
		r += int32(bits.OnesCount64(s.words[k]))
	}
	return r + int32(bits.OnesCount64(x&(bit-1)))
}

// selectBit returns the bit of member i.
func (s *bitmapStore) selectBit(i int32) int32 {
	j := int(i >> s.shift)
	p, end := s.pos[j], s.nbits
	if j+1 < len(s.pos) {
		end = s.pos[j+1]
	}
	w0 := int(p >> 6)
	// Locally sparse members, and the last few words, go through the block counts.
	if int((end-1)>>6)-w0 >= scanWords || w0+scanWords > len(s.words) {
		return s.selectBlock(i, int(p/blockBits), int(min(end, s.nbits-1)/blockBits))
	}
	// Member i lies in the scanWords words from the sample's. Count them all, the
	// bits below the sample cleared, and find the word as the number of words that start at or
	// before member rem: the popcounts are independent and the only serial work is
	// one add per word, with no data-dependent branch.
	rem := i & (1<<s.shift - 1) // members after the sample's
	ws := s.words[w0 : w0+scanWords]
	x := ws[0] & (^uint64(0) << (p & 63))
	c := int32(bits.OnesCount64(x))
	pre := c // members in the words before word k
	var at, before int32
	for k := 1; k < scanWords; k++ {
		le := 1 + (rem-pre)>>31 // 1 while word k starts at or before member rem
		at += le
		before += c & -le
		c = int32(bits.OnesCount64(ws[k]))
		pre += c
	}
	if at != 0 {
		x = ws[at]
	}
	return int32(w0+int(at))*64 + select64(x, rem-before)
}

// selectBlock finds member i through the block counts, knowing it lies in blocks
// lo..hi.
func (s *bitmapStore) selectBlock(i int32, lo, hi int) int32 {
	k := lo + lastLE(s.blk[lo:hi+1], i) // the last block with blk <= i holds member i
	rem := i - s.blk[k]
	// Find the word inside the block without a data-dependent branch: every word of
	// the block is counted, and rem stops shrinking at the first word that holds it.
	w0 := k * (blockBits / 64)
	ws := s.words[w0:min(w0+blockBits/64, len(s.words))]
	var at, done int32
	for x, word := range ws {
		c := int32(bits.OnesCount64(word))
		in := (rem - c) >> 31 // all ones when rem < c
		at |= int32(x) & in &^ done
		rem -= c &^ (in | done)
		done |= in
	}
	return int32(w0)*64 + at*64 + select64(ws[at], rem)
}

// select64 returns the position of set bit r (from 0) of x, without branches: the
// bytes' popcounts are summed into running totals (one multiply), the totals not
// above r are counted to find the byte, and a table finishes inside the byte. This is
// the broadword method of Vigna ("Broadword implementation of rank/select queries").
func select64(x uint64, r int32) int32 {
	const l8, h8 = 0x0101010101010101, 0x8080808080808080
	s := x - (x>>1)&0x5555555555555555
	s = s&0x3333333333333333 + (s>>2)&0x3333333333333333
	s = (s + s>>4) & 0x0f0f0f0f0f0f0f0f
	s *= l8 // byte k: set bits in bytes 0..k (at most 64, so the high bits stay clear)
	place := bits.OnesCount64(((uint64(r)*l8|h8)-s)&h8) * 8
	before := int32((s << 8) >> place & 0xff)
	return int32(place) + int32(selectInByte[uint8(x>>place)][(r-before)&7])
}

// selectInByte[b][r] is the position of set bit r of byte b.
var selectInByte = func() (t [256][8]uint8) {
	for b := range 256 {
		r := 0
		for p := range 8 {
			if b&(1<<p) != 0 {
				t[b][r] = uint8(p)
				r++
			}
		}
	}
	return
}()

func (s *bitmapStore) each(base int32, f func(int32) bool) {
	for wi, x := range s.words {
		for x != 0 {
			if !f(base + int32(wi)*64 + int32(bits.TrailingZeros64(x))) {
				return
			}
			x &= x - 1
		}
	}
}

// bitmapShift picks the sampling of pos for n members over nbits bits: a sample
// every 2^shift members, about 256 bits (four words) apart on average.
func bitmapShift(n, nbits int64) uint8 {
	return uint8(min(16, max(0, bits.Len64(uint64(256*n/nbits))-1)))
}

func fillBitmap(src source, s *shape) *bitmapStore {
	nbits := int64(s.hi) - int64(s.lo) + 1
	words := sized[uint64](int((nbits + 63) / 64))
	shift := bitmapShift(s.n, nbits)
	pos := sized[int32](int((s.n-1)>>shift) + 1)
	lo := s.lo
	var i int32
	src(func(w int32) bool {
		b := w - lo
		words[b>>6] |= 1 << (b & 63)
		if i&(1<<shift-1) == 0 {
			pos[i>>shift] = b
		}
		i++
		return true
	})
	perBlock := blockBits / 64
	blk := sized[int32]((len(words) + perBlock - 1) / perBlock)
	var c int32
	for k := range blk {
		blk[k] = c
		for _, x := range words[k*perBlock : min((k+1)*perBlock, len(words))] {
			c += int32(bits.OnesCount64(x))
		}
	}
	return &bitmapStore{words: words, blk: blk, pos: pos, nbits: int32(nbits), shift: shift}
}
