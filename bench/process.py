"""Helpers for benchmarks that start a server process on loopback and watch its memory."""

from __future__ import annotations

import socket
from pathlib import Path

HOST = "127.0.0.1"


def free_port() -> int:
    """A TCP port on loopback that is free right now."""
    with socket.socket() as s:
        s.bind((HOST, 0))
        port: int = s.getsockname()[1]
        return port


def rss_mb(pid: int) -> float:
    """Resident memory of process ``pid`` in MB (0 once the process is gone)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return 0.0
    for line in status.splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0
