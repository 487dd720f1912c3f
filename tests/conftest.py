import os
import sys

# Tests import their helpers (conformance.py, harness modules) from this folder.
sys.path.insert(0, os.path.dirname(__file__))
