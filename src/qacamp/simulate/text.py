"""Made-up text: names, questions, answers, document ids, snippets.

Everything is drawn from small fixed vocabularies with a given generator, so
the texts are deterministic and contain no real campaign data (ASCII only, no
tabs, no markup characters).
"""

from __future__ import annotations

import numpy as np

SYLLABLES = (
    "ba", "ko", "ri", "dan", "vel", "mor", "ta", "lin", "sar", "quo", "pe", "nis",
    "gal", "tor", "ve", "mu", "len", "dra", "fi", "op", "ush", "kel", "zan", "bri",
    "so", "har", "wen", "ly", "cor", "im", "ae", "tho", "gru", "pal", "ne", "vor",
)
NOUNS = (
    "river", "festival", "treaty", "company", "museum", "bridge", "league", "prize",
    "island", "railway", "orchestra", "vaccine", "satellite", "dynasty", "mine",
    "university", "newspaper", "party", "tournament", "reactor", "canal", "novel",
)
WORDS = (
    "the", "of", "in", "was", "and", "a", "to", "for", "by", "with", "after", "its",
    "first", "new", "former", "national", "group", "year", "members", "city", "known",
    "became", "largest", "founded", "later", "led", "report", "officials", "said",
    "early", "home", "public", "world", "record", "award", "team", "series", "region",
)
SOURCES = ("APW", "NYT", "XIE")
LANGUAGES = ("EN", "DE", "ES", "FR", "IT", "PT", "RO", "BG", "EU")


def pseudo_word(g: np.random.Generator, lo: int = 2, hi: int = 3) -> str:
    n = int(g.integers(lo, hi + 1))
    return "".join(SYLLABLES[i] for i in g.integers(0, len(SYLLABLES), n))


def name(g: np.random.Generator, parts: int = 2) -> str:
    """A capitalised made-up name of ``parts`` words."""
    return " ".join(pseudo_word(g).capitalize() for _ in range(parts))


def unique_names(g: np.random.Generator, n: int, parts: int = 2) -> list[str]:
    """``n`` distinct made-up names (drawn in order, duplicates redrawn)."""
    out: list[str] = []
    seen: set[str] = set()
    while len(out) < n:
        s = name(g, parts)
        if s not in seen:
            seen.add(s)
            out.append(s)
    return out


def phrase(g: np.random.Generator, lo: int, hi: int, made_up: float = 0.3) -> str:
    """A lowercase phrase of ``lo``-``hi`` words from the fixed vocabulary and
    (with probability ``made_up`` per word) made-up words."""
    n = int(g.integers(lo, hi + 1))
    words = []
    for _ in range(n):
        words.append(pseudo_word(g) if g.random() < made_up
                     else WORDS[int(g.integers(len(WORDS)))])
    return " ".join(words)


FACTOID_TEMPLATES = (
    "Who founded the {N} of {P}?",
    "When was {P} born?",
    "In what country is the {N} of {P} located?",
    "How many members does the {N} of {P} have?",
    "What is the name of the {N} built by {P}?",
    "Where did {P} die?",
    "What year did the {N} of {P} open?",
    "Who won the {P} {N} in 1998?",
    "What is the capital of {P}?",
    "How tall is the {N} of {P}?",
)
SERIES_FACTOID_TEMPLATES = (
    "When was it founded?", "Where is it located?", "Who is its leader?",
    "How many people belong to it?", "What year did it begin?", "Who started it?",
    "What is its nickname?", "Where was the first one held?", "How old is it?",
    "What company owns it?", "Who was the first director?", "What is it made of?",
)
SERIES_LIST_TEMPLATES = (
    "Which cities have a branch of it?", "Name the members.",
    "What countries has it visited?", "What awards has it won?",
    "Which companies sponsor it?", "What titles has it released?",
)
MC_TEMPLATES = (
    "What is the main purpose of the {N} described in the text?",
    "According to the text, who proposed the {N}?",
    "Why did {P} oppose the {N}?",
    "What happened to the {N} after the report?",
    "Which group benefited most from the {N}?",
)


def factoid_question(g: np.random.Generator) -> str:
    t = FACTOID_TEMPLATES[int(g.integers(len(FACTOID_TEMPLATES)))]
    return t.format(N=NOUNS[int(g.integers(len(NOUNS)))], P=name(g, int(g.integers(1, 3))))


def mc_question(g: np.random.Generator) -> str:
    t = MC_TEMPLATES[int(g.integers(len(MC_TEMPLATES)))]
    return t.format(N=NOUNS[int(g.integers(len(NOUNS)))], P=name(g, 1))


def short_answer(g: np.random.Generator) -> str:
    """A factoid-style exact answer: a name, a year, a number or a phrase."""
    u = g.random()
    if u < 0.4:
        return name(g, int(g.integers(1, 3)))
    if u < 0.6:
        return str(int(g.integers(1700, 2003)))
    if u < 0.75:
        return f"{int(g.integers(2, 9999)):,}"
    return phrase(g, 1, 4)


def tiny_answer(g: np.random.Generator) -> str:
    """A one-word answer: a made-up name or a year."""
    return pseudo_word(g, 2, 2).capitalize() if g.random() < 0.7 else str(int(g.integers(1900, 2009)))


def docids(g: np.random.Generator, n: int) -> np.ndarray:
    """``n`` docids like ``APW19990101.0001`` (1998-2000)."""
    src = np.asarray(SOURCES)[g.integers(0, len(SOURCES), n)]
    year = g.integers(1998, 2001, n)
    month = g.integers(1, 13, n)
    day = g.integers(1, 29, n)
    num = g.integers(1, 100, n)
    return np.asarray([f"{s}{y:04d}{m:02d}{d:02d}.{k:04d}"
                       for s, y, m, d, k in zip(src, year, month, day, num, strict=True)])


def team_names(g: np.random.Generator, n: int, max_len: int = 7) -> list[str]:
    """``n`` distinct lowercase made-up team names of 3-``max_len`` letters."""
    out: list[str] = []
    seen: set[str] = set()
    while len(out) < n:
        s = pseudo_word(g, 2, 3)[:max_len]
        if len(s) >= 3 and s not in seen:
            seen.add(s)
            out.append(s)
    return out
