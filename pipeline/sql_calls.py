"""What a SQL text may do in the query sandbox: read by sqlglot (tokens, then the syntax tree), never by
pattern matching on the text.

`sandboxed(sql, tables)` returns the text the engine runs, or raises `SQLRefused` (one line):

* a text beyond `MAX_BYTES`, `MAX_TOKENS` tokens or `MAX_DEPTH` nested brackets is refused before it is
  parsed, and a tree deeper than `MAX_DEPTH` after: a huge expression gets one line, not a stack overflow
  in the engine;
* the text is rebuilt from its tokens, every token in its plainest spelling: comments are dropped, strings
  (dollar-quoted ones too) become '...' and quoted names "...", and a token with no plain spelling
  (backticks, E'..', U&'..', parameters, non-ASCII outside strings and quoted names) is refused. The engine
  runs this text, so it cannot read anything differently from the checks below (no parser differential:
  dollar quoting, nested comments, backslashes or unicode quotes hide nothing);
* the tree must be one query (SELECT, UNION, ... with WITH): no ATTACH, COPY, PRAGMA, SET, INSTALL, LOAD,
  CREATE, second statement ...; every table it names is one of `tables` or a WITH name, unqualified, and
  no table function or file-reading function (`read_csv`, `read_text`, `glob`, `getenv`, ...) is called.
  With `allow_files` the last two checks are lifted.
"""
from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError
from sqlglot.tokens import Token, TokenType

#: the dialect the text is read in: DuckDB's, whose lexing (dollar quoting, nested comments, no backslash
#: escapes in '...', `//`) and functions Polars' SQL shares most
DIALECT = "duckdb"
MAX_BYTES = 100_000  #: longest query text (bytes of UTF-8)
MAX_TOKENS = 10_000  #: most tokens in a query
MAX_DEPTH = 200  #: deepest nesting of brackets, and of the syntax tree (the ready queries reach 14)

#: functions that reach files, the environment or the system in some SQL engine: refused unless files are allowed
FILE_PREFIXES = ("read_", "scan_", "write_", "sink_", "parquet_", "pg_read", "pg_ls", "pg_stat_file", "lo_",
                 "duckdb_", "iceberg_", "delta_")
FILE_FUNCTIONS = frozenset({
    "glob", "getenv", "sniff_csv", "load_extension", "current_setting", "set_config", "system", "shell",
    "query", "query_table", "file", "readfile", "writefile", "load_file", "copy", "dblink", "http_get",
})

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\s+[A-Za-z_][A-Za-z0-9_]*)*\Z")
_NUMBER = re.compile(r"(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?\Z")
_SYMBOLS = re.compile(r"[-+*/%<>=!|&^~:.,;()\[\]{}]+\Z")
_STRINGS = {TokenType.STRING, TokenType.HEREDOC_STRING}
_OPEN = {TokenType.L_PAREN, TokenType.L_BRACKET, TokenType.L_BRACE}
_CLOSE = {TokenType.R_PAREN, TokenType.R_BRACKET, TokenType.R_BRACE}
_QUERIES = (exp.Select, exp.SetOperation, exp.Subquery, exp.Values)


class SQLRefused(ValueError):
    """A query the sandbox does not run; the message is one line."""


def sandboxed(sql: str, tables: Iterable[str], *, allow_files: bool = False) -> str:
    """The text to run for `sql`, rebuilt from its tokens, after checking that it is one query over `tables`
    (and its WITH names) only; `SQLRefused` otherwise."""
    tokens = _tokens(sql)
    text = _rebuild(sql, tokens)
    tree = _parse(text)
    _check_depth(tree)
    if not isinstance(tree, _QUERIES):
        raise SQLRefused(f"only a query (SELECT ...) runs here, not {text.split()[0].upper()} ...")
    if not allow_files:
        _check_sources(tree, list(tables))
        _check_functions(tree)
    return text


def functions(sql: str) -> list[str]:
    """Names of the functions a query calls, as written (lower case), in order of first appearance."""
    tree = _parse(_rebuild(sql, _tokens(sql)))
    return list(dict.fromkeys(_name(f) for f in tree.find_all(exp.Func)))


#: tokens that end a SELECT list at its own level
_LIST_ENDS = {TokenType.FROM, TokenType.WHERE, TokenType.GROUP_BY, TokenType.HAVING, TokenType.ORDER_BY, TokenType.LIMIT,
              TokenType.UNION, TokenType.EXCEPT, TokenType.INTERSECT, TokenType.QUALIFY, TokenType.WINDOW,
              TokenType.OFFSET, TokenType.FETCH, TokenType.INTO}


def written_names(sql: str) -> list[str | None] | None:
    """The names a query's result columns have as written: per item of its outermost SELECT list, the item's
    text for a computed value without an alias (`count(*)`, `AVG(x <= 1e-8)`), None for an item that names
    itself (a column, an alias); None for the whole when the list holds a star or cannot be read item by item.

    >>> written_names("SELECT algorithm, count(*), AVG(final_delta <= 1e-8) AS solved FROM runs GROUP BY 1")
    [None, 'count(*)', None]
    >>> written_names("SELECT * FROM runs") is None
    True
    """
    tokens = _tokens(sql)
    tree = _parse(_rebuild(sql, tokens))
    while isinstance(tree, exp.SetOperation):  # a union's columns are named by its first query
        tree = tree.this
    if not isinstance(tree, exp.Select) or any(e.is_star for e in tree.expressions):
        return None
    items = _select_items(sql, tokens)
    if items is None or len(items) != len(tree.expressions):
        return None
    return [None if isinstance(e, (exp.Alias, exp.Column)) else text for e, text in zip(tree.expressions, items)]


def _select_items(sql: str, tokens: list[Token]) -> list[str] | None:
    """The text of each item of the first SELECT list outside brackets (blanks as one), None without one."""
    depth, items, start, end = 0, None, None, None
    for tok in tokens:
        top = depth == 0
        depth += (tok.token_type in _OPEN) - (tok.token_type in _CLOSE)
        if items is None:
            if top and tok.token_type == TokenType.SELECT:
                items = []
            continue
        if top and (tok.token_type in _LIST_ENDS or tok.token_type == TokenType.COMMA):
            if start is not None:
                items.append(" ".join(sql[start:end + 1].split()))
            if tok.token_type != TokenType.COMMA:
                return items
            start = None
            continue
        if start is None and not items and tok.token_type in (TokenType.DISTINCT, TokenType.ALL):
            return None  # DISTINCT ON (...) and the like: not read item by item
        start = tok.start if start is None else start
        end = tok.end
    if items is not None and start is not None:
        items.append(" ".join(sql[start:end + 1].split()))
    return items


# -- tokens ------------------------------------------------------------------------------------
def _tokens(sql: str) -> list[Token]:
    size = len(sql.encode("utf-8", "surrogatepass"))
    try:
        sql.encode("utf-8")
    except UnicodeEncodeError as exc:  # bytes of the command line that were no UTF-8 (Python keeps them as surrogates)
        raise SQLRefused(f"the query is not UTF-8 text (at character {exc.start + 1})") from None
    if size > MAX_BYTES:
        raise SQLRefused(f"the query is {size:,} bytes long; at most {MAX_BYTES:,} are run")
    if "\x00" in sql:
        raise SQLRefused("the query holds a NUL character")
    try:
        tokens = sqlglot.tokenize(sql, read=DIALECT)
    except TokenError as exc:
        raise SQLRefused(f"cannot read the query: {_first_line(exc)}") from None
    if len(tokens) > MAX_TOKENS:
        raise SQLRefused(f"the query has {len(tokens):,} tokens; at most {MAX_TOKENS:,} are run")
    depth = 0
    for tok in tokens:
        depth += (tok.token_type in _OPEN) - (tok.token_type in _CLOSE)
        if depth > MAX_DEPTH:
            raise SQLRefused(f"brackets nested deeper than {MAX_DEPTH} at {_where(sql, tok)}")
    while tokens and tokens[-1].token_type == TokenType.SEMICOLON:  # one statement: a final ';' is dropped
        tokens = tokens[:-1]
    if not tokens:
        raise SQLRefused("the query is empty")
    return tokens


def _rebuild(sql: str, tokens: list[Token]) -> str:
    """The text of `tokens`, each in its plainest spelling, apart where the original had anything between them
    (and around strings and quoted names, so that two strings never merge into one, nor a word prefix one)."""
    parts, end, quoted = [], None, False
    for tok in tokens:
        respelled = tok.token_type in _STRINGS or tok.token_type == TokenType.IDENTIFIER
        if end is not None and (tok.start > end + 1 or respelled or quoted):
            parts.append(" ")  # blanks or a comment between the two, or a quoted token: one blank
        parts.append(_spelling(sql, tok))
        end, quoted = tok.end, respelled
    return "".join(parts)


def _spelling(sql: str, tok: Token) -> str:
    if tok.token_type == TokenType.SEMICOLON:
        raise SQLRefused(f"more than one statement (a ';' at {_where(sql, tok)}): one query runs")
    if tok.token_type in _STRINGS:
        return "'" + tok.text.replace("'", "''") + "'"
    if tok.token_type == TokenType.IDENTIFIER:
        return '"' + tok.text.replace('"', '""') + '"'
    raw = sql[tok.start:tok.end + 1]
    if _WORD.match(raw) or _NUMBER.match(raw) or _SYMBOLS.match(raw):
        return " ".join(raw.split())
    shown = raw if len(raw) <= 20 else raw[:20] + "..."
    raise SQLRefused(f"unsupported token {shown!r} at {_where(sql, tok)} (strings are '...', "
                     "quoted names \"...\")")


def _where(sql: str, tok: Token) -> str:
    """Where a token starts in the text, as line and column (from 1)."""
    return f"line {sql.count(chr(10), 0, tok.start) + 1}, column {tok.start - sql.rfind(chr(10), 0, tok.start)}"


# -- the tree ----------------------------------------------------------------------------------
def _parse(text: str) -> exp.Expression:
    try:
        with _quiet():
            trees = [t for t in sqlglot.parse(text, read=DIALECT) if t is not None]
    except ParseError as exc:
        err = exc.errors[0] if exc.errors else {}
        where = f" at line {err['line']}, column {err['col']}" if "line" in err else ""
        if err.get("highlight"):
            where += f" near {err['highlight'][:30]!r}"
        what = err.get("description") or _first_line(exc)
        what = re.sub(r"<Token token_type: [^,]*, text: ([^,]*),[^>]*>", r"'\1'", what)
        what = re.sub(r" for <class '[\w.]*\.(\w+)'>", r" (\1)", what)
        raise SQLRefused(f"cannot parse the query{where}: {what}") from None
    except RecursionError:
        raise SQLRefused(f"the query is nested too deeply (at most {MAX_DEPTH} levels)") from None
    if len(trees) != 1:
        raise SQLRefused(f"{len(trees)} statements: one query runs")
    return trees[0]


@contextmanager
def _quiet() -> Iterator[None]:
    """sqlglot's warnings (a statement it reads as a bare command) not printed: the refusal says it."""
    log = logging.getLogger("sqlglot")
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        yield
    finally:
        log.setLevel(level)


def _check_depth(tree: exp.Expression) -> None:
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise SQLRefused(f"the query is nested deeper than {MAX_DEPTH} levels (a long chain of operators?)")
        stack.extend((child, depth + 1) for child in node.iter_expressions())


def _check_sources(tree: exp.Expression, tables: list[str]) -> None:
    """Every table named is a store table or a WITH name; nothing else is read (no table function)."""
    ctes = {cte.alias_or_name.lower() for cte in tree.find_all(exp.CTE)}
    allowed = {t.lower() for t in tables} | ctes
    for node in tree.find_all(exp.Table, exp.Lateral):
        target = node.this
        if isinstance(target, exp.Func):  # a table function
            raise SQLRefused(f"{_name(target)}() reads files: a query sees the store's tables and views only "
                             "(--allow-files to lift this)")
        if isinstance(node, exp.Lateral):  # a lateral subquery: its tables are checked as any others
            continue
        if not isinstance(target, exp.Identifier):
            raise SQLRefused(f"{node.sql(DIALECT)[:40]!r} is no table of the store; the tables are {', '.join(tables)}")
        if node.args.get("db") or node.args.get("catalog"):
            raise SQLRefused(f"{node.sql(DIALECT)}: qualified table names are not allowed; the tables are "
                             f"{', '.join(tables)}")
        if target.name.lower() not in allowed:
            raise SQLRefused(f"no table {target.name!r}; the tables are {', '.join(tables)}")


def _check_functions(tree: exp.Expression) -> None:
    for node in tree.find_all(exp.Func):
        name = _name(node)
        if name.startswith(FILE_PREFIXES) or name in FILE_FUNCTIONS or isinstance(node, (exp.ReadCSV, exp.ReadParquet)):
            raise SQLRefused(f"{name}() reads files: a query sees the store's tables and views only "
                             "(--allow-files to lift this)")


def _name(func: exp.Expression) -> str:
    """A function's name as written, lower case."""
    if isinstance(func, exp.Anonymous):
        return func.name.lower()
    return func.sql_name().lower()


def _first_line(exc: BaseException) -> str:
    return next((ln.strip() for ln in str(exc).splitlines() if ln.strip()), type(exc).__name__)
