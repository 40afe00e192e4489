"""Games kept in SQLite (stdlib ``sqlite3``, write-ahead log): nothing lost, nothing counted twice.

Two tables. ``games`` holds one row per game with its latest snapshot (the game's moves and the follow
state that must survive a restart); ``events`` holds every stored change with its version, for the
history and the export. A change is one transaction that inserts the event and updates the snapshot, and
the service commits it *before* announcing it, so after a crash or a power cut (``synchronous=FULL``) the
store holds exactly the announced changes, or those plus the one being written, never half of one.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from table.errors import QwirkleError

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    over INTEGER NOT NULL DEFAULT 0,
    version INTEGER NOT NULL,
    snapshot TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    version INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL REFERENCES games(id),
    at REAL NOT NULL,
    kind TEXT NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_by_game ON events(game_id, version);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
"""


class StoreError(QwirkleError, OSError):
    """The game store cannot be opened, read or written; the message names the file."""


@dataclass(frozen=True)
class StoredGame:
    """One game as stored: its id, times (seconds since the epoch), whether it is over, the version of
    its last change and its snapshot (the service's own JSON)."""

    id: int
    created: float
    updated: float
    over: bool
    version: int
    snapshot: dict[str, Any]


class GameStore:
    """The SQLite file at ``path`` (created if missing). Thread-safe: one connection behind a lock."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(SCHEMA)
        except (sqlite3.Error, OSError) as err:
            raise StoreError(f"game store {self.path}: cannot open ({err})") from None

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # Writing ------------------------------------------------------------------------------------------
    def create(self, snapshot: dict[str, Any], *, version: int, kind: str, data: dict[str, Any]) -> int:
        """Store a new game with its first event; return its id."""
        now = time.time()
        with self._transaction() as db:
            cur = db.execute(
                "INSERT INTO games (created, updated, over, version, snapshot) VALUES (?, ?, 0, ?, ?)",
                (now, now, version, json.dumps(snapshot)),
            )
            game_id = cur.lastrowid
            assert game_id is not None
            db.execute(
                "INSERT INTO events (version, game_id, at, kind, data) VALUES (?, ?, ?, ?, ?)",
                (version, game_id, now, kind, json.dumps(data)),
            )
        return game_id

    def record(
        self,
        game_id: int,
        snapshot: dict[str, Any],
        *,
        version: int,
        kind: str,
        data: dict[str, Any],
        over: bool,
    ) -> None:
        """Store one change of game ``game_id`` and its new snapshot, in one transaction."""
        now = time.time()
        with self._transaction() as db:
            db.execute(
                "INSERT INTO events (version, game_id, at, kind, data) VALUES (?, ?, ?, ?, ?)",
                (version, game_id, now, kind, json.dumps(data)),
            )
            cur = db.execute(
                "UPDATE games SET updated = ?, over = ?, version = ?, snapshot = ? WHERE id = ?",
                (now, int(over), version, json.dumps(snapshot), game_id),
            )
            if cur.rowcount != 1:
                raise StoreError(f"game store {self.path}: no game {game_id}")

    # Reading ------------------------------------------------------------------------------------------
    def latest(self) -> StoredGame | None:
        """The most recently created game, or None in an empty store."""
        row = self._one("SELECT * FROM games ORDER BY id DESC LIMIT 1", ())
        return self._game(row) if row else None

    def load(self, game_id: int) -> StoredGame:
        row = self._one("SELECT * FROM games WHERE id = ?", (game_id,))
        if row is None:
            raise StoreError(f"game store {self.path}: no game {game_id}")
        return self._game(row)

    def games(self) -> list[StoredGame]:
        """Every stored game, newest first."""
        with self._lock:
            rows = self._read("SELECT * FROM games ORDER BY id DESC", ())
        return [self._game(r) for r in rows]

    def events(self, game_id: int) -> list[dict[str, Any]]:
        """The stored changes of one game, oldest first: version, at, kind, data."""
        with self._lock:
            rows = self._read(
                "SELECT version, at, kind, data FROM events WHERE game_id = ? ORDER BY version", (game_id,)
            )
        return [
            {"version": v, "at": at, "kind": kind, "data": self._json(data, f"event {v}")}
            for v, at, kind, data in rows
        ]

    def note_version(self, version: int) -> None:
        """Remember that ``version`` was given out (survives a crash of the process, not of the power)."""
        with self._lock:
            try:
                self._db.execute("PRAGMA synchronous=NORMAL")
                self._db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('version', ?)", (version,))
                self._db.execute("PRAGMA synchronous=FULL")
            except sqlite3.Error as err:
                raise StoreError(f"game store {self.path}: cannot write ({err})") from None

    def max_version(self) -> int:
        """The largest version stored or noted (0 in an empty store)."""
        row = self._one(
            "SELECT MAX(COALESCE((SELECT MAX(version) FROM events), 0),"
            " COALESCE((SELECT value FROM meta WHERE key = 'version'), 0))",
            (),
        )
        return int(row[0]) if row else 0

    # Plumbing -----------------------------------------------------------------------------------------
    def _transaction(self) -> _Transaction:
        return _Transaction(self)

    def _one(self, sql: str, params: tuple[Any, ...]) -> tuple[Any, ...] | None:
        with self._lock:
            rows = self._read(sql, params)
        return rows[0] if rows else None

    def _read(self, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        try:
            return self._db.execute(sql, params).fetchall()
        except sqlite3.Error as err:
            raise StoreError(f"game store {self.path}: cannot read ({err})") from None

    def _game(self, row: tuple[Any, ...]) -> StoredGame:
        game_id, created, updated, over, version, snapshot = row
        return StoredGame(
            game_id, created, updated, bool(over), version, self._json(snapshot, f"game {game_id}")
        )

    def _json(self, text: str, what: str) -> Any:
        try:
            return json.loads(text)
        except json.JSONDecodeError as err:
            raise StoreError(f"game store {self.path}: {what} is corrupt ({err.msg})") from None


class _Transaction:
    """``BEGIN IMMEDIATE`` … ``COMMIT`` under the store's lock; any failure rolls back and names the file."""

    def __init__(self, store: GameStore) -> None:
        self.store = store

    def __enter__(self) -> sqlite3.Connection:
        self.store._lock.acquire()
        try:
            self.store._db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as err:
            self.store._lock.release()
            raise StoreError(f"game store {self.store.path}: cannot write ({err})") from None
        return self.store._db

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: Any) -> None:
        db = self.store._db
        try:
            if exc_type is None:
                try:
                    db.execute("COMMIT")
                except sqlite3.Error as err:
                    db.execute("ROLLBACK")
                    raise StoreError(f"game store {self.store.path}: cannot write ({err})") from None
            else:
                db.execute("ROLLBACK")
                if isinstance(exc, sqlite3.Error):
                    raise StoreError(f"game store {self.store.path}: cannot write ({exc})") from None
        finally:
            self.store._lock.release()
