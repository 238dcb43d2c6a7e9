"""The corpus of real PyTorch programs: each run under PyTorch and under npgrad, losses compared.

    python tools/realworld/run.py --mirrors DIR [--only NAME ...] [--page docs/compatibility.md]

DIR holds git snapshots of the programs' public repositories (``DIR/<owner>+<name>/repo``, the search
tool's fetch layout); nothing of the programs is stored in this project. For every case (cases/*.py) the
harness unpacks the files it reads from the snapshot's HEAD, runs the case once with PyTorch and once
with npgrad aliased as ``torch`` from the same initial weights and batches, and compares the step-0
loss (rtol 1e-4) and the losses after each optimizer step and at the end (rtol 1e-3). Each case's
deviations from the original program are printed beside its result. ``--page`` rewrites the corpus
table of that page (between its ``<!-- corpus:begin -->`` and ``<!-- corpus:end -->`` lines).
"""
import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cases  # noqa: E402,F401  (registers every case)
from corpus import CASES, mirror_git_dir, snapshot_commit, unpack  # noqa: E402

STEP0_RTOL, LATER_RTOL = 1e-4, 1e-3
BEGIN, END = "<!-- corpus:begin -->", "<!-- corpus:end -->"


def _child(name, src, lib, state, timeout):
    out = os.path.join(os.path.dirname(state), f"{lib}.json")
    env = dict(os.environ, PYTHONHASHSEED="0", OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MPLBACKEND="Agg")
    try:
        subprocess.run([sys.executable, os.path.join(HERE, "child.py"), name, src, lib, state, out],
                       env=env, timeout=timeout, capture_output=True, check=False, cwd=src)
    except subprocess.TimeoutExpired:
        return {"ok": False, "error": f"timed out after {timeout} s", "where": ""}
    if not os.path.exists(out):
        return {"ok": False, "error": "the process died without a result", "where": ""}
    with open(out) as f:
        return json.load(f)


def _close(a, b, rtol):
    return abs(a - b) <= rtol * max(abs(a), abs(b), 1e-8)


def run_case(c, mirrors, timeout):
    missing = [m for m in c.needs if importlib.util.find_spec(m) is None]
    if missing:
        return dict(result="not run", why=f"needs {', '.join(missing)} (pip install {' '.join(missing)})")
    try:
        git_dir = mirror_git_dir(mirrors, c.repo)
    except FileNotFoundError as e:
        return dict(result="not run", why=str(e))
    commit = snapshot_commit(git_dir)
    with tempfile.TemporaryDirectory(prefix="corpus-") as tmp:
        src = os.path.join(tmp, "src")
        unpack(git_dir, c.files, src)
        state = os.path.join(tmp, "init.npz")
        ref = _child(c.name, src, "torch", state, timeout)
        if not ref["ok"]:
            return dict(commit=commit, result="case broken", why=f"under PyTorch: {ref['error']} {ref['where']}")
        got = _child(c.name, src, "npgrad", state, timeout)
    if not got["ok"]:
        return dict(commit=commit, result="fails", why=f"{got['error']} ({got['where']})" if got["where"]
                    else got["error"], torch=ref["losses"])
    a, b = ref["losses"], got["losses"]
    ok = len(a) == len(b) and _close(a[0], b[0], STEP0_RTOL) and all(_close(x, y, LATER_RTOL) for x, y in zip(a[1:], b[1:]))
    return dict(commit=commit, result="matches" if ok else "differs", torch=a, npgrad=b,
                why="" if ok else f"losses torch {a} vs npgrad {b}")


def table(rows):
    lines = ["| program | source | snapshot | result | first error / note |", "|---|---|---|---|---|"]
    for c, r in rows:
        files = ", ".join(c.files)
        lines.append(f"| {c.name} | {c.repo}: {files} | {r.get('commit', '')[:10]} | {r['result']} | "
                     f"{r.get('why', '').replace('|', '/')} |")
    return "\n".join(lines)


def write_page(path, rows):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if BEGIN not in text or END not in text:
        raise SystemExit(f"{path} has no {BEGIN} ... {END} section to rewrite")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    n = sum(r["result"] == "matches" for _, r in rows)
    body = (f"\n{n} of {len(rows)} programs run and match PyTorch "
            f"(`python tools/realworld/run.py --mirrors DIR --page {path}`).\n\n{table(rows)}\n\n"
            "Deviations from each original program, as the harness prints them:\n\n" +
            "\n".join(f"- {c.name}: " + ("; ".join(c.deviations) or "none") for c, _ in rows) + "\n")
    with open(path, "w", encoding="utf-8") as f:
        f.write(head + BEGIN + body + END + tail)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mirrors", default=os.environ.get("NPGRAD_CORPUS_MIRRORS", "/work/.mirror"),
                    help="directory of the repositories' git snapshots (default $NPGRAD_CORPUS_MIRRORS)")
    ap.add_argument("--only", nargs="*", help="run these cases only")
    ap.add_argument("--page", help="rewrite the corpus table of this Markdown page")
    ap.add_argument("--timeout", type=float, default=600, help="seconds per run of one case in one framework")
    ap.add_argument("--list", action="store_true", help="list the cases and their deviations, run nothing")
    ap.add_argument("--results", help="a JSON file of earlier results: the cases run now replace theirs, and the page "
                                      "is written from all of them (so a few cases can be rerun alone)")
    args = ap.parse_args(argv)
    chosen = [CASES[n] for n in args.only] if args.only else list(CASES.values())
    if args.list:
        for c in chosen:
            print(f"{c.name:28s} {c.repo}: {', '.join(c.files)}\n    deviations: {'; '.join(c.deviations) or 'none'}")
        return 0
    rows = []
    for c in chosen:
        t0 = time.perf_counter()
        r = run_case(c, args.mirrors, args.timeout)
        rows.append((c, r))
        print(f"{c.name:28s} {r['result']:9s} {time.perf_counter() - t0:6.1f}s  {r.get('why', '')}", flush=True)
        for d in c.deviations:
            print(f"{'':28s}   deviation: {d}")
    n = sum(r["result"] == "matches" for _, r in rows)
    print(f"\n{n} of {len(rows)} programs run and match PyTorch")
    if args.results:
        saved = json.load(open(args.results)) if os.path.exists(args.results) else {}
        saved.update({c.name: r for c, r in rows})
        with open(args.results, "w") as f:
            json.dump(saved, f, indent=1)
        rows = [(c, saved[c.name]) for c in CASES.values() if c.name in saved]
        print(f"with the earlier results in {args.results}: "
              f"{sum(r['result'] == 'matches' for _, r in rows)} of {len(rows)}")
    if args.page:
        write_page(args.page, rows)
    return 0 if n == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
