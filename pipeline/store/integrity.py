"""The store checking itself: every source's counts held against the rows its tables' logs hold (from the
add actions' statistics: no data file is read), and the Delta logs themselves (a commit file missing, cut or
garbage, a checkpoint missing), each named by its file (docs/store.md)."""
from __future__ import annotations

import json
import os
import re
import stat
from dataclasses import dataclass
from urllib.parse import unquote

import polars as pl

from . import remote, schema
from .commits import why
from .delta import COMMIT, DERIVED, SOURCES, add_actions, file_paths, open_table
from .errors import StoreError

#: a Delta log's commit file and checkpoint file names
_COMMIT_FILE = re.compile(r"(\d{20})\.json")
_CHECKPOINT_FILE = re.compile(r"(\d{20})\.checkpoint(?:\.\d+\.\d+)?\.parquet")
LAST = "_last_checkpoint"


@dataclass
class Mismatch:
    """A source whose entry counts other rows of a table than the table's log holds for its commit."""

    key: str
    table: str
    commit: str
    counted: int
    held: int


class Log:
    """The `_delta_log` folder of a Delta table, local or on object storage: its files listed, read, moved."""

    def __init__(self, table_uri: str):
        self.uri = table_uri.rstrip("/") + "/_delta_log"
        if "://" in table_uri and not table_uri.startswith("file://"):
            self.fs, self.root = remote.filesystem(self.uri)
        else:
            import pyarrow.fs as pafs

            self.fs, self.root = pafs.LocalFileSystem(), table_uri.removeprefix("file://").rstrip("/") + "/_delta_log"

    def names(self) -> list[str]:
        """The names of the files in the log folder (none where there is no folder)."""
        import pyarrow.fs as pafs

        infos = self.fs.get_file_info(pafs.FileSelector(self.root, allow_not_found=True))
        return sorted(i.path.rsplit("/", 1)[-1] for i in infos if i.type == pafs.FileType.File)

    def read(self, name: str) -> bytes:
        with self.fs.open_input_stream(f"{self.root}/{name}") as fh:
            return fh.read()

    def move(self, name: str, dest: str) -> None:
        """Move a file of the log to the folder `dest` (a path of the same file system)."""
        self.fs.create_dir(dest, recursive=True)
        self.fs.move(f"{self.root}/{name}", f"{dest}/{name}")

    def name(self, file: str) -> str:
        return f"{self.uri}/{file}"


def _versions(names: list[str], pattern: re.Pattern) -> dict[int, str]:
    return {int(m.group(1)): n for n in names if (m := pattern.fullmatch(n))}


def _bad_json(data: bytes) -> str | None:
    """Why a commit file's text is not a Delta commit (None: every line is a JSON object of one action)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return "not UTF-8 text"
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if not lines:
        return "empty"
    for i, line in enumerate(lines, 1):
        try:
            action = json.loads(line)
        except ValueError as exc:
            return f"line {i} is not JSON ({exc.msg})"
        if not isinstance(action, dict) or len(action) != 1:
            return f"line {i} is not one Delta action"
    return None


@dataclass
class LogDamage:
    """A Delta log's damage: the file (a name in the log), what is wrong, the first version it takes away."""

    log: Log
    file: str
    detail: str
    version: int

    def __str__(self) -> str:
        return f"{self.log.name(self.file)}: {self.detail}"


def _checkpoint_damage(log: Log, names: list[str], commits: dict[int, str]) -> tuple[int, LogDamage | None]:
    """The version the log's commits must run on from, and the damage of its checkpoints (`_last_checkpoint`
    naming a checkpoint that is not there; the first commits gone with no checkpoint after them)."""
    checkpoints = _versions(names, _CHECKPOINT_FILE)
    start = min(commits) if commits else 0
    if LAST in names:
        try:
            at = int(json.loads(log.read(LAST))["version"])
        except (ValueError, KeyError, TypeError) as exc:
            return start, LogDamage(log, LAST, f"not a Delta checkpoint pointer ({' '.join(str(exc).split())[:80]})", -1)
        if at not in checkpoints:
            missing = f"names the checkpoint of version {at}, which is not there"
            if start == 0 and all(v in commits for v in range(at + 1)):
                return 0, LogDamage(log, LAST, f"{missing} (the commits before it are there: it can be "
                                               "rebuilt)", -1)
            return at + 1, LogDamage(log, LAST, f"{missing}, nor all the commits before it", 0)
    if start == 0:
        return 0, None
    base = max((v for v in checkpoints if v >= start - 1), default=None)
    if base is None:
        return start, LogDamage(log, f"{start - 1:020d}.json", f"the commits up to version {start - 1} are gone and "
                                                               "no checkpoint holds them", 0)
    return base + 1, None


def log_damage(table_uri: str) -> list[LogDamage]:
    """What is wrong with a Delta table's log: `_last_checkpoint` naming a checkpoint not there, a commit file
    missing between others (a gap), a commit file cut or garbage. Reads the log's commit files only."""
    log = Log(table_uri)
    names = log.names()
    commits = _versions(names, _COMMIT_FILE)
    if not commits and not names:
        return []
    start, damage = _checkpoint_damage(log, names, commits)
    out = [damage] if damage is not None else []
    latest = max(commits, default=start - 1)
    for v in range(start, latest + 1):
        if v not in commits:
            out.append(LogDamage(log, f"{v:020d}.json", f"commit file missing (the log holds version {latest})", v))
            break
        why = _bad_json(log.read(commits[v]))
        if why is not None:
            out.append(LogDamage(log, commits[v], f"damaged commit file: {why}", v))
            break
    return out


def held(dt) -> dict[str, int]:
    """The rows of each commit a Delta table's version holds, from the statistics of its add actions; the
    commit column of the few files holding several commits (one append of several sources) read."""
    adds = add_actions(dt)
    lo, hi = f"min.{COMMIT}", f"max.{COMMIT}"
    if not adds.height:
        return {}
    if lo not in adds.columns or "num_records" not in adds.columns:
        return _read_counts(file_paths(dt, adds))
    one = adds.filter(pl.col(lo) == pl.col(hi))
    out = dict(one.group_by(lo).agg(pl.col("num_records").sum()).rows())
    many = adds.filter((pl.col(lo) != pl.col(hi)) | pl.col(lo).is_null() | pl.col("num_records").is_null())
    for c, n in _read_counts(file_paths(dt, many)).items():
        out[c] = out.get(c, 0) + n
    return out


def _read_counts(files: list[str]) -> dict[str, int]:
    if not files:
        return {}
    opts = remote.polars_options(files[0]) if "://" in files[0] else None
    lf = pl.scan_parquet(files, storage_options=opts, glob=False, hive_partitioning=False, missing_columns="insert",
                         extra_columns="ignore", schema={COMMIT: pl.String})
    return dict(lf.group_by(COMMIT).len().collect().rows())


def _counted(entry: dict, table: str) -> int | None:
    n = entry.get(table)
    return n if isinstance(n, int) and not isinstance(n, bool) else None


def mismatches(store) -> list[Mismatch]:
    """Every source (and derived table) counting other rows of a table than the table holds for its commit."""
    out = []
    sources = store.sources()
    tables = store.tables_opened()
    for table in schema.TABLES:
        dt = tables.get(table)
        have = held(dt) if dt is not None else {}
        for key, e in sources.items():
            n = _counted(e, table)
            if n is not None and have.get(e[COMMIT], 0) != n:
                out.append(Mismatch(key, table, e[COMMIT], n, have.get(e[COMMIT], 0)))
    for name, e in store.derived().items():
        dt = tables.get(f"{DERIVED}/{name}")
        n = _counted(e, "rows")
        got = held(dt).get(e[COMMIT], 0) if dt is not None else 0
        if n is not None and got != n:
            out.append(Mismatch(f"derived table {name}", f"{DERIVED}/{name}", e[COMMIT], n, got))
    return out


def _actions(log: Log) -> list[tuple[int, dict]]:
    """(version, action) of every commit file of a log that reads (the error path: a log of a few hundred files)."""
    out = []
    for v, name in sorted(_versions(log.names(), _COMMIT_FILE).items()):
        try:
            lines = log.read(name).decode("utf-8").splitlines()
            out += [(v, json.loads(ln)) for ln in lines if ln.strip()]
        except (OSError, ValueError):
            continue
    return out


def _commit_of(add: dict) -> tuple[str | None, str | None]:
    try:
        stats = json.loads(add.get("stats") or "{}")
    except ValueError:
        return None, None
    return (stats.get("minValues") or {}).get(COMMIT), (stats.get("maxValues") or {}).get(COMMIT)


def explain(store, m: Mismatch) -> str | None:
    """What took a source's rows from a table: the table's folder gone, a commit file of its log gone (and the
    data files no version names), a file removed by a later version; None where nothing of it is found missing
    (the entry miscounts)."""
    uri = store.uri(m.table)
    log = Log(uri)
    if not log.names():
        return f"the {m.table} table is gone ({log.uri} not found)"
    acts = _actions(log)
    added = {a["add"]["path"]: v for v, a in acts if "add" in a and m.commit in _commit_of(a["add"])}
    removed = {a["remove"]["path"]: v for v, a in acts if "remove" in a}
    gone = [(p, v, removed[p]) for p, v in added.items() if p in removed and removed[p] >= v]
    if gone:
        p, v, r = gone[0]
        more = f" (and {len(gone) - 1} more)" if len(gone) > 1 else ""
        return (f"its file {uri}/{unquote(p)}, added by {log.name(f'{v:020d}.json')}, was removed by "
                f"{log.name(f'{r:020d}.json')}{more}")
    named = any(m.commit in str(a["commitInfo"].get("cocopipe.commit", "")).split(",") for _, a in acts if "commitInfo" in a)
    if not named and not _versions(log.names(), _CHECKPOINT_FILE):
        dt = open_table(uri)
        loose = _loose_files(store, m.table, dt) if dt is not None else []
        also = f"; files on disk that no version names: {', '.join(loose[:3])}" if loose else ""
        return f"no commit file of {log.uri} names commit {m.commit} (its commit file was removed){also}"
    return None


def _loose_files(store, table: str, dt) -> list[str]:
    """The data files of a local table's folders that its version does not name (a removed commit's)."""
    if store.location.local is None:
        return []
    root = store.location.local / table
    named = set(file_paths(dt))
    return sorted(str(p) for p in root.rglob("*.parquet") if "_delta_log" not in p.parts and str(p) not in named)


def damage_said(store) -> str | None:
    """One line naming the first damaged file of the store's Delta logs (None where every log reads)."""
    for name in (SOURCES, DERIVED, *schema.TABLES):
        try:
            found = log_damage(store.uri(name))
        except Exception:  # noqa: BLE001 - the log cannot even be listed: the caller's own error says why
            return None
        if found:
            return (f"{found[0]}; `cocopipe check --store {store.path} --repair` mends the log where it can "
                    "and names what it cannot")
    return None


def whole_or_error(store) -> None:
    """StoreError naming the source, the table and what is missing where a source's counts are not what the
    store's tables hold (never a smaller answer)."""
    bad = mismatches(store)
    if not bad:
        return
    m = bad[0]
    more = f" (and {len(bad) - 1} more)" if len(bad) > 1 else ""
    why = explain(store, m)
    raise StoreError(f"{store.path}: source {m.key}: counts {m.counted} rows of the {m.table} table, the table holds "
                     f"{m.held}{': ' + why if why else ''}{more}; `cocopipe check --store {store.path} --repair` drops what "
                     f"is lost (re-ingest the source to restore it)")


#: the types of the fields of a source's entry that cocopipe reads (a field absent is not checked)
_LISTS = ("suites", "algorithms", "coco_versions", "data_formats")
_INTS = ("runs", "events", "archive", "params", "problems", "runs_skipped")
_STRS = ("key", "name", "source_id", "commit_id")


def entry_problem(e: dict) -> str | None:
    """Which field of a source's entry is not of the type cocopipe writes (None: every field read is)."""
    for f in _LISTS:
        if f in e and not (isinstance(e[f], list) and all(isinstance(v, str) for v in e[f])):
            return f"its field {f!r} is {json.dumps(e[f])[:40]}, not a list of names"
    for f in _INTS:
        if f in e and (not isinstance(e[f], int) or isinstance(e[f], bool) or e[f] < 0):
            return f"its field {f!r} is {json.dumps(e[f])[:40]}, not a count"
    for f in _STRS:
        if f in e and not isinstance(e[f], str):
            return f"its field {f!r} is {json.dumps(e[f])[:40]}, not a string"
    sv = e.get("schema_versions")
    if sv is not None and not (isinstance(sv, dict) and all(isinstance(v, str) for v in sv.values())):
        return f"its field 'schema_versions' is {json.dumps(sv)[:40]}, not the versions of its tables"
    return None


def made_from(store, commits) -> dict[str, str]:
    """A short fingerprint of what each commit's rows are made of: the data files of the `runs` and `events`
    tables holding them (from the logs). A cache keyed on it never answers from rows a repair dropped since."""
    import hashlib

    want = set(commits)
    files: dict[str, list[str]] = {c: [] for c in want}
    tables = store.tables_opened()
    for table in ("runs", "events"):
        dt = tables.get(table)
        if dt is None:
            continue
        adds = add_actions(dt)
        lo, hi = f"min.{COMMIT}", f"max.{COMMIT}"
        if lo not in adds.columns:
            continue
        for c, paths in adds.filter(pl.col(lo) == pl.col(hi)).group_by(lo).agg(pl.col("path")).rows():
            if c in want:
                files[c] += [f"{table}/{p}" for p in paths]
        for a, b, p in adds.filter(pl.col(lo) != pl.col(hi)).select(lo, hi, "path").rows():
            files.update({c: [*files[c], f"{table}/{p}"] for c in want if a <= c <= b})
    return {c: hashlib.sha256("\n".join(sorted(fs)).encode()).hexdigest()[:12] for c, fs in files.items()}


def verify_files(store) -> None:
    """`Store.verify`: StoreError (one line naming the file) unless every file of committed rows the snapshot's tables list
    is there with the size written (local stores: a stat per file), and every source counts the rows its
    tables' logs hold for its commit (`integrity`), so that a read never silently misses data, nor hands a
    cut file to a reader."""
    if store.__dict__.get("_verified") == store.stamp():
        return
    for name, dt in store.tables_opened().items():
        if dt is None:
            continue
        adds, lo = add_actions(dt), f"min.{COMMIT}"
        if lo in adds.columns:  # the files of rows no commit names (a killed or replaced write) are not read
            adds = adds.filter(pl.col(lo).is_in(store.snapshot.committed))
        if not adds.height:
            continue
        if store.location.local is None:
            verify_remote(store, name, dt, adds)
            continue
        for uri, size in zip(file_paths(dt, adds), adds["size_bytes"]):
            try:
                st = os.stat(uri)
            except OSError:
                st = None
            if st is None or not stat.S_ISREG(st.st_mode):
                raise StoreError(f"{uri}: missing from the store (listed by its {name} table); `cocopipe check "
                                 f"--store {store.path} --repair` drops what is lost (re-ingest the source to restore it)")
            if size is not None and st.st_size != size:  # cut or overwritten: never handed to a reader
                raise StoreError(f"{uri}: damaged ({st.st_size} bytes, its {name} table wrote {size}); "
                                 f"`cocopipe check --store {store.path} --repair` moves it out of the store")
    whole_or_error(store)  # every source's counts are what its tables hold (from their logs)
    store.__dict__["_verified"] = store.stamp()


def verify_remote(store, name: str, dt, adds: pl.DataFrame) -> None:
    """As `verify`, for a table on object storage: the objects missing, by delta-rs's own check (a dry run
    of its repair; delta-rs's client works where pyarrow's S3 client cannot start, as in a confined query)."""
    try:
        gone = set(dt.repair(dry_run=True).get("files_removed", []))
    except Exception as exc:  # noqa: BLE001
        raise StoreError(damage_said(store) or f"{store.path}: cannot read the store ({why(exc)})") from None
    for rel in adds["path"]:
        if unquote(rel) in gone:
            raise StoreError(f"{store.uri(name)}/{unquote(rel)}: missing from the store (listed by its {name} table); "
                             f"`cocopipe check --store {store.path} --repair` drops what is lost (re-ingest the "
                             f"source to restore it)")
