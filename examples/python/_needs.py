"""What the examples need beyond interop_lab: imported, or said in one line (exit 1) instead of a traceback."""

import importlib
import os
import sys


def needs(module, what):
    """`module`, imported; where it does not import, says that this example needs `what` and exits 1."""
    try:
        return importlib.import_module(module)
    except Exception as error:  # not installed (ImportError), or a build that cannot load its CUDA libraries
        sys.exit(f"{os.path.basename(sys.argv[0])}: needs {what}: {module} does not import here ({error})")
