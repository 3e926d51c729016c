"""The game review (imago.review): the query, each move's loss and grade,
the annotated SGF (read back with sgfmill), the report and the plot, all
against a fake analysis engine (tests/review_fakes.py)."""

from __future__ import annotations

import pytest

from imago.game import BLACK, WHITE
from imago.review import (Review, ReviewError, Thresholds, build_query, html_report,
                          load_record, player_stats, review_game, summary_text,
                          write_review_sgf)
from imago.review.game import record_of
from imago.sgf import loads
from review_fakes import FakeAnalyzer, winrate_of

GAME = ("(;GM[1]FF[4]SZ[9]KM[7.5]PB[Alice]PW[Bob \\] the \\\\ second]RE[B+R]"
        "C[a comment with \\] and \\\\ in it]"
        ";B[ee];W[cc];B[gc];W[cg];B[gg]C[nice];W[ec];B[dd];W[cd])")
# Black's lead at each turn: move 3 (B) loses 3.3, move 4 (W) 7, move 5 (B) 2, move 7 (B) 6.5
LEADS = {0: 0.5, 1: 0.5, 2: 0.3, 3: -3.0, 4: 4.0, 5: 2.0, 6: 2.0, 7: -4.5, 8: -4.5}
EXPECTED = {1: ("good", 0.0), 2: ("good", -0.2), 3: ("mistake", 3.3), 4: ("blunder", 7.0),
            5: ("inaccuracy", 2.0), 6: ("good", 0.0), 7: ("blunder", 6.5), 8: ("good", 0.0)}


def record_from(text: str, **options):
    return record_of(loads(text)[0], **options)


def reviewed(text: str = GAME, leads=LEADS, **options) -> Review:
    return review_game(record_from(text), FakeAnalyzer(leads, **options))


def write_and_read(review: Review, tmp_path):
    """The review written as SGF and read back by another reader, sgfmill."""
    sgfmill_sgf = pytest.importorskip("sgfmill.sgf", reason="sgfmill reads the review's SGF "
                                      "back: pip install sgfmill")
    path = tmp_path / "out.sgf"
    write_review_sgf(review, path)
    return sgfmill_sgf.Sgf_game.from_bytes(path.read_bytes())


# ---------------------------------------------------------------- the query
def test_query_asks_every_turn_with_the_game_settings():
    query = build_query(record_from(GAME), 50)
    assert query["moves"][:3] == [["B", "E5"], ["W", "C7"], ["B", "G7"]]
    assert query["analyzeTurns"] == list(range(9))
    assert (query["boardXSize"], query["boardYSize"], query["komi"]) == (9, 9, 7.5)
    assert query["maxVisits"] == 50
    assert query["rules"] == {"ko": "POSITIONAL", "scoring": "AREA", "tax": "NONE",
                              "suicide": False, "hasButton": False, "whiteHandicapBonus": "0",
                              "friendlyPassOk": True}
    assert query["initialStones"] == [] and query["initialPlayer"] == "B"


def test_handicap_stones_are_initial_stones_and_white_moves_first():
    record = record_from("(;SZ[9]HA[2]KM[0.5]AB[cc][gg];W[ee];B[cg];W[gc])")
    query = build_query(record, 10)
    assert sorted(query["initialStones"]) == [["B", "C7"], ["B", "G3"]]
    assert query["initialPlayer"] == "W" and query["moves"][0] == ["W", "E5"]
    # White's lead grows by 2 with its first move: no loss; Black's reply loses 4
    review = review_game(record, FakeAnalyzer({0: 5.0, 1: 3.0, 2: -1.0, 3: -1.0}))
    first, second, third = review.moves
    assert first.color == WHITE and first.points_lost == pytest.approx(-2.0)
    assert first.grade == "good"
    assert second.color == BLACK and second.points_lost == pytest.approx(4.0)
    assert second.grade == "mistake"
    assert third.points_lost == pytest.approx(0.0)


def test_missing_komi_is_assumed_and_said():
    record = record_from("(;SZ[9];B[ee])")
    assert record.komi == 7.5 and any("7.5 assumed" in note for note in record.notes)
    record = record_from("(;SZ[9]HA[2]AB[cc][gg];W[ee])")
    assert record.komi == 0.5 and any("0.5 assumed" in note for note in record.notes)
    assert record_from("(;SZ[9]KM[6.5];B[ee])").notes == []
    assert record_from("(;SZ[9]KM[6.5];B[ee])", komi=3).komi == 3
    record = record_from("(;SZ[9]KM[6.25];B[ee])")
    assert record.komi == 6.0 and record.notes == ["komi 6.25 rounded to 6 (the analysis "
                                                   "takes whole and half points)"]
    with pytest.raises(ReviewError, match="komi 333 is beyond"):
        record_from("(;SZ[19]KM[333];B[dd])")
    assert record_from("(;SZ[19]KM[375]RU[Chinese];B[dd])").komi == 7.5  # stones x 100


def test_passes_are_moves_like_the_others():
    record = record_from("(;SZ[5]KM[0.5];B[cc];W[];B[bb];W[tt])")
    query = build_query(record, 10)
    assert query["moves"] == [["B", "C3"], ["W", "pass"], ["B", "B4"], ["W", "pass"]]
    review = review_game(record, FakeAnalyzer({0: 0, 1: 3, 2: 8, 3: 8, 4: 8}))
    assert [m.vertex for m in review.moves] == ["C3", "pass", "B4", "pass"]
    assert review.moves[1].points_lost == pytest.approx(5.0)
    assert review.moves[1].grade == "mistake"


def test_setup_in_the_middle_starts_the_review_there():
    record = record_from("(;SZ[9]KM[7.5];B[ee];W[cc];AB[gg]AW[cg];B[dd];W[ff])")
    assert [n.vertex for n in record.moves] == ["D6", "F4"]
    assert any("after move 2" in n and "2 earlier moves not analysed" in n
               for n in record.notes)
    query = build_query(record, 10)
    assert sorted(query["initialStones"]) == [["B", "E5"], ["B", "G3"], ["W", "C3"],
                                              ["W", "C7"]]
    assert query["moves"] == [["B", "D6"], ["W", "F4"]] and query["initialPlayer"] == "B"
    review = review_game(record, FakeAnalyzer())
    assert [m.number for m in review.moves] == [3, 4]


def test_the_review_stops_before_a_move_imagos_rules_forbid():
    # W[bb] retakes the ko at once (kept by the record's KO[], "play it even if illegal")
    record = record_from("(;SZ[5]KM[0.5]AB[ba][ab][bc]AW[ca][bb][db][cc];B[cb];W[bb]KO[]"
                         ";B[ee];W[aa])")
    assert [n.vertex for n in record.moves] == ["C4"]
    assert record.notes == ["move 2 (W B4): it retakes a ko at once; the review stops before "
                            "it (3 moves not analysed)"]
    assert build_query(record, 10)["moves"] == [["B", "C4"]]
    review = review_game(record, FakeAnalyzer({0: 0.5, 1: 0.5}))
    assert [m.vertex for m in review.moves] == ["C4"]


@pytest.mark.parametrize("text, moves, stop", [
    # a suicide in a variation: the main line is reviewed whole
    ("(;SZ[5]KM[0.5]AW[ab][ba];B[cc](;W[dd];B[dc])(;W[ee];B[aa]))", ["C3", "D2", "D3"], ""),
    # a suicide in the main line (legal under Tromp-Taylor rules): the review stops there
    ("(;SZ[5]KM[0.5]AW[ab][ba];B[cc];W[dd];B[aa];W[ee])", ["C3", "D2"],
     "move 3 (B A5): it is a suicide, which imago's rules forbid; the review stops before it "
     "(2 moves not analysed)"),
])
def test_a_file_with_a_forbidden_move_is_read_as_it_stands(tmp_path, text, moves, stop):
    path = tmp_path / "game.sgf"
    path.write_text(text)
    record = load_record(str(path))
    assert [n.vertex for n in record.moves] == moves
    assert record.notes[0].startswith(f"{path}:1:") and ": suicide (read leniently" \
        in record.notes[0]
    assert record.notes[1:] == ([stop] if stop else [])
    review = review_game(record, FakeAnalyzer({n: 0.5 for n in range(len(moves) + 1)}))
    assert len(review.moves) == len(moves)


@pytest.mark.parametrize("text, error", [
    ("(;SZ[9]KM[7.5];B[ee];W[cc];B[gc]", "1:33: expected ')'"),   # cut short: no ')'
    ("(SZ[9]KM[7.5];B[ee];W[cc];B[gc])", "1:1: no game tree found"),  # the root's ';' missing
])
def test_a_game_cut_short_or_without_its_first_semicolon_is_reviewed(tmp_path, text, error):
    path = tmp_path / "game.sgf"
    path.write_text(text)
    record = load_record(str(path))
    assert [n.vertex for n in record.moves] == ["E5", "C7", "G7"] and record.komi == 7.5
    assert record.notes[0].startswith(f"{path}:{error}") and "read leniently" in record.notes[0]


def test_a_broken_file_is_still_refused_with_its_line(tmp_path):
    path = tmp_path / "game.sgf"
    path.write_text("(;SZ[9]B[ee)")
    with pytest.raises(ReviewError, match=r"game.sgf:1:9: expected"):
        load_record(str(path))


def test_board_sizes_from_2_to_25_name_their_vertices():
    assert build_query(record_from("(;SZ[2];B[ab];W[ba])"), 5)["moves"] == [["B", "A1"],
                                                                         ["W", "B2"]]
    query = build_query(record_from("(;SZ[25];B[ya];W[ay])"), 5)
    assert query["moves"] == [["B", "Z25"], ["W", "A1"]]


def test_a_game_without_moves_has_one_position():
    review = reviewed("(;SZ[9]KM[7.5])", {0: 1.0})
    assert review.moves == [] and len(review.positions) == 1
    assert review.positions[0].score == 1.0
    assert "no moves to review" in summary_text(review)


def test_a_resigned_game_ends_where_its_moves_do():
    review = reviewed()
    assert review.record.result == "B+R" and len(review.moves) == 8
    assert "result B+R" in summary_text(review)


# ---------------------------------------------------------------- judging
def test_losses_and_grades_from_the_movers_side():
    review = reviewed()
    for move in review.moves:
        grade, loss = EXPECTED[move.number]
        assert move.grade == grade, move.number
        assert move.points_lost == pytest.approx(loss), move.number
    third = review.moves[2]
    assert third.winrate_lost == pytest.approx(winrate_of(0.3) - winrate_of(-3.0))
    fourth = review.moves[3]  # White: Black's win rate going up is White's loss
    assert fourth.winrate_lost == pytest.approx(winrate_of(4.0) - winrate_of(-3.0))
    assert review.positions[3].winrate == pytest.approx(winrate_of(-3.0))


@pytest.mark.parametrize("perspective", ["WHITE", "SIDETOMOVE"])
def test_every_perspective_gives_the_same_review(perspective):
    black = reviewed()
    other = review_game(record_from(GAME), FakeAnalyzer(LEADS, perspective=perspective),
                        perspective=perspective)
    for a, b in zip(black.moves, other.moves, strict=True):
        assert (a.grade, a.before.best) == (b.grade, b.before.best)
        assert a.points_lost == pytest.approx(b.points_lost)
        assert a.after.winrate == pytest.approx(b.after.winrate)


def test_a_position_analysed_for_the_other_colour_is_not_graded():
    review = reviewed(current_player={2: "W"})
    third = review.moves[2]
    assert third.grade is None and third.points_lost is None
    assert [m.number for m in review.graded()] == [1, 2, 4, 5, 6, 7, 8]


def test_the_best_move_played_is_recognised():
    review = reviewed(best_is_played={0})
    assert review.moves[0].is_best and not review.moves[1].is_best


def test_the_engines_own_choice_loses_nothing_whatever_the_next_search_says():
    """Two searches disagree by noise; the move the engine itself picks is
    never graded a mistake for it (move 4 lost 7 points by the next
    position's search)."""
    review = reviewed(best_is_played={3})
    fourth = review.moves[3]
    assert fourth.is_best and fourth.points_lost == 0 and fourth.winrate_lost == 0
    assert fourth.grade == "good"


def test_thresholds_are_checked_and_parsed():
    assert Thresholds.parse("1, 3,6") == Thresholds(1.0, 3.0, 6.0)
    for bad in ("1,2", "a,b,c", "3,2,1", "0,1,2", "1,2,inf"):
        with pytest.raises(ValueError):
            Thresholds.parse(bad)
    loose = review_game(record_from(GAME), FakeAnalyzer(LEADS), thresholds=Thresholds(4, 7, 10))
    assert [m.grade for m in loose.moves if m.grade != "good"] == ["mistake", "inaccuracy"]


def test_an_engine_error_is_a_review_error():
    def refuse(query, on_response=None):
        return [{"error": "illegal move", "field": "moves", "id": query["id"]}]
    with pytest.raises(ReviewError, match="refused the game: illegal move"):
        review_game(record_from(GAME), refuse)


def test_responses_are_passed_on_as_they_come():
    seen = []
    review_game(record_from(GAME), FakeAnalyzer(LEADS), on_response=seen.append)
    assert [r["turnNumber"] for r in seen] == list(range(9))


# ---------------------------------------------------------------- outputs
def test_the_sgf_has_a_comment_and_sbkv_on_every_move(tmp_path):
    review = reviewed()
    game = write_and_read(review, tmp_path)
    root = game.get_root()
    assert root.get("PW") == "Bob ] the \\ second"
    assert root.get("C").startswith("a comment with ] and \\ in it\n\nimago review")
    nodes = game.get_main_sequence()[1:]
    assert len(nodes) == 8
    for node, move in zip(nodes, review.moves, strict=True):
        assert f"Move {move.number} {move.label}" in node.get("C")
        expected = round(100 * move.after.winrate, 2)
        assert float(node.get_raw("SBKV")) == pytest.approx(expected, abs=0.006)
        assert float(node.get_raw("SBKS")) == pytest.approx(move.after.score, abs=0.006)
    assert nodes[4].get("C").startswith("nice\n\nMove 5 B G3: inaccuracy")
    assert "Best: " in nodes[2].get("C") and "Line: " in nodes[2].get("C")


def test_grades_are_sgf_move_annotations(tmp_path):
    nodes = write_and_read(reviewed(), tmp_path).get_main_sequence()[1:]
    marks = {}
    for number, node in enumerate(nodes, 1):
        for name in ("BM", "DO", "TE", "IT"):
            if node.has_property(name):
                marks[number] = (name, node.get_raw(name).decode())
    assert marks == {3: ("BM", "1"), 4: ("BM", "2"), 5: ("DO", ""), 7: ("BM", "2")}


def test_each_mistake_gets_the_best_line_as_a_variation(tmp_path):
    review = reviewed()
    nodes = write_and_read(review, tmp_path).get_main_sequence()
    for move in review.moves:
        parent = nodes[move.number - 1]
        if move.grade not in ("mistake", "blunder"):
            assert len(parent) == 1, move.number
            continue
        assert len(parent) == 2, move.number
        played, line = parent[0], parent[1]
        assert played.get_move()[0] == line.get_move()[0] == "wb"[move.color == BLACK]
        colour, (row, col) = line.get_move()
        assert "ABCDEFGHJ"[col] + str(row + 1) == move.before.best
        assert line.get("C").startswith(f"imago's move instead of {move.number}")
        vertices = [line.get_move()]
        while len(line):
            line = line[0]
            vertices.append(line.get_move())
        assert len(vertices) == len(move.before.pv) == 3
        assert [c for c, _ in vertices] == ["b", "w", "b"] if move.color == BLACK \
            else ["w", "b", "w"]


def test_handicap_and_passes_survive_the_sgf(tmp_path):
    record = record_from("(;SZ[9]HA[2]KM[0.5]AB[cc][gg];W[ee];B[];W[cg];B[gc])")
    review = review_game(record, FakeAnalyzer({0: 5, 1: 5, 2: -3, 3: -3, 4: -3}))
    game = write_and_read(review, tmp_path)
    assert game.get_handicap() == 2
    black, white, _ = game.get_root().get_setup_stones()
    assert len(black) == 2 and not white
    nodes = game.get_main_sequence()
    assert nodes[2].get_move() == ("b", None) and "mistake" not in nodes[1].get("C")
    assert "Move 2 B pass: blunder" in nodes[2].get("C") and len(nodes[1]) == 2


def test_the_review_of_the_sgf_reads_back_in_imago(tmp_path):
    path = tmp_path / "out.sgf"
    write_review_sgf(reviewed(), path)
    again = load_record(str(path))
    assert [n.vertex for n in again.moves] == [n.vertex for n in record_from(GAME).moves]


def test_stats_and_summary_name_the_mistakes():
    review = reviewed()
    black, white = player_stats(review, BLACK), player_stats(review, WHITE)
    assert (black.moves, white.moves) == (4, 4)
    assert black.grades == {"good": 1, "inaccuracy": 1, "mistake": 1, "blunder": 1}
    assert black.accuracy == 0.25 and white.accuracy == 0.75
    assert black.mean_loss == pytest.approx((0 + 3.3 + 2 + 6.5) / 4)
    assert white.mean_loss == pytest.approx(7 / 4)  # the -0.2 counts as 0
    text = summary_text(review)
    assert "Alice (B) vs Bob ] the \\ second (W)" in text
    lines = [line for line in text.splitlines() if line.strip().startswith("move ")]
    assert [line.split()[1] for line in lines] == ["4", "7", "3", "5"]


def test_html_report_is_self_contained_and_lists_the_mistakes():
    review = reviewed()
    page = html_report(review, png=b"\x89PNG fake")
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert "Bob ] the \\ second" in page and "<script" not in page
    assert "http://" not in page and "https://" not in page and "<link" not in page
    assert 'src="data:image/png;base64,iVBORyBmYWtl"' in page
    for number, vertex in ((3, "G7"), (4, "C3"), (5, "G3"), (7, "D6")):
        assert f"<td>{number}</td>" in page and f"<td>{vertex}</td>" in page
    assert "<td>25%</td>" in page and "<td>75%</td>" in page
    assert "<img" not in html_report(review)


def test_plot_is_a_png(tmp_path):
    pytest.importorskip("matplotlib", reason="plots need matplotlib (pip install "
                        "'imago[review]')")
    from imago.review.plot import write_plot
    path = tmp_path / "plot.png"
    png = write_plot(reviewed(), path)
    assert path.read_bytes() == png and png.startswith(b"\x89PNG\r\n\x1a\n")
    assert len(png) > 10_000
    empty = tmp_path / "empty.png"
    write_plot(reviewed("(;SZ[9]KM[7.5])", {0: 1.0}), empty)
    assert empty.read_bytes().startswith(b"\x89PNG")
