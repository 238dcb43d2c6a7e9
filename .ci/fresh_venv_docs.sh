#!/usr/bin/env bash
# The README followed literally in a fresh virtualenv, as a new user would: install, the main job, the
# documentation site with the [docs] extra alone (no other extra, so a page that needs an optional package
# fails here), and every internal link of the built site followed in headless Chromium from file://.
# Needs only python and pip (Chromium is installed with apt-get when missing). A few minutes; .ci/run calls it.
set -euo pipefail
cd "$(dirname "$0")/.."
unset PYTHONPATH                     # only what the virtualenv installed may be imported

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
step() { printf '\n== %s (%ss)\n' "$1" "$SECONDS"; }

step "fresh virtualenv"
python -m venv "$work/venv"
source "$work/venv/bin/activate"
python -m pip install --quiet --upgrade pip

step "README, Install: pip install -e ."
python -m pip install --quiet -e .

step "README, the main job: npgrad train mnist (capped at 200 steps for CI's time)"
# The README's command; its outputs go to a scratch folder instead of the checkout's runs/.
npgrad train mnist --max-steps 200 --progress plain --out "$work/runs/mnist" | tee "$work/train.log"
grep -q "test accuracy" "$work/train.log"
test -s "$work/runs/mnist/model.npgrad"

step "README, Documentation: pip install -e \".[docs]\" && mkdocs build --strict"
python -m pip install --quiet -e ".[docs]"
python -m pip list 2>/dev/null | grep -iE '^(tensorboard|onnx|mpi4py|torch) ' && {
  echo "the [docs] extra pulled in another extra's package: this check would no longer show [docs] is enough"; exit 1; }
mkdocs build --strict -d "$work/site"

step "the site opened from disk: every internal link, parsed and followed in headless Chromium"
if ! command -v chromium >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "chromium is not installed and cannot be installed here (needs root and apt-get): apt-get install chromium"
    exit 1
  fi
fi
python tools/check_site_links.py "$work/site" --browser

step "done"
