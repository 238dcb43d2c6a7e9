"""One corpus case in one framework, in a fresh process (run.py starts it twice: torch, then npgrad).

    python tools/realworld/child.py CASE SRC torch|npgrad STATE.npz OUT.json

The PyTorch run writes the initial weights of every module of the job to STATE.npz; the npgrad run loads
them before its first step, so both start from the same point whatever their generators draw. Writes the
losses (step 0, after each optimizer step) or the first error to OUT.json.
"""
import json
import os
import random
import sys
import traceback

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def _as_tensors(torch, batch):
    return tuple(torch.from_numpy(np.ascontiguousarray(a)) if isinstance(a, np.ndarray) else a for a in batch)


def _share_initial_state(torch, lib, modules, path, first=0):
    """PyTorch's run writes the modules' initial state to ``path``; npgrad's loads it. ``first`` numbers
    modules that appear one at a time (script mode), each to its own file."""
    for i, m in enumerate(modules, first):
        file = f"{path[:-4]}.{i}.npz"
        if lib == "torch":
            np.savez(file, **{k: v.detach().cpu().numpy() for k, v in m.state_dict().items()
                              if isinstance(v, torch.Tensor)})
            continue
        data = np.load(file)
        m.load_state_dict({k: torch.from_numpy(data[k].copy()) for k in data.files}, strict=False)


def _first_program_frame(tb, src):
    """Where the error surfaced in the program's own code (the line a user would look at)."""
    frames = [f for f in traceback.extract_tb(tb) if f.filename.startswith(src)]
    if frames:
        f = frames[-1]
        return f"{os.path.relpath(f.filename, src)}:{f.lineno}: {f.line}"
    return ""


def run(case_name, src, lib, state_path):
    if lib == "npgrad":
        import npgrad
        npgrad.alias_torch()
    import torch
    sys.path.insert(0, HERE)
    import cases  # noqa: F401  (registers every case)
    from corpus import CASES, run_script
    c = CASES[case_name]
    torch.manual_seed(0)
    random.seed(0)
    np.random.seed(0)
    if c.setup is not None:
        c.setup(torch)
    if c.script is not None:
        count = [0]

        def share(module):
            _share_initial_state(torch, lib, [module], state_path, first=count[0])
            count[0] += 1
        return run_script(torch, src, c.script, c.steps, share, c.after_loop)
    job = c.build(torch, src, np.random.default_rng(0))
    _share_initial_state(torch, lib, [job.model, *job.extra_modules], state_path)
    losses = []
    batches = [_as_tensors(torch, b) for b in job.batches]
    for i in range(c.steps):
        batch = batches[i % len(batches)]
        if job.step is not None:
            losses.append(float(job.step(batch)))
            continue
        job.optimizer.zero_grad()
        loss = job.loss(batch)
        losses.append(float(loss))
        loss.backward()
        job.optimizer.step()
        if job.scheduler is not None:
            job.scheduler.step()
    with torch.no_grad():
        losses.append(float(job.loss(batches[0]) if job.step is None else job.evaluate(batches[0])))
    return losses


def main():
    case_name, src, lib, state_path, out_path = sys.argv[1:6]
    try:
        result = {"ok": True, "losses": run(case_name, src, lib, state_path)}
    except BaseException as e:  # the first error is the measurement, whatever it is
        result = {"ok": False, "error": f"{type(e).__name__}: {e}".splitlines()[0][:300],
                  "where": _first_program_frame(e.__traceback__, src)}
    with open(out_path, "w") as f:
        json.dump(result, f)


if __name__ == "__main__":
    main()
