"""``python -m desktop`` and the bundled executable: the same command line as ``hr-assistant``.

Without arguments the window opens; ``--self-check`` and the other commands work headless.
"""

import sys

from engine.cli import main

if __name__ == "__main__":
    sys.exit(main())
