#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Draws bench/results/cost.png from the committed results: the checked/unchecked time ratio of
every benchmark in each bench/results/*.md (GPU runs and emulation runs, labelled by file), and
the registers each kernel uses with checks off and on (bench/results/static-costs.md).

    python3 -m pip install matplotlib && python3 bench/tools/plot.py
"""
import pathlib
import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent


def ratios(path):
    """The checked/unchecked ratio of each benchmark; a file of several runs gives its last."""
    rows = {}
    for line in path.read_text().splitlines():
        m = re.match(r"\| `([^`]+)` \| [\d.]+ us \| [\d.]+ us \| ([\d.]+) \|", line)
        if m:
            rows[m.group(1).replace("/real_time", "").replace("/manual_time", "")] = float(m.group(2))
    return list(rows.items())


def registers(path):
    rows = []
    for line in path.read_text().splitlines():
        m = re.match(r"\| `([^`]+)` \| [^|]+ \| (\d+) / (\d+) ", line)
        if m:
            rows.append((m.group(1), int(m.group(2)), int(m.group(3))))
    return rows


def main():
    results = [p for p in sorted((HERE.parent / "results").glob("*.md")) if ratios(p)]  # files with checked/unchecked rows
    static = registers(HERE.parent / "results" / "static-costs.md")
    fig, axes = plt.subplots(1 + len(results), 1, figsize=(11, 4 + 4 * len(results)))
    axes = list(axes) if len(results) else [axes]

    ax = axes[0]
    names = [r[0] for r in static]
    ax.barh([i - 0.2 for i in range(len(names))], [r[1] for r in static], height=0.4, label="checks off")
    ax.barh([i + 0.2 for i in range(len(names))], [r[2] for r in static], height=0.4, label="checks on")
    ax.set_yticks(range(len(names)), names, fontsize=8)
    ax.set_xlabel("registers per thread (ptxas, sm_90)")
    ax.set_title("Registers per kernel (bench/results/static-costs.md)")
    ax.legend()

    for ax, path in zip(axes[1:], results):
        rows = ratios(path)
        ax.barh(range(len(rows)), [r[1] for r in rows], color=["#888" if r[0].startswith("copy") else "#3a7" for r in rows])
        ax.axvline(1.0, color="black", linewidth=0.8)
        ax.set_yticks(range(len(rows)), [r[0] for r in rows], fontsize=8)
        ax.set_xlabel("checked / unchecked time")
        ax.set_title(f"Checked against unchecked: {path.stem}")
    fig.tight_layout()
    out = HERE.parent / "results" / "cost.png"
    fig.savefig(out, dpi=90)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
