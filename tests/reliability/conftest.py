"""Hypothesis profiles for the property-based reliability tests.

Pick one with the environment variable HYPOTHESIS_PROFILE (default ``ci``):

* ``ci``: a bounded, deterministic run (derandomize: the same examples every run, no example database),
  fast enough for every CI job;
* ``dev``: a few hundred random examples per property, with the local example database so failures
  replay first;
* ``thorough``: thousands of random examples per property, for a long local run before a release:
  ``HYPOTHESIS_PROFILE=thorough python -m pytest tests/reliability --hypothesis-show-statistics``.
"""
import os

from hypothesis import HealthCheck, settings

_QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]

settings.register_profile("ci", max_examples=30, deadline=None, derandomize=True, database=None,
                          suppress_health_check=_QUIET, print_blob=True)
settings.register_profile("dev", max_examples=300, deadline=None, suppress_health_check=_QUIET, print_blob=True)
settings.register_profile("thorough", max_examples=3000, deadline=None, suppress_health_check=_QUIET,
                          print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
