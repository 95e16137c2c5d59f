"""The installable app's service worker: its shell is every file of the client (the list
has one home, the folder) and its version follows their contents, so a changed client
replaces the one a phone keeps."""

from __future__ import annotations

from pathlib import Path

from nertz.server.http.installable import shell_files, worker_script
from nertz.server.http.web import WEB_DIR

WORKER = 'const SHELL = "__SHELL__";\nconst CACHE = "nertz-shell-__VERSION__";\n'


def client(root: Path) -> Path:
    (root / "js").mkdir(parents=True)
    (root / "index.html").write_text("<!doctype html>")
    (root / "sw.js").write_text(WORKER)
    (root / "js" / "main.js").write_text("export {};")
    return root


def test_the_shell_is_every_file_of_the_client_and_its_version_follows_them(
    tmp_path: Path,
) -> None:
    web = client(tmp_path / "web")
    assert shell_files(web) == ["/", "/static/index.html", "/static/js/main.js"]
    first = worker_script(web)
    assert '"/static/js/main.js"' in first and "__VERSION__" not in first
    assert worker_script(web) == first
    (web / "js" / "main.js").write_text("export const changed = true;")
    assert worker_script(web) != first


def test_the_real_client_shell_holds_the_page_its_modules_and_icons() -> None:
    shell = shell_files(WEB_DIR)
    for url in ("/", "/static/js/main.js", "/static/css/app.css", "/static/icons/icon-512.png"):
        assert url in shell
    assert "/static/sw.js" not in shell
