"""Matplotlib figures embedded in the report as base64 PNG data URIs (no network needed to view)."""
from __future__ import annotations

import base64
import html
import io


def figure():
    """A new Agg figure and axes, independent of any interactive backend."""
    import matplotlib  # late: 0.6 s of start-up (measured), paid only by a report with PNG figures

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=(6.4, 4.0), dpi=110)


def png_data_uri(fig) -> str:
    """Render ``fig`` to PNG, close it, and return an ``<img>``-ready data URI."""
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", bbox_inches="tight")
    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def img_tag(fig, alt: str) -> str:
    return f'<img alt="{html.escape(alt, quote=True)}" src="{png_data_uri(fig)}">'
