"""A figure that says why it is empty ("no data for f3 in 40-D"): a one-page PDF written directly (Helvetica,
no library), so that a template's \\includegraphics of a function or dimension the data lack still compiles."""
from __future__ import annotations

import textwrap

#: the page size in PostScript points (4:3, as the charts)
WIDTH, HEIGHT = 288, 216


def _pdf_string(s: str) -> str:
    """A PDF literal string (Latin-1; other characters as ?)."""
    s = s.encode("latin-1", "replace").decode("latin-1")
    return "(" + s.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") + ")"


def placeholder_pdf(message: str) -> bytes:
    """The bytes of a PDF page with a grey frame and `message`, centred on a few lines."""
    lines = textwrap.wrap(message, 38) or [""]
    size, lead = 14, 18
    y0 = HEIGHT / 2 + (len(lines) - 1) * lead / 2
    text = "".join(f"BT /F1 {size} Tf {max(8, WIDTH / 2 - len(ln) * size * 0.26):.1f} {y0 - i * lead:.1f} Td "
                   f"{_pdf_string(ln)} Tj ET\n" for i, ln in enumerate(lines))
    content = f"0.6 G 2 w 4 4 {WIDTH - 8} {HEIGHT - 8} re S\n0.3 g\n{text}".encode("latin-1")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {WIDTH} {HEIGHT}] /Contents 4 0 R "
        f"/Resources << /Font << /F1 5 0 R >> >> >>".encode(),
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"endstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    ]
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for i, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)
