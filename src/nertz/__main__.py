import sys

from nertz.cli import main

sys.exit(main())
