"""Make the small sample shipped in data/sample/ from the shared COCO archives (dimensions 2, 3, 5).

usage: python data/make_sample.py ../shared/data   (run from the repository root)
"""
import io
import re
import sys
import tarfile
from pathlib import Path

KEEP_DIMS = {2, 3, 5}
SETS = ["real/DIRECT_posik_noiseless.tgz", "generated/NM_on_bbob.tgz",
        "generated/RS_on_bbob.tgz"]


def dim_of(line: str) -> int | None:
    m = re.search(r"\bDIM\s*=\s*(\d+)", line)
    return int(m.group(1)) if m else None


def main(shared: str) -> None:
    for rel in SETS:
        src = Path(shared) / rel
        out = Path(__file__).parent / "sample" / src.name
        with tarfile.open(src) as tin, tarfile.open(out, "w:gz") as tout:
            for m in tin:
                if not m.isfile():
                    continue
                data = tin.extractfile(m).read()
                name = m.name
                d = re.search(r"_DIM(\d+)\.", name)
                if d and int(d.group(1)) not in KEEP_DIMS:
                    continue
                if name.endswith(".rdat") or name.endswith(".mdat"):
                    continue
                if name.endswith(".info"):
                    lines, text = data.decode("latin-1").splitlines(), []
                    for i in range(0, len(lines) - 2, 3):
                        if dim_of(lines[i]) in KEEP_DIMS:
                            text += lines[i:i + 3]
                    data = ("\n".join(text) + "\n").encode("latin-1")
                info = tarfile.TarInfo(name)
                info.size = len(data)
                tout.addfile(info, io.BytesIO(data))
        print(out, out.stat().st_size)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "../shared/data")
