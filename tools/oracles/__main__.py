import sys

from tools.oracles.cli import main

sys.exit(main())
