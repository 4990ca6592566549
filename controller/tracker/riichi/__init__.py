"""The riichi family of the tracker (four and three players)."""
