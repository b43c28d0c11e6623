package ycsb

import (
	"math"
	"math/big"
)

// javaPow returns x^y correctly rounded (for x > 0), as Java's Math.pow
// delivers in practice. Go's math.Pow can be one ulp off, which shows in
// YCSB's check values: the scrambled Zipfian's eta is 0.21220003380967406
// with a correctly rounded pow and ...417 with math.Pow. It is slow
// (big.Float series), so it is used for constants only; the per-draw pow
// keeps math.Pow, where a last-ulp difference changes nothing measurable.
func javaPow(x, y float64) float64 {
	if x <= 0 || math.IsInf(x, 0) || math.IsNaN(x) || math.IsNaN(y) || math.IsInf(y, 0) {
		return math.Pow(x, y)
	}
	const prec = 200
	l := bigLog(new(big.Float).SetPrec(prec).SetFloat64(x), prec)
	l.Mul(l, new(big.Float).SetPrec(prec).SetFloat64(y))
	f, _ := bigExp(l, prec).Float64()
	return f
}

// bigLn2 returns ln 2 = 2·atanh(1/3).
func bigLn2(prec uint) *big.Float {
	third := new(big.Float).SetPrec(prec).Quo(big.NewFloat(1).SetPrec(prec), big.NewFloat(3).SetPrec(prec))
	return bigAtanh2(third, prec)
}

// bigAtanh2 returns 2·atanh(s) = 2·Σ s^(2k+1)/(2k+1), for small |s|.
func bigAtanh2(s *big.Float, prec uint) *big.Float {
	sum := new(big.Float).SetPrec(prec)
	s2 := new(big.Float).SetPrec(prec).Mul(s, s)
	term := new(big.Float).SetPrec(prec).Set(s)
	eps := new(big.Float).SetPrec(prec).SetMantExp(big.NewFloat(1), -int(prec))
	for k := int64(0); k < 1000; k++ {
		t := new(big.Float).SetPrec(prec).Quo(term, new(big.Float).SetPrec(prec).SetInt64(2*k+1))
		sum.Add(sum, t)
		if t.Abs(t).Cmp(eps) < 0 {
			break
		}
		term.Mul(term, s2)
	}
	return sum.Mul(sum, big.NewFloat(2).SetPrec(prec))
}

// bigLog returns ln x for x > 0.
func bigLog(x *big.Float, prec uint) *big.Float {
	m := new(big.Float).SetPrec(prec)
	e := x.MantExp(m) // x = m·2^e, m in [0.5, 1)
	one := big.NewFloat(1).SetPrec(prec)
	num := new(big.Float).SetPrec(prec).Sub(m, one)
	den := new(big.Float).SetPrec(prec).Add(m, one)
	r := bigAtanh2(num.Quo(num, den), prec) // ln m
	ln2 := bigLn2(prec)
	return r.Add(r, ln2.Mul(ln2, new(big.Float).SetPrec(prec).SetInt64(int64(e))))
}

// bigExp returns e^z.
func bigExp(z *big.Float, prec uint) *big.Float {
	ln2 := bigLn2(prec)
	kf, _ := new(big.Float).SetPrec(prec).Quo(z, ln2).Float64()
	k := int64(math.Round(kf))
	r := new(big.Float).SetPrec(prec).Sub(z, new(big.Float).SetPrec(prec).Mul(ln2, new(big.Float).SetPrec(prec).SetInt64(k)))
	sum := big.NewFloat(1).SetPrec(prec)
	term := big.NewFloat(1).SetPrec(prec)
	eps := new(big.Float).SetPrec(prec).SetMantExp(big.NewFloat(1), -int(prec))
	for n := int64(1); n < 1000; n++ {
		term.Mul(term, r)
		term.Quo(term, new(big.Float).SetPrec(prec).SetInt64(n))
		sum.Add(sum, term)
		if new(big.Float).Abs(term).Cmp(eps) < 0 {
			break
		}
	}
	return sum.SetMantExp(sum, int(k))
}
