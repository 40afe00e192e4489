"""The pages in a real browser (Debian's chromium through Playwright) at a phone's size, 390×844.

Each test saves screenshots under ``artifacts/web/`` for a person to look at. The server is the real
one (waitress, one process) around a real game service without a camera.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from live.service import GameService
from table import parse_placement
from web import create_app
from web.server import Server

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "artifacts" / "web"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
PIN = "2468"
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    playwright_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip("chromium is not installed (apt-get install chromium)")
    SHOTS.mkdir(parents=True, exist_ok=True)
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield browser
        browser.close()


class Table:
    """A running server with a game service, and its URL."""

    def __init__(self, **config: Any) -> None:
        self.folder = tempfile.mkdtemp(prefix="qwirkle-web-")
        self.service = GameService(f"{self.folder}/games.sqlite3")
        self.app = create_app(self.service, {"PIN": PIN, **config})
        self.server = Server(self.app, port=0)
        self.server.start()
        self.url = f"http://127.0.0.1:{self.server.port}"

    def close(self) -> None:
        self.server.stop()
        self.service.close()
        shutil.rmtree(self.folder, ignore_errors=True)


@pytest.fixture
def table() -> Iterator[Table]:
    running = Table()
    running.service.new_game(["Ann", "Bob", "Cid"], turn_seconds=90)
    running.service.play(parse_placement("Ro@0,0 Rs@0,1 Rd@0,2"))
    running.service.play(parse_placement("Bo@1,0 Bs@1,1"))
    yield running
    running.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport=PHONE, device_scale_factor=2)
    page = context.new_page()
    page.set_default_timeout(10_000)
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    yield page
    context.close()
    assert errors == [], errors


def cell_point(page: Any, selector: str, row: int, col: int) -> tuple[float, float]:
    """Where on the screen the centre of board cell (row, col) is drawn in the SVG ``selector``
    (scrolled to the middle of the screen first, clear of the tab bar)."""
    point: list[float] = page.evaluate(
        """([sel, r, c]) => {
            const svg = document.querySelector(sel), p = svg.createSVGPoint();
            svg.scrollIntoView({ block: "center" });
            p.x = c + 0.5; p.y = r + 0.5;
            const q = p.matrixTransform(svg.getScreenCTM());
            return [q.x, q.y];
        }""",
        [selector, row, col],
    )
    return point[0], point[1]


def test_the_scoreboard_loads_and_a_live_update_arrives(page: Any, table: Table) -> None:
    page.goto(table.url + "/")
    side = page.locator('.side[data-side="Cid"]')
    page.wait_for_selector('.side[data-side="Ann"] .total >> text="3"')
    assert side.get_attribute("class") is not None and "to-move" in side.get_attribute("class")
    assert page.locator("#link.live").count() == 1
    page.screenshot(path=SHOTS / "scoreboard.png")
    # Cid plays: the page learns it from the event stream, without a reload.
    table.service.play(parse_placement("Go@-1,0"))
    page.wait_for_selector('.side[data-side="Cid"] .total >> text="3"', timeout=5000)
    assert "Cid" in page.inner_text("#last-text") and "+3" in page.inner_text("#last-text")
    assert "to-move" in (page.locator('.side[data-side="Ann"]').get_attribute("class") or "")
    assert page.inner_text("#bag") == str(table.service.state()["bag"])
    page.screenshot(path=SHOTS / "scoreboard-updated.png")


def test_a_qwirkle_is_celebrated_and_the_final_standings_show_the_winner(page: Any, table: Table) -> None:
    page.goto(table.url + "/")
    page.wait_for_selector("#sides .side")
    table.service.play(parse_placement("Rx@0,3 Rt@0,4 Rc@0,5"))
    page.wait_for_selector("#celebrate:not([hidden])", timeout=5000)
    assert "QWIRKLE" in page.inner_text("#celebrate")
    page.screenshot(path=SHOTS / "qwirkle.png")
    table.service.end_game()
    page.wait_for_selector("#final:not([hidden])", timeout=5000)
    assert "final standings" in page.inner_text("#final").lower()
    assert page.locator("#final li").first.inner_text().startswith("Cid 12 winner")
    page.wait_for_timeout(3800)  # the celebration fades
    page.screenshot(path=SHOTS / "final.png")


def test_a_correction_asks_for_the_pin_once(page: Any, table: Table) -> None:
    before = table.service.state()["scores"]["Bob"]
    page.goto(table.url + "/setup")
    page.wait_for_selector("#adjust-side option", state="attached")
    page.select_option("#adjust-side", "Bob")
    page.fill('#adjust input[name="points"]', "4")
    page.fill('#adjust input[name="note"]', "missed a line")
    page.click('#adjust button[type="submit"]')
    page.wait_for_selector("#pin-dialog[open]")
    page.fill("#pin-dialog input", "1111")
    page.click('#pin-dialog button[type="submit"]')
    page.wait_for_selector("#pin-dialog .msg >> text=/wrong PIN/")
    page.screenshot(path=SHOTS / "pin-wrong.png")
    page.fill("#pin-dialog input", PIN)
    page.click('#pin-dialog button[type="submit"]')
    page.wait_for_selector("#toast.show >> text=/for Bob/")
    assert table.service.state()["scores"]["Bob"] == before + 4
    # Unlocked now: the next change goes straight through.
    page.click("#undo")
    page.wait_for_selector("#toast.show >> text=Undone")
    assert table.service.state()["scores"]["Bob"] == before
    assert page.locator("#pin-dialog[open]").count() == 0
    page.screenshot(path=SHOTS / "setup.png", full_page=True)


def test_the_dispute_checker_explains_a_placement_and_a_past_turn(page: Any, table: Table) -> None:
    page.goto(table.url + "/dispute")
    page.wait_for_selector('#palette button[data-tile="blue:diamond"]')
    page.wait_for_selector("#board .tile")
    page.click('#palette button[data-tile="blue:diamond"]')
    page.mouse.click(*cell_point(page, "#board", 1, 2))
    page.click("#check")
    page.wait_for_selector("#verdict.legal")
    expected = table.service.check(parse_placement("Bd@1,2"))["score"]
    assert f"Legal: {expected} points" in page.inner_text("#verdict")
    page.screenshot(path=SHOTS / "dispute-legal.png")
    # A green circle next to it breaks two rules, each said in plain words and marked on the board.
    page.click('#palette button[data-tile="green:circle"]')
    page.mouse.click(*cell_point(page, "#board", 1, 3))
    page.click("#check")
    page.wait_for_selector("#verdict.illegal")
    text = page.inner_text("#verdict")
    assert "neither one colour nor one shape" in text
    assert page.locator("#board rect.mark.bad").count() >= 1
    page.screenshot(path=SHOTS / "dispute-illegal.png")
    # Where can a tile go?
    page.click("#clear")
    page.click('#palette button[data-tile="red:circle"]')
    page.click("#spots")
    page.wait_for_selector("#verdict >> text=/fits in/")
    assert page.locator("#board rect.mark.spot").count() == len(
        table.service.spots({"colour": "red", "shape": "circle"})["cells"]
    )
    # Tap a past turn.
    page.click('#turns li[data-turn="1"]')
    page.wait_for_selector("#verdict.legal >> text=/Legal: 3 points/")
    page.screenshot(path=SHOTS / "dispute-turn.png")


def test_the_board_page_draws_every_tile_and_marks_the_last_placement(page: Any, table: Table) -> None:
    page.goto(table.url + "/board")
    page.wait_for_selector("#board .tile")
    assert page.locator("#board .tile").count() == 5
    assert page.locator("#board rect.mark.last").count() == 2
    page.screenshot(path=SHOTS / "board.png")


def test_the_join_page_shows_the_qr_code(page: Any, table: Table) -> None:
    page.goto(table.url + "/join")
    assert page.locator(".qr svg").count() == 1
    assert page.inner_text("#pin") == PIN  # loopback is the device itself
    page.screenshot(path=SHOTS / "join.png")


def test_without_event_streams_the_page_falls_back_to_polling(page: Any) -> None:
    table = Table(SSE_MAX_STREAMS=0)
    try:
        table.service.new_game(["Ann", "Bob"])
        page.goto(table.url + "/")
        page.wait_for_selector("#link.poll", timeout=8000)
        table.service.play(parse_placement("Go@0,0 Gs@0,1"))
        page.wait_for_selector('.side[data-side="Ann"] .total >> text="2"', timeout=5000)
    finally:
        table.close()


def test_the_calibration_wizard_learns_from_the_camera_and_is_accepted(page: Any) -> None:
    from calibration import arrangement
    from table import tileset
    from vision.frames import Frame
    from vision.render import Conditions, Scene, render

    conditions = Conditions(px_per_tile=70.0, tilt=5.0, rotation=3.0, table="dark-wood", jpeg_quality=92)
    scene = Scene(arrangement(tileset("classic")), "classic", conditions, size=(768, 1024), table_seed=11)
    running = Table()
    try:
        running.service.new_game(["Ann", "Bob"])
        running.service.feed(Frame(render(scene).image, 0, 0.0))
        page.goto(running.url + "/setup")
        page.click("#calibrate-link")
        page.wait_for_selector("#known-view .tile")
        assert page.locator("#known-view .tile").count() == 36  # the 6×6 order, drawn
        page.click("#take")
        page.wait_for_selector("#pin-dialog[open]")
        page.fill("#pin-dialog input", PIN)
        page.click('#pin-dialog button[type="submit"]')
        page.wait_for_selector("#step-result:not([hidden])", timeout=30_000)
        assert "Found 36 of the 36" in page.inner_text("#summary")
        assert page.locator("#margins tr").count() == 12  # six colours and six shapes
        page.wait_for_function("document.getElementById('sheet').naturalWidth > 0")
        page.screenshot(path=SHOTS / "calibrate.png", full_page=True)
        page.click("#accept")
        page.wait_for_selector("#current >> text=/learned from the arrangement/", timeout=5000)
        assert running.service.state()["calibration"]["learned_from"] == "arrangement"
    finally:
        running.close()
