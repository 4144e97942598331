import sys

from tools.fuzz_late_defaults.cli import main

sys.exit(main())
