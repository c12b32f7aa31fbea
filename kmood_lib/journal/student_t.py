"""Student's t distribution in the standard library, for the insights' intervals and p-values
(resampling.calibrated): the two-sided tail through the regularized incomplete beta function
(its continued fraction, evaluated by Lentz's method as in Numerical Recipes §6.4) and the
quantile by Newton's method on it. Degrees of freedom need not be whole numbers."""

from __future__ import annotations

import math
from statistics import NormalDist

_TINY = 1e-300


def two_sided(t: float, df: float) -> float:
    """P(|T| >= |t|) for T with `df` degrees of freedom."""
    return _incomplete_beta(df / 2, 0.5, df / (df + t * t))


def quantile(probability: float, df: float) -> float:
    """The t with P(T <= t) = `probability` (above one half) for `df` degrees of freedom."""
    tail = 2 * (1 - probability)
    t = NormalDist().inv_cdf(probability)
    for _ in range(50):  # Newton from the normal quantile, kept on the positive side
        step = (two_sided(t, df) - tail) / (2 * _density(t, df))
        t = max(t / 2, t + step)
        if abs(step) < 1e-12 * t:
            break
    return t


def _density(t: float, df: float) -> float:
    return math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)
                    - (df + 1) / 2 * math.log1p(t * t / df))


def _incomplete_beta(a: float, b: float, x: float) -> float:
    """I_x(a, b), from whichever side its continued fraction converges fast on."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x)
                     + b * math.log1p(-x))
    if x < (a + 1) / (a + b + 2):
        return front * _continued_fraction(a, b, x) / a
    return 1 - front * _continued_fraction(b, a, 1 - x) / b


def _continued_fraction(a: float, b: float, x: float) -> float:
    def guarded(value: float) -> float:
        return value if abs(value) > _TINY else _TINY

    c, d = 1.0, 1 / guarded(1 - (a + b) * x / (a + 1))
    fraction = d
    for m in range(1, 300):
        even = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
        d, c = 1 / guarded(1 + even * d), guarded(1 + even / c)
        fraction *= d * c
        odd = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
        d, c = 1 / guarded(1 + odd * d), guarded(1 + odd / c)
        fraction *= d * c
        if abs(d * c - 1) < 1e-15:
            break
    return fraction
