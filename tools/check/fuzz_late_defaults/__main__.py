import sys

from tools.check.fuzz_late_defaults.cli import main

sys.exit(main())
