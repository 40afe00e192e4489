"""The real server (waitress in this process), the URL shown to people, and ``qwirkle serve``'s errors."""

from __future__ import annotations

import http.client
import socket
from pathlib import Path

import pytest
from flask import Flask

from live.service import GameService
from qwirkle import main
from web import create_app
from web.server import Server, lan_address, open_service, public_url, terminal_qr


def test_the_server_serves_pages_and_a_live_stream_over_a_socket(app: Flask, service: GameService) -> None:
    server = Server(app, port=0)
    server.start()
    try:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        conn.request("GET", "/")
        assert conn.getresponse().read().startswith(b"<!doctype html>")
        stream = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        stream.request("GET", "/events")
        response = stream.getresponse()
        assert response.getheader("Content-Type", "").startswith("text/event-stream")
        assert response.readline() == b"retry: 2000\n"
        service.new_game(["Ann", "Bob"])
        lines = [response.readline() for _ in range(6)]
        assert any(line.startswith(b"id: ") for line in lines)
    finally:
        server.stop()


def test_the_thread_pool_must_outnumber_the_open_streams(app: Flask) -> None:
    with pytest.raises(ValueError, match="threads"):
        Server(app, port=0, threads=10)


def test_the_public_url_uses_the_lan_address_when_listening_everywhere() -> None:
    assert public_url("127.0.0.1", 8000) == "http://127.0.0.1:8000/"
    assert public_url("0.0.0.0", 8000) == f"http://{lan_address()}:8000/"
    assert public_url("::1", 80) == "http://[::1]:80/"


def test_the_console_qr_code_is_drawn_with_block_characters() -> None:
    text = terminal_qr("http://192.168.1.20:8000/")
    assert "█" in text and len(text.splitlines()) > 10


def test_no_source_means_no_camera(tmp_path: Path) -> None:
    service = open_service(None, store=str(tmp_path / "g.sqlite3"), variant="herkle")
    try:
        state = service.state()
        assert state["camera"]["source"] is None and state["players"] == []
        service.new_game(["Ann", "Bob"])
        assert service.state()["variant"] == "herkle"
    finally:
        service.close()


def test_a_bad_source_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["serve", "--source", "webcam", "--store", str(tmp_path / "g.sqlite3")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("qwirkle serve: ") and "webcam" in err and err.count("\n") == 1


def test_a_port_in_use_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code = main(
            ["serve", "--host", "127.0.0.1", "--port", str(port), "--store", str(tmp_path / "g.sqlite3")]
        )
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"qwirkle serve: cannot listen on 127.0.0.1:{port}") and err.count("\n") == 1


def test_a_bad_pin_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["serve", "--pin", "12", "--port", "0", "--store", str(tmp_path / "g.sqlite3")]) == 2
    assert "PIN '12': must be 4 to 8 digits" in capsys.readouterr().err


def test_create_app_attaches_the_service(service: GameService) -> None:
    app = create_app(service, {"PIN": "1234"})
    assert app.extensions["qwirkle"].service is service
