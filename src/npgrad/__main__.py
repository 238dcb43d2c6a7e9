"""``python -m npgrad ...`` runs the ``npgrad`` command line (see npgrad.cli)."""
from .cli import main

if __name__ == "__main__":
    raise SystemExit(main())
