"""The COCO data archive by name (`cocopipe archive`, `archive:NAME` sources), against a test archive
served on 127.0.0.1 by a server each test starts and stops: never the real archive.

The test archive holds shared real and generated data sets, its definition file written by
`cocopipe archive create`; the name patterns are checked against cocopp 2.9.1's `COCODataArchive`
on a snapshot of the official `bbob` definition file (tests/fixtures/make_archive_find.py).
"""
from __future__ import annotations

import hashlib
import json
import re
import shutil
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from typer.testing import CliRunner

from conftest import ROOT, shared_or_skip
from pipeline.archive import ArchiveError
from pipeline.archive.catalog import Archive
from pipeline.archive.definition import FILENAME, create, dumps, parse
from pipeline.archive.resolve import find, resolve
from pipeline.cli import app
from pipeline.store import Store

FIXTURES = ROOT / "tests" / "fixtures"
OFFICIAL_BBOB = FIXTURES / "archive" / "bbob"
COCOPP = json.loads((FIXTURES / "archive_find_cocopp.json").read_text())
#: the test archive: name in the archive -> shared data set
LAYOUT = {
    "bbob/2009/DIRECT_posik_noiseless.tgz": "real/DIRECT_posik_noiseless.tgz",
    "bbob/2023/RS_on_bbob.tgz": "generated/RS_on_bbob.tgz",
    "bbob-mixint/2023/RS_on_bbob-mixint.tgz": "generated/RS_on_bbob-mixint.tgz",
}
DIRECT = "bbob/2009/DIRECT_posik_noiseless.tgz"


# -- the test archive and its server ---------------------------------------------------------------
class ArchiveServer:
    """An HTTP server on 127.0.0.1 serving a folder (with range requests), logging each request;
    `faults[path]` lists what the next requests of a path get instead: "corrupt" (a byte changed),
    "cut" (the connection closed half-way through the body) or "404"."""

    def __init__(self, root: Path):
        self.root = root
        self.requests: list[tuple[str, str | None]] = []
        self.faults: dict[str, list[str]] = {}
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def do_GET(self):
                path = unquote(urlsplit(self.path).path).lstrip("/")
                server.requests.append((path, self.headers.get("Range")))
                fault = server.faults.get(path, []).pop(0) if server.faults.get(path) else None
                f = server.root / path
                if fault == "404" or not f.is_file():
                    self.send_error(404)
                    return
                data = f.read_bytes()
                if fault == "corrupt":
                    data = data[:100] + bytes([data[100] ^ 0xFF]) + data[101:]
                start = 0
                rng = re.fullmatch(r"bytes=(\d+)-", self.headers.get("Range") or "")
                if rng:
                    start = int(rng[1])
                    if start >= len(data):
                        self.send_error(416)
                        return
                    self.send_response(206)
                    self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
                else:
                    self.send_response(200)
                body = data[start:]
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if fault == "cut":
                    self.wfile.write(body[: len(body) // 2])
                    self.close_connection = True
                    return
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_port}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> ArchiveServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=10)

    def data_requests(self) -> list[tuple[str, str | None]]:
        """The requests of data sets (not of definition files)."""
        return [r for r in self.requests if not r[0].endswith(FILENAME)]


def cli(*args: str):
    """Run `cocopipe ARGS` in this process; the result (exit_code, stdout, stderr)."""
    return CliRunner().invoke(app, list(args))


def one_error(res, name: str) -> str:
    """The command failed with one one-line error naming `name`, and no traceback; that line."""
    assert res.exit_code != 0, res.stdout
    lines = [ln for ln in res.stderr.splitlines() if ln.startswith("error:")]
    assert len(lines) == 1, res.stderr
    assert name in lines[0], res.stderr
    assert "Traceback" not in res.stderr + res.stdout
    return lines[0]


@pytest.fixture(scope="module")
def archive_root(tmp_path_factory) -> Path:
    """A folder of shared data sets laid out as the official archive, with the definition file that
    `cocopipe archive create` writes for it."""
    shared = shared_or_skip()
    root = tmp_path_factory.mktemp("archive")
    for name, src in LAYOUT.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shared / "data" / src, root / name)
    res = cli("archive", "create", str(root))
    assert res.exit_code == 0, res.stderr
    return root


@pytest.fixture
def env(tmp_path, monkeypatch) -> Path:
    """A cache folder of the test's own (COCOPIPE_CACHE); no archive URL or proxy from the environment."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("COCOPIPE_CACHE", str(cache))
    for var in ("COCOPIPE_ARCHIVE_URL", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy",
                "all_proxy"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    return cache


@pytest.fixture
def server(archive_root, env):
    with ArchiveServer(archive_root) as srv:
        yield srv


def cached_files(cache: Path) -> list[str]:
    """Every file in the cache (partial downloads too), by path relative to it."""
    return sorted(p.relative_to(cache).as_posix() for p in cache.rglob("*") if p.is_file()) if cache.exists() else []


# -- definition files -----------------------------------------------------------------------------
def test_create_writes_cocopps_definition_file(tmp_path):
    # the same folder as in the fixture script: byte for byte the file cocopp's `create` wrote
    for name, size in COCOPP["create"]["files"].items():
        f = tmp_path.joinpath(*name.split("/"))
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_bytes((name.encode() * (size // len(name) + 1))[:size])
    target, entries = create(tmp_path)
    assert target == tmp_path / FILENAME
    assert target.read_text() == COCOPP["create"]["text"]
    assert [e.name for e in entries] == ["bbob/2009/A-ES_x_noiseless.tgz", "bbob/2023/B_y.tar.gz",
                                         "bbob-biobj/2016/C.zip"]  # README, notes.txt, hidden files left out
    first = tmp_path / "bbob/2009/A-ES_x_noiseless.tgz"
    assert entries[0].sha256 == hashlib.sha256(first.read_bytes()).hexdigest() and entries[0].size_kb == 2


def test_create_again_keeps_the_earlier_definition(tmp_path):
    (tmp_path / "a.tgz").write_bytes(b"one")
    create(tmp_path)
    before = (tmp_path / FILENAME).read_text()
    (tmp_path / "b.tgz").write_bytes(b"two")
    create(tmp_path)
    kept = list(tmp_path.glob(f"._{FILENAME}_*"))
    assert len(kept) == 1 and kept[0].read_text() == before
    assert [e.name for e in parse((tmp_path / FILENAME).read_text(), "x").entries] == ["a.tgz", "b.tgz"]


def test_create_of_a_folder_without_data_sets_is_an_error(tmp_path):
    (tmp_path / "notes.txt").write_text("x")
    res = cli("archive", "create", str(tmp_path))
    one_error(res, str(tmp_path))
    assert not (tmp_path / FILENAME).exists()


def test_definition_with_url_pairs_and_without_sizes():
    text = "[('_url_', 'https://example.org/a'), ('x/A.tgz', '" + "a" * 64 + "'), ('B.zip', '" + "B" * 64 + "', 3)]"
    d = parse(text, "def")
    assert d.url == "https://example.org/a"
    assert [(e.name, e.size_kb) for e in d.entries] == [("x/A.tgz", None), ("B.zip", 3)]
    assert d.entries[1].sha256 == "b" * 64
    assert parse(dumps(d.entries), "again").entries == sorted(d.entries, key=lambda e: e.name)


@pytest.mark.parametrize("text, why", [
    ("[('../evil.tgz', '" + "a" * 64 + "', 1)]", "not a relative path"),
    ("[('/etc/evil.tgz', '" + "a" * 64 + "', 1)]", "not a relative path"),
    ("[('a.tgz', 'abc', 1)]", "no sha256"),
    ("[('a.tgz', '" + "a" * 64 + "', 'big')]", "is no number"),
    ("[('a.tgz', '" + "a" * 64 + "', 1), ('a.tgz', '" + "b" * 64 + "', 1)]", "appears twice"),
    ("<html>404</html>", "not an archive definition file"),
    ("{'a': 1}", "not an archive definition file"),
])
def test_bad_definition_files_are_one_line_errors(text, why):
    with pytest.raises(ArchiveError, match=why) as exc:
        parse(text, "https://example.org/coco_archive_definition.txt")
    assert "\n" not in str(exc.value) and str(exc.value).startswith("https://example.org/coco_archive_definition.txt")


# -- names, as cocopp resolves them, on the official bbob definition file --------------------------
def test_official_bbob_definition_lists_and_resolves_every_entry(tmp_path, env):
    entries = parse((OFFICIAL_BBOB / FILENAME).read_text(), "bbob").entries
    assert len(entries) == COCOPP["entries"] == 267
    res = cli("archive", "list", "--archive-url", str(OFFICIAL_BBOB), "--out", str(tmp_path / "bbob.csv"))
    assert res.exit_code == 0, res.stderr
    import polars as pl

    listed = pl.read_csv(tmp_path / "bbob.csv")
    assert listed.columns == ["name", "suite", "year", "size_kb", "sha256", "cached"]
    assert listed["name"].to_list() == [e.name for e in entries]
    assert set(listed["suite"]) == {"bbob"}  # a per-suite archive: its folder names the suite
    assert listed.filter(pl.col("name") == "2015-GECCO/BrentSTEPqi_Posik.tgz")["year"].item() == 2015
    assert listed["year"].is_null().sum() == 0 and not listed["cached"].any()
    bbob = Archive(str(OFFICIAL_BBOB))  # a suite's archive: names may start with the suite, as in the root's
    assert [e.name for e in bbob.resolve("bbob/2009/BIPOP!")] == ["2009/BIPOP-CMA-ES_hansen_noiseless.tgz"]
    for e in entries:  # every name selects its entry, whole or with `!`, and as the one meant
        assert resolve(entries, e.name) == [e]
        assert resolve(entries, e.name + "!") == [e]
        assert resolve(entries, e.name, one=True) == [e]


@pytest.mark.parametrize("pattern", [p for p, r in COCOPP["patterns"].items() if "error" not in r])
def test_patterns_select_what_cocopp_selects(pattern):
    entries = parse((OFFICIAL_BBOB / FILENAME).read_text(), "bbob").entries
    names = [e.name for e in entries]
    want = COCOPP["patterns"][pattern]
    assert find(names, pattern) == want["find"]  # COCODataArchive.find
    if not want["find"]:
        with pytest.raises(ArchiveError, match="matches no data set"):
            resolve(entries, pattern)
        return
    assert [e.name for e in resolve(entries, pattern + "*")] == want["find"]  # cocopp.main's `pattern*`
    assert [e.name for e in resolve(entries, pattern + "!")] == [want["first"]]  # cocopp.main's `pattern!`
    if want["get"] is None:  # cocopp.main's plain `pattern`: one match, or an exact name among several
        with pytest.raises(ArchiveError, match="where one is meant"):
            resolve(entries, pattern, one=True)
    else:
        assert [e.name for e in resolve(entries, pattern, one=True)] == [want["get"]]
    plain = [e.name for e in resolve(entries, pattern)]  # cocopipe's plain pattern: every match
    assert plain == ([pattern] if pattern in names else want["find"])


def test_a_pattern_that_is_no_regular_expression_is_a_substring():
    # cocopp raises re.error on "*cma"; cocopipe matches it as a substring
    assert COCOPP["patterns"]["*cma"]["error"].startswith("re.error")
    assert find(["a*cma.tgz", "cma.tgz"], "*cma") == ["a*cma.tgz"]


def test_no_match_lists_the_closest_names():
    entries = parse((OFFICIAL_BBOB / FILENAME).read_text(), "bbob").entries
    with pytest.raises(ArchiveError) as exc:
        resolve(entries, "BIPOP-CMA-ES_hansen_noisless!", where="bbob")
    msg = str(exc.value)
    assert msg.startswith("archive:BIPOP-CMA-ES_hansen_noisless! matches no data set in bbob; closest: "
                          "2009/BIPOP-CMA-ES_hansen_noiseless.tgz")
    assert "\n" not in msg


# -- which archive, and where its cache is ---------------------------------------------------------
def test_official_archives_by_name_and_the_cache_folder(env, monkeypatch, tmp_path):
    from pipeline.archive.catalog import OFFICIAL_URL, archive_location, cache_dir
    from pipeline.archive.definition import Entry

    assert archive_location() == OFFICIAL_URL == "https://numbbo.github.io/data-archive/data-archive"
    assert archive_location("all") == OFFICIAL_URL
    assert archive_location("bbob-biobj") == f"{OFFICIAL_URL}/bbob-biobj"  # cocopp's OfficialArchives
    monkeypatch.setenv("COCOPIPE_ARCHIVE_URL", "http://lab.example/arch")
    assert archive_location() == "http://lab.example/arch" and archive_location("bbob") == f"{OFFICIAL_URL}/bbob"
    assert cache_dir() == env
    root, bbob = Archive(OFFICIAL_URL), Archive("bbob")
    assert root.folder == env / "archives" / "numbbo.github.io" / "data-archive" / "data-archive"
    assert bbob.suite == "bbob" and root.suite is None
    # the suite's sub-archive shares the root's files
    assert bbob.path(Entry("2009/A.tgz", "0" * 64)) == root.path(Entry("bbob/2009/A.tgz", "0" * 64))
    assert bbob.data_url(Entry("2009/A.tgz", "0" * 64)) == f"{OFFICIAL_URL}/bbob/2009/A.tgz"
    monkeypatch.delenv("COCOPIPE_CACHE")
    import platformdirs

    assert cache_dir() == Path(platformdirs.user_cache_dir("cocopipe", appauthor=False))


# -- listing and downloading over HTTP ------------------------------------------------------------
def test_list_over_http_as_csv_in_a_pipe(server):
    res = cli("archive", "list", "--archive-url", server.url)
    assert res.exit_code == 0, res.stderr
    lines = res.stdout.splitlines()
    assert lines[0] == "name,suite,year,size_kb,sha256,cached"
    assert [ln.split(",")[:3] for ln in lines[1:]] == [["bbob/2009/DIRECT_posik_noiseless.tgz", "bbob", "2009"],
                                                        ["bbob/2023/RS_on_bbob.tgz", "bbob", "2023"],
                                                        ["bbob-mixint/2023/RS_on_bbob-mixint.tgz", "bbob-mixint", "2023"]]
    assert all(ln.endswith(",false") for ln in lines[1:])
    assert server.requests == [(FILENAME, None)]
    res = cli("archive", "list", "RS", "--suite", "bbob-mixint", "--archive-url", server.url)
    assert [ln.split(",")[0] for ln in res.stdout.splitlines()[1:]] == ["bbob-mixint/2023/RS_on_bbob-mixint.tgz"]
    assert server.requests == [(FILENAME, None)]  # the definition file is read from the cache now


def test_substring_and_first_match(server, env):
    a = Archive(server.url)
    assert [e.name for e in a.resolve("bbob/")] == [DIRECT, "bbob/2023/RS_on_bbob.tgz"]  # the whole suite
    assert [e.name for e in a.resolve("rs_on")] == ["bbob/2023/RS_on_bbob.tgz", "bbob-mixint/2023/RS_on_bbob-mixint.tgz"]
    assert [e.name for e in a.resolve("RS_on!")] == ["bbob/2023/RS_on_bbob.tgz"]
    assert [e.name for e in a.resolve(".*mixint")] == ["bbob-mixint/2023/RS_on_bbob-mixint.tgz"]
    res = cli("ingest", "archive:RS_on", "--name", "X", "--store", str(env.parent / "s"), "--archive-url", server.url)
    assert "matches 2 data sets where one is meant" in one_error(res, "archive:RS_on")
    assert server.data_requests() == []


def test_download_with_the_right_hash(server, env, archive_root):
    res = cli("archive", "get", "DIRECT!", "--archive-url", server.url)
    assert res.exit_code == 0, res.stderr
    path = Path(res.stdout.strip())
    assert path == env / "archives" / f"127.0.0.1_{server.httpd.server_port}" / DIRECT
    assert path.read_bytes() == (archive_root / DIRECT).read_bytes()
    assert server.data_requests() == [(DIRECT, None)]
    assert cached_files(env) == sorted([f"archives/127.0.0.1_{server.httpd.server_port}/{FILENAME}",
                                        f"archives/127.0.0.1_{server.httpd.server_port}/{DIRECT}"])
    res = cli("archive", "list", "DIRECT", "--archive-url", server.url)
    assert res.stdout.splitlines()[1].endswith(",true")


def test_corrupted_download_is_an_error_and_nothing_is_cached(server, env):
    server.faults[DIRECT] = ["corrupt"]
    res = cli("archive", "get", DIRECT, "--archive-url", server.url)
    line = one_error(res, DIRECT)
    assert "hash mismatch" in line and f"{server.url}/{DIRECT}" in line and "nothing cached" in line
    assert cached_files(env) == [f"archives/127.0.0.1_{server.httpd.server_port}/{FILENAME}"]


def test_interrupted_download_is_never_used_and_resumes(server, env, archive_root):
    server.faults[DIRECT] = ["cut"]
    res = cli("archive", "get", DIRECT, "--archive-url", server.url)
    line = one_error(res, DIRECT)
    assert "connection closed" in line and f"{server.url}/{DIRECT}" in line
    data = Path(env, "archives", f"127.0.0.1_{server.httpd.server_port}", DIRECT)
    assert not data.exists()  # only a hidden partial file, never read as the data set
    partial = [p for p in data.parent.iterdir() if p.name.endswith(".part")]
    assert len(partial) == 1 and partial[0].name.startswith(".")
    half = partial[0].stat().st_size
    res = cli("archive", "get", DIRECT, "--archive-url", server.url)
    assert res.exit_code == 0, res.stderr
    assert data.read_bytes() == (archive_root / DIRECT).read_bytes()
    assert server.data_requests()[-1] == (DIRECT, f"bytes={half}-")  # resumed where it stopped
    assert not list(data.parent.glob(".*.part"))


def test_a_cached_copy_with_another_hash_is_downloaded_again(server, env, archive_root):
    assert cli("archive", "get", DIRECT, "--archive-url", server.url).exit_code == 0
    data = Path(env, "archives", f"127.0.0.1_{server.httpd.server_port}", DIRECT)
    data.write_bytes(b"not the data set")
    res = cli("archive", "get", DIRECT, "--archive-url", server.url, "--offline")
    assert "differs from the definition file" in one_error(res, DIRECT)
    assert data.read_bytes() == b"not the data set"  # nothing changed offline
    assert cli("archive", "get", DIRECT, "--archive-url", server.url).exit_code == 0
    assert data.read_bytes() == (archive_root / DIRECT).read_bytes()
    assert server.data_requests() == [(DIRECT, None), (DIRECT, None)]


def test_offline_without_and_with_the_cache(server, env):
    res = cli("archive", "get", DIRECT, "--archive-url", server.url, "--offline")
    assert "not in the cache" in one_error(res, server.url)  # no definition file cached yet
    assert server.requests == []
    assert cli("archive", "list", "--archive-url", server.url).exit_code == 0  # the definition file, online
    res = cli("archive", "get", DIRECT, "--archive-url", server.url, "--offline")
    line = one_error(res, DIRECT)
    assert "not in the cache (--offline)" in line and f"cocopipe archive get {DIRECT}" in line
    assert cli("archive", "get", DIRECT, "--archive-url", server.url).exit_code == 0
    before = list(server.requests)
    res = cli("archive", "get", DIRECT, "--archive-url", server.url, "--offline")
    assert res.exit_code == 0, res.stderr
    assert Path(res.stdout.strip()).is_file() and server.requests == before


def test_missing_definition_file(archive_root, env, tmp_path):
    with ArchiveServer(tmp_path) as srv:  # a folder without coco_archive_definition.txt
        res = cli("archive", "list", "--archive-url", srv.url + "/sub")
        line = one_error(res, f"{srv.url}/sub/{FILENAME}")
        assert "HTTP 404" in line
    res = cli("ingest", "archive:DIRECT", "--store", str(tmp_path / "s"), "--archive-url", str(tmp_path))
    assert f"no {FILENAME} in this folder" in one_error(res, str(tmp_path))
    assert not cached_files(env)


def test_http_error_and_no_network_name_the_data_set(server, env):
    server.faults[DIRECT] = ["404"]
    res = cli("archive", "get", DIRECT, "--archive-url", server.url)
    assert "HTTP 404" in one_error(res, DIRECT)
    url = server.url
    server.__exit__()  # the server is gone: nothing listens on its port
    res = cli("archive", "get", "RS_on_bbob.tgz", "--archive-url", url)  # definition cached, data not
    port = url.rsplit(":", 1)[1]  # what happened, not "no network" (issue 32)
    assert f"connection refused at 127.0.0.1:{port}" in one_error(res, "bbob/2023/RS_on_bbob.tgz")


# -- archive:NAME sources --------------------------------------------------------------------------
def test_ingest_a_whole_suite_twice_downloads_nothing_the_second_time(server, env, tmp_path):
    store = tmp_path / "store"
    res = cli("ingest", "archive:bbob/", "--store", str(store), "--archive-url", server.url)
    assert res.exit_code == 0, res.stderr
    assert "2 of 2 sources read" in res.stderr
    manifest = Store(store).sources()
    direct = next(e for e in manifest.values() if e["name"] == "DIRECT_posik_noiseless")
    assert direct["archive_name"] == DIRECT and direct["archive_url"] == f"{server.url}/{DIRECT}"
    assert direct["archive_root"] == server.url
    assert direct["archive_sha256"] == hashlib.sha256((server.root / DIRECT).read_bytes()).hexdigest()
    assert sorted(server.data_requests()) == [(DIRECT, None), ("bbob/2023/RS_on_bbob.tgz", None)]
    before = list(server.requests)
    shutil.rmtree(env)  # not even the cache is needed: the store holds them with the same hash
    res = cli("ingest", "archive:bbob/", "--store", str(store), "--archive-url", server.url)
    assert res.exit_code == 0, res.stderr
    assert "DIRECT_posik_noiseless: unchanged, not read again (720 runs kept)" in res.stderr
    assert server.data_requests() == [r for r in before if not r[0].endswith(FILENAME)]


def test_ingest_keeps_what_it_can_read_when_a_download_fails(server, env, tmp_path):
    server.faults["bbob/2023/RS_on_bbob.tgz"] = ["corrupt"]
    res = cli("ingest", "archive:bbob/", "--store", str(tmp_path / "s"), "--archive-url", server.url)
    assert "1 of 2 sources read" in res.stderr
    assert re.search(r"archive:bbob/2023/RS_on_bbob\.tgz: http://\S+: hash mismatch .*nothing cached", res.stderr)
    assert "Traceback" not in res.stderr
    kept = Store(tmp_path / "s").sources().values()
    assert [e["name"] for e in kept] == ["DIRECT_posik_noiseless"]


def test_archive_url_from_the_environment_and_a_local_folder(archive_root, env, tmp_path, monkeypatch):
    monkeypatch.setenv("COCOPIPE_ARCHIVE_URL", str(archive_root))
    res = cli("ingest", "archive:mixint", "--store", str(tmp_path / "s"))
    assert res.exit_code == 0, res.stderr
    entry = next(e for e in Store(tmp_path / "s").sources().values()
                 if e["name"] == "RS_on_bbob-mixint")
    assert entry["path"] == str(archive_root / "bbob-mixint/2023/RS_on_bbob-mixint.tgz")  # used in place
    assert entry["archive_root"] == str(archive_root)
    assert not cached_files(env)


def test_python_api_ingests_archive_names(server, env, tmp_path):
    from pipeline.api import open_store
    from pipeline.store import Store

    Store(tmp_path / "s", create=True)
    st = open_store(tmp_path / "s")
    summary = st.ingest("archive:bbob-mixint/", tmp_path / "missing", archive_url=server.url)
    assert [(s.name, s.status) for s in summary.sources] == [("RS_on_bbob-mixint", "ingested"),
                                                                 (str(tmp_path / "missing"), "failed")]
    assert st.algorithms() == ["RS"]
    again = st.ingest("archive:bbob-mixint/", archive_url=server.url)
    assert [s.status for s in again.sources] == ["unchanged"]
    with pytest.raises(ArchiveError, match="matches no data set"):
        st.ingest("archive:nothing-like-this", archive_url=server.url)


def test_report_compares_with_an_archived_data_set(server, env, tmp_path):
    # acceptance: `cocopipe report data/sample/... archive:NAME` end to end, naming archive and hash
    out = tmp_path / "report"
    res = cli("report", str(ROOT / "data/sample/RS_on_bbob.tgz"), "archive:bbob/2009/DIRECT!", "--out", str(out),
              "--renderer", "svg", "--archive-url", server.url, "--jobs", "1", "-d", "2", "-d", "5")
    assert res.exit_code == 0, res.stderr
    sha = hashlib.sha256((server.root / DIRECT).read_bytes()).hexdigest()
    settings = json.loads((out / "settings.json").read_text())
    assert settings["sources"] == [str(ROOT / "data/sample/RS_on_bbob.tgz"), "archive:bbob/2009/DIRECT!"]
    by_alg = {d["algorithm"]: d for d in settings["record"]["data_sets"]}
    assert by_alg["DIRECT"]["archive"] == DIRECT and by_alg["DIRECT"]["sha256"] == sha
    assert by_alg["DIRECT"]["archive_url"] == f"{server.url}/{DIRECT}"
    assert by_alg["RS"]["archive"] is None
    page = (out / "settings.html").read_text()
    assert sha in page and f"{server.url}/{DIRECT}" in page


def test_report_with_a_data_set_that_cannot_be_fetched_is_an_error(server, env, tmp_path):
    server.faults[DIRECT] = ["corrupt"]
    res = cli("report", str(ROOT / "data/sample/RS_on_bbob.tgz"), "archive:bbob/2009/DIRECT!", "--out",
              str(tmp_path / "report"), "--archive-url", server.url)
    assert "hash mismatch" in one_error(res, f"archive:{DIRECT}")
    assert not (tmp_path / "report").exists()
    res = cli("report", "archive:nothing-like-this", "--out", str(tmp_path / "report"), "--archive-url", server.url)
    assert "closest" in one_error(res, "archive:nothing-like-this")
