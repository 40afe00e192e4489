"""The HTML pages: each is served, self-contained (nothing from another host), and small."""

from __future__ import annotations

import re

import pytest
from flask.testing import FlaskClient

PAGES = ["/", "/board", "/history", "/dispute", "/setup", "/join"]


@pytest.mark.parametrize("path", PAGES)
def test_every_page_is_served_with_the_shared_shell(client: FlaskClient, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert '<meta name="csrf" content="' in html
    assert 'id="tilesets"' in html and '"herkle"' in html
    assert 'aria-current="page"' in html


@pytest.mark.parametrize("path", PAGES)
def test_no_page_loads_anything_from_another_host(client: FlaskClient, path: str) -> None:
    html = client.get(path).get_data(as_text=True)
    for url in re.findall(r'(?:src|href)="([^"]+)"', html):
        assert url.startswith(("/", "data:", "#")) or url == client.get("/join").request.host_url, url
        if url.startswith("/static/"):
            asset = client.get(url)
            assert asset.status_code == 200, url
            text = asset.data.replace(b"http://www.w3.org/2000/svg", b"")  # a namespace name, not a fetch
            assert b"http://" not in text and b"https://" not in text and b"//cdn" not in text, url


def test_the_join_page_shows_the_url_as_text_and_qr_and_the_pin_only_locally(client: FlaskClient) -> None:
    html = client.get("/join").get_data(as_text=True)
    assert "http://localhost/" in html
    assert "<svg" in html and 'class="segno"' in html
    assert 'id="pin">4321<' in html
    remote = client.get("/join", environ_base={"REMOTE_ADDR": "192.168.1.50"}).get_data(as_text=True)
    assert "4321" not in remote
    assert "shown on the table's own screen" in remote


def test_the_join_page_uses_the_public_url_when_configured(client: FlaskClient) -> None:
    client.application.config["PUBLIC_URL"] = "http://192.168.1.20:8000/"
    assert "http://192.168.1.20:8000/" in client.get("/join").get_data(as_text=True)


def test_an_unknown_page_is_a_404_page(client: FlaskClient) -> None:
    response = client.get("/nowhere")
    assert response.status_code == 404
    assert "no such page" in response.get_data(as_text=True)
    assert client.get("/api/nowhere").get_json()["error"] == "/api/nowhere: no such page"


def test_page_weight_is_small(client: FlaskClient) -> None:
    """Every page with every asset it loads stays under 60 kB uncompressed (docs/web.md states it)."""
    for path in PAGES:
        html = client.get(path).data
        assets = re.findall(rb'(?:src|href)="(/static/[^"]+)"', html)
        total = len(html) + sum(len(client.get(a.decode()).data) for a in assets)
        assert total < 60_000, (path, total)
