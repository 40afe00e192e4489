"""calibration/file.py: the calibration file round-trips, is written atomically, and every wrong key or
value is a one-line error naming the file and the key."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import numpy as np
import pytest

from calibration import Calibration, CalibrationError, load, save
from calibration.file import from_json
from calibration.geometry import Geometry, Lens, Plane
from table import tileset
from vision import default_prototypes
from vision.pi_camera import CameraSettings


def _full() -> Calibration:
    protos = default_prototypes(tileset("classic"))
    return Calibration(
        tileset="classic",
        prototypes=protos,
        balance=np.array([0.7, 1.0, 1.3]),
        size=(1024, 768),
        samples={"colours": {"red": 6}, "shapes": {"circle": 6}},
        geometry=Geometry(
            pitch=44.5,
            angle=3.0,
            cell_to_image=np.array([[44.0, 1, 100], [-1, 44, 200], [0, 0, 1]]),
            play_area=np.array([[10.0, 10], [10, 500], [400, 500], [400, 10]]),
            plane=Plane(np.eye(3), 25.0, 0.2, 48),
            lens=Lens(
                np.array([[700.0, 0, 511.5], [0, 700, 383.5], [0, 0, 1]]),
                np.array([-0.1, 0.01, 0, 0, 0]),
                (1024, 768),
                0.3,
            ),
        ),
        camera=CameraSettings(12000, 2.5, (1.9, 1.6), 1.25, True),
        source={"photo": "p.jpg", "known": "arrangement", "tiles": 36, "refined": 0},
    )


def test_round_trip_keeps_everything(tmp_path: Path) -> None:
    path = save(_full(), tmp_path / "cal.json")
    back = load(path)
    assert back.tileset == "classic"
    assert back.size == (1024, 768)
    assert np.allclose(back.balance, [0.7, 1.0, 1.3])
    assert back.samples == {"colours": {"red": 6}, "shapes": {"circle": 6}}
    assert back.camera == CameraSettings(12000, 2.5, (1.9, 1.6), 1.25, True)
    assert back.source["known"] == "arrangement"
    g = back.geometry
    assert g.pitch == 44.5 and g.plane is not None and g.lens is not None
    assert g.cell_to_image is not None and np.allclose(g.cell_to_image[0], [44, 1, 100])
    assert g.lens.size == (1024, 768) and np.allclose(g.lens.distortion[:2], [-0.1, 0.01])
    for name, value in _full().prototypes.colours.items():
        assert np.allclose(back.prototypes.colours[name], value, atol=1e-3)
    data = json.loads(path.read_text())
    assert data["schema"] == 1 and data["width"] == 1024 and data["height"] == 768  # the doctor reads these
    assert data["created"]


def test_save_is_atomic_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    path = tmp_path / "cal.json"
    path.write_text("old", encoding="utf-8")
    inode = path.stat().st_ino
    save(_full(), path)
    assert path.stat().st_ino != inode  # replaced by a rename, not rewritten in place
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cal.json"]
    with pytest.raises(OSError):
        save(_full(), tmp_path / "no-such-folder" / "cal.json")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cal.json"]


def test_a_failed_write_keeps_the_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "cal.json"
    save(_full(), path)
    before = path.read_text()

    def broken(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", broken)
    with pytest.raises(OSError, match="No space"):
        save(_full(), path)
    assert path.read_text() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cal.json"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(colour="x"), r"c\.json: unknown key colour \(known: schema"),
        (lambda d: d["geometry"].update(pitchh=3), r"unknown key geometry\.pitchh"),
        (lambda d: d["geometry"]["plane"].update(foo=1), r"unknown key geometry\.plane\.foo"),
        (lambda d: d["geometry"]["lens"].update(k1=1), r"unknown key geometry\.lens\.k1"),
        (lambda d: d["camera"].update(iso=100), r"unknown key camera\.iso"),
        (lambda d: d["prototypes"].update(hue=1), r"unknown key prototypes\.hue"),
        (lambda d: d["source"].update(when=1), r"unknown key source\.when"),
        (lambda d: d["samples"].update(tiles=1), r"unknown key samples\.tiles"),
        (lambda d: d.update(schema=2), r"schema 2 is not supported"),
        (lambda d: d.pop("prototypes"), r"missing key prototypes"),
        (lambda d: d.update(balance=[1, 1]), r"balance must be a list of 3 numbers"),
        (lambda d: d.update(balance=[1, 0, 1]), r"balance values must be within"),
        (lambda d: d.update(width="wide"), r"width must be a whole number"),
        (
            lambda d: d.update(tileset="herkle"),
            r"prototypes\.tileset 'classic' differs from tileset 'herkle'",
        ),
        (
            lambda d: d["geometry"].update(cell_to_image=[[1, 2], [3, 4]]),
            r"geometry\.cell_to_image must be a 3×3",
        ),
        (
            lambda d: d["geometry"].update(play_area=[[1, 2]]),
            r"geometry\.play_area must be a list of at least 3",
        ),
        (lambda d: d["camera"].update(analogue_gain="high"), r"camera\.analogue_gain: expected a number"),
        (lambda d: d["camera"].pop("exposure_us"), r"missing key camera\.exposure_us"),
        (lambda d: d["prototypes"].update(colour_spread=-1), r"prototypes\.colour_spread must be a positive"),
        (lambda d: d["prototypes"]["colours"].update(red=[1, 2]), r"c\.json"),
    ],
)
def test_bad_content_names_file_and_key(tmp_path: Path, change: object, message: str) -> None:
    data = _full().to_json()
    change(data)  # type: ignore[operator]
    path = tmp_path / "c.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(CalibrationError, match=message) as err:
        load(path)
    assert "\n" not in str(err.value)


def test_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(CalibrationError, match=r"nope\.json: no such file"):
        load(tmp_path / "nope.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{oops", encoding="utf-8")
    with pytest.raises(CalibrationError, match=r"bad\.json: not valid JSON \(line 1"):
        load(bad)
    bad.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(CalibrationError, match="expected a JSON object, got list"):
        load(bad)
    bad.write_text('{"hello": 1}', encoding="utf-8")
    with pytest.raises(CalibrationError, match="not a calibration file"):
        load(bad)


def test_the_older_bare_prototypes_still_load() -> None:
    protos = default_prototypes(tileset("connect"))
    for data in (protos.to_json(), {"prototypes": protos.to_json()}):
        cal = from_json(data, where="old.json")
        assert cal.tileset == "connect"
        assert np.allclose(cal.balance, 1.0)
        assert cal.geometry.pitch is None and cal.camera is None


def test_the_photos_body_balance_round_trips_and_older_files_load_without_it(tmp_path: Path) -> None:
    cal = _full()
    gains = np.array([0.5, 1.3, 1.2])
    with_gains = dataclasses.replace(cal, prototypes=dataclasses.replace(cal.prototypes, body_gains=gains))
    save(with_gains, tmp_path / "cal.json")
    back = load(tmp_path / "cal.json").prototypes.body_gains
    assert back is not None and np.allclose(back, gains)
    save(cal, tmp_path / "old.json")
    assert "body_gains" not in json.loads((tmp_path / "old.json").read_text())["prototypes"]
    assert load(tmp_path / "old.json").prototypes.body_gains is None
