"""Following a live game: turn detection from frames, the game service, persistence."""
