"""The hubconf.py npgrad.hub serves for pytorch/vision (a package so that installs carry the file)."""
