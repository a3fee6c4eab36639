"""`python3 -m agentrl_relay`, and the entry of the assembled single file."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
