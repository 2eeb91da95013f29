"""The command line as a whole: behaviour shared by every command."""
from __future__ import annotations

import subprocess
import sys

from conftest import ROOT
from pipeline.ingest import ingest
from pipeline.store import Store


def test_output_into_a_closed_pipe_ends_quietly(tmp_path):
    # `cocopipe runs --out - | head -1`: the reader stops after one line; no traceback on stderr
    st = Store(tmp_path / "store", create=True)
    ingest([ROOT / "data" / "sample" / "DIRECT_posik_noiseless.tgz"], st)
    proc = subprocess.Popen([sys.executable, "-m", "pipeline.cli", "runs", "--store", str(st.path), "--out", "-"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.wait(timeout=60)
    assert first.startswith(b"suite,algorithm,")
    assert "Traceback" not in err and "Broken pipe" not in err, err
    assert proc.returncode in (0, 141)
