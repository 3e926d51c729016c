"""``python -m imago.bench count``: the one count against recorded results,
on a folder made here (a seki, scored with both sides alive, and a file
that does not load)."""

from __future__ import annotations

from imago.bench import count as bench_count
from test_seki_pass import seki_rows


def sgf_of(rows: list[str], result: str) -> str:
    """An SGF record whose root sets up the diagram ``rows`` (top row first)."""
    letters = "abcdefghijklmnopqrs"
    stones = {"X": [], "O": []}
    for r, line in enumerate(rows):
        for c, cell in enumerate(line.split()):
            if cell in stones:
                stones[cell].append(f"[{letters[c]}{letters[r]}]")
    return (f"(;GM[1]FF[4]SZ[{len(rows)}]KM[7.5]RE[{result}]"
            f"AB{''.join(stones['X'])}AW{''.join(stones['O'])})")


def folder_with(tmp_path, games: dict[str, tuple[str, str]]):
    """``games``: file name -> (SGF text, recorded result), each ended by two passes."""
    lines = ["file\trandom_opening_moves\tmoves\tend\tresult"]
    for name, (text, result) in games.items():
        (tmp_path / name).write_text(text)
        lines.append(f"{name}\t0\t0\ttwo_passes\t{result}")
    lines.append("resigned.sgf\t0\t0\tresignation\tB+R")
    (tmp_path / "index.tsv").write_text("\n".join(lines) + "\n")
    return tmp_path


def test_a_seki_counts_as_recorded_and_a_broken_file_is_named(tmp_path, capsys):
    folder = folder_with(tmp_path, {
        "seki.sgf": (sgf_of(seki_rows(9), "B+3.5"), "B+3.5"),
        "wrong.sgf": (sgf_of(seki_rows(9), "W+0.5"), "W+0.5"),   # a referee that disagrees
        "broken.sgf": ("(;GM[1]SZ[9]AB[zz", "B+1.5"),
    })
    tally = bench_count.agreement(folder)
    assert (tally.games, tally.exact, tally.winner, tally.unreadable) == (2, 1, 1, 1)
    assert tally.differing == [("wrong.sgf", "B+3.5", "W+0.5")]
    assert "broken.sgf" in capsys.readouterr().err

    assert bench_count.main([f"--dir={folder}"]) == 0
    out = capsys.readouterr().out
    assert "count " in out and "1 of 2 exactly as recorded, the winner in 1" in out
    assert "wrong.sgf B+3.5 (recorded W+0.5)" in out


def test_a_folder_without_an_index_is_refused(tmp_path, capsys):
    assert bench_count.main([f"--dir={tmp_path}"]) == 2
    assert "no index.tsv" in capsys.readouterr().err
