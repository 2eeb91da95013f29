"""One rating period of the Glicko-2 system (Glickman, "Example of the Glicko-2 system", 2013, steps 3-8),
for all players at once, on Glicko-2's scale (mu = (rating - 1500) / SCALE, phi = deviation / SCALE).

Examples
--------
Glickman's example: a player rated 1500 (deviation 200) plays three games, won against 1400 (30),
lost against 1550 (100) and 1700 (300); after the period the rating is 1464.06 and the deviation
151.52 in Glickman's (rounded) arithmetic.

>>> import numpy as np
>>> from pipeline.measures.glicko import SCALE, period
>>> r, rd = np.array([1500.0, 1400, 1550, 1700]), np.array([200.0, 30, 100, 300])
>>> score, games = np.zeros((4, 4)), np.zeros((4, 4))
>>> games[0, 1:] = games[1:, 0] = 1
>>> score[0, 1], score[2, 0], score[3, 0] = 1, 1, 1
>>> mu, phi, sigma = period((r - 1500) / SCALE, rd / SCALE, np.full(4, 0.06), score, games)
>>> round(float(1500 + SCALE * mu[0]), 1), round(float(SCALE * phi[0]), 1)
(1464.1, 151.5)
"""
from __future__ import annotations

import numpy as np

#: Glicko-2's scale factor: rating = 1500 + SCALE * mu
SCALE = 173.7178


def period(mu, phi, sigma, score, games, tau=0.5):
    """One Glicko-2 rating period for all players at once: `score[i, j]` points of i against j in
    `games[i, j]` games (vectorised form of Glickman's steps 3-8). Returns the new (mu, phi, sigma)."""
    with np.errstate(over="ignore", invalid="ignore"):  # exp overflow in f() far from its root
        g = 1 / np.sqrt(1 + 3 * phi ** 2 / np.pi ** 2)
        e = 1 / (1 + np.exp(-g[None, :] * (mu[:, None] - mu[None, :])))
        played = games.sum(axis=1) > 0
        vinv = (games * g[None, :] ** 2 * e * (1 - e)).sum(axis=1)
        delta_sum = (g[None, :] * (score - games * e)).sum(axis=1)
        return update(mu, phi, sigma, played, vinv, delta_sum, tau)


def update(mu, phi, sigma, played, vinv, delta_sum, tau):
    """Glickman's steps 4-8 for all players at once, from v^-1 and sum_j g(phi_j) (s_j - E_j)."""
    v = 1 / np.where(played & (vinv > 0), vinv, 1.0)
    delta = v * delta_sum
    a = np.log(sigma ** 2)

    def f(x):
        ex = np.exp(x)
        return ex * (delta ** 2 - phi ** 2 - v - ex) / (2 * (phi ** 2 + v + ex) ** 2) - (x - a) / tau ** 2

    A = a.copy()
    big = delta ** 2 > phi ** 2 + v
    B = np.where(big, np.log(np.where(big, delta ** 2 - phi ** 2 - v, 1.0)), a - tau)
    k = np.ones_like(a)
    for _ in range(200):  # step until f(a - k tau) >= 0
        need = ~big & (f(a - k * tau) < 0)
        if not need.any():
            break
        k = np.where(need, k + 1, k)
    B = np.where(big, B, a - k * tau)
    fA, fB = f(A), f(B)
    for _ in range(200):  # Illinois iterations, element-wise until converged
        active = np.abs(B - A) > 1e-6
        if not active.any():
            break
        den = np.where(active, fB - fA, 1.0)
        C = np.where(active, A + (A - B) * fA / den, B)
        fC = f(C)
        swap = active & (fC * fB <= 0)
        A, fA = np.where(swap, B, A), np.where(swap, fB, np.where(active, fA / 2, fA))
        B, fB = np.where(active, C, B), np.where(active, fC, fB)
    new_sigma = np.where(played, np.exp(A / 2), sigma)
    phi_star = np.sqrt(phi ** 2 + new_sigma ** 2)
    new_phi = np.where(played, 1 / np.sqrt(1 / phi_star ** 2 + 1 / v), phi_star)
    new_mu = np.where(played, mu + new_phi ** 2 * delta_sum, mu)
    return new_mu, new_phi, new_sigma
