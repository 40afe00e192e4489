"""kill -9 at random moments of a game: the resumed game equals the uninterrupted one.

The full campaign (100 kills and more) is ``scripts/kill9.py``; this runs a short one.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "kill9.py"


@pytest.mark.slow
def test_killed_services_resume_the_game_exactly():
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--kills", "3", "--moves", "12", "--seed", "7"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    said = f"exit {done.returncode}; stderr: {done.stderr[-2000:]}"  # shown if anything below fails
    lines = done.stdout.strip().splitlines()
    assert lines, said
    report = json.loads(lines[-1])
    assert report["kills"] >= 3, said
    assert report["all_equal"], (report["detail"], said)
    assert done.returncode == 0, said
