import os
import sys

# Tests import the shared oracle as `from oracle import ...`.
sys.path.insert(0, os.path.dirname(__file__))
