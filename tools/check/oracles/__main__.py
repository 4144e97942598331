import sys

from tools.check.oracles.cli import main

sys.exit(main())
