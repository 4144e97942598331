import sys

from tools.ecosystem.cli import main

sys.exit(main())
