"""The columnar readers of answer patterns, nugget lists, pyramid weights,
list answer keys and CSV score matrices against their line
readers, which they replaced and which still report every error.

The differential test reads the real files of ``../shared/data`` and many
damaged variants of them (truncations, bit flips, odd bytes and encodings,
CR/LF, BOMs, blank and comment lines, wrong field counts, huge fields, gzip)
with both, the columnar one in batches of every size down to one line (read
one byte at a time): the columnar reader gives the line reader's table
exactly (same schema, rows, order, float bits) or refuses the file, and then
the line reader raises -- the error the public reader reports, byte for byte.
The one refusal of a file the line reader reads is a CSV field in quotes
spanning lines (only the ``csv`` module numbers such rows; counted apart).
"""

from __future__ import annotations

import gzip
import random
import re
from collections import Counter
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from paths import SHARED_DATA

from qacamp.errors import InputError
from qacamp.readers import _fields, _key_columns, _matrix_columns, _text, answer_keys, matrix

TREC = SHARED_DATA / "trec-qa"
MATRICES = SHARED_DATA / "score-matrices"
needs_data = pytest.mark.skipif(not TREC.is_dir() or not MATRICES.is_dir(),
                                reason="shared data not available")


def _matrix_fast(path):
    fast = _matrix_columns.read_csv(path)
    return None if fast is None else matrix.Matrix(*fast, "wide")


# kind: (columnar reader, line reader, public reader, real files)
KINDS = {
    "patterns": (_key_columns.patterns, answer_keys.patterns_by_line, answer_keys.read_patterns,
                 "*patter*"),
    "nuggets": (_key_columns.nuggets, answer_keys.nuggets_by_line, answer_keys.read_nuggets,
                "*answers_other"),
    "pyramid": (_key_columns.pyramid, answer_keys.pyramid_by_line, answer_keys.read_pyramid,
                "*answers_other_pyramid"),
    "list key": (_key_columns.list_key, answer_keys.list_key_by_line,
                 answer_keys.read_list_key, "*answers_list"),
    "matrix": (_matrix_fast, matrix.csv_by_line, matrix.read_matrix_table, "*.csv"),
}

CONFIGS = {  # (CHUNK_BYTES, BATCH_BYTES, BATCH_LINES)
    "default": (_text.CHUNK_BYTES, _text.BATCH_BYTES, _text.BATCH_LINES),
    "one line (one byte read at a time)": (1, 1, 1),
    "7-byte chunks, 13-byte batches": (7, 13, 1_000_000),
    "64-byte chunks, 3-line batches": (64, 8 * 1024**2, 3),
    "4096-byte chunks": (4096, 1, 1_000_000),
}
SMALL = list(CONFIGS)[1:]
"""Each damaged variant is read with the default batches and one of these
(in turn); files past 4 KiB only with 4096-byte chunks (not a byte at a time)."""
REAL_CONFIGS = ["default", "4096-byte chunks"]

COUNTS: Counter[tuple[str, str]] = Counter()


def _canon(out) -> tuple:
    """An outcome as comparable values: a table column by column (floats as
    their bits, so -0.0 is not 0.0), a matrix, or the whole error text."""
    if isinstance(out, InputError):
        return ("error", str(out))
    if isinstance(out, matrix.Matrix):
        return ("ok", out.units, out.runs, out.values.shape, out.values.tobytes(), out.layout)
    cols = []
    for s in out.get_columns():
        if s.dtype == pl.Float64:
            cols.append((s.name, tuple(s.is_null()), s.fill_null(0).to_numpy().tobytes()))
        else:
            cols.append((s.name, tuple(s.to_list())))
    return ("ok", tuple(out.schema.items()), tuple(cols))


def _run(read, path):
    try:
        return read(path)
    except InputError as exc:
        return exc


def _spans_lines(path: Path) -> bool:
    """A CSV whose quoted field does not close on its line."""
    raw = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
    lines = pl.Series(raw.decode("utf-8", "replace").split("\n"))
    return not (~lines.str.contains('"', literal=True) | lines.str.contains(_matrix_columns._LINE)).all()


def _check(kind: str, path: Path, configs: list[str], monkeypatch) -> None:
    fast, by_line, public, _ = KINDS[kind]
    want = _canon(_run(by_line, path))
    assert _canon(_run(public, path)) == want, path  # the wiring, default batches
    for name in configs:
        chunk, batch, lines = CONFIGS[name]
        monkeypatch.setattr(_text, "CHUNK_BYTES", chunk)
        monkeypatch.setattr(_text, "BATCH_BYTES", batch)
        monkeypatch.setattr(_text, "BATCH_LINES", lines)
        got = fast(path)
        if got is not None:
            assert _canon(got) == want, (kind, path, name)
            COUNTS[kind, "read on columns, identical"] += 1
        elif want[0] == "error":
            COUNTS[kind, "refused, line reader's error"] += 1
        else:
            assert kind == "matrix" and _spans_lines(path), (kind, path, name, "refused a valid file")
            COUNTS[kind, "refused, quoted field spanning lines"] += 1
    monkeypatch.undo()


# --------------------------------------------------------------------------- damage

ODD = ["\x00", "\xff", "\x1f", "\xa0", "\u3000", "\t", " ", '"', ",", "#", "\u212a", "\u0661",
       "\r", "\r\n", "\v", "\u2028", "\n", "\ufeff", "\t\t", "  ", "Qid ", "# ", "Q:", ":",
       "-0", "1e400", "0_5", "NaN", "\u0660.\u0665", "+.5", "1.", " APW19980705.0043",
       " A\u0661\u0669\u0669\u0668\u0660\u0667\u0660\u0665.\u0660\u0660\u0664\u0663", " none",
       " NONE", "unit,", "vital", "OKAY", "o\u212aay"]


def _mutate(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    lines = data.split(b"\n")
    k = rng.randrange(14)
    if k == 0:
        return data[:rng.randrange(len(data) + 1)], ".txt"
    if k == 1:
        i = rng.randrange(len(data))
        return data[:i] + bytes([data[i] ^ (1 << rng.randrange(8))]) + data[i + 1:], ".txt"
    if k == 2:
        i = rng.randrange(len(data) + 1)
        odd = rng.choice(ODD).encode("utf-8") if rng.random() < 0.9 else b"\xff\xfe"
        return data[:i] + odd + data[i:], ".txt"
    if k == 3:
        return data.replace(b"\n", b"\r\n"), ".txt"
    if k == 4:
        return b"\xef\xbb\xbf" + data, ".txt"
    if k == 5:
        filler = rng.choice([b"", b" ", b"\t", b"\x1f", "\xa0".encode(), b"# a comment",
                             b"  # x", b",,", b" , ", b'""', b"Q: x?", b"#"])
        lines.insert(rng.randrange(len(lines) + 1), filler)
    elif k == 6:  # a separator dropped or doubled
        i = rng.randrange(len(lines))
        sep = rng.choice([b"\t", b" ", b","])
        lines[i] = lines[i].replace(sep, b"", 1) if rng.random() < 0.5 else \
            lines[i].replace(sep, sep + sep, 1)
    elif k == 7:  # a huge field (past the csv module's field limit)
        i = rng.randrange(len(lines))
        lines[i] = lines[i] + rng.choice([b"x", b"1", b" y"]) * rng.choice([200, 140_000])
    elif k == 8:
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
        lines.insert(j, lines[i])
    elif k == 9:
        del lines[rng.randrange(len(lines))]
    elif k == 10:
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    elif k == 11:
        enc = rng.choice(["latin-1", "utf-16", "cp1252"])
        return data.decode("utf-8", "replace").encode(enc, "replace"), ".txt"
    elif k == 12:  # quotes: a cell quoted, a stray quote, a field spanning lines
        i = rng.randrange(len(lines))
        cells = lines[i].split(b",")
        j = rng.randrange(len(cells))
        cells[j] = rng.choice([b'"' + cells[j] + b'"', b'"' + cells[j], cells[j] + b'"x',
                               b'"' + cells[j] + b'"' + b"y", b'"a\n' + cells[j] + b'"',
                               b'"' + cells[j].replace(b"1", b'""') + b'"'])
        lines[i] = b",".join(cells)
    else:
        return gzip.compress(data, mtime=0), ".gz"
    return b"\n".join(lines), ".txt"


def _variants(base: bytes, n: int, seed: int):
    rng = random.Random(seed)
    yield base, ".txt"
    yield b"", ".txt"
    yield b" \n\t\n", ".txt"
    for _ in range(n):
        data, ext = base, ".txt"
        for _ in range(rng.choice([1, 1, 2, 3])):
            data, e = _mutate(data, rng)
            if e == ".gz":
                ext = ".gz"
                break
        yield data, ext


def _head(path: Path, n: int) -> bytes:
    return b"\n".join(path.read_bytes().split(b"\n")[:n]) + b"\n"


HANDMADE = {
    "patterns": [
        "1.1 1969\n1.1 (Los )?Angel[e\u00e9]s APW19980705.0043 NYT19990101.0001\n"
        "2.1\tParis|Pari\u00df\tNYT19990101.0001 none\n2.2\tFlore\n",
        "1.1 a  APW19980705.0043\n1.2 APW19980705.0043 NYT19990101.0001\n"
        "1.3 x APW19980705.0043  NYT19990101.0001\n1.4 y\u3000x\u00a0APW19980705.0043\n"
        "1.5 z A\u0661\u0669\u0669\u0668\u0660\u0667\u0660\u0665.\u0660\u0660\u0664\u0663\n"
        "1.6\tp\t\tNONE\tX\n1.7 q\t\n\x1f1.8 r\n",
    ],
    "nuggets": [
        "Qid 1.3: 'other' question for target Crips\n1.3 1\tvital\tfounded in 1969\n"
        "1.3 2\tokay\tLos Angeles gang \u00e9\n\nQid 2.3: x\n2.3 1\tvital\tserves coffee\n",
        "Qid\u30002.3: x\n2.3 1\tO\u212aAY\t a \t b \n2.3\x1f2\t vital\t\n",
    ],
    "pyramid": [
        "1.3\t1\t1.0\tfounded in 1969\n1.3\t2\t0.25\tLos Angeles gang \u00e9\n2.3\t1\t0\tcoffee\n",
        "# c\n1.3\t1\t-0\ta\n1.3\t2\t0_0.5\tb\t c\n1.3\t3\t\u0660.\u0665\tc\n"
        "\x1f# d\n1.3\t4\t+.5\t\n1.3\t5\t1.\tx\n1.3\t6\t5e-1\ty\n",
    ],
    "list key": [
        "# 1.2\nQ: Who are Crips members?\nStanley Williams\nRaymond Washington \u00e9\n"
        "Stanley Williams\n# 2.2\nQ: Which caf\u00e9s?\nFlore\n",
        "Q: before\n#  53.4\n\t\nA\n Q: not a question line\n#\u30002.2\x1f\nA\n",
    ],
    "matrix": [
        "unit,a,b\nq1,0.5,1\nq2,0,0.25\n",
        '"sys1","sys""2",s3\n1e-3,-0,+.5\n 1. ,"0.25",.5\n,,\n',
        'UNIT,"a,b",c\n#7,1,2\n"#8",3,4\n"u"x y,5,6\n',
        "a\x00b,c\n1,2\n",
        'unit,"run\nA",b\nq1,1,2\n',
    ],
}


def _bases(kind: str) -> list[bytes]:
    glob = KINDS[kind][3]
    real = sorted(MATRICES.glob(glob) if kind == "matrix" else TREC.glob(glob))
    real = [p for p in real if not isinstance(_run(KINDS[kind][1], p), InputError)]
    heads = [_head(p, 6 if kind == "matrix" else 14) for p in real[:2]]  # (valid files)
    return heads + [t.encode("utf-8") for t in HANDMADE[kind]]


# --------------------------------------------------------------------------- tests

@needs_data
@pytest.mark.parametrize("kind", list(KINDS))
def test_real_files_same_as_the_line_reader(kind, monkeypatch):
    glob = KINDS[kind][3]
    files = sorted(MATRICES.glob(glob) if kind == "matrix" else TREC.glob(glob))
    assert files
    for path in files:
        _check(kind, path, REAL_CONFIGS, monkeypatch)


@needs_data
@pytest.mark.parametrize("kind", list(KINDS))
def test_damaged_files_same_table_or_same_error(kind, tmp_path, monkeypatch):
    seen = 0
    for b, base in enumerate(_bases(kind)):
        p = tmp_path / ("base.csv" if kind == "matrix" else "base")
        p.write_bytes(base)
        KINDS[kind][1](p)  # (every base is valid: damage makes the errors)
        for v, (data, ext) in enumerate(_variants(base, 12, seed=1000 * b + len(kind))):
            name = f"{b}-{v}" + (".csv" if kind == "matrix" else "") + (".gz" if ext == ".gz" else "")
            path = tmp_path / name
            path.write_bytes(data)
            other = SMALL[seen % len(SMALL)] if len(data) <= 4096 else SMALL[-1]
            _check(kind, path, ["default", other], monkeypatch)
            seen += 1
    COUNTS[kind, "variants"] += seen


def test_python_white_space_is_the_columnar_white_space():
    """The white space the columnar readers strip and split on is Python's."""
    python = "".join(c for c in map(chr, range(0x110000)) if c.isspace())
    assert python == _text.PY_SPACE
    s = pl.Series([python])
    assert s.str.strip_chars(_text.PY_SPACE).item() == ""
    assert s.str.extract_all(r"[\s\x1c-\x1f]").list.len().item() == len(python)


def test_batches_hold_the_lines_data_lines_yields(tmp_path):
    """Blank and comment lines as Python's ``str.strip`` sees them (U+001F and
    U+00A0 are white space there) are dropped from the batches too."""
    p = tmp_path / "f"
    p.write_text("a\n\x1f\n\xa0 \u3000\n\x1f# c\n \t#d\n\x1fb\x1f\n#\n", encoding="utf-8")
    for comments in (True, False):
        want = list(_text.data_lines(p, comments=comments))
        got = pl.concat(_text.scan_lines(p, comments=comments)).rows()
        assert got == want, (comments, got)
    assert _text.first_data_line(tmp_path / "f") == (1, "a")



@pytest.mark.parametrize("comments", [True, False])
def test_a_line_is_dropped_exactly_when_python_strips_it_to_nothing_or_a_comment(comments):
    """The batches' filter of blank and comment lines (a look at each line's
    start) keeps exactly the lines Python's ``str.strip`` leaves non-empty
    (and, with comments, not starting with ``#``): 200,000 random lines of
    every white-space character, ``#``, letters and a line separator."""
    rng = random.Random(7)
    alphabet = [*_text.PY_SPACE, "#", "a", "é", "\u2028x"]
    lines = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 6)))
             for _ in range(200_000)]
    frame = pl.DataFrame({"line_no": range(len(lines)), "line": lines})
    want = [line for line in lines
            if line.strip() and not (comments and line.strip().startswith("#"))]
    got = _text._data_rows(frame, comments)["line"].to_list()
    assert got == want
    assert 0 < len(want) < len(lines)

def test_polars_reads_plain_decimals_as_python_does():
    """Pyramid weights and matrix cells in plain decimal form are converted by
    polars; the bits are Python's ``float`` on random and hard cases (halfway
    between two floats, subnormals, overflow, 40-digit mantissas)."""
    rng = random.Random(19)
    texts = ["1.", ".5", "+.5", "-.5", "-0", "0e0", "1e400", "1e-400", "-1e-400",
             "2.2250738585072011e-308", "4.9406564584124654e-324", "2.4703282292062328e-324",
             "1.7976931348623158e308", "9007199254740993", "0.30000000000000004"]
    for _ in range(20_000):
        digits = "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 40)))
        frac = "".join(rng.choice("0123456789") for _ in range(rng.randint(0, 40)))
        texts.append(rng.choice(["", "+", "-"]) + digits + ("." + frac if frac else "")
                     + (f"e{rng.randint(-340, 320)}" if rng.random() < 0.5 else ""))
    for _ in range(2000):  # exactly halfway between two doubles
        m, e = rng.randrange(2**52, 2**53), rng.randint(-1074, 970)
        texts.append(f"{(2 * m + 1) * 5 ** max(0, 1 - e)}e{min(0, e - 1)}" if e <= 1
                     else str((2 * m + 1) * 2 ** (e - 1)))
    assert all(re.fullmatch(_fields.NUMBER, t) for t in texts)
    got = pl.Series(texts).cast(pl.Float64, strict=False).to_numpy()
    want = np.array([float(t) for t in texts])
    assert got.tobytes() == want.tobytes()


def test_counts(capsys):
    """Runs last: print what the differential tests saw."""
    with capsys.disabled():
        print()
        for kind in KINDS:
            row = {k: n for (kk, k), n in sorted(COUNTS.items()) if kk == kind}
            print(f"  {kind}: {row}")
    if COUNTS:
        assert all(COUNTS[k, "read on columns, identical"] > 0 for k in KINDS)
