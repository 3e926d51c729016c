"""The ASCII board of GTP showboard."""

from imago.game import BLACK, GameState, format_board, vertex_to_index


def test_columns_stay_aligned_with_the_last_move_anywhere():
    for size in (5, 9, 19):
        for col in "ABCDEFGHJKLMNOPQRST"[:size]:
            game = GameState(size)
            game.play(BLACK, vertex_to_index(f"{col}2", size))
            lines = format_board(game.board, last_move=game.current.point).splitlines()
            header = lines[0]
            row = lines[size - 1]  # GTP row 2
            assert row[header.index(col)] == "X", (size, col, row)
            assert row[header.index(col) - 1] == "(" and row[header.index(col) + 1] == ")"
            assert len({len(line.rstrip()) for line in lines[1:-1]}) == 1 or size >= 10


def test_captures_are_counted_in_words():
    text = format_board(GameState(9).board, captures=(1, 2))
    assert "captured 1 stone" in text and "captured 2 stones" in text
