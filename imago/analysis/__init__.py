"""KataGo-compatible JSON analysis engine (`imago analysis`)."""
