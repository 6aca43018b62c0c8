import sys

from groklab.cli import main

sys.exit(main())
