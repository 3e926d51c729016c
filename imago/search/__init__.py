"""Tree search over positions: PUCT Monte Carlo tree search."""
