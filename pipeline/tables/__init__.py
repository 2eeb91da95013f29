"""aRT tables with dispersion, success counts and significance tests (cocopp's pptable and
pptables), pairwise rank-sum tests, and their Markdown, HTML and LaTeX renderings; the tests themselves
are `pipeline.measures.significance`.

>>> from pipeline.api import open_store
>>> from pipeline.tables import art_table, to_markdown
>>> df = art_table(open_store("cocopipe-store", dimension=[5]), reference="DIRECT")  # doctest: +SKIP
>>> print(to_markdown(df))  # doctest: +SKIP
"""
from .art import art_table, pairwise_table, table_targets
from .markers import marker
from .render import fmt_num, fmt_sci, fmt_target, to_html, to_latex, to_markdown

__all__ = ["art_table", "pairwise_table", "table_targets", "to_markdown", "to_html", "to_latex", "fmt_num",
           "fmt_sci", "fmt_target", "marker"]
