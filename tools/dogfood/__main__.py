import sys

from tools.dogfood.cli import main

sys.exit(main())
