"""``python -m npgrad.ops``: regenerate ops/_lazy_index.py from the operator registry.
``python -m npgrad.ops --list``: print every operator record (family, public names, methods, in-place kind)."""
import os
import sys

from npgrad import ops


def main(argv):
    if "--list" in argv:
        ops.load_lazy_families()
        for rec in sorted(ops._registry.RECORDS, key=lambda r: (r.family, r.name)):
            names = ", ".join(rec.names) or "-"
            print(f"{rec.family:12s} {names:40s} methods: {', '.join(rec.methods) or '-'}"
                  + (f"  in-place: {rec.inplace}" if rec.inplace else ""))
        print(f"{len(ops._registry.RECORDS)} records, {len(ops._registry.OPS)} public names, "
              f"{len(ops._registry.METHODS)} Tensor attributes")
    else:
        ops.write_lazy_index(os.path.join(os.path.dirname(os.path.abspath(ops.__file__)), "_lazy_index.py"))


# Only when run: a documentation tool that imports every module (mkdocstrings) must not rewrite the index.
if __name__ == "__main__":
    main(sys.argv[1:])
