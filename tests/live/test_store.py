"""The SQLite store: one transaction per change, resumable, browsable; bad files named."""

import pytest

from live.store import GameStore, StoreError


def test_changes_are_stored_with_their_versions(tmp_path):
    store = GameStore(tmp_path / "g.sqlite3")
    game = store.create({"summary": {}, "n": 0}, version=1, kind="new-game", data={"players": ["A", "B"]})
    store.record(game, {"summary": {}, "n": 1}, version=3, kind="turn", data={"points": 4}, over=False)
    store.note_version(7)
    assert store.max_version() == 7
    assert store.latest().snapshot["n"] == 1
    assert [e["kind"] for e in store.events(game)] == ["new-game", "turn"]
    assert store.load(game).version == 3
    assert store._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    store.close()
    again = GameStore(tmp_path / "g.sqlite3")
    assert [g.id for g in again.games()] == [game]
    with pytest.raises(StoreError, match="no game 99"):
        again.load(99)


def test_a_failed_change_leaves_nothing(tmp_path):
    store = GameStore(tmp_path / "g.sqlite3")
    game = store.create({"n": 0}, version=1, kind="new-game", data={})
    with pytest.raises(StoreError, match="cannot write"):
        store.record(game, {"n": 1}, version=1, kind="turn", data={}, over=False)  # version taken
    assert store.load(game).snapshot == {"n": 0}
    assert len(store.events(game)) == 1


def test_a_file_that_is_not_a_store_is_named(tmp_path):
    bad = tmp_path / "junk.sqlite3"
    bad.write_bytes(b"not a database at all" * 100)
    with pytest.raises(StoreError, match=r"junk\.sqlite3"):
        GameStore(bad)
