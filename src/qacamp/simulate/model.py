"""The latent model shared by every simulated campaign.

Notation: run ``r`` (a submitted system run) belongs to team ``t(r)``;
question ``q`` has a latent difficulty ``d_q``; run ``r`` has a latent ability
``a_r``.

Ability and teams
    Teams submit 1-3 runs (mostly 2-3).  A team has ability
    ``A_t ~ N(ability_mean, ability_sd)``; its runs vary around it:
    ``a_r = A_t + N(0, run_sd)``.  Runs of one team are also correlated
    question by question (they share a pipeline): see *outcomes*.

Outcomes
    ``P(correct) = logistic(a_r - d_q)`` exactly.  The draw is made through a
    uniform ``U_rq`` built with a Gaussian copula,
    ``U_rq = Phi(sqrt(rho) G_tq + sqrt(1 - rho) N_rq)``, where ``G_tq`` is
    shared by the team's runs (``rho`` = ``team_rho``), so runs of a team tend to
    get the same questions right without changing each run's marginal
    probability.  The latent *evidence* is ``z_rq = a_r - d_q - logit(U_rq)``
    and the run is right exactly when ``z_rq > 0``.

Confidence and calibration
    A run's confidence in a question is a noisy estimate of its evidence,
    ``c_rq = z_rq + N(0, s_r)``; ``s_r = noise_min + (noise_max - noise_min)
    (1 - k_r)`` where ``k_r`` in [0, 1] is the run's calibration quality.  TREC
    factoid runs list their questions by decreasing ``c_rq`` (so a good
    calibrator has CWS > accuracy); abstaining runs (c@1 campaigns) leave
    unanswered the share ``u_r`` of questions with the lowest ``c_rq`` (the
    threshold), so a well-calibrated run abstains mostly where it would have
    been wrong.  An unanswered response carries a hypothetical candidate with
    probability ``p_candidate_r`` (0 for some runs, 1 for others); the
    candidate is the answer the run would have given, right exactly when
    ``z_rq > 0`` (i.e. with the run's accuracy on those questions).

Randomness
    Every random stream is a :class:`numpy.random.Generator` built from
    ``SeedSequence(seed, spawn_key=(kind, stream, index...))`` with string keys
    turned into integers by CRC-32, so a stream never depends on dict/set
    order, time, or on how many other streams were drawn (changing the number
    of runs does not change the questions).
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np
from scipy.special import expit, logit, ndtr


def key(part: str | int) -> int:
    """A stable integer for a stream-key part (CRC-32 of a string)."""
    if isinstance(part, int | np.integer):
        return int(part)
    return zlib.crc32(str(part).encode("utf-8"))


def rng(seed: int, *parts: str | int) -> np.random.Generator:
    """The generator of stream ``parts`` under ``seed`` (see module docstring)."""
    return np.random.default_rng(
        np.random.SeedSequence(int(seed), spawn_key=tuple(key(p) for p in parts)))


@dataclass(frozen=True)
class ModelParams:
    """Parameters of the latent model (defaults give TREC-2002-like spreads).

    ability_mean, ability_sd: team ability distribution (logit scale).
    run_sd: spread of a team's runs around the team ability.
    difficulty_mean, difficulty_sd: question difficulty distribution.
    team_rho: copula correlation of the outcomes of one team's runs.
    noise_min, noise_max: confidence noise s.d. for a perfect / useless calibrator.
    runs_per_team: probabilities of 1, 2, 3 runs per team.
    """

    ability_mean: float = -0.6
    ability_sd: float = 1.1
    run_sd: float = 0.25
    difficulty_mean: float = 0.0
    difficulty_sd: float = 1.5
    team_rho: float = 0.5
    noise_min: float = 0.3
    noise_max: float = 6.0
    runs_per_team: tuple[float, float, float] = (0.15, 0.45, 0.40)


@dataclass(frozen=True)
class Runs:
    """The simulated runs: ``team`` index, ``ability`` ``a_r``, ``calibration``
    ``k_r`` and the confidence noise s.d. ``noise`` ``s_r``, all arrays of
    length n_runs, plus the ``run_in_team`` index (0, 1, 2)."""

    team: np.ndarray
    run_in_team: np.ndarray
    ability: np.ndarray
    calibration: np.ndarray
    noise: np.ndarray

    @property
    def n(self) -> int:
        return len(self.ability)


def draw_runs(seed: int, kind: str, n_runs: int, params: ModelParams) -> Runs:
    """Group ``n_runs`` runs into teams and draw abilities and calibration."""
    g = rng(seed, kind, "runs")
    sizes: list[int] = []
    while sum(sizes) < n_runs:
        sizes.append(int(g.choice(3, p=params.runs_per_team)) + 1)
    sizes[-1] -= sum(sizes) - n_runs
    team = np.repeat(np.arange(len(sizes)), sizes)
    run_in_team = np.concatenate([np.arange(s) for s in sizes])
    team_ability = g.normal(params.ability_mean, params.ability_sd, len(sizes))
    ability = team_ability[team] + g.normal(0.0, params.run_sd, n_runs)
    team_cal = g.beta(2.0, 2.0, len(sizes))
    calibration = np.clip(team_cal[team] + g.normal(0.0, 0.08, n_runs), 0.0, 1.0)
    noise = params.noise_min + (params.noise_max - params.noise_min) * (1.0 - calibration)
    return Runs(team, run_in_team, ability, calibration, noise)


def draw_difficulty(seed: int, kind: str, n_questions: int, params: ModelParams) -> np.ndarray:
    """Question difficulties ``d_q``."""
    g = rng(seed, kind, "difficulty")
    return g.normal(params.difficulty_mean, params.difficulty_sd, n_questions)


def evidence(seed: int, kind: str, runs: Runs, r: int, difficulty: np.ndarray,
             params: ModelParams) -> np.ndarray:
    """Latent evidence ``z_rq`` of run ``r`` on every question (right iff > 0)."""
    n = len(difficulty)
    shared = rng(seed, kind, "team-outcomes", int(runs.team[r])).standard_normal(n)
    own = rng(seed, kind, "run-outcomes", r).standard_normal(n)
    rho = params.team_rho
    u = ndtr(np.sqrt(rho) * shared + np.sqrt(1.0 - rho) * own)
    u = np.clip(u, 1e-12, 1.0 - 1e-12)
    return runs.ability[r] - difficulty - logit(u)


def confidence(g: np.random.Generator, z: np.ndarray, noise: float) -> np.ndarray:
    """Noisy confidence ``c = z + N(0, noise)``."""
    return z + g.normal(0.0, noise, len(z))


def p_correct(ability: float | np.ndarray, difficulty: np.ndarray) -> np.ndarray:
    """``logistic(ability - difficulty)``."""
    return expit(np.asarray(ability) - difficulty)


def lowest_share(conf: np.ndarray, share: float) -> np.ndarray:
    """Boolean mask of the ``round(share * n)`` entries with the lowest confidence
    (ties broken by position, so the result is deterministic)."""
    k = int(round(share * len(conf)))
    mask = np.zeros(len(conf), dtype=bool)
    if k > 0:
        mask[np.argsort(conf, kind="stable")[:k]] = True
    return mask


def confidence_order(conf: np.ndarray) -> np.ndarray:
    """Indices by decreasing confidence (stable)."""
    return np.argsort(-conf, kind="stable")
